"""Prompt templates from the literature, named and cited, and the parsing of their replies.

- "umbrela": UMBRELA (Upadhyay et al., 2024), the open reproduction of Thomas et al.'s prompt used for TREC 2024
  RAG's qrels: a 0-3 scale, the reply ending in `##final score: N`.
- "dna": Thomas, Spielman, Craswell and Mitra, "Large language models can accurately predict searcher preferences"
  (SIGIR 2024): description, narrative and aspects (M, T) before an overall score O on 0-2, as JSON.
- "binary": relevant or not, `##final score: 0|1`.

A reply that does not parse, or a grade off the template's scale, is a failure (PromptReplyError), never a guessed
grade. The document is cut to a token budget, counted as words (about 0.75 of a model's tokens for English).
"""

from __future__ import annotations

import hashlib
import json
import re
import string
from dataclasses import dataclass


class PromptReplyError(ValueError):
    """The model's reply carries no grade the template can read, or one off its scale."""


@dataclass(frozen=True)
class Template:
    name: str
    version: str  # part of the cache key: a change of wording is a new version
    scale: tuple[int, int]
    text: str
    reply: str  # "final_score" | "dna_json"


UMBRELA = Template(
    "umbrela",
    "umbrela-1",
    (0, 3),
    """Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the following meanings:
0 = represent that the passage has nothing to do with the query,
1 = represents that the passage seems related to the query but does not answer it,
2 = represents that the passage has some answer for the query, but the answer may be a bit unclear, or hidden amongst extraneous information and
3 = represents that the passage is dedicated to the query and contains the exact answer.

Important Instruction: Assign category 1 if the passage is somewhat related to the topic but not completely, category 2 if passage presents something very important related to the entire topic but also has some extra information and category 3 if the passage only and entirely refers to the topic. If none of the above satisfies give it category 0.

Query: {title}
Passage: {document}

Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the passage is (T).
Consider the aspects above and the relative importance of each, and decide on a final score (O). Final score must be an integer value only.
Do not provide any code in result. Provide each score in the format of: ##final score: score without providing any reasoning.""",
    "final_score",
)

DNA = Template(
    "dna",
    "dna-1",
    (0, 2),
    """You are a search quality rater evaluating the relevance of web pages. Given a query and a web page, you must provide a score on an integer scale of 0 to 2 with the following meanings:
2 = highly relevant, very helpful for this query
1 = relevant, may be partly helpful but might contain other irrelevant content
0 = not relevant, should never be shown for this query

Assume that you are writing a report on the subject of the topic. If you would use any of the information contained in the web page in such a report, mark it 1. If the web page is primarily about the topic, or contains vital information about the topic, mark it 2. Otherwise, mark it 0.

Query
A person has typed [{title}] into a search engine.
They were looking for: {description}
{narrative}

Result
Consider the following web page.
—BEGIN WEB PAGE CONTENT—
{document}
—END WEB PAGE CONTENT—

Instructions
Split this problem into steps:
Consider the underlying intent of the search.
Measure how well the content matches a likely intent of the query (M).
Measure how trustworthy the web page is (T).
Consider the aspects above and the relative importance of each, and decide on a final score (O).
Produce a JSON array of scores without providing any reasoning. Example: [{{"M": 2, "T": 1, "O": 1}}, ...]""",
    "dna_json",
)

BINARY = Template(
    "binary",
    "binary-1",
    (0, 1),
    """Given a query and a passage, decide whether the passage is relevant to the query: 1 if it answers the query at least in part, 0 if it does not.

Query: {title}
{description}
Passage: {document}

Give only your decision in the format: ##final score: 0 or ##final score: 1""",
    "final_score",
)

TEMPLATES = {template.name: template for template in (UMBRELA, DNA, BINARY)}
_FINAL_SCORE = re.compile(r"##\s*final score:\s*(-?\d+)", re.IGNORECASE)


def custom(text: str, *, scale: tuple[int, int], name: str = "custom") -> Template:
    """An admin's own template: its placeholders are {title}, {description}, {narrative} and {document}; its
    reply must end in `##final score: N` on `scale`. Its version is its text's, so editing it starts afresh."""
    version = "custom-" + hashlib.sha256(f"{scale}{text}".encode()).hexdigest()[:12]
    return Template(name, version, scale, text, "final_score")


PLACEHOLDERS = ("title", "description", "narrative", "document")


MAX_PROMPT_CHARS = 200_000  # a rendered prompt's bound: a topic's texts are short, the document is cut to words


def template_problem(text: str) -> str | None:
    """Why an admin's template cannot be used (a placeholder that is not one of PLACEHOLDERS, an unclosed brace, a
    conversion or format spec, no {document}), or None. A placeholder is `{name}` and nothing more: `{title:>2000000000}`
    would pad a prompt to gigabytes and `{title!r}` shows Python's quoting. A literal brace is written twice, as in
    Python's str.format."""
    try:
        parts = [(name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(text)]
    except ValueError as error:
        return f"the template's braces do not pair up ({error}); write a literal brace twice: {{{{ or }}}}"
    fields = [name for name, _, _ in parts if name is not None]
    unknown = sorted({name for name in fields if name not in PLACEHOLDERS})
    if unknown:
        return f"unknown placeholder {{{unknown[0]}}}; the placeholders are " + ", ".join(
            "{" + p + "}" for p in PLACEHOLDERS
        )
    for name, spec, conversion in parts:
        if name is not None and (spec or conversion):
            shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
            return (
                f"a placeholder is {{{name}}} alone: {shown} has a conversion or format spec, which a prompt does "
                "not take"
            )
    if "document" not in fields:
        return "the template never shows the document: put {document} where its text goes"
    return None


def _filled(text: str, values: dict[str, str]) -> str:
    """`text` with each {name} replaced by its value, literally: no conversion, no format spec, nothing evaluated
    (a stored template that slipped past `template_problem` is refused, not run), the result cut to
    MAX_PROMPT_CHARS."""
    pieces = []
    for literal, name, spec, conversion in string.Formatter().parse(text):
        pieces.append(literal)
        if name is None:
            continue
        if spec or conversion or name not in values:
            raise ValueError(template_problem(text) or f"unusable placeholder {{{name}}}")
        pieces.append(values[name])
    prompt = "".join(pieces)
    return prompt if len(prompt) <= MAX_PROMPT_CHARS else prompt[:MAX_PROMPT_CHARS] + " …"


def truncated(text: str, budget_words: int) -> str:
    words = text.split()
    return text if len(words) <= budget_words else " ".join(words[:budget_words]) + " …"


def render(template: Template, *, title: str, document: str, description: str = "", narrative: str = "",
           budget_words: int = 400) -> str:  # fmt: skip
    """The prompt for one pair, the document cut to `budget_words` words."""
    values = {"description": description or title, "narrative": narrative, "title": title}
    return _filled(template.text, values | {"document": truncated(document, budget_words)})


BATCH_INSTRUCTIONS = """Judge each of the passages below for the query, on the scale and with the meanings above (the
passage's text replaces {{document}}). Answer with a JSON array and nothing else, one object per passage, in the
order given: [{{"id": "<the passage's id>", "score": <integer from {low} to {high}>}}, ...]"""


def render_batch(template: Template, *, title: str, documents: list[tuple[str, str]], description: str = "",
                 narrative: str = "", budget_words: int = 400) -> str:  # fmt: skip
    """One prompt for several documents of a topic: the template's instructions with the document left out,
    then each document under its id, a JSON rating of each asked back (`batch_grades` reads it)."""
    low, high = template.scale
    listed = "\n\n".join(f"<<id: {docno}>>\n{truncated(text, budget_words)}" for docno, text in documents)
    values = {"title": title, "description": description or title, "narrative": narrative}
    head = _filled(template.text, values | {"document": "(see the passages below)"})
    return f"{head}\n\n{BATCH_INSTRUCTIONS.format(low=low, high=high)}\n\nPassages:\n\n{listed}"


def batch_grades(template: Template, reply: str) -> dict[str, int]:
    """{document id: grade} from a batch reply; PromptReplyError when it is not the JSON asked for. A grade off the
    scale, or not an integer, makes that document's entry missing (its pair fails, the others stand)."""
    start, end = (reply or "").find("["), (reply or "").rfind("]")
    try:
        rows = json.loads(reply[start : end + 1]) if start >= 0 else None
    except (json.JSONDecodeError, TypeError) as error:
        raise PromptReplyError("the batch reply is not a JSON array of ratings") from error
    if not isinstance(rows, list):
        raise PromptReplyError("the batch reply is not a JSON array of ratings")
    low, high = template.scale
    grades = {}
    for row in rows:
        score = row.get("score") if isinstance(row, dict) else None
        if isinstance(score, int) and not isinstance(score, bool) and low <= score <= high:
            grades[str(row.get("id"))] = score
    return grades


def grade_of(template: Template, reply: str) -> int:
    """The grade a reply gives on the template's scale; PromptReplyError when it gives none, or one off the scale."""
    if template.reply == "final_score":
        found = _FINAL_SCORE.findall(reply or "")
        if not found:
            raise PromptReplyError("no '##final score: N' in the reply")
        grade = int(found[-1])
    else:
        grade = _dna_overall(reply)
    low, high = template.scale
    if not low <= grade <= high:
        raise PromptReplyError(f"grade {grade} is off the scale {low}..{high}")
    return grade


def _dna_overall(reply: str) -> int:
    start, end = (reply or "").find("["), (reply or "").rfind("]")
    try:
        scores = json.loads(reply[start : end + 1]) if start >= 0 else json.loads(reply)
    except (json.JSONDecodeError, TypeError) as error:
        raise PromptReplyError("the reply is not the JSON the template asks for") from error
    first = scores[0] if isinstance(scores, list) and scores else scores
    if not isinstance(first, dict) or not isinstance(first.get("O"), int):
        raise PromptReplyError("the reply's JSON has no integer overall score O")
    return first["O"]


def judge_template(judge) -> Template:
    """The template a judge's configuration names (anything with `prompt`, `template`, `template_max_grade` and
    `name`: a MachineJudge row, or a command line's options): a published one, or its custom text."""
    if judge.prompt == "custom":
        return custom(judge.template, scale=(0, judge.template_max_grade), name=f"{judge.name} (custom)")
    return TEMPLATES[judge.prompt]

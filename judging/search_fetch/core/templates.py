"""Query templates: `{{name}}` placeholders (the query, a topic's fields, named tuning variables) substituted anywhere
inside strings, each value escaped for where it lands, in one pass (a value that itself looks like `{{x}}` is text,
never expanded again).

    JSON body     the template is parsed as JSON first, then every string in it is substituted: a value lands as
                  text inside a JSON string and the serialiser escapes it (quotes, backslashes, control characters)
    parameters    (Solr) either `name=value` lines, each taken literally, or one line of `&`-joined pairs: a URL query
                  string as copied from a Solr URL or a Quepid case, percent-decoded (`+` a space) first; then each
                  value substituted, and URL-encoded once when the request is sent
    URL           the URL substituted with each value percent-encoded
    `|lucene`     a filter, e.g. `{{query|lucene}}`: Lucene's query-syntax characters escaped with a backslash
                  before the landing place's own escaping (for a template that puts the query in `query_string`)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from urllib.parse import quote, unquote_plus

PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][\w]*)\s*(?:\|\s*(\w+)\s*)?\}\}")
_LUCENE = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')
FILTERS = {"lucene": lambda text: _LUCENE.sub(r"\\\1", text), "raw": lambda text: text}


class TemplateError(ValueError):
    """A template that cannot be used: it names what is wrong (an unknown placeholder, a filter, JSON)."""


def placeholders(text: str) -> set[str]:
    return {match.group(1) for match in PLACEHOLDER.finditer(text)}


def substitute(text: str, values: Mapping[str, str], *, encode=lambda value: value) -> str:
    """`text` with every placeholder replaced by its value (filtered, then `encode`d); TemplateError names an
    unknown placeholder or filter."""

    def replace(match: re.Match) -> str:
        name, filter_name = match.group(1), match.group(2)
        if name not in values:
            raise TemplateError(f"{{{{{name}}}}} names nothing: use one of {', '.join(sorted(values))}")
        value = str(values[name])
        if filter_name:
            if filter_name not in FILTERS:
                raise TemplateError(f"unknown filter |{filter_name}: use one of {', '.join(FILTERS)}")
            value = FILTERS[filter_name](value)
        return encode(value)

    return PLACEHOLDER.sub(replace, text)


def json_body(template: str, values: Mapping[str, str]):
    """The JSON template parsed and every string in it (keys too) substituted."""
    try:
        parsed = json.loads(template)
    except ValueError as error:
        raise TemplateError(f"the body template is not JSON: {error}") from error
    return _walk(parsed, values)


def _walk(node, values):
    if isinstance(node, str):
        return substitute(node, values)
    if isinstance(node, list):
        return [_walk(item, values) for item in node]
    if isinstance(node, dict):
        return {substitute(key, values): _walk(item, values) for key, item in node.items()}
    return node


def parameters(template: str, values: Mapping[str, str]) -> list[tuple[str, str]]:
    """The parameters in order (a name may repeat, as Solr's `fq` does), each value substituted: from `name=value`
    lines taken literally, or from a one-line query string (`q={{query}}&qf=title%5E2+body`) decoded as a URL's
    query is (percent-escapes, `+` a space), so that it is not encoded twice when sent."""
    lines = [line.strip() for line in template.splitlines() if line.strip()]
    query_string = len(lines) == 1 and "&" in lines[0]
    parts = lines[0].split("&") if query_string else lines
    pairs = []
    for part in parts:
        if not part.strip():
            continue
        name, sep, value = part.strip().partition("=")
        if not sep or not name:
            raise TemplateError(f"{part.strip()!r}: write name=value")
        if query_string:
            name, value = unquote_plus(name), unquote_plus(value)
        pairs.append((name, substitute(value, values)))
    return pairs


def url(template: str, values: Mapping[str, str]) -> str:
    return substitute(template, values, encode=lambda value: quote(value, safe=""))

"""One policy for every identifier a person types or a file carries (topic numbers, docnos, run tags, assessor
names, usernames): two identifiers that look the same are the same, or one of them is refused. Pure: no Django.

- Unicode NFKC normalisation: "café" composed or decomposed, fullwidth "ａｌｉｃｅ" and "alice" are one identifier.
- Refused: control characters (escape sequences among them), invisible format characters (zero-width spaces and
  joiners, bidirectional controls, the byte-order mark), line and paragraph separators, private-use, unassigned and
  surrogate code points.
- Refused: letters of more than one of the Latin, Greek and Cyrillic scripts in one identifier, whose look-alikes
  (Latin "a", Cyrillic "а") would otherwise name two things the same.
"""

from __future__ import annotations

import re
import unicodedata

_ASCII_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
_CONFUSABLE_SCRIPTS = {"LATIN", "GREEK", "CYRILLIC"}


def identifier(text: str) -> str:
    """An identifier in its one form (NFKC; ASCII is already in it). Check it with `identifier_problem`."""
    return unicodedata.normalize("NFKC", text) if not text.isascii() else text


def identifier_problem(text: str) -> str | None:
    """Why an identifier (already through `identifier`) is refused under the policy above, or None."""
    if text.isascii():
        found = _ASCII_CONTROL.search(text)
        return None if found is None else f"contains the control character U+{ord(found.group()):04X}"
    scripts = set()
    for character in text:
        if unicodedata.category(character) in _REFUSED_CATEGORIES:
            name = unicodedata.name(character, "unnamed")
            return f"contains U+{ord(character):04X} ({name}), an invisible or control character"
        if character.isalpha():
            scripts.add(unicodedata.name(character, "").split(" ")[0])
    mixed = sorted(scripts & _CONFUSABLE_SCRIPTS)
    if len(mixed) > 1:
        scripts_named = " and ".join(script.title() for script in mixed)
        return f"mixes {scripts_named} letters, whose look-alikes would name two things the same"
    return None


DATASET_PREFIX = "irds:"
_DATASET_ID = re.compile(r"[A-Za-z0-9][\w./-]{0,200}")


def dataset_id(text: str) -> str:
    """The bare ir_datasets id of either spelling; ValueError for text that is no id."""
    text = (text or "").strip()
    if text.startswith(DATASET_PREFIX):
        text = text[len(DATASET_PREFIX) :]
    if not _DATASET_ID.fullmatch(text):
        raise ValueError(f"{text!r} is not an ir_datasets id, e.g. msmarco-passage/trec-dl-2019/judged")
    return text

"""A request as a page shows it to be pasted elsewhere: its JSON body as JSON (double quotes, `null`, `true`), never
Python's repr of the parsed value."""

from __future__ import annotations

import json

from django import template

register = template.Library()


@register.filter
def as_json(value) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)

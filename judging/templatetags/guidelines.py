"""The `guidelines` filter: an admin's Markdown guidelines as HTML, sanitised so that no script ever runs."""

from __future__ import annotations

import markdown
import nh3
from django import template
from django.utils.safestring import SafeString, mark_safe

register = template.Library()


@register.filter
def guidelines(text: str) -> SafeString:
    """Markdown (tables, lists, links) to HTML; nh3 keeps only harmless tags and attributes (no script, no event
    handlers, no javascript: links), since guidelines are written by people and pasted from elsewhere."""
    html = markdown.markdown(text or "", extensions=["tables", "sane_lists"])
    return mark_safe(nh3.clean(html))  # sanitised just now

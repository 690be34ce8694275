"""Template filters for figures: a statistic that may be undefined, a share as a percentage, a signed difference,
and a list's item by position."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def statistic(value) -> str:
    return "undefined" if value is None else f"{value:.3f}"


@register.filter
def figure(value, places: int = 4) -> str:
    """A figure that may be undefined (None or NaN: a test over fewer than two topics) as "—", else to `places`."""
    return "—" if value is None or value != value else f"{value:.{int(places)}f}"


@register.filter
def percentage(value) -> str:
    return "—" if value is None else f"{100 * value:.0f}%"


@register.filter
def signed(value) -> str:
    return "—" if value is None else f"{value:+.3f}"


@register.filter
def index(sequence, position: int):
    try:
        return sequence[position]
    except (IndexError, TypeError, KeyError):
        return None

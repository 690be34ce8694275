"""Helpers every form of the project uses: one way a service's errors reach a form, one way a text field refuses
a NUL, one way fields that only some kinds use are marked."""

from django import forms
from django.core.validators import ProhibitNullCharactersValidator

NUL_MESSAGE = "contains a NUL character (often pasted by accident); remove it"


def text_field(*, max_length: int, strip: bool = True) -> forms.CharField:
    """An optional text field that refuses NUL characters (which PostgreSQL cannot store) in words a person reads."""
    field = forms.CharField(required=False, max_length=max_length, strip=strip)
    for validator in field.validators:
        if isinstance(validator, ProhibitNullCharactersValidator):
            validator.message = NUL_MESSAGE
    return field


def service_errors_shown(form: forms.Form, error) -> None:
    """A service's ValidationError on the form: each reason on the field it names, or on the whole form when the
    form has no such field."""
    for field, reasons in error.message_dict.items():
        form.add_error(field if field in form.fields else None, reasons)


def fields_by_kind(form: forms.Form, *, control: str, kinds: dict[str, tuple[str, ...]]) -> None:
    """Marks each of `form`'s fields that only some kinds use (an engine's, a provider's): `kinds` maps each value of
    the `control` field to the fields that apply to it, as its registry entry declares them. The page's script
    (static/js/kind_fields.js) then shows the chosen kind's fields alone; without it every field shows."""
    for name, field in form.fields.items():
        owners = [kind for kind, names in kinds.items() if name in names]
        if owners:
            field.widget.attrs.update({"data-kinds": " ".join(owners), "data-kind-control": form.add_prefix(control)})

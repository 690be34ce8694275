"""A list column: a native array on PostgreSQL, JSON text elsewhere (SQLite, the embedded default)."""

from __future__ import annotations

import json

from django.db import models


def array_literal(values, element: str) -> str:
    """PostgreSQL's text form of an array, `{0.25,NULL,1}`, cast by the column's placeholder.

    Built here because psycopg adapts a Python list element by element in Python (a regular expression per element
    decides its quoting), which cost more than the rest of a topic's store. repr() of a float is its shortest exact
    form, which PostgreSQL's float8 input reads back to the same bits."""
    if element == "text":
        if not any(v is None for v in values):
            joined = '","'.join(map(str, values))
            if '"' not in joined and "\\" not in joined:  # nothing to escape: the usual case, at C speed
                return '{"' + joined + '"}' if values else "{}"
        items = ("NULL" if v is None else '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values)
        return "{" + ",".join(items) + "}"
    convert = float if element == "double precision" else int
    if any(v is None for v in values):
        return "{" + ",".join("NULL" if v is None else repr(convert(v)) for v in values) + "}"
    return "{" + ",".join(map(repr, map(convert, values))) + "}"  # the usual case, at C speed


class ListField(models.Field):
    """A list of numbers or strings (None allowed), as `element[]` on PostgreSQL.

    The per-topic values and the runs' totals are read and rewritten on every recompute: a float8 array travels and
    is stored in binary, where jsonb would parse each float into a numeric and print it back."""

    description = "A list of values of one type"

    def __init__(self, *args, element: str = "double precision", **kwargs):
        self.element = element
        kwargs.setdefault("default", list)
        super().__init__(*args, **kwargs)

    def deconstruct(self):
        name, path, args, kwargs = super().deconstruct()
        kwargs["element"] = self.element
        if kwargs.get("default") is list:
            del kwargs["default"]
        return name, path, args, kwargs

    def db_type(self, connection) -> str:
        return f"{self.element}[]" if connection.vendor == "postgresql" else "text"

    def get_placeholder(self, value, compiler, connection) -> str:
        # Typed, so that a list of Nones (or an empty one) is still an array of the column's type.
        return f"%s::{self.db_type(connection)}" if connection.vendor == "postgresql" else "%s"

    def get_db_prep_value(self, value, connection, prepared=False):
        if value is None:
            return None
        return array_literal(value, self.element) if connection.vendor == "postgresql" else json.dumps(list(value))

    def from_db_value(self, value, expression, connection):
        if value is None or isinstance(value, list):
            return value
        return json.loads(value)

    def to_python(self, value):
        if value is None or isinstance(value, list):
            return value
        return json.loads(value)

    def value_to_string(self, obj) -> str:
        return json.dumps(self.value_from_object(obj))

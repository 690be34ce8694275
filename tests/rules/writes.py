"""What a module writes: each ORM write call and each literal SQL write statement, and, where it can be told, the
model written (through a variable typed by its assignment or annotation, or named after the model)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

# Methods that write whatever they are called on (a model instance or a queryset).
WRITES = {"save", "delete", "bulk_create", "bulk_update", "get_or_create", "update_or_create", "create_user"}
# Methods that write when called on a manager or queryset (dicts and sets have an `update` of their own).
QUERYSET_WRITES = {"create", "update"}
QUERYSET = re.compile(r"\bobjects\b|\.(filter|exclude|all|select_for_update)\(|_set$")
SQL_WRITE = re.compile(r"^\s*(INSERT\s+INTO|UPDATE\s+\S+(\s+AS\s+\S+)?\s+SET|DELETE\s+FROM)\b", re.IGNORECASE)


def model_names(root: Path) -> set[str]:
    """Every model class of the project's apps (classes in an app's or a feature package's models module), and the
    user model."""
    names = {"User"}
    models = ["*/models.py", "*/*/models.py", "*/models/*.py", "*/*/models/*.py"]
    for path in (found for pattern in models for found in root.glob(pattern)):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not any(ast.unparse(b).endswith("Choices") for b in node.bases):
                names.add(node.name)
    return names


def _text(node) -> str | None:
    """A string literal's text; an f-string's with `{}` for each value formatted in."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
    return None


def _root(node):
    """The name a chain of attributes, calls and subscripts starts from (`Judgment` in
    `Judgment.objects.filter(...).first()`)."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


class _Writes(ast.NodeVisitor):
    def __init__(self, models: set[str]):
        self.models = models
        self.lowered = {m.lower(): m for m in models}
        self.scopes: list[dict[str, str]] = [{}]
        self.found: list[tuple[int, str, str | None]] = []

    # What a name holds: a model's rows or instances, as far as assignments and annotations tell.
    def _entity(self, node) -> str | None:
        root = _root(node)
        if root is None:
            return None
        if root in self.models:
            return root
        for scope in reversed(self.scopes):
            if root in scope:
                return scope[root]
        return None

    def _named(self, node) -> str | None:
        """The model a receiver is named after: `judgment`, `pool_items`, `locked_job` (its last words)."""
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if not name:
            return None
        words = [w for w in name.strip("_").split("_") if w]
        for start in range(len(words)):
            joined = "".join(words[start:])
            for candidate in (joined, joined.removesuffix("s"), joined.removesuffix("es")):
                if candidate in self.lowered:
                    return self.lowered[candidate]
        return None

    def _bind(self, target, entity):
        if entity is None:
            return
        if isinstance(target, ast.Name):
            self.scopes[-1][target.id] = entity
        elif isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
            self.scopes[-1][target.elts[0].id] = entity  # `row, created = Model.objects.get_or_create(...)`

    def visit_FunctionDef(self, node):
        scope = {}
        for arg in node.args.args + node.args.kwonlyargs:
            annotation = ast.unparse(arg.annotation) if arg.annotation else ""
            named = [m for m in re.findall(r"\w+", annotation) if m in self.models]
            if named:
                scope[arg.arg] = named[0]
        self.scopes.append(scope)
        self.generic_visit(node)
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Assign(self, node):
        self.generic_visit(node)
        for target in node.targets:
            self._bind(target, self._entity(node.value))

    def visit_AnnAssign(self, node):
        self.generic_visit(node)
        if node.value is not None:
            self._bind(node.target, self._entity(node.value))

    def visit_For(self, node):
        self._bind(node.target, self._entity(node.iter))
        self.generic_visit(node)

    def visit_Call(self, node):
        self.generic_visit(node)
        if not isinstance(node.func, ast.Attribute):
            return
        method, receiver = node.func.attr, node.func.value
        listing_only = any(k.arg == "commit" and ast.unparse(k.value) == "False" for k in node.keywords)
        entity = self._entity(receiver)
        on_rows = QUERYSET.search(ast.unparse(receiver)) or entity is not None
        if (method in WRITES and not listing_only) or (method in QUERYSET_WRITES and on_rows):
            self.found.append((node.lineno, f"{ast.unparse(receiver)}.{method}()", entity or self._named(receiver)))

    def visit_Constant(self, node):
        text = _text(node)
        if text is not None and SQL_WRITE.match(text):
            self.found.append((node.lineno, text.split()[0].upper() + " statement", None))

    def visit_JoinedStr(self, node):
        text = _text(node)
        if text is not None and SQL_WRITE.match(text):
            self.found.append((node.lineno, text.split()[0].upper() + " statement", None))
        # its literal parts are one statement, not several


def writes_in(source: str, models: set[str]) -> list[tuple[int, str, str | None]]:
    """(line, what, model or None) for each ORM write call and each literal SQL write statement of a module."""
    visitor = _Writes(models)
    visitor.visit(ast.parse(source))
    return sorted(set(visitor.found), key=lambda w: (w[0], w[1]))

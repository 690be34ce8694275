"""The apps depend one way: evaluation reads judging, judging imports nothing of evaluation (it announces its
changes through `judging.signals`), and no project module takes part in an import cycle, even through an import
inside a function (which only hides a cycle from Python, not from a reader) or one made by `importlib`. Each rule is
also run on a copy of the project broken on purpose, and must fail there."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.rules.project import ROOT, inject, project_copy, source_files

# Imports by a name computed at run time, allowed only here and for the reason given (never into evaluation).
DYNAMIC_IMPORTS = {"judging/demo/corpus.py": "reads the docstrings of Python's own modules as the demo's documents"}


def _module_name(relative: str) -> str:
    parts = relative.removesuffix(".py").split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules(root: Path = ROOT) -> dict[str, Path]:
    return {_module_name(relative): path for relative, path in source_files(root)}


def _dynamic_import(node) -> ast.expr | None:
    """The argument of `importlib.import_module(...)`, `import_module(...)` or `__import__(...)`."""
    if isinstance(node, ast.Call) and node.args:
        called = ast.unparse(node.func)
        if called.split(".")[-1] in {"import_module", "__import__"}:
            return node.args[0]
    return None


def dynamic_imports_by_computed_name(root: Path = ROOT) -> list[str]:
    """Modules that import a module named at run time (which no reader, and no rule, can follow)."""
    found = []
    for relative, path in source_files(root):
        for node in ast.walk(ast.parse(path.read_text())):
            argument = _dynamic_import(node)
            if argument is not None and not isinstance(argument, ast.Constant) and relative not in DYNAMIC_IMPORTS:
                found.append(f"{relative}:{node.lineno}")
    return found


def imports_of(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules `name` imports anywhere in its source (module level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found, tree = set(), ast.parse(path.read_text(), str(path))
    # A `if __name__ == "__main__":` block runs only when the module is the program, under the name __main__: a
    # module object of its own, so what it imports closes no cycle.
    tree.body = [node for node in tree.body if not _is_main_block(node)]
    for node in ast.walk(tree):
        argument = _dynamic_import(node)
        if argument is not None and isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            targets = [argument.value]
        elif isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            stem = ".".join(p for p in (base if node.level else "", node.module or "") if p)
            targets = [f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules else stem for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def _is_main_block(node) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test).replace("'", '"') == '__name__ == "__main__"'


def import_graph(root: Path = ROOT) -> dict[str, set[str]]:
    modules = project_modules(root)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def judging_imports_of_evaluation(graph) -> list[str]:
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        if source.split(".")[0] == "judging"
        for target in targets
        if target.split(".")[0] == "evaluation"
    )


def cycles(graph) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm, iteratively)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]

    def visit(start):
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_judging_imports_nothing_of_evaluation():
    assert judging_imports_of_evaluation(import_graph()) == []


def test_no_project_module_is_part_of_an_import_cycle():
    assert cycles(import_graph()) == []


def test_the_contract_checks_catch_a_violation():
    graph = import_graph()
    graph["judging.models"] = graph["judging.models"] | {"evaluation.services"}
    assert judging_imports_of_evaluation(graph) == ["judging.models -> evaluation.services"]
    assert any({"judging.models", "evaluation.services"} <= set(c) for c in cycles(graph))


def test_no_module_imports_a_module_named_at_run_time():
    assert dynamic_imports_by_computed_name() == []


def test_the_contract_fails_on_importlib_reaching_into_evaluation(tmp_path):
    root = project_copy(tmp_path)
    inject(root, "judging/services/judgments.py", 'import importlib\nimportlib.import_module("evaluation.selectors")\n')
    assert judging_imports_of_evaluation(import_graph(root)) == ["judging.services.judgments -> evaluation.selectors"]


def test_the_contract_fails_on_an_import_by_a_computed_name(tmp_path):
    root = project_copy(tmp_path)
    inject(
        root,
        "judging/services/judgments.py",
        'import importlib\nimportlib.import_module("evaluation" + ".selectors")\n',
    )
    assert dynamic_imports_by_computed_name(root) == [f"judging/services/judgments.py:{_last_line(root)}"]


def _last_line(root: Path) -> int:
    return len((root / "judging/services/judgments.py").read_text().splitlines())

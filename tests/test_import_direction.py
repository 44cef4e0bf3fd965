"""The job engine's imports run one way (issue 13), kept so by this test rather than by review.

The engine is ``reelscope.worker`` with its two sub-packages, ``jobs`` (the jobs table and the §2.6
envelope) and ``schedules`` (schedule rows and cadences). Read from the source with ``ast``, never by
importing it:

- each engine module sits on a layer of ``ENGINE_LAYERS`` and imports engine modules of lower layers only;
- no engine module imports inside a function or class, where a cycle could hide;
- whatever the engine imports from the rest of ``reelscope`` never imports the engine back, directly or
  through other modules, so no cycle runs through the engine.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

import reelscope

SRC = Path(reelscope.__file__).parent.parent
ENGINE = "reelscope.worker"

# lowest first; a module may import engine modules of the layers before its own
ENGINE_LAYERS = [
    # the task decorator; the sub-packages' __init__ modules stay empty
    ["reelscope.worker.registry", "reelscope.worker.jobs", "reelscope.worker.schedules"],
    # enqueue after commit
    ["reelscope.worker.queue"],
    # rows: SQL and wire shapes of jobs and schedules, cadence parsing
    [
        "reelscope.worker.jobs.repository",
        "reelscope.worker.jobs.schemas",
        "reelscope.worker.schedules.cadence",
        "reelscope.worker.schedules.repository",
    ],
    # what a task body receives
    ["reelscope.worker.context"],
    # the package's face for task bodies: task, enqueue, TaskContext, JobFailed
    ["reelscope.worker"],
    # the jobs lifecycle, then schedules firing jobs
    ["reelscope.worker.jobs.service"],
    ["reelscope.worker.schedules.service"],
    # driving jobs and schedules: one attempt of a message, one dispatcher pass
    ["reelscope.worker.runner", "reelscope.worker.dispatcher"],
    # Huey and the worker loops, then the consumers that run them
    ["reelscope.worker.engine"],
    ["reelscope.worker.consumer"],
]
LAYER = {module: rank for rank, modules in enumerate(ENGINE_LAYERS) for module in modules}


@dataclass(frozen=True)
class Imports:
    """The ``reelscope`` modules one module imports, split by where the import statement stands."""

    top: frozenset[str]
    # inside a function or class body: run later, where an import cycle hides
    nested: frozenset[str]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def is_module(name: str) -> bool:
    relative = Path(*name.split("."))
    return (SRC / relative).with_suffix(".py").is_file() or (SRC / relative / "__init__.py").is_file()


def imported(node: ast.Import | ast.ImportFrom, module: str, is_package: bool) -> set[str]:
    """The modules an import statement names: ``from p import m`` names ``p.m`` when that is a module."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    if node.level:
        package = module.split(".") if is_package else module.split(".")[:-1]
        anchor = package[: len(package) - node.level + 1]
        base = ".".join([*anchor, base] if base else anchor)
    names = {f"{base}.{alias.name}" for alias in node.names}
    return {name for name in names if is_module(name)} or {base}


def top_level(tree: ast.Module) -> set[ast.AST]:
    """Import statements run when the module loads, including those under a module-level if/try."""
    found: set[ast.AST] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        statement = pending.pop()
        if isinstance(statement, ast.Import | ast.ImportFrom):
            found.add(statement)
        elif isinstance(statement, ast.If | ast.Try):
            pending += statement.body + statement.orelse
            if isinstance(statement, ast.Try):
                pending += statement.finalbody + [s for h in statement.handlers for s in h.body]
    return found


def parse(path: Path) -> Imports:
    module = module_name(path)
    tree = ast.parse(path.read_text(), filename=str(path))
    loaded = top_level(tree)
    top: set[str] = set()
    nested: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = imported(node, module, path.name == "__init__.py")
            (top if node in loaded else nested).update(n for n in names if n.split(".")[0] == "reelscope")
    return Imports(top=frozenset(top), nested=frozenset(nested))


def with_parents(name: str) -> set[str]:
    """Importing ``a.b.c`` also runs ``a`` and ``a.b``."""
    parts = name.split(".")
    return {".".join(parts[:end]) for end in range(1, len(parts) + 1)}


def in_engine(name: str) -> bool:
    return name == ENGINE or name.startswith(f"{ENGINE}.")


@pytest.fixture(scope="module")
def graph() -> dict[str, Imports]:
    """Every module of ``src/reelscope`` and the ``reelscope`` modules it imports."""
    return {module_name(path): parse(path) for path in sorted((SRC / "reelscope").rglob("*.py"))}


class TestEngineImports:
    def test_every_engine_module_has_a_layer(self, graph: dict[str, Imports]) -> None:
        engine = {module for module in graph if in_engine(module)}
        assert engine - LAYER.keys() == set(), "place each new engine module in ENGINE_LAYERS"
        assert LAYER.keys() - engine == set(), "ENGINE_LAYERS names a module that is gone"

    def test_engine_modules_import_only_lower_layers(self, graph: dict[str, Imports]) -> None:
        upward = sorted(
            f"{module} (layer {LAYER[module]}) imports {target} (layer {LAYER[target]})"
            for module, imports in graph.items()
            if in_engine(module)
            for target in imports.top | imports.nested
            if in_engine(target) and LAYER[target] >= LAYER[module]
        )
        assert upward == []

    def test_engine_modules_import_at_module_level_only(self, graph: dict[str, Imports]) -> None:
        nested = {module: sorted(imports.nested) for module, imports in graph.items() if in_engine(module)}
        assert {module: names for module, names in nested.items() if names} == {}

    def test_nothing_the_engine_imports_imports_the_engine(self, graph: dict[str, Imports]) -> None:
        """Families use the engine; the few modules it uses itself (kit, models, billing) never use it."""
        outside = {
            target
            for module, imports in graph.items()
            if in_engine(module)
            for name in imports.top | imports.nested
            for target in with_parents(name)
            if not in_engine(target) and target in graph
        }
        back: list[str] = []
        for start in sorted(outside):
            seen, pending = {start}, [start]
            while pending:
                imports = graph[pending.pop()]
                for name in imports.top | imports.nested:
                    for target in with_parents(name):
                        if in_engine(target):
                            back.append(f"{start} reaches {target}")
                        elif target in graph and target not in seen:
                            seen.add(target)
                            pending.append(target)
        assert back == []

    def test_the_old_top_level_packages_are_gone(self) -> None:
        """They live on as ``reelscope.worker.jobs`` and ``reelscope.worker.schedules``."""
        assert not is_module("reelscope.jobs")
        assert not is_module("reelscope.schedules")

"""Families keep to their own rows (ARCHITECTURE §9): audience reads its source through the collectors'
registry, not through tracking, and the dashboard reads tracking's rows through ``tracking.service``.
Read from the source with ``ast``."""

from __future__ import annotations

import ast
from pathlib import Path

import reelscope

SRC = Path(reelscope.__file__).parent


def imports_of(relative: str) -> set[str]:
    tree = ast.parse((SRC / relative).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_audience_does_not_reach_into_tracking() -> None:
    for module in ("audience/tasks.py", "audience/service.py"):
        assert not {name for name in imports_of(module) if name.startswith("reelscope.tracking")}, module


def test_the_dashboard_reads_tracking_through_its_service() -> None:
    imported = imports_of("dashboard/endpoints.py")
    assert not {name for name in imported if name.startswith(("reelscope.models", "sqlalchemy"))}
    assert "reelscope.dashboard.service" in imported
    # the service and the drawing job read tracking's rows through tracking.service; the dashboard's
    # own table only through its repository
    for module in ("dashboard/service.py", "dashboard/tasks.py"):
        assert not {name for name in imports_of(module) if name.startswith("reelscope.models")}, module
    assert "reelscope.tracking.service" in imports_of("dashboard/service.py")

"""The memory report an operator turns on to find where a long life grows (kit/memory_report.py, issue 31)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator

import pytest
from structlog.testing import capture_logs

from reelscope.kit import heap
from reelscope.kit.memory_report import MemoryReport, start_if_set

HELD: list[bytes] = []


class Kept:
    pass


HELD_OBJECTS: list[Kept] = []


def _grow() -> None:
    HELD.extend(bytes(4_096) + bytes([n % 256]) for n in range(500))  # ~2 MB held


@pytest.fixture
def tracing() -> Iterator[None]:
    was_tracing = tracemalloc.is_tracing()
    yield
    HELD.clear()
    if not was_tracing:
        tracemalloc.stop()


def test_the_lines_that_grew_since_the_first_report_are_named(tracing: None) -> None:
    report = MemoryReport(3600)
    tracemalloc.start(4)
    with capture_logs() as logs:
        assert report.report() == []  # the first report is the baseline
        _grow()
        HELD_OBJECTS.extend(Kept() for _ in range(300))
        grown = report.report()
    HELD_OBJECTS.clear()
    assert grown, "the growth was not reported"
    top = grown[0]
    # the allocating line comes first, its callers after it (a Traceback runs oldest first)
    innermost, caller = str(top["where"]).split(" < ")[:2]
    assert innermost.endswith(f"test_memory_report.py:{_grow.__code__.co_firstlineno + 1}")
    assert "test_memory_report.py:" in caller
    assert float(str(top["grew_kb"])) > 1_500
    assert [entry["event"] for entry in logs] == ["memory.report", "memory.report"]
    assert logs[1]["traced_kb"] > logs[1]["first_traced_kb"]
    # objects by type, beside the lines: a class whose instances pile up is named
    assert {"type": f"{__name__}.Kept", "grew": 300, "now": 300} in logs[1]["types_grown"]
    if heap.available():  # and glibc's own counts (what they tell: tests/kit/test_heap.py)
        assert set(logs[1]["malloc"]) == {"arena_kb", "in_use_kb", "free_held_kb", "mmapped_kb"}


FREED: list[bytes] = []


def _hold_then_free() -> None:
    FREED.extend(bytes(8_192) + bytes([n % 256]) for n in range(500))  # ~4 MB, freed later


def test_lines_that_shrank_leave_room_for_those_that_grew(tracing: None) -> None:
    """tracemalloc sorts by the size of the change, shrinking included: a line that gave back more
    than another grew took the only place and was then left out, hiding the growth."""
    report = MemoryReport(3600, top=1)
    tracemalloc.start(4)
    _hold_then_free()
    report.report()
    FREED.clear()
    _grow()
    grown = report.report()
    assert [entry["where"] for entry in grown if "test_memory_report.py" in str(entry["where"])], grown


def test_off_unless_a_period_is_set() -> None:
    assert start_if_set(0) is None
    with pytest.raises(ValueError):
        MemoryReport(0)

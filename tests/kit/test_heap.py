"""Freed memory goes back to the system (kit/heap.py, ADR 0054; issue 31: a long life's RSS grew)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from reelscope.kit import heap

pytestmark = pytest.mark.skipif(not heap.available(), reason="glibc's malloc only")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _fragment_in_a_thread(kept: list[bytearray]) -> None:
    # 100 MB of 50 KB blocks from a thread (its own arena), all freed but the last: the free space
    # sits below a live block, so glibc cannot give it back by trimming the arena's top
    blocks = [bytearray(50_000) for _ in range(2_000)]
    for block in blocks:
        block[::4096] = b"x" * len(block[::4096])  # touched: resident
    kept.append(blocks[-1])
    del blocks


def test_memory_freed_below_a_live_block_is_given_back_by_a_trim() -> None:
    kept: list[bytearray] = []
    thread = threading.Thread(target=_fragment_in_a_thread, args=(kept,))
    thread.start()
    thread.join()
    before = _rss_mb()
    assert heap.trim()
    after = _rss_mb()
    assert before - after > 50, f"{before:.0f} MB -> {after:.0f} MB"
    assert len(kept[0]) == 50_000


def test_the_trimmer_counts_its_trims_and_stops() -> None:
    trimmer = heap.Trimmer(3600)
    trimmer.once()
    trimmer.once()
    assert trimmer.trims == 2
    trimmer.start()
    trimmer.stop()
    assert trimmer._thread is not None
    trimmer._thread.join(timeout=5)
    assert not trimmer._thread.is_alive()
    with pytest.raises(ValueError):
        heap.Trimmer(0)


def test_the_operators_malloc_arena_max_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert heap.limit_arenas(2) is False
    monkeypatch.delenv("MALLOC_ARENA_MAX")
    assert heap.limit_arenas(0) is False  # 0: glibc's default
    assert heap.limit_arenas(8) is True


def test_off_when_the_period_is_zero() -> None:
    assert heap.start(0, 0) is None


def test_one_trimmer_a_process_however_often_it_is_started() -> None:
    """serve, api and worker start it; a process that runs one of them again (a test invoking the
    CLI in-process) must not add a thread each time."""
    first = heap.start(0, 3600)
    assert first is not None
    assert heap.start(0, 3600) is first
    assert [t.name for t in threading.enumerate()].count("malloc-trim") == 1


def test_the_calls_are_declared_with_glibcs_types() -> None:
    import ctypes

    assert heap._LIBC is not None
    assert heap._LIBC.malloc_trim.argtypes == [ctypes.c_size_t]
    assert heap._LIBC.mallopt.argtypes == [ctypes.c_int, ctypes.c_int]


def test_usage_counts_what_malloc_holds_in_use() -> None:
    """``usage`` (in ``memory.report``) tells C and large allocations, which tracemalloc may not see,
    from memory freed and kept: 64 MB of 4 KB blocks (from malloc, not Python's small-object arenas)
    show in ``in_use`` while held."""
    before = heap.usage()
    if before is None:
        pytest.skip("glibc before 2.33 has no mallinfo2")
    held = [bytes(4_096) + bytes([n % 256]) for n in range(16_000)]
    during = heap.usage()
    assert during is not None
    assert during["in_use_kb"] - before["in_use_kb"] > 50_000
    assert len(held) == 16_000

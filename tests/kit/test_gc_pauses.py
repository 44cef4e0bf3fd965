"""The garbage collector out of the requests' way (kit/gc_pauses.py, ADR 0059; issue 33 item 4: single
slow requests were full collections walking the whole app)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from structlog.testing import capture_logs

from reelscope.kit import gc_pauses


class _Kept:
    """A container object the collector tracks, as a module's classes and a route's schemas are."""


@pytest.fixture
def unfrozen() -> Iterator[None]:
    yield
    gc.unfreeze()  # back into the oldest generation: the test process collects as before


def _walked_by_collections() -> set[int]:
    return {id(o) for o in gc.get_objects()}


@pytest.mark.usefixtures("unfrozen")
def test_what_a_process_holds_when_it_settles_is_no_longer_walked_by_collections() -> None:
    kept = [_Kept() for _ in range(1_000)]
    assert any(id(o) in _walked_by_collections() for o in kept)

    frozen = gc_pauses.settle()

    walked = _walked_by_collections()
    assert not any(id(o) in walked for o in kept)
    assert frozen >= len(kept)
    made_after = _Kept()
    assert id(made_after) in _walked_by_collections()  # what comes later is collected as always


@pytest.mark.usefixtures("unfrozen")
def test_cyclic_garbage_is_collected_before_freezing() -> None:
    # frozen, a cycle would never be freed: settling collects first
    inside = _Kept()
    alive = weakref.ref(inside)
    cycle: list[object] = [inside]
    cycle.append(cycle)
    del inside, cycle
    assert alive() is not None

    gc_pauses.settle()

    assert alive() is None


def test_a_slow_collection_is_logged_with_its_generation() -> None:
    garbage = [[_Kept()] for _ in range(50_000)]
    for item in garbage:
        item.append(item)  # type: ignore[arg-type]  # cycles, freed only by a collection
    del garbage
    watch = gc_pauses.GcWatch(threshold_ms=1e-6)
    watch.start()
    try:
        with capture_logs() as logs:
            gc.collect(2)
    finally:
        watch.stop()

    slow = [e for e in logs if e["event"] == "gc.slow"]
    assert slow, logs
    assert slow[-1]["generation"] == 2
    assert slow[-1]["collected"] >= 90_000  # the 50,000 cycles of two objects (a few go earlier)
    assert slow[-1]["ms"] >= 0


def test_a_collection_within_the_threshold_is_not_logged() -> None:
    watch = gc_pauses.GcWatch(threshold_ms=60_000)
    watch.start()
    try:
        with capture_logs() as logs:
            gc.collect(0)
    finally:
        watch.stop()
    assert not [e for e in logs if e["event"] == "gc.slow"]
    assert watch._callback not in gc.callbacks


def test_a_threshold_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        gc_pauses.GcWatch(threshold_ms=0)

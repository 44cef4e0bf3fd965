"""Python's cyclic garbage collector kept out of the requests' way (issue 33 item 4, ADR 0059).

CPython collects its oldest generation once enough objects have survived into it, and a full collection
walks every container object the process holds. A serving process holds about 270,000 of them once the
app is imported and built (modules, classes, routes, SQLAlchemy's and Pydantic's schemas), so each full
collection stopped the thread that triggered it, the event loop's as often as not, for 100-150 ms on
this project's 2-core machine: the single slow requests of ``benchmarks/read_ops.py`` (``GET /`` at
p99 180 ms beside a p50 of 0.4 ms, 1 MB bodies at p99 ~200 ms beside a p50 of 20 ms).

* ``settle()``, once a process has built what it keeps for its life and before it serves: collect, then
  ``gc.freeze()`` what is left into the permanent generation, which collections no longer walk. A full
  collection then walks only what the process made since (its caches, its connections). Objects frozen
  that later become cyclic garbage are never freed; at start-up that is a few objects, once.
* ``GcWatch`` logs ``gc.slow`` with the generation, the time and what it freed whenever one collection
  takes longer than the loop's own warning (``REELSCOPE_LOOP_HELD_WARNING_MS``), so that a pause an
  operator sees in the latencies has a name in the logs. Two callbacks a collection, a few microseconds.
"""

from __future__ import annotations

import gc
import time
from typing import Any

from reelscope.kit.logging import get_logger

log = get_logger(__name__)


def settle() -> int:
    """Collect, then freeze every object left; returns how many objects are frozen in all."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()


class GcWatch:
    """Logs each collection of this process that takes longer than ``threshold_ms``."""

    def __init__(self, threshold_ms: float) -> None:
        if threshold_ms <= 0:
            raise ValueError("the threshold must be positive")
        self._threshold = threshold_ms / 1000
        self._started = 0.0

    def start(self) -> None:
        if self._callback not in gc.callbacks:
            gc.callbacks.append(self._callback)

    def stop(self) -> None:
        if self._callback in gc.callbacks:
            gc.callbacks.remove(self._callback)

    def _callback(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = time.perf_counter()
            return
        took = time.perf_counter() - self._started
        if took > self._threshold:
            log.warning(
                "gc.slow",
                generation=info.get("generation"),
                ms=round(took * 1000, 1),
                collected=info.get("collected"),
                uncollectable=info.get("uncollectable"),
                frozen=gc.get_freeze_count(),
            )


_watch: GcWatch | None = None


def start(threshold_ms: float) -> None:
    """This process's collections timed and, when slow, logged (once per process; 0: not timed)."""
    global _watch
    if threshold_ms <= 0 or _watch is not None:
        return
    _watch = GcWatch(threshold_ms)
    _watch.start()

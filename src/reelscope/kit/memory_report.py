"""Where a long-lived process's memory grows, for an operator chasing a slope (issue 31).

With ``REELSCOPE_MEMORY_REPORT_SECONDS`` set, the process starts Python's tracemalloc at once, keeps a
first snapshot at the first report and, at that report and every one after, logs ``memory.report``:
the memory Python's allocator holds for this process now and at the first report, the RSS, and the
source lines whose live allocations grew the most since the first report (the allocating line first,
then its callers, with their count of live blocks), the types whose live objects grew the most, and
glibc's own counts (kit/heap.py ``usage``). Memory that grows at a steady rate shows up as the same
lines growing report after report; caches filling show up as lines that stop growing once the cache is
full. Where tracemalloc's total stays flat while the RSS grows, glibc's counts tell C allocations
(``in_use`` grows) from freed memory kept (``free_held`` grows) from neither (Python's own arenas, which
glibc does not count).

tracemalloc is the standard library's own tool for this; it costs about a third more CPU and some
memory per live block while it runs, so it is off unless set, and meant for a diagnosis, not always on.
"""

from __future__ import annotations

import gc
import threading
import tracemalloc
from collections import Counter, defaultdict
from pathlib import Path

from reelscope.kit import heap
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

# frames kept per allocation: enough to tell a caller from the allocator it called
FRAMES = 4
TOP = 12


def rss_kb() -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def live_objects_by_type() -> Counter[str]:
    """How many objects the garbage collector tracks, by type: containers and instances (not strings or
    numbers). A leak of objects shows as a type whose count grows report after report, which tracemalloc's
    lines, spread over every caller that makes one, can hide. One pass over every object with the GIL
    held: a pause of a few hundred ms in a process of 400,000 objects, once a report.

    The objects are put in one list per type and the lists measured, rather than counted with a Counter:
    a count past 256 is a new int at each step, and tracemalloc (always on while reports run) records
    every such allocation and free. Counting 2 million objects took 12-14 s that way against 0.3 s here;
    appending allocates only when a list grows."""
    objects = gc.get_objects()  # holds the GIL: the process pauses meanwhile
    # made after the list of objects, or it would be one of them and hold itself: a cycle of every list
    # here, kept until a collection and reported as grown by the next report
    by_type: defaultdict[type, list[object]] = defaultdict(list)
    for obj in objects:
        by_type[type(obj)].append(obj)
    names: Counter[str] = Counter()
    for kind, objects in by_type.items():  # by name: a report keeps no class alive
        names[f"{kind.__module__}.{kind.__qualname__}"] += len(objects)
    return names


class MemoryReport:
    def __init__(self, every_seconds: float, *, top: int = TOP) -> None:
        if every_seconds <= 0:
            raise ValueError("the period must be positive")
        self.every = every_seconds
        self.top = top
        self.first: tracemalloc.Snapshot | None = None
        self.first_traced = 0
        self.first_types: Counter[str] = Counter()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        if not tracemalloc.is_tracing():
            tracemalloc.start(FRAMES)
        self._thread = threading.Thread(target=self._run, name="memory-report", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.report()

    def report(self) -> list[dict[str, object]]:
        """Log and return the lines that grew the most since the first report (none at the first)."""
        snapshot = tracemalloc.take_snapshot().filter_traces(
            (tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen *>"))
        )
        traced, _ = tracemalloc.get_traced_memory()
        types = live_objects_by_type()
        if self.first is None:
            self.first, self.first_traced, self.first_types = snapshot, traced, types
        # compare_to sorts by the size of the change either way: lines that shrank are left out before
        # the top is taken, or they would take its places
        growing = [stat for stat in snapshot.compare_to(self.first, "traceback") if stat.size_diff > 0]
        grown = [
            {
                # a Traceback runs from the oldest frame to the most recent: the allocating line is last
                "where": " < ".join(f"{frame.filename}:{frame.lineno}" for frame in reversed(stat.traceback)),
                "grew_kb": round(stat.size_diff / 1024, 1),
                "now_kb": round(stat.size / 1024, 1),
                "blocks": stat.count,
            }
            for stat in sorted(growing, key=lambda stat: stat.size_diff, reverse=True)[: self.top]
        ]
        # a warning: an operator who set the period wants it whatever the log level
        log.warning(
            "memory.report",
            traced_kb=traced // 1024,
            first_traced_kb=self.first_traced // 1024,
            rss_kb=rss_kb(),
            malloc=heap.usage(),
            grown=grown,
            types_grown=[
                {"type": name, "grew": count - self.first_types[name], "now": count}
                for name, count in sorted(
                    types.items(), key=lambda item: item[1] - self.first_types[item[0]], reverse=True
                )[: self.top]
                if count > self.first_types[name]
            ],
        )
        return grown


def start_if_set(every_seconds: int) -> MemoryReport | None:
    if every_seconds <= 0:
        return None
    report = MemoryReport(every_seconds)
    report.start()
    return report

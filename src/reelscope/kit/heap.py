"""Memory the process freed goes back to the system (issue 31: a long life's RSS kept growing).

Measured in a 36-minute soak of ``serve``: the memory Python's objects hold (tracemalloc) grew 3.4 MB
in 5.5 minutes while the RSS grew 112 MB, and glibc's ``malloc_trim(0)`` then gave back 340 MB of
1.2 GB at once. The growth was freed memory glibc keeps: each thread that allocates may get an arena of
its own (up to 8 per CPU), a freed block stays in its arena, and only the top of the main heap is given
back by itself. A server with dozens of threads (request threads, job lanes, the database drivers'
threads) spreads its short-lived large allocations (rendered bodies, result rows) over many arenas,
and each keeps its high-water mark.

Two remedies from glibc itself, both through ``ctypes`` because Python exposes neither (ADR 0054):

- ``limit_arenas``: at the start of a process, before its threads, at most ``arenas`` malloc arenas
  (``mallopt(M_ARENA_MAX)``, what the ``MALLOC_ARENA_MAX`` variable sets), unless the operator set that
  variable;
- ``Trimmer``: every ``seconds``, ``malloc_trim(0)`` from a thread of its own: free pages inside every
  arena are given back (``madvise(MADV_DONTNEED)``), not only the heap's top.

Elsewhere than glibc (musl, macOS) both do nothing.
"""

from __future__ import annotations

import ctypes
import os
import threading
import time
from typing import Any

from reelscope.kit.logging import get_logger

log = get_logger(__name__)

M_ARENA_MAX = -8  # malloc.h
SLOW_TRIM_SECONDS = 0.1


def _glibc() -> Any | None:
    # the process's own symbols (dlopen of no file), libc's among them: no search for the library's file
    # (``ctypes.util.find_library`` runs ldconfig, absent from minimal images)
    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    if not hasattr(libc, "malloc_trim") or not hasattr(libc, "mallopt"):
        return None
    # int malloc_trim(size_t pad); int mallopt(int param, int value) (malloc.h). A CDLL's calls release
    # the GIL, so a long trim holds up only the threads that allocate meanwhile
    libc.malloc_trim.argtypes = [ctypes.c_size_t]
    libc.malloc_trim.restype = ctypes.c_int
    libc.mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    libc.mallopt.restype = ctypes.c_int
    if hasattr(libc, "mallinfo2"):  # glibc 2.33 and later
        libc.mallinfo2.argtypes = []
        libc.mallinfo2.restype = _MallInfo2
    return libc


class _MallInfo2(ctypes.Structure):
    # struct mallinfo2 (malloc.h): ten size_t fields, in this order
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


_LIBC = _glibc()


def available() -> bool:
    return _LIBC is not None


def limit_arenas(arenas: int) -> bool:
    """At most ``arenas`` malloc arenas from now on; True when set. The ``MALLOC_ARENA_MAX`` variable,
    when the operator set it, wins (glibc read it at start)."""
    if _LIBC is None or arenas <= 0 or "MALLOC_ARENA_MAX" in os.environ:
        return False
    return bool(_LIBC.mallopt(M_ARENA_MAX, arenas))


def usage() -> dict[str, int] | None:
    """What glibc's allocator holds, in KB (``mallinfo2``): ``in_use`` by live blocks (every C library's,
    and Python's objects over 512 bytes; smaller ones live in arenas Python maps itself, which glibc does
    not count), ``free_held`` freed and kept inside the arenas, ``mmapped`` in blocks of their own. With
    tracemalloc's traced total it tells where an RSS growth is: Python objects (traced grows), C
    allocations (in_use grows, traced does not), freed memory kept (free_held grows), or none of these
    (Python's small-object arenas, or mappings of their own). None elsewhere than glibc."""
    if _LIBC is None or not hasattr(_LIBC, "mallinfo2"):
        return None
    info = _LIBC.mallinfo2()
    return {
        "arena_kb": info.arena // 1024,
        "in_use_kb": (info.uordblks + info.hblkhd) // 1024,
        "free_held_kb": info.fordblks // 1024,
        "mmapped_kb": info.hblkhd // 1024,
    }


def trim() -> bool:
    """Give free memory back to the system now; True when some was."""
    return _LIBC is not None and bool(_LIBC.malloc_trim(0))


class Trimmer:
    """``trim`` every ``seconds`` from a daemon thread; each call is counted and timed."""

    def __init__(self, seconds: float) -> None:
        if seconds <= 0:
            raise ValueError("the period must be positive")
        self.seconds = seconds
        self.trims = 0
        self.longest_s = 0.0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="malloc-trim", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            self.once()

    def once(self) -> None:
        started = time.perf_counter()
        trim()
        took = time.perf_counter() - started
        self.trims += 1
        self.longest_s = max(self.longest_s, took)
        if took > SLOW_TRIM_SECONDS:  # malloc's locks are held meanwhile: other threads' allocations wait
            log.warning("heap.trim_slow", seconds=round(took, 3))


_started: Trimmer | None = None


def start(arenas: int, trim_seconds: float) -> Trimmer | None:
    """A process's setting of both, at its start (cli/serving.py); the trimmer, when one runs. One
    trimmer a process: a second start (a command run again in the same process) gives back the first."""
    global _started
    limit_arenas(arenas)
    if _LIBC is None or trim_seconds <= 0:
        return None
    if _started is None:
        _started = Trimmer(trim_seconds)
        _started.start()
    return _started

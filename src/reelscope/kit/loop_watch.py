"""A warning, with the route, when one callback holds the event loop (issue 33 item 2, ADR 0040).

asyncio's own check (``loop.set_debug(True)`` with ``slow_callback_duration``) times every callback and
turns on debug mode's other checks on every call; this costs nothing per request instead. A thread
wakes every ``tick`` and, when the beat it posted last (``call_soon_threadsafe``) has run, posts the next
one. A beat that has not run means the loop has not come round: if the same task was running at every
tick since the beat was posted, and that for longer than the threshold, one callback of that task holds
the loop. Then ``loop.held`` is logged with the route its request was sent to (the ASGI ``scope`` found
in the loop thread's frames), the function running at the top of that thread, and the time so far; and
``loop.held.ended`` with the whole time once the loop comes round. A loop that merely has much to do
runs other tasks between ticks, and is not reported.
"""

from __future__ import annotations

import asyncio
import sys
import threading
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any

from reelscope.kit.logging import get_logger

log = get_logger(__name__)


@dataclass
class _Stall:
    since: float  # monotonic seconds: when the loop was last known to be free to run the beat
    task: asyncio.Task[Any] | None
    route: str | None = None
    where: str | None = None


class LoopWatch:
    """Watches one event loop from a thread of its own; start it on the loop's own thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop, threshold_ms: int) -> None:
        if threshold_ms <= 0:
            raise ValueError("the threshold must be positive")
        self._loop = loop
        self._threshold = threshold_ms / 1000
        self._tick = self._threshold / 5
        self._beats = 0
        self._seen = 0
        self._posted_at = 0.0
        self._stall: _Stall | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._loop_thread = 0

    def start(self) -> None:
        self._loop_thread = threading.get_ident()
        self._post(time.monotonic())
        self._thread = threading.Thread(target=self._run, name="loop-watch", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _beat(self) -> None:
        self._beats += 1

    def _post(self, now: float) -> None:
        self._posted_at = now
        try:
            self._loop.call_soon_threadsafe(self._beat)
        except RuntimeError:  # the loop is closed: nothing left to watch
            self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self._tick):
            self._check(time.monotonic())

    def _check(self, now: float) -> None:
        if self._beats != self._seen:  # the loop came round since the last beat was posted
            self._seen = self._beats
            if self._stall is not None and self._stall.route is not None:
                log.warning(
                    "loop.held.ended",
                    route=self._stall.route,
                    where=self._stall.where,
                    held_ms=round((now - self._stall.since) * 1000),
                )
            self._stall = None
            self._post(now)
            return
        task = asyncio.current_task(self._loop)
        if self._stall is None or self._stall.task is not task:
            # the first tick of a stall, or another task runs now: the loop is busy, not held by one
            since = self._posted_at if self._stall is None else now - self._tick
            self._stall = _Stall(since=since, task=task)
            return
        if self._stall.route is None and now - self._stall.since >= self._threshold:
            self._stall.route, self._stall.where = self._what_holds()
            log.warning(
                "loop.held",
                route=self._stall.route,
                where=self._stall.where,
                held_ms=round((now - self._stall.since) * 1000),
            )

    def _what_holds(self) -> tuple[str, str]:
        """The route of the request whose frames are on the loop thread's stack, and the innermost one."""
        top = sys._current_frames().get(self._loop_thread)
        if top is None:
            return "unknown", "unknown"
        where = f"{top.f_code.co_qualname} ({top.f_code.co_filename}:{top.f_lineno})"
        frame: FrameType | None = top
        while frame is not None:
            scope = frame.f_locals.get("scope")
            if isinstance(scope, dict) and scope.get("type") == "http":
                return _route_of(scope), where
            frame = frame.f_back
        return "no request", where


def _route_of(scope: dict[str, Any]) -> str:
    route = scope.get("route")
    path = getattr(route, "path_format", None) or scope.get("path", "?")
    return f"{scope.get('method', '?')} {path}"

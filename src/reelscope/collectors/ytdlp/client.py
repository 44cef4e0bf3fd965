"""yt-dlp in a child process, its failures as typed errors, and a circuit per host (ADR 0041; connectors
reference §5.1, §5.3, §10).

yt-dlp is synchronous, uses its own HTTP stack and can hang on a slow site, so it never runs on the event
loop or in this process: each fetch is ``python -m reelscope.collectors.ytdlp.fetch TARGET`` in a new
process group, killed (with anything it started) once ``seconds`` pass, which is a retryable
``UpstreamError``. At most ``CHILDREN`` run at once per connector: each is a whole interpreter.

Errors arrive as yt-dlp's message text, the only thing a scraper offers; ``classify`` maps them by
substring (§5.3), blocking before not-found, since a block says "unavailable" too. A site that blocks
this address (YouTube's bot check, TikTok's IP block) or throttles it (Instagram's login wall, HTTP 429)
is left alone for hours: the ledger pauses the bucket ``host:<site>`` of source ``ytdlp``, so every
process stops sending it anything until then (each call first spends one unit of that bucket, which
refuses while it is paused), and the other hosts keep working.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import sys
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from reelscope.collectors.base import ConnectorError, NotFound, RateLimited, Unavailable, UpstreamError
from reelscope.collectors.budget import Bucket
from reelscope.collectors.ledger import Ledger
from reelscope.kit.clock import Clock
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

SOURCE = "ytdlp"
CHILD = (sys.executable, "-m", "reelscope.collectors.ytdlp.fetch")
CHILDREN = 2
HOSTS = {Platform.YOUTUBE: "youtube.com", Platform.TIKTOK: "tiktok.com", Platform.INSTAGRAM: "instagram.com"}
MESSAGE_LIMIT = 200

# a child's arguments → its JSON answer ({"info": …} or {"error": …, "message": …}); tests give a fake
Run = Callable[[Sequence[str]], Awaitable[dict[str, Any]]]


def host_bucket(platform: Platform) -> Bucket:
    return Bucket(f"host:{HOSTS[platform]}")


@dataclass(frozen=True)
class Rule:
    """Messages containing any of ``says`` (lower case) mean ``verdict``; ``hold``: how long the host is
    left alone."""

    says: tuple[str, ...]
    verdict: Literal["blocked", "throttled", "broken", "not_found"]
    hold: timedelta = timedelta(0)


# first match wins (§5.3; wording marked [unverified] there is matched loosely and may be wrong)
RULES = (
    Rule(
        ("confirm you're not a bot", "confirm you’re not a bot", "confirm that you're not a bot"),
        "blocked",
        timedelta(hours=6),
    ),
    Rule(("ip address is blocked", "ip address has been blocked"), "blocked", timedelta(hours=6)),
    Rule(
        ("rate-limit reached or login required", "locked behind the login page"),
        "throttled",
        timedelta(hours=2),
    ),
    # YouTube's throttle of a session (2025-): "rate-limited by YouTube for up to an hour"
    Rule(
        ("http error 429", "too many requests", "rate-limited", "this content isn't available"),
        "throttled",
        timedelta(hours=1),
    ),
    Rule(("unable to extract secondary user id", "unsupported url"), "broken"),
    Rule(
        (
            "video unavailable",
            "removed",
            "private",
            "does not exist",
            "http error 404",
            "sign in to confirm your age",
            "no video formats found",
        ),
        "not_found",
    ),
)


def classify(message: str, platform: Platform, now: datetime) -> tuple[ConnectorError, timedelta | None]:
    """yt-dlp's error message → the typed error, and how long to leave the host alone (None: not)."""
    said = message.lower()
    shown = message.strip().removeprefix("ERROR: ")[:MESSAGE_LIMIT]
    host = HOSTS[platform]
    for rule in RULES:
        if not any(s in said for s in rule.says):
            continue
        until = now + rule.hold
        if rule.verdict == "blocked":
            return Unavailable(f"yt-dlp: {host} blocks this address: {shown}"), rule.hold
        if rule.verdict == "throttled":
            return RateLimited(f"yt-dlp: {host} throttles this address: {shown}", retry_at=until), rule.hold
        if rule.verdict == "broken":
            return UpstreamError(f"yt-dlp: {shown} (an upgrade of yt-dlp may fix it)", retryable=False), None
        return NotFound(f"yt-dlp: {shown}"), None
    return UpstreamError(f"yt-dlp: {shown}", retryable=True), None


async def run_child(argv: Sequence[str], seconds: float) -> dict[str, Any]:
    """Run ``argv``, read its JSON answer; killed with its whole process group after ``seconds``."""
    process = await asyncio.create_subprocess_exec(
        *argv,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # its own process group: a JS runtime yt-dlp starts dies with it
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), seconds)
    except TimeoutError:
        raise UpstreamError(f"yt-dlp: no answer within {seconds:g} s", retryable=True) from None
    finally:
        if process.returncode is None:  # timed out, or the caller was cancelled
            _kill_group(process.pid)
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
    try:
        answer = json.loads(out)
    except ValueError:
        log.warning(
            "collectors.ytdlp.child_failed",
            exit=process.returncode,
            stderr=err[-500:].decode(errors="replace"),
        )
        raise UpstreamError(
            f"yt-dlp: the child process failed (exit {process.returncode})", retryable=True
        ) from None
    if not isinstance(answer, dict):
        raise UpstreamError("yt-dlp: the child process answered oddly", retryable=True)
    return answer


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError, AttributeError):
        os.killpg(pid, signal.SIGKILL)


class Ytdlp:
    """Fetches info dicts through a child process (``run``: the real one by default), paced by host."""

    def __init__(
        self,
        *,
        clock: Clock,
        ledger: Ledger | None,
        seconds: float,
        run: Run | None = None,
        command: Sequence[str] = CHILD,
    ) -> None:
        self.clock, self.ledger, self.seconds = clock, ledger, seconds
        self.command = tuple(command)
        self._run: Run = run or (lambda argv: run_child([*self.command, *argv], self.seconds))
        self._children = asyncio.Semaphore(CHILDREN)
        self._left_alone: dict[Platform, RateLimited] = {}  # without a ledger: this connector's memory

    async def info(self, platform: Platform, target: str, *, items: int | None = None) -> dict[str, Any]:
        """The info dict of ``target`` (a URL or a search) on ``platform``'s host; typed errors."""
        argv = [target] if items is None else [target, "--items", str(items)]
        async with self._children:
            await self._may_call(platform)  # here: a host that blocked a call queued before is spared
            answer = await self._run(argv)
        if isinstance(answer.get("info"), dict):
            return dict(answer["info"])
        if answer.get("error") == "ImportError":
            raise Unavailable("yt-dlp is not installed (pip install yt-dlp)")
        error, hold = classify(
            str(answer.get("message") or answer.get("error") or ""), platform, self.clock.now()
        )
        if hold is not None:
            await self._leave_alone(platform, hold, error)
        raise error

    async def _may_call(self, platform: Platform) -> None:
        known = self._left_alone.get(platform)
        if known is not None and known.retry_at > self.clock.now():
            raise known
        if self.ledger is not None:
            await self.ledger.spend(SOURCE, host_bucket(platform))

    async def _leave_alone(self, platform: Platform, hold: timedelta, error: ConnectorError) -> None:
        until = self.clock.now() + hold
        self._left_alone[platform] = RateLimited(
            f"yt-dlp: {HOSTS[platform]} left alone ({error})", retry_at=until
        )
        if self.ledger is not None:
            await self.ledger.pause(SOURCE, host_bucket(platform), until, str(error))

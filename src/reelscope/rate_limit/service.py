"""Fixed-window rate limits per API key and endpoint (spec §8.1), the per-IP limiter (§5.5) and the
optional cap on a team's requests in flight (issue 33 item 6, beyond the spec).

When the limiter's store cannot answer (Redis down; ADR 0025) the limiter fails closed: a request it
cannot count is refused with 503 ``service_unavailable`` (§7: temporarily unavailable, not billed, the
client retries with backoff), never let through uncounted and never a 500. Giving back the count of a
402 is best effort: if the store cannot take it, the 402 still stands and the count lapses with its
window (logged as ``rate_limit.release_failed``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import NamedTuple

from reelscope.kit.errors import RateLimitExceeded, ServiceUnavailable, TooManyRequests
from reelscope.kit.logging import get_logger
from reelscope.rate_limit.features import FEATURE_LIMITS, Limits
from reelscope.rate_limit.storage import LimiterStorage, LimiterUnavailable, WindowSpec, ceil_seconds

log = get_logger(__name__)

LIMITER_DOWN = "The rate limiter is temporarily unavailable; retry later"


class RateStatus(NamedTuple):
    """What the X-RateLimit-* headers report: the window closest to running out. (A tuple: one is
    built on every counted request.)"""

    limit: int
    remaining: int
    reset_at: int  # Unix seconds

    def given_back(self) -> RateStatus:
        """The status once the request's count was released (a 402, §8.1): every window lost one count."""
        remaining = min(self.limit, self.remaining + 1)
        return RateStatus(limit=self.limit, remaining=remaining, reset_at=self.reset_at)

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(self.reset_at),
        }


class TeamBusy(RateLimitExceeded):
    """The team already has its most requests in flight (``REELSCOPE_TEAM_MAX_IN_FLIGHT``): a §7
    ``rate_limit_exceeded`` whose window is the next second."""

    def __init__(self, cap: int, now: datetime) -> None:
        reset_at = int(now.timestamp()) + 1
        super().__init__(
            f"This team already has {cap} requests in flight; retry in 1 second",
            extra={
                "limit": cap,
                "remaining": 0,
                "reset_at": reset_at,
                "reset_at_formatted": datetime.fromtimestamp(reset_at, UTC)
                .isoformat()
                .replace("+00:00", "Z"),
                "retry_after": 1,
            },
            headers={"Retry-After": "1"},
        )


class Ticket(NamedTuple):
    """A counted request; released again if the request ends in 402."""

    windows: list[WindowSpec]
    status: RateStatus


# fixed UTC windows (§8.1): this minute, this hour on the hour, this UTC day. Unix time has no leap
# seconds, so each window starts at a multiple of its length
WINDOW_SECONDS = (("minute", 60), ("hour", 3_600), ("day", 86_400))
# every window length is a multiple of the minute: the windows of a key change only when it turns
_SHORTEST = 60
_MAX_KEPT_WINDOWS = 10_000


def apply_override(feature: str, override: tuple[int | None, int | None, int | None] | None) -> Limits:
    """The table's limits, each window replaced by the team's custom value where one is set."""
    table = FEATURE_LIMITS[feature]
    if override is None:
        return table
    per_minute, per_hour, per_day = override
    return Limits(
        per_minute=per_minute if per_minute is not None else table.per_minute,
        per_hour=per_hour if per_hour is not None else table.per_hour,
        per_day=per_day if per_day is not None else table.per_day,
    )


def _windows_of(key_id: str, endpoint: str, caps: tuple[int | None, ...], second: int) -> list[WindowSpec]:
    windows: list[WindowSpec] = []
    for (name, length), cap in zip(WINDOW_SECONDS, caps, strict=True):
        if cap is not None:
            start = second - second % length
            # {key_id} is a Redis Cluster hash tag: the windows one script counts together must live
            # in one slot, or the cluster refuses the script (CROSSSLOT; issue 31)
            windows.append(WindowSpec(f"{{{key_id}}}:{endpoint}:{name}:{start}", cap, float(start + length)))
    if not windows:
        raise ValueError("a feature group must cap at least one window")
    return windows


class RateLimiter:
    def __init__(self, storage: LimiterStorage, *, ip_burst: int, ip_refill_per_second: float) -> None:
        self.storage = storage
        self.ip_burst = ip_burst
        self.ip_refill_per_second = ip_refill_per_second
        # the windows of each (key, endpoint, caps) for the current minute: built once a minute
        self._windows: dict[tuple[str, str, tuple[int | None, ...]], tuple[int, list[WindowSpec]]] = {}

    async def peek(self, *, key_id: str, endpoint: str, limits: Limits, now: datetime) -> RateStatus:
        """What ``hit`` would report before counting, counting nothing (a dry run, issue 30): the window
        closest to its limit; a ``remaining`` of 0 means the request would get 429."""
        windows = _windows_of(
            key_id, endpoint, (limits.per_minute, limits.per_hour, limits.per_day), int(now.timestamp())
        )
        try:
            counts = await self.storage.peek(windows)
        except LimiterUnavailable as exc:
            log.warning("rate_limit.unavailable", error=str(exc))
            raise ServiceUnavailable(LIMITER_DOWN) from exc
        window, count = min(zip(windows, counts, strict=True), key=lambda pair: pair[0].limit - pair[1])
        return RateStatus(window.limit, max(0, window.limit - count), int(window.expires_at))

    async def hit(self, *, key_id: str, endpoint: str, limits: Limits, now: datetime) -> Ticket:
        """Count the request in every window of the key and endpoint, or raise 429 counting nothing."""
        moment = now.timestamp()
        minute = int(moment) // _SHORTEST
        caps = (limits.per_minute, limits.per_hour, limits.per_day)
        kept_key = (key_id, endpoint, caps)
        kept = self._windows.get(kept_key)
        if kept is not None and kept[0] == minute:
            windows = kept[1]
        else:
            windows = _windows_of(key_id, endpoint, caps, minute * _SHORTEST)
            if len(self._windows) >= _MAX_KEPT_WINDOWS:
                self._windows.clear()
            self._windows[kept_key] = (minute, windows)
        try:
            allowed, counts = await self.storage.hit(windows, moment)
        except LimiterUnavailable as exc:
            log.warning("rate_limit.unavailable", error=str(exc))
            raise ServiceUnavailable(LIMITER_DOWN) from exc
        # the window closest to its limit decides the headers; on ties the one that resets soonest
        # (windows are in order of length, so the first of equals resets soonest)
        closest = 0
        for index in range(1, len(windows)):
            if windows[index].limit - counts[index] < windows[closest].limit - counts[closest]:
                closest = index
        window, count = windows[closest], counts[closest]
        status = RateStatus(window.limit, max(0, window.limit - count), int(window.expires_at))
        if not allowed:
            full = max(
                (w for w, c in zip(windows, counts, strict=True) if c >= w.limit), key=lambda w: w.expires_at
            )
            retry_after = ceil_seconds(full.expires_at - now.timestamp())
            raise RateLimitExceeded(
                f"Rate limit of {full.limit} requests exceeded for this endpoint; "
                f"retry in {retry_after} seconds",
                extra={
                    "limit": full.limit,
                    "remaining": 0,
                    "reset_at": int(full.expires_at),
                    "reset_at_formatted": datetime.fromtimestamp(full.expires_at, UTC)
                    .isoformat()
                    .replace("+00:00", "Z"),
                    "retry_after": retry_after,
                },
                headers={
                    "Retry-After": str(retry_after),
                    "X-RateLimit-Limit": str(full.limit),
                    "X-RateLimit-Remaining": "0",
                    "X-RateLimit-Reset": str(int(full.expires_at)),
                },
            )
        return Ticket(windows=windows, status=status)

    async def release(self, ticket: Ticket) -> bool:
        """Give a 402's count back (§8.1). False when the store could not take it."""
        try:
            await self.storage.release(ticket.windows)
        except LimiterUnavailable as exc:
            log.warning("rate_limit.release_failed", error=str(exc))
            return False
        return True

    @asynccontextmanager
    async def in_flight(self, team_id: str, request_id: str, cap: int, now: datetime) -> AsyncIterator[None]:
        """Hold one of the team's ``cap`` places in flight for the block, or raise ``TeamBusy`` (429).

        For operators who host many teams (``REELSCOPE_TEAM_MAX_IN_FLIGHT``, off by default): one team's
        many slow requests then cannot take every worker and connection. Counted per process in memory,
        across processes in Redis; a place a process could not give back lapses after
        ``FLIGHT_LEASE_SECONDS``."""
        try:
            entered = await self.storage.enter_flight(team_id, request_id, cap, now.timestamp())
        except LimiterUnavailable as exc:
            log.warning("rate_limit.unavailable", error=str(exc))
            raise ServiceUnavailable(LIMITER_DOWN) from exc
        if not entered:
            raise TeamBusy(cap, now)
        try:
            yield
        finally:
            try:
                await self.storage.leave_flight(team_id, request_id)
            except LimiterUnavailable as exc:
                log.warning("rate_limit.leave_failed", error=str(exc))

    async def check_ip(self, ip: str, now: datetime) -> None:
        """About 20 quick tries, then about one per second (§5.5)."""
        try:
            allowed = await self.storage.take_token(
                ip, self.ip_burst, self.ip_refill_per_second, now.timestamp()
            )
        except LimiterUnavailable as exc:
            log.warning("rate_limit.unavailable", error=str(exc))
            raise ServiceUnavailable(LIMITER_DOWN) from exc
        if not allowed:
            raise TooManyRequests()  # §8.1: Retry-After only on a 429 from the key's own limit

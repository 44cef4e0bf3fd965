"""The sources' shared memory: quota spent, paused buckets, health and circuit breakers (ADR 0044).

Every process that calls a source (the API for a tracking check, the workers for everything else) reads
and writes the same two tables, so a bucket spent in one process is spent for all, and a restart forgets
nothing (connectors reference §10: "persist budget counters across restarts").

- ``spend`` counts units before a call, atomically: one conditional UPDATE that opens a new window at the
  bucket's reset and refuses when the call would pass the daily limit (or, for background work, its
  share); a refusal is ``RateLimited(retry_at)``: the pause's end, or the reset. A bucket with a
  ``min_interval`` is paused that long by the same UPDATE, so two processes never both get the slot.
- ``pause`` records what a vendor said (quota spent, throttled, a host blocking a scraper).
- ``succeeded``/``failed`` keep each source's health; a source with a ``Breaker`` whose calls keep
  failing is skipped by the router until its circuit closes (``blocked_until``).

SQLite has one write lock, and a request that checks a source (tracking creation) already holds it in
its own transaction: waiting for it here would wait for ourselves. So on SQLite every write is tried at
once on the loop's thread (``Database.write_now``, which fails at once when the lock is held); when the
lock is taken, the decision is made from a read (a WAL reader never waits) plus what this process has
spent meanwhile, and the write is finished by a background task as soon as the lock is free.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import CursorResult, Table, Update, case, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection

from reelscope.collectors.base import ConnectorError, RateLimited
from reelscope.collectors.budget import Bucket, is_background
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database, LockBusy, is_lock_busy
from reelscope.kit.logging import get_logger
from reelscope.models.collectors import CollectorBucket, CollectorSource

log = get_logger(__name__)

B = cast(Table, CollectorBucket.__table__)
S = cast(Table, CollectorSource.__table__)
MESSAGE_LIMIT = 300
# a success is written at most this often per source and process (a busy agent run makes hundreds)
SUCCESS_WRITE_EVERY = timedelta(seconds=60)
# how long a write left for later waits for SQLite's lock (the request holding it finishes first)
LATER_WAIT_MS = 30_000


@dataclass(frozen=True)
class Breaker:
    """When a source's circuit opens: after ``threshold`` consecutive failures it is skipped for
    ``cooldown``, doubling with each further failure up to ``max_cooldown``; the first call after that
    tries again (half open, ``Ledger.may_call``: the others skip the source until it has answered)."""

    threshold: int = 3
    cooldown: timedelta = timedelta(minutes=1)
    max_cooldown: timedelta = timedelta(hours=1)

    def open_for(self, failures: int) -> timedelta | None:
        if failures < self.threshold:
            return None
        cooldown: timedelta = self.cooldown * 2 ** min(failures - self.threshold, 20)
        return min(cooldown, self.max_cooldown)


def _hold(bucket: Bucket, now: datetime) -> dict[str, Any]:
    """The pause a call of a paced bucket (``Bucket.min_interval``) starts, as UPDATE values."""
    if bucket.min_interval is None:
        return {}
    return {"paused_until": now + bucket.min_interval, "pause_reason": bucket.pacing}


def _clip(text: str) -> str:
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def _insert(dialect: str) -> Any:
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


class Ledger:
    """One per set of sources (``collectors/routing.Sources``); cheap to build."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.clock = clock
        self._dialect = db.engine.dialect.name
        # spends this process made while SQLite's lock was taken, not yet written: (source, bucket) →
        # (used, used_background)
        self._unwritten: dict[tuple[str, str], tuple[int, int]] = {}
        self._later: set[asyncio.Task[None]] = set()
        self._success_written: dict[str, datetime] = {}

    # --- writing ------------------------------------------------------------------------------------

    async def _write(self, work: Callable[[Connection], Any], *, later: bool = True) -> Any:
        """Run ``work`` in a write transaction. On SQLite, at once or not at all when ``later`` is False
        (``LockBusy``), else finished in the background once the lock is free (returns None)."""
        if self.db.write_now is None:
            async with self.db.transaction() as session:
                return await (await session.connection()).run_sync(work)
        try:
            with self.db.write_now.begin() as connection:
                return work(connection)
        except Exception as exc:
            if not (isinstance(exc, LockBusy) or is_lock_busy(exc)):
                raise
            if not later:
                raise LockBusy() from exc
        task = asyncio.get_running_loop().create_task(self._write_later(work))
        self._later.add(task)
        task.add_done_callback(self._later.discard)
        return None

    async def _write_later(self, work: Callable[[Connection], Any]) -> None:
        try:
            await asyncio.to_thread(self._write_waiting, work)
        except Exception:  # a lost health note must not fail anything; it is logged
            log.exception("collectors.ledger.write_failed")

    def _write_waiting(self, work: Callable[[Connection], Any]) -> None:
        """The whole transaction on a thread of its own, waiting for the lock there: nothing of it needs
        the event loop, so a loop that is busy (or blocked by a caller) cannot hold the lock meanwhile."""
        assert self.db.write_now is not None
        with self.db.write_now.connect() as connection:
            driver = connection.connection.dbapi_connection
            assert driver is not None
            driver.execute(f"PRAGMA busy_timeout = {LATER_WAIT_MS}")
            try:
                with connection.begin():
                    work(connection)
            finally:
                driver.execute("PRAGMA busy_timeout = 0")

    async def flush(self) -> None:
        """Wait for the writes left for later (tests, shutdown)."""
        while self._later:
            await asyncio.gather(*list(self._later), return_exceptions=True)

    def _ensure(self, connection: Connection, table: Any, values: dict[str, Any], keys: list[str]) -> None:
        connection.execute(
            _insert(self._dialect)(table).values(**values).on_conflict_do_nothing(index_elements=keys)
        )

    # --- quota --------------------------------------------------------------------------------------

    async def spend(self, source: str, bucket: Bucket, units: int = 1) -> None:
        """Count ``units`` of ``bucket`` for a call about to be made; ``RateLimited`` when the bucket is
        paused or the call would pass its limit (for background work, its background share)."""
        now = self.clock.now()
        background = is_background()
        fresh = or_(B.c.window_ends_at.is_(None), B.c.window_ends_at <= now)
        used = case((fresh, 0), else_=B.c.used)
        used_background = case((fresh, 0), else_=B.c.used_background)
        allowed = [
            B.c.source == source,
            B.c.bucket == bucket.name,
            or_(B.c.paused_until.is_(None), B.c.paused_until <= now),
        ]
        if bucket.daily_limit is not None:
            allowed.append(used + units <= bucket.daily_limit)
        if background and bucket.background_limit is not None:
            allowed.append(used_background + units <= bucket.background_limit)
        stmt: Update = (
            update(B)
            .where(*allowed)
            .values(
                used=used + units,
                used_background=used_background + (units if background else 0),
                window_ends_at=case((fresh, bucket.resets.after(now)), else_=B.c.window_ends_at),
                daily_limit=bucket.daily_limit,
                updated_at=now,
                **_hold(bucket, now),
            )
        )
        empty = {"source": source, "bucket": bucket.name, "used": 0, "used_background": 0}

        def work(connection: Connection) -> int:
            self._ensure(connection, B, empty, ["source", "bucket"])
            result: CursorResult[Any] = connection.execute(stmt)
            return result.rowcount

        try:
            counted = await self._write(work, later=False)
        except LockBusy:
            await self._spend_while_locked(source, bucket, units, background, now)
            return
        if counted != 1:
            raise await self._refusal(source, bucket, background, now)

    async def _spend_while_locked(
        self, source: str, bucket: Bucket, units: int, background: bool, now: datetime
    ) -> None:
        """Decide from a read plus this process's unwritten spends, then write when the lock is free."""
        row = await self._bucket_row(source, bucket.name)
        key = (source, bucket.name)
        pending, pending_background = self._unwritten.get(key, (0, 0))
        fresh = row is None or row.window_ends_at is None or row.window_ends_at <= now
        used = (0 if fresh else row.used) + pending
        used_bg = (0 if fresh else row.used_background) + pending_background
        paused = row is not None and row.paused_until is not None and row.paused_until > now
        over = bucket.daily_limit is not None and used + units > bucket.daily_limit
        over_bg = (
            background and bucket.background_limit is not None and used_bg + units > bucket.background_limit
        )
        if paused or over or over_bg:
            raise await self._refusal(source, bucket, background, now)
        self._unwritten[key] = (pending + units, pending_background + (units if background else 0))

        def work(connection: Connection) -> None:
            unwritten = self._unwritten.pop(key, (0, 0))
            if unwritten == (0, 0):
                return
            self._ensure(
                connection,
                B,
                {"source": source, "bucket": bucket.name, "used": 0, "used_background": 0},
                ["source", "bucket"],
            )
            fresh_now = or_(B.c.window_ends_at.is_(None), B.c.window_ends_at <= self.clock.now())
            connection.execute(
                update(B)
                .where(B.c.source == source, B.c.bucket == bucket.name)
                .values(
                    used=case((fresh_now, 0), else_=B.c.used) + unwritten[0],
                    used_background=case((fresh_now, 0), else_=B.c.used_background) + unwritten[1],
                    window_ends_at=case((fresh_now, bucket.resets.after(now)), else_=B.c.window_ends_at),
                    daily_limit=bucket.daily_limit,
                    updated_at=self.clock.now(),
                    **_hold(bucket, now),
                )
            )

        task = asyncio.get_running_loop().create_task(self._write_later(work))
        self._later.add(task)
        task.add_done_callback(self._later.discard)

    async def _bucket_row(self, source: str, bucket: str) -> Any:
        async with self.db.transaction(write=False) as session:
            return (
                await session.execute(select(B).where(B.c.source == source, B.c.bucket == bucket))
            ).one_or_none()

    async def _refusal(self, source: str, bucket: Bucket, background: bool, now: datetime) -> RateLimited:
        row = await self._bucket_row(source, bucket.name)
        if row is not None and row.paused_until is not None and row.paused_until > now:
            reason = row.pause_reason or "paused"
            return RateLimited(
                f"{source} {bucket.name}: {reason} (until {row.paused_until.isoformat()})",
                retry_at=row.paused_until,
            )
        reset = row.window_ends_at if row is not None and row.window_ends_at else bucket.resets.after(now)
        what = "background share of the quota" if background else "daily quota"
        return RateLimited(f"{source} {bucket.name}: {what} spent until {reset.isoformat()}", retry_at=reset)

    async def pause(self, source: str, bucket: Bucket, until: datetime, reason: str) -> None:
        """The vendor said this bucket is spent or throttled (or a host blocks us) until ``until``."""
        now = self.clock.now()
        stmt = (
            update(B)
            .where(B.c.source == source, B.c.bucket == bucket.name)
            .values(
                paused_until=until, pause_reason=_clip(reason), daily_limit=bucket.daily_limit, updated_at=now
            )
        )
        empty = {"source": source, "bucket": bucket.name, "used": 0, "used_background": 0}

        def work(connection: Connection) -> None:
            self._ensure(connection, B, empty, ["source", "bucket"])
            connection.execute(stmt)

        log.warning(
            "collectors.paused", source=source, bucket=bucket.name, until=until.isoformat(), reason=reason
        )
        await self._write(work)

    async def remaining(self, source: str, bucket: Bucket) -> int | None:
        """Units left in the current window for the caller's kind of work (None: no limit); 0 while the
        bucket is paused."""
        now = self.clock.now()
        row = await self._bucket_row(source, bucket.name)
        if row is not None and row.paused_until is not None and row.paused_until > now:
            return 0
        if bucket.daily_limit is None:
            return None
        fresh = row is None or row.window_ends_at is None or row.window_ends_at <= now
        pending, pending_background = self._unwritten.get((source, bucket.name), (0, 0))
        used = (0 if fresh else row.used) + pending
        left = bucket.daily_limit - used
        if is_background() and bucket.background_limit is not None:
            used_bg = (0 if fresh else row.used_background) + pending_background
            left = min(left, bucket.background_limit - used_bg)
        return max(left, 0)

    async def claim(self, source: str, turn: str, every: timedelta) -> bool:
        """Whether a recurring pull (a country's chart) is due, claiming it for ``every`` if so: one
        conditional UPDATE, so two processes never both pull it. Its row shows when the next one is due."""
        now = self.clock.now()
        stmt = (
            update(B)
            .where(
                B.c.source == source,
                B.c.bucket == turn,
                or_(B.c.window_ends_at.is_(None), B.c.window_ends_at <= now),
            )
            .values(window_ends_at=now + every, used=B.c.used + 1, updated_at=now)
        )
        empty = {"source": source, "bucket": turn, "used": 0, "used_background": 0}

        def work(connection: Connection) -> int:
            self._ensure(connection, B, empty, ["source", "bucket"])
            result: CursorResult[Any] = connection.execute(stmt)
            return result.rowcount

        try:
            return bool(await self._write(work, later=False) == 1)
        except LockBusy:
            return False  # the lock is busy right now: the next cycle claims it

    async def release(self, source: str, turn: str) -> None:
        """Give a claimed turn back (its pull failed): the next cycle may try again."""
        now = self.clock.now()

        def work(connection: Connection) -> None:
            connection.execute(
                update(B).where(B.c.source == source, B.c.bucket == turn).values(window_ends_at=now)
            )

        await self._write(work)

    # --- health -------------------------------------------------------------------------------------

    async def blocked_until(self, source: str) -> tuple[datetime, str] | None:
        """When the source's circuit is open: until when, and why."""
        now = self.clock.now()
        row = await self._circuit(source)
        if row is None or row.circuit_open_until is None or row.circuit_open_until <= now:
            return None
        return row.circuit_open_until, row.circuit_reason or "failing"

    async def may_call(self, source: str, breaker: Breaker) -> tuple[datetime, str] | None:
        """Whether the router may call ``source`` now (None), or until when its circuit is open and why.

        Once an open circuit's time is up it is half open: one call, in any process, tries again. The
        caller that claims the trial (one conditional UPDATE) is let through and the circuit is held open
        for ``breaker.cooldown`` meanwhile, so calls made while the trial still waits for its answer (a
        source that hangs until its timeout) skip the source rather than each wait too. The trial's
        outcome closes the circuit (``succeeded``) or opens it for longer (``failed``)."""
        now = self.clock.now()
        row = await self._circuit(source)
        if row is None or row.circuit_open_until is None:
            return None  # closed: the common case costs one read
        if row.circuit_open_until > now:
            return row.circuit_open_until, row.circuit_reason or "failing"
        stmt = (
            update(S)
            .where(S.c.source == source, S.c.circuit_open_until <= now)
            .values(circuit_open_until=now + breaker.cooldown)
        )

        def work(connection: Connection) -> int:
            result: CursorResult[Any] = connection.execute(stmt)
            return result.rowcount

        try:
            if await self._write(work, later=False) == 1:
                return None  # this call is the trial
        except LockBusy:
            return None  # the trial cannot be claimed right now: this call tries, as any did before
        return await self.blocked_until(source)  # another call's trial holds it (None: it closed)

    async def _circuit(self, source: str) -> Any:
        async with self.db.transaction(write=False) as session:
            return (
                await session.execute(
                    select(S.c.circuit_open_until, S.c.circuit_reason).where(S.c.source == source)
                )
            ).one_or_none()

    async def succeeded(self, source: str) -> None:
        now = self.clock.now()
        last = self._success_written.get(source)
        if last is not None and now - last < SUCCESS_WRITE_EVERY:
            return
        self._success_written[source] = now
        empty = {"source": source, "calls": 0, "failures": 0}

        def work(connection: Connection) -> None:
            self._ensure(connection, S, empty, ["source"])
            connection.execute(
                update(S)
                .where(S.c.source == source)
                .values(last_success_at=now, failures=0, circuit_open_until=None, calls=S.c.calls + 1)
            )

        await self._write(work)

    async def failed(self, source: str, error: ConnectorError, breaker: Breaker | None) -> None:
        """Record a failed call; with a ``breaker``, open the circuit once failures keep coming."""
        now = self.clock.now()
        self._success_written.pop(source, None)
        kind, message = type(error).__name__, _clip(str(error))
        empty = {"source": source, "calls": 0, "failures": 0}

        def work(connection: Connection) -> None:
            self._ensure(connection, S, empty, ["source"])
            connection.execute(
                update(S)
                .where(S.c.source == source)
                .values(
                    failures=S.c.failures + 1,
                    calls=S.c.calls + 1,
                    last_error_at=now,
                    last_error_kind=kind,
                    last_error=message,
                )
            )
            if breaker is None:
                return
            failures = connection.execute(select(S.c.failures).where(S.c.source == source)).scalar_one()
            open_for = breaker.open_for(failures)
            if open_for is not None:
                until = now + open_for
                connection.execute(
                    update(S)
                    .where(S.c.source == source)
                    .values(circuit_open_until=until, circuit_reason=message)
                )
                log.warning(
                    "collectors.circuit_open", source=source, until=until.isoformat(), failures=failures
                )

        await self._write(work)

    async def reset(self, source: str) -> None:
        """Close the circuit and forget the failures (``reelscope collectors check`` after a fix)."""

        def work(connection: Connection) -> None:
            connection.execute(
                update(S)
                .where(S.c.source == source)
                .values(failures=0, circuit_open_until=None, circuit_reason=None)
            )

        self._success_written.pop(source, None)
        await self._write(work)

    # --- status -------------------------------------------------------------------------------------

    async def rows(self) -> tuple[list[Any], list[Any]]:
        """Every bucket row and every source row (collector status)."""
        async with self.db.transaction(write=False) as session:
            buckets = list((await session.execute(select(B).order_by(B.c.source, B.c.bucket))).all())
            sources = list((await session.execute(select(S).order_by(S.c.source))).all())
        return buckets, sources

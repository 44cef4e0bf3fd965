"""The sources' ledger: quota counted per bucket, refused past the limit until the reset, shared by every
process and kept across restarts (issue 26 item 2; connectors reference §1.4, §10; ADR 0044)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, text

from reelscope.collectors.base import RateLimited, UpstreamError
from reelscope.collectors.budget import PACIFIC_MIDNIGHT, UTC_MIDNIGHT, Bucket, background
from reelscope.collectors.ledger import Breaker, Ledger
from reelscope.kit.clock import ManualClock
from reelscope.models.collectors import CollectorBucket
from reelscope.runtime import Runtime

SEARCH = Bucket("search", daily_limit=3, resets=PACIFIC_MIDNIGHT, background_share=0.34)


class TestResetInstants:
    @pytest.mark.parametrize(
        ("spent_at", "reset"),
        [
            # connectors reference §1.4's vectors: midnight in Los Angeles, 07:00 or 08:00 UTC
            ("2026-07-15T12:00:00+00:00", "2026-07-16T07:00:00+00:00"),
            ("2026-12-15T12:00:00+00:00", "2026-12-16T08:00:00+00:00"),
            ("2026-07-15T06:30:00+00:00", "2026-07-15T07:00:00+00:00"),
        ],
    )
    def test_youtube_resets_at_midnight_pacific(self, spent_at: str, reset: str) -> None:
        assert PACIFIC_MIDNIGHT.after(datetime.fromisoformat(spent_at)) == datetime.fromisoformat(reset)

    def test_utc_midnight_is_the_next_one_even_at_midnight(self) -> None:
        midnight = datetime(2026, 11, 21, tzinfo=UTC)
        assert UTC_MIDNIGHT.after(midnight) == midnight + timedelta(days=1)


@pytest.mark.both_databases
class TestQuota:
    async def test_a_spent_bucket_refuses_until_its_reset_and_a_restart_remembers(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        clock.set(datetime(2026, 7, 15, 12, 0, tzinfo=UTC))
        ledger = Ledger(runtime.db, clock)
        for _ in range(3):
            await ledger.spend("youtube", SEARCH)
        with pytest.raises(RateLimited) as refused:
            await ledger.spend("youtube", SEARCH)
        assert refused.value.retry_at == datetime(2026, 7, 16, 7, 0, tzinfo=UTC)
        assert "youtube search" in str(refused.value)

        restarted = Ledger(runtime.db, clock)  # another process, or this one after a restart
        assert await restarted.remaining("youtube", SEARCH) == 0
        with pytest.raises(RateLimited):
            await restarted.spend("youtube", SEARCH)

        clock.set(datetime(2026, 7, 16, 7, 0, tzinfo=UTC))  # the reset: a new window
        await restarted.spend("youtube", SEARCH)
        assert await restarted.remaining("youtube", SEARCH) == 2
        async with runtime.db.transaction(write=False) as session:
            row = (await session.execute(select(CollectorBucket))).scalar_one()
        assert (row.used, row.window_ends_at) == (1, datetime(2026, 7, 17, 7, 0, tzinfo=UTC))

    async def test_background_work_gets_only_its_share(self, runtime: Runtime, clock: ManualClock) -> None:
        ledger = Ledger(runtime.db, clock)
        with background():
            await ledger.spend("youtube", SEARCH)  # int(3 * 0.34) = 1 unit of background share
            assert await ledger.remaining("youtube", SEARCH) == 0
            with pytest.raises(RateLimited) as refused:
                await ledger.spend("youtube", SEARCH)
        assert "background share" in str(refused.value)
        await ledger.spend("youtube", SEARCH)  # on-demand work still has the rest
        await ledger.spend("youtube", SEARCH)
        with pytest.raises(RateLimited):
            await ledger.spend("youtube", SEARCH)

    async def test_a_pause_refuses_every_spend_until_it_ends(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        until = clock.now() + timedelta(minutes=1)
        await ledger.pause("youtube", SEARCH, until, "rateLimitExceeded")
        with pytest.raises(RateLimited) as refused:
            await ledger.spend("youtube", SEARCH)
        assert refused.value.retry_at == until
        assert await ledger.remaining("youtube", SEARCH) == 0
        clock.advance(timedelta(minutes=1))
        await ledger.spend("youtube", SEARCH)

    async def test_a_turn_is_claimed_once_per_period(self, runtime: Runtime, clock: ManualClock) -> None:
        first, second = Ledger(runtime.db, clock), Ledger(runtime.db, clock)
        every = timedelta(minutes=30)
        assert await first.claim("youtube", "feed:youtube:us", every)
        assert not await second.claim("youtube", "feed:youtube:us", every)
        assert await second.claim("youtube", "feed:youtube:gb", every)
        clock.advance(every)
        assert await second.claim("youtube", "feed:youtube:us", every)


@pytest.mark.both_databases
class TestHealth:
    async def test_the_circuit_opens_after_repeated_failures_and_closes_on_success(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        breaker = Breaker(threshold=2, cooldown=timedelta(minutes=1), max_cooldown=timedelta(minutes=3))
        await ledger.failed("youtube", UpstreamError("503 from the API"), breaker)
        assert await ledger.blocked_until("youtube") is None
        await ledger.failed("youtube", UpstreamError("503 from the API"), breaker)
        blocked = await ledger.blocked_until("youtube")
        assert blocked == (clock.now() + timedelta(minutes=1), "503 from the API")
        await ledger.failed("youtube", UpstreamError("503 again"), breaker)  # doubles
        assert await ledger.blocked_until("youtube") == (clock.now() + timedelta(minutes=2), "503 again")
        for _ in range(5):  # capped
            await ledger.failed("youtube", UpstreamError("503 again"), breaker)
        assert await ledger.blocked_until("youtube") == (clock.now() + timedelta(minutes=3), "503 again")
        clock.advance(timedelta(minutes=3))
        assert await ledger.blocked_until("youtube") is None  # half open: the next call may try
        await ledger.succeeded("youtube")
        await ledger.failed("youtube", UpstreamError("once"), breaker)
        assert await ledger.blocked_until("youtube") is None  # failures were reset by the success

    async def test_a_half_open_circuit_lets_one_call_try_and_holds_the_others_off_meanwhile(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        breaker = Breaker(threshold=1, cooldown=timedelta(minutes=1))
        assert await ledger.may_call("youtube", breaker) is None  # never failed: closed
        await ledger.failed("youtube", UpstreamError("timed out"), breaker)
        assert await ledger.may_call("youtube", breaker) == (clock.now() + timedelta(minutes=1), "timed out")
        clock.advance(timedelta(minutes=1))
        assert await ledger.may_call("youtube", breaker) is None  # the trial
        other = Ledger(runtime.db, clock)  # another process, while the trial waits for its answer
        assert await other.may_call("youtube", breaker) == (clock.now() + timedelta(minutes=1), "timed out")
        await ledger.failed("youtube", UpstreamError("timed out again"), breaker)  # the trial's answer
        held = clock.now() + timedelta(minutes=2)
        assert await other.may_call("youtube", breaker) == (held, "timed out again")
        clock.set(held)
        assert await other.may_call("youtube", breaker) is None  # its trial
        await other.succeeded("youtube")
        assert await ledger.may_call("youtube", breaker) is None  # closed: every call may go
        assert await other.may_call("youtube", breaker) is None

    async def test_without_a_breaker_failures_are_recorded_but_never_block(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        for _ in range(10):
            await ledger.failed("sandbox", UpstreamError("injected"), None)
        assert await ledger.blocked_until("sandbox") is None
        _buckets, sources = await ledger.rows()
        assert [(s.source, s.failures, s.last_error_kind) for s in sources] == [
            ("sandbox", 10, "UpstreamError")
        ]


class TestSqliteLock:
    async def test_spending_inside_a_transaction_that_holds_the_lock_does_not_wait_for_itself(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        """A tracking check runs inside its request's write transaction, which holds SQLite's lock: the
        ledger decides from a read and writes once the lock is free, instead of waiting for itself."""
        ledger = Ledger(runtime.db, clock)
        await ledger.spend("youtube", SEARCH)
        async with runtime.db.transaction() as session:
            await session.execute(text("UPDATE collector_buckets SET updated_at = updated_at"))  # the lock
            await ledger.spend("youtube", SEARCH)
            await ledger.spend("youtube", SEARCH)
            with pytest.raises(RateLimited):
                await ledger.spend("youtube", SEARCH)  # counted with what is not written yet
        await ledger.flush()
        async with runtime.db.transaction(write=False) as session:
            row = (await session.execute(select(CollectorBucket))).scalar_one()
        assert row.used == 3

"""Continuous collection (issue 5): discovery feeds in, stats refreshed, an empty catalog backfilled."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from sqlalchemy import func, select

from reelscope.catalog import collection
from reelscope.collectors.routing import Sources
from reelscope.collectors.sandbox import SandboxConnector, parse_failures
from reelscope.kit.clock import ManualClock
from reelscope.models import Video, ViewSnapshot
from reelscope.runtime import Runtime
from tests.catalog_builders import TikTokSandbox

SEED = 20240601


class TestCollect:
    @pytest.mark.both_databases
    async def test_a_failing_source_does_not_stop_the_others(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        connector = SandboxConnector(clock, seed=SEED, failures=parse_failures("tiktok:1"))
        now = clock.now()
        result = await collection.collect(
            runtime.db, Sources([connector], None), clock, now - timedelta(hours=1), now
        )
        assert result.failures == {"sandbox:tiktok": "UpstreamError"}
        assert set(result.videos) == {"sandbox:youtube", "sandbox:instagram"}
        async with runtime.db.transaction(write=False) as session:
            platforms = set((await session.execute(select(Video.platform))).scalars())
        assert platforms == {"youtube", "instagram"}

    async def test_refresh_updates_young_videos_and_appends_snapshots(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        connector = SandboxConnector(clock, seed=SEED)
        now = clock.now()
        await collection.collect(runtime.db, Sources([connector], None), clock, now - timedelta(hours=3), now)
        async with runtime.db.transaction(write=False) as session:
            before = dict((await session.execute(select(Video.id, Video.views))).all())
        clock.advance(timedelta(hours=10))
        result = await collection.refresh_recent_stats(runtime.db, Sources([connector], None), clock)
        assert result.refreshed == len(before) and result.failed == 0
        async with runtime.db.transaction(write=False) as session:
            after = dict((await session.execute(select(Video.id, Video.views))).all())
            snapshots = (await session.execute(select(func.count()).select_from(ViewSnapshot))).scalar_one()
        assert all(after[k] >= before[k] for k in before) and sum(after.values()) > sum(before.values())
        assert snapshots == 2 * len(before)


class TestBackfill:
    async def test_backfill_finds_each_video_within_a_day_of_posting(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        connector = SandboxConnector(clock, seed=SEED)
        count = await collection.backfill(runtime.db, [connector], clock, days=2)
        now = clock.now()
        async with runtime.db.transaction(write=False) as session:
            rows = (await session.execute(select(Video.published_at, Video.found_at, Video.fetched_at))).all()
        assert count == len(rows) > 3 * 5_000
        assert all(published <= found <= published + timedelta(days=1) for published, found, _ in rows)
        assert all(found <= now and fetched == now for _, found, fetched in rows)

    async def test_a_resumed_backfill_goes_on_from_the_last_window_stored(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        """The first start's history job records each window it lands and, after a restart, starts at
        the next one (issue 33 item 5)."""
        now = clock.now()
        landed: list[datetime] = []

        async def after_window(end: datetime) -> None:
            async with runtime.db.transaction(write=False) as session:
                latest = (await session.execute(select(func.max(Video.published_at)))).scalar_one()
            assert latest is not None and latest < end  # called once the window is stored, not before
            landed.append(end)

        await collection.backfill(
            runtime.db,
            [TikTokSandbox(clock, seed=SEED)],
            clock,
            days=2,
            resume_at=now - timedelta(days=1),
            after_window=after_window,
        )
        assert landed == [now]
        async with runtime.db.transaction(write=False) as session:
            earliest = (await session.execute(select(func.min(Video.published_at)))).scalar_one()
            found = set((await session.execute(select(Video.found_at))).scalars())
        assert earliest is not None and earliest >= now - timedelta(days=1)  # the first window skipped
        assert found == {now}

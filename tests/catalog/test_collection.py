"""Continuous collection (issue 5): discovery feeds in, stats refreshed, an empty catalog backfilled."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import func, select

from reelscope.catalog import collection
from reelscope.collectors.routing import Sources
from reelscope.collectors.sandbox import SandboxConnector, parse_failures
from reelscope.kit.clock import ManualClock
from reelscope.models import Video, ViewSnapshot
from reelscope.runtime import Runtime

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

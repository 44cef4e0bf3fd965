"""The scripts of examples/ run against the in-process app (issue 30 item 6), each through its
``main(client)`` with the sync client, as ``python examples/<name>.py`` would with a live server."""

from __future__ import annotations

import asyncio
import re
from datetime import timedelta

import pytest
from examples import creator_watchlist, daily_trend_digest, niche_monitor

from reelscope.client import Reelscope
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.config import Settings
from reelscope.digest import service as digest_service
from reelscope.hashtag import service as hashtag_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from reelscope.trend import service as trend_service
from tests.catalog_builders import ingest, video
from tests.trend.conftest import detected, snapshots

SEED = Settings().sandbox_seed


@pytest.fixture
async def catalog(runtime: Runtime, clock: ManualClock) -> None:
    """Three videos of the last day with hashtags, the digest and hashtag rollups, one global trend run."""
    now = clock.now()
    await ingest(
        runtime,
        video("a", now - timedelta(hours=5), views=90_000, hashtags=("bread",), fetched_at=now),
        video("b", now - timedelta(hours=9), views=40_000, hashtags=("bread", "oven"), fetched_at=now),
        video("c", now - timedelta(hours=20), platform=Platform.YOUTUBE, views=7_000, hashtags=("#oven",),
              fetched_at=now),
    )  # fmt: skip
    await digest_service.refresh(runtime.db, now)
    await hashtag_service.rollup(runtime.db, now)
    found = detected(now, ("sourdough", 12))
    async with runtime.db.transaction() as session:
        await trend_service.seed_default_regions(session)
        region = await trend_service.region_or_400(session, "global")
        await trend_service.merge_run(session, region, now, found, snapshots(found, now), ())


class TestDailyTrendDigest:
    async def test_the_digest_is_slack_text_with_trends_videos_hashtags_and_its_cost(
        self, sync_api: Reelscope, catalog: None, clock: ManualClock
    ) -> None:
        message = await asyncio.to_thread(daily_trend_digest.main, sync_api, today=clock.now().date())
        text = message["text"]
        assert text.startswith("*Short-form video digest*")
        assert (
            "90,000 views on tiktok"
            in text.splitlines()[text.splitlines().index("*Most viewed in the last 48 hours*") + 1]
        )
        assert "#bread — 130,000 views in 2 videos" in text
        assert "views/h" in text  # the emerging trend of the run
        assert text.endswith("_Reelscope, $0.55 for this digest_")


class TestNicheMonitor:
    async def test_a_recurring_agent_is_made_once_and_only_new_outliers_are_printed(
        self, sync_api: Reelscope
    ) -> None:
        seen: set[str] = set()
        first = await asyncio.to_thread(niche_monitor.main, sync_api, ["sourdough"], seen=seen)
        assert first and all(" followers" in line for line in first)
        assert len(seen) == len(first)
        again = await asyncio.to_thread(niche_monitor.main, sync_api, ["sourdough"], seen=seen)
        assert again == []
        agents = await asyncio.to_thread(lambda: list(sync_api.iter_agents()))
        assert len(agents) == 1 and agents[0].is_recurring


class TestCreatorWatchlist:
    async def test_creators_are_tracked_once_and_their_outlier_posts_alerted(
        self, sync_api: Reelscope
    ) -> None:
        watchlist: creator_watchlist.Watchlist = [
            ("tiktok", handle_of(SEED, Platform.TIKTOK, 2)),
            ("tiktok", handle_of(SEED, Platform.TIKTOK, 5)),
        ]
        await asyncio.to_thread(creator_watchlist.track_all, sync_api, watchlist)
        await asyncio.to_thread(sync_api.sleep, 0)  # the first checks run (the queue drains)
        alerts = await asyncio.to_thread(creator_watchlist.main, sync_api, watchlist)
        tracked = await asyncio.to_thread(lambda: list(sync_api.iter_tracked_creators()))
        assert len(tracked) == 2  # tracked once, not again by main
        assert {alert.split(":")[0] for alert in alerts} == {f"tiktok @{handle}" for _p, handle in watchlist}
        for alert in alerts:  # each post above 3 times its creator's median (§6.3 outlier rule)
            views, median = re.search(r"([\d,]+) views, .*median ([\d,]+)", alert).groups()  # type: ignore[union-attr]
            assert int(views.replace(",", "")) > 3 * int(median.replace(",", ""))
        posts = await asyncio.to_thread(lambda: list(sync_api.iter_tracked_creator_posts(tracked[0].id)))
        assert posts
        balance = await asyncio.to_thread(sync_api.get_account_balance)
        assert balance.data.credits_remaining == 1000 - 2 * 25  # §4.7: two creations, with their first check

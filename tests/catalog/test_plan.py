"""The collection planner over a real source (issue 26 item 5): country charts first, each pulled once per
turn; stats refreshes within what is left of the background share, spread over the day; on-demand work
keeps the rest of the quota. The source is the YouTube connector against an in-process fake API."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from pydantic import SecretStr
from sqlalchemy import func, select

from reelscope.catalog import collection
from reelscope.collectors.base import Capability
from reelscope.collectors.registry import build_sources
from reelscope.collectors.routing import Sources, bucket_of
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.models import Video
from reelscope.runtime import Runtime
from tests.collectors.youtube.fake import KEY, FakeYouTube, populated

REGIONS = ["us", "gb", "au"]
pytestmark = pytest.mark.both_databases


def youtube(runtime: Runtime, clock: ManualClock, fake: FakeYouTube, **settings: object) -> Sources:
    configured = runtime.settings.model_copy(
        update={"connectors": "youtube", "youtube_api_key": SecretStr(KEY), **settings}
    )
    return build_sources(configured, clock, runtime.db, transport=httpx.MockTransport(fake))


async def cycle(
    runtime: Runtime, clock: ManualClock, sources: Sources, every: timedelta = collection.FEED_EVERY
) -> collection.CollectResult:
    now = clock.now()
    since = now - timedelta(hours=1)
    return await collection.collect(runtime.db, sources, clock, since, now, regions=REGIONS, feed_every=every)


async def by_region(runtime: Runtime) -> dict[str | None, int]:
    async with runtime.db.transaction(write=False) as session:
        rows = await session.execute(select(Video.feed_region, func.count()).group_by(Video.feed_region))
    return {region: count for region, count in rows.all()}


def chart_calls(fake: FakeYouTube) -> list[str]:
    return [r.url.params["regionCode"] for r in fake.calls("videos") if r.url.params.get("chart")]


class TestCharts:
    async def test_each_country_chart_is_pulled_once_per_turn_with_its_shorts(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        fake = populated(FakeYouTube(), REGIONS, 60, clock.now())
        sources = youtube(runtime, clock, fake)
        first = await cycle(runtime, clock, sources)
        assert first.failures == {} and first.not_due == 0
        # 60 chart entries, two pages of 50; a third are not Shorts (12 minutes long)
        assert chart_calls(fake) == ["US", "US", "GB", "GB", "AU", "AU"]
        assert await by_region(runtime) == {"us": 40, "gb": 40, "au": 40}

        again = await cycle(runtime, clock, sources)  # within the turn: nothing is asked
        assert again.not_due == 3 and len(chart_calls(fake)) == 6
        clock.advance(collection.FEED_EVERY)
        await cycle(runtime, clock, youtube(runtime, clock, fake))  # another process, same turns
        assert len(chart_calls(fake)) == 12

    async def test_a_source_spent_is_asked_nothing_more_this_cycle(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        fake = populated(FakeYouTube(), REGIONS, 60, clock.now())
        # 10 units, background 6: the US chart (two pages and its authors), the GB chart (its authors
        # are known by then), then the share is spent: the AU chart is refused before it is asked
        sources = youtube(runtime, clock, fake, youtube_units_daily_limit=10)
        result = await cycle(runtime, clock, sources)
        assert result.failures == {"youtube:youtube:au": "RateLimited"}
        assert chart_calls(fake) == ["US", "US", "GB", "GB"]
        clock.advance(timedelta(minutes=5))
        again = await cycle(runtime, clock, sources)  # the AU turn was given back, still spent
        assert again.failures == {"youtube:youtube:au": "RateLimited"} and again.not_due == 2


class TestBudget:
    async def test_a_simulated_day_never_spends_more_than_the_background_share(
        self, runtime: Runtime, clock: ManualClock
    ) -> None:
        """Every 2 hours a collection and a stats refresh, for a day: the background never passes its
        share of the quota at any moment, and on-demand calls find the rest (issue 26's aim)."""
        fake = populated(FakeYouTube(), REGIONS, 60, clock.now())
        sources = youtube(runtime, clock, fake, youtube_units_daily_limit=150, youtube_background_share=0.6)
        (connector,) = sources.connectors
        units = bucket_of(connector, Capability.STATS)
        assert units is not None and units.background_limit == 90
        assert sources.ledger is not None
        start, refreshed, spent = clock.now(), 0, []
        every = timedelta(hours=2)
        while clock.now() < start + timedelta(days=1):
            await cycle(runtime, clock, sources, every)
            refresh = await collection.refresh_recent_stats(runtime.db, sources, clock, every=every)
            refreshed += refresh.refreshed
            buckets, _health = await sources.ledger.rows()
            spent.append(next(b.used_background for b in buckets if b.bucket == "units"))
            clock.advance(every)
        assert max(spent) <= 90  # at every moment of the day
        assert max(spent) >= 75  # and the share was used before the reset (08:00 UTC), not left idle
        assert refreshed > 0
        # the rest of the day's quota is still there for a lookup
        video = await sources.video(Platform.YOUTUBE, "us000000001")
        assert video.external_id == "us000000001"

"""YouTube's quota through the ledger (connectors reference §1.4, §10; issue 26 item 2): each page counted
before it is sent, the search bucket apart from the units, a spent bucket refusing until midnight Pacific,
counters kept across a restart, and background work held to its share."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from reelscope.collectors.base import RateLimited, UpstreamError
from reelscope.collectors.budget import background
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.routing import Sources
from reelscope.collectors.youtube import YouTubeConnector
from reelscope.collectors.youtube.client import Buckets
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Database, create_database
from reelscope.kit.platforms import Platform
from tests.collectors.youtube import payloads
from tests.collectors.youtube.conftest import KEY, FakeYouTube, MakeConnector

pytestmark = pytest.mark.both_databases

YT = Platform.YOUTUBE
SINCE = datetime(2026, 11, 14, tzinfo=UTC)
UNTIL = datetime(2026, 11, 21, 12, tzinfo=UTC)
# START (tests/conftest.py) is 2026-11-21 12:00:30 UTC, standard time: the next reset is 08:00 UTC
NEXT_RESET = datetime(2026, 11, 22, 8, 0, tzinfo=UTC)


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = create_database(database_url)
    yield database
    await database.dispose()


@pytest.fixture
def ledger(db: Database, clock: ManualClock) -> Ledger:
    return Ledger(db, clock)


@pytest.fixture
def videos(fake: FakeYouTube) -> list[str]:
    fake.add_channels(payloads.channel("UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx", "crumblab"))
    return fake.add_videos(*(payloads.video(f"q{n:010d}") for n in range(120)))


async def used(ledger: Ledger) -> dict[str, tuple[int, int]]:
    """bucket → (used, used in the background), as stored."""
    await ledger.flush()
    buckets, _sources = await ledger.rows()
    return {row.bucket: (row.used, row.used_background) for row in buckets if row.source == "youtube"}


async def rows(ledger: Ledger) -> dict[str, Any]:
    await ledger.flush()
    buckets, _sources = await ledger.rows()
    return {row.bucket: row for row in buckets if row.source == "youtube"}


class TestResetInstants:
    @pytest.mark.parametrize(
        ("spent_at", "retry_at"),
        [
            # the reference's vectors (§1.4)
            (datetime(2026, 7, 15, 12, 0, tzinfo=UTC), datetime(2026, 7, 16, 7, 0, tzinfo=UTC)),
            (datetime(2026, 12, 15, 12, 0, tzinfo=UTC), datetime(2026, 12, 16, 8, 0, tzinfo=UTC)),
            (datetime(2026, 7, 15, 6, 30, tzinfo=UTC), datetime(2026, 7, 15, 7, 0, tzinfo=UTC)),
        ],
    )
    async def test_quota_exceeded_pauses_until_midnight_pacific(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeYouTube,
        videos: list[str],
        clock: ManualClock,
        spent_at: datetime,
        retry_at: datetime,
    ) -> None:
        clock.set(spent_at)
        connector = make_connector(ledger)
        fake.fail("videos", 403, payloads.QUOTA_EXCEEDED)
        with pytest.raises(RateLimited) as raised:
            await connector.video_stats(YT, videos[0])
        assert raised.value.retry_at == retry_at
        # nothing more is sent until then; the first moment after it, calls go out again
        clock.set(retry_at - timedelta(seconds=1))
        with pytest.raises(RateLimited) as again:
            await connector.videos_stats(YT, videos[:3])
        assert again.value.retry_at == retry_at
        assert len(fake.requests) == 1
        clock.set(retry_at)
        assert len(await connector.videos_stats(YT, videos[:3])) == 3
        assert len(fake.requests) == 2


class TestBuckets:
    async def test_search_quota_spent_stops_only_searches(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeYouTube,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        connector = make_connector(ledger)
        fake.search_results = videos[:5]
        fake.fail("search", 403, payloads.QUOTA_EXCEEDED)
        with pytest.raises(RateLimited) as raised:
            await connector.search_videos(YT, "bread", SINCE, UNTIL)
        assert raised.value.retry_at == NEXT_RESET
        with pytest.raises(RateLimited):
            await connector.search_videos(YT, "bread", SINCE, UNTIL)
        assert len(fake.calls("search")) == 1
        # the unit pool is another bucket: stats, creators and feeds go on
        assert len(await connector.videos_stats(YT, videos[:2])) == 2
        assert (await connector.creator(YT, "crumblab")).handle == "crumblab"
        paused = await rows(ledger)
        assert paused["search"].paused_until == NEXT_RESET
        assert paused["units"].paused_until is None
        assert KEY not in (paused["search"].pause_reason or "")
        clock.set(NEXT_RESET)
        assert len(await connector.search_videos(YT, "bread", SINCE, UNTIL)) == 5

    async def test_units_spent_stop_every_other_call(
        self, make_connector: MakeConnector, ledger: Ledger, fake: FakeYouTube, videos: list[str]
    ) -> None:
        connector = make_connector(ledger)
        fake.fail("channels", 403, payloads.QUOTA_EXCEEDED)
        with pytest.raises(RateLimited):
            await connector.creator(YT, "crumblab")
        for call in (
            connector.video(YT, videos[0]),
            connector.videos_stats(YT, videos[:2]),
            connector.discovery_feed(YT, "us", SINCE, UNTIL),
            connector.creator_posts(YT, "crumblab"),
            connector.check(),
        ):
            with pytest.raises(RateLimited) as raised:
                await call
            assert raised.value.retry_at == NEXT_RESET
        assert len(fake.requests) == 1

    async def test_throttling_pauses_a_minute(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeYouTube,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        connector = make_connector(ledger)
        fake.fail("videos", 403, payloads.error(403, "rateLimitExceeded", domain="usageLimits"))
        with pytest.raises(RateLimited):
            await connector.video_stats(YT, videos[0])
        with pytest.raises(RateLimited) as raised:
            await connector.video_stats(YT, videos[0])
        assert raised.value.retry_at == clock.now() + timedelta(seconds=60)
        assert len(fake.requests) == 1
        clock.advance(timedelta(seconds=60))
        await connector.video_stats(YT, videos[0])
        assert len(fake.requests) == 2


class TestCounting:
    async def test_every_page_is_counted_in_its_bucket(
        self, make_connector: MakeConnector, ledger: Ledger, fake: FakeYouTube, videos: list[str]
    ) -> None:
        connector = make_connector(ledger)
        fake.search_results = videos
        await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=120)
        # 3 search pages (50, 50, 20), 3 videos.list, 1 channels.list for the one author
        assert await used(ledger) == {"search": (3, 0), "units": (4, 0)}
        await connector.videos_stats(YT, videos)
        assert await used(ledger) == {"search": (3, 0), "units": (7, 0)}

    async def test_a_spent_bucket_refuses_before_sending(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeYouTube,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        connector = make_connector(ledger, youtube_units_daily_limit=3)
        for n in range(3):
            await connector.video_stats(YT, videos[n])
        with pytest.raises(RateLimited) as raised:
            await connector.video_stats(YT, videos[3])
        assert raised.value.retry_at == NEXT_RESET
        assert len(fake.requests) == 3
        # a new window at the reset
        clock.set(NEXT_RESET)
        await connector.video_stats(YT, videos[3])
        assert len(fake.requests) == 4
        assert await used(ledger) == {"units": (1, 0)}

    async def test_counters_survive_a_restart(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        database_url: str,
        fake: FakeYouTube,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        await make_connector(ledger, youtube_units_daily_limit=3).videos_stats(YT, videos[:100])  # 2 units
        await ledger.flush()
        restarted = create_database(database_url)
        try:
            connector = make_connector(Ledger(restarted, clock), youtube_units_daily_limit=3)
            await connector.video_stats(YT, videos[0])
            with pytest.raises(RateLimited) as raised:
                await connector.video_stats(YT, videos[1])
            assert raised.value.retry_at == NEXT_RESET
        finally:
            await restarted.dispose()
        assert len(fake.requests) == 3

    async def test_background_work_keeps_to_its_share(
        self, make_connector: MakeConnector, ledger: Ledger, fake: FakeYouTube, videos: list[str]
    ) -> None:
        connector: YouTubeConnector = make_connector(
            ledger, youtube_units_daily_limit=10, youtube_background_share=0.6
        )
        with background():
            for n in range(6):
                await connector.video_stats(YT, videos[n])
            with pytest.raises(RateLimited) as raised:
                await connector.video_stats(YT, videos[6])
            assert raised.value.retry_at == NEXT_RESET
        # on-demand work still finds the rest of the day's units
        for n in range(4):
            await connector.video_stats(YT, videos[n])
        with pytest.raises(RateLimited):
            await connector.video_stats(YT, videos[4])
        assert await used(ledger) == {"units": (10, 6)}
        assert len(fake.requests) == 10


def test_buckets_reset_at_midnight_pacific() -> None:
    buckets = Buckets.of(search_daily=100, units_daily=10_000, background_share=0.6)
    assert (buckets.search.daily_limit, buckets.units.daily_limit) == (100, 10_000)
    assert buckets.for_resource("search") is buckets.search
    assert buckets.for_resource("playlistItems") is buckets.units
    for bucket in (buckets.search, buckets.units):
        assert bucket.resets.after(datetime(2026, 7, 15, 12, tzinfo=UTC)) == datetime(
            2026, 7, 16, 7, tzinfo=UTC
        )
    assert (buckets.search.background_limit, buckets.units.background_limit) == (60, 6_000)


class TestRouting:
    async def test_an_outage_opens_the_circuit_after_five_failures(
        self,
        make_connector: MakeConnector,
        ledger: Ledger,
        fake: FakeYouTube,
        videos: list[str],
        clock: ManualClock,
    ) -> None:
        sources = Sources([make_connector(ledger)], ledger)
        fake.fail("videos", 503, payloads.error(503, "backendError"), times=100)
        for _ in range(5):
            with pytest.raises(UpstreamError):
                await sources.video_stats(YT, videos[0])
        await ledger.flush()
        # skipped without a request while the circuit is open (2 minutes), tried again after
        with pytest.raises(RateLimited) as raised:
            await sources.video_stats(YT, videos[0])
        assert raised.value.retry_at == clock.now() + timedelta(minutes=2)
        assert len(fake.requests) == 5
        clock.advance(timedelta(minutes=2))
        with pytest.raises(UpstreamError):
            await sources.video_stats(YT, videos[0])
        assert len(fake.requests) == 6

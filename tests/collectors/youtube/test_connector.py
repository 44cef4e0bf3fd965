"""The YouTube connector's operations against the fake API: what each returns, what it asks for, and
where its paging stops (issue 26 item 2; connectors reference §1.2, §1.3, §8, §10)."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from pydantic import SecretStr
from structlog.testing import capture_logs

from reelscope.collectors.base import Capability, NotFound, Unavailable
from reelscope.collectors.registry import build_connectors
from reelscope.collectors.youtube import YouTubeConnector
from reelscope.collectors.youtube.connector import FEED_PAGES, SEARCH_PAGES, UPLOADS_PAGES
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from tests.collectors.youtube import payloads
from tests.collectors.youtube.conftest import FakeYouTube

YT = Platform.YOUTUBE
SINCE = datetime(2026, 11, 14, tzinfo=UTC)
UNTIL = datetime(2026, 11, 21, 12, tzinfo=UTC)
CHANNEL = "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx"


@pytest.fixture
def reference(fake: FakeYouTube) -> FakeYouTube:
    """The reference's videos and channel (§1.8), plus the second author's channel."""
    fake.add_videos(*copy.deepcopy(payloads.VIDEOS["items"]))
    fake.add_channels(copy.deepcopy(payloads.CHANNELS["items"][0]))
    fake.add_channels(payloads.channel("UCm2Bv9Xc4Nz7Qa1Ws8Ed5Rt", "ovennotes"))
    return fake


@pytest.fixture
def many(fake: FakeYouTube) -> list[str]:
    """120 Shorts of one channel, posted an hour apart, ids v000…v119 by falling views."""
    fake.add_channels(copy.deepcopy(payloads.CHANNELS["items"][0]))
    start = datetime(2026, 11, 20, 12, tzinfo=UTC)
    return fake.add_videos(
        *(
            payloads.video(
                f"v{n:03d}xxxxxxxx"[:11],
                published=(start - timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                views=str(100_000 - n),
            )
            for n in range(120)
        )
    )


def params(request: httpx.Request) -> dict[str, str]:
    return dict(request.url.params)


class TestCapabilities:
    def test_declares_what_youtube_offers(self, connector: YouTubeConnector) -> None:
        assert connector.name == "youtube"
        assert connector.platforms == {YT}
        assert set(connector.capabilities) == {
            Capability.SEARCH,
            Capability.POPULAR_FEED,
            Capability.VIDEO,
            Capability.STATS,
            Capability.CREATOR,
            Capability.CREATOR_POSTS,
        }
        assert all(platforms == {YT} for platforms in connector.capabilities.values())

    async def test_what_it_does_not_offer_is_unavailable(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        calls = [
            connector.sound(YT, "1"),
            connector.sound_videos(YT, "1"),
            connector.hashtag_videos(YT, "bread"),
            connector.slideshows(YT, "bread", SINCE, UNTIL),
            connector.ads("bread"),
            connector.comments(YT, "abcdefghijk"),
            connector.news(["bread"], SINCE, UNTIL),
        ]
        for call in calls:
            with pytest.raises(Unavailable):
                await call
        assert fake.requests == []

    @pytest.mark.parametrize("platform", [Platform.TIKTOK, Platform.INSTAGRAM])
    async def test_other_platforms_are_unavailable(
        self, connector: YouTubeConnector, fake: FakeYouTube, platform: Platform
    ) -> None:
        with pytest.raises(Unavailable):
            await connector.video(platform, "abcdefghijk")
        with pytest.raises(Unavailable):
            await connector.search_videos(platform, "bread", SINCE, UNTIL)
        assert fake.requests == []

    def test_the_registry_builds_it_in_order(self, clock: ManualClock) -> None:
        settings = Settings(connectors="sandbox, youtube", youtube_api_key=SecretStr("k"))
        built = build_connectors(settings, clock)
        assert [c.name for c in built] == ["sandbox", "youtube"]
        assert isinstance(built[1], YouTubeConnector)

    async def test_the_registry_builds_it_without_a_key(self, clock: ManualClock) -> None:
        (built,) = build_connectors(Settings(connectors="youtube", youtube_api_key=None), clock)
        with pytest.raises(Unavailable, match="REELSCOPE_YOUTUBE_API_KEY"):
            await built.video_stats(YT, "abcdefghijk")


class TestSearch:
    async def test_the_reference_flow(self, connector: YouTubeConnector, reference: FakeYouTube) -> None:
        """search.list → videos.list → channels.list (§1.2 discovery flow), the reference's payloads."""
        page_one = copy.deepcopy(payloads.SEARCH)
        reference.handlers["search"] = lambda request: httpx.Response(
            200, json=page_one if "pageToken" not in request.url.params else {"items": []}
        )
        since = datetime(2026, 10, 1, tzinfo=UTC)
        (found,) = await connector.search_videos(YT, "sourdough", since, UNTIL, limit=10)
        assert found.external_id == "Zt3kQ9vLm0A"
        assert found.views == 88412 and found.duration == 41
        assert found.creator is not None and found.creator.handle == "crumblab"
        first_search, second_search = reference.calls("search")
        assert params(first_search) == {
            "part": "snippet",
            "type": "video",
            "videoDuration": "short",
            "order": "viewCount",
            "q": "sourdough",
            "publishedAfter": "2026-10-01T00:00:00Z",
            "publishedBefore": "2026-11-21T12:00:00Z",
            "maxResults": "50",
            "key": params(first_search)["key"],
        }
        assert params(second_search)["pageToken"] == "CAEQAA"
        (videos,) = reference.calls("videos")
        assert params(videos)["id"] == "Zt3kQ9vLm0A"
        assert params(videos)["part"] == "snippet,statistics,contentDetails"
        (channels,) = reference.calls("channels")
        assert params(channels)["id"] == CHANNEL

    async def test_keeps_only_shorts_of_the_window_most_viewed_first(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        fake.add_channels(copy.deepcopy(payloads.CHANNELS["items"][0]))
        fake.search_results = fake.add_videos(
            payloads.video("short30xxxx", duration="PT30S", views="10"),
            payloads.video("landscape3m", duration="PT3M1S", views="99999"),  # over 180 s
            payloads.video("liveliveliv", duration="PT40S", views="99999", live="live"),
            payloads.video("upcomingxxx", duration="P0D", views="99999", live="upcoming"),
            payloads.video("threeminxxx", duration="PT2M59S", views="500"),
            payloads.video("stringviews", duration="PT15S", views=12345),  # a number, not a string
            payloads.video("tooearlyxxx", published="2026-11-01T00:00:00Z", views="99999"),  # before since
        )
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL)
        assert [r.external_id for r in found] == ["stringviews", "threeminxxx", "short30xxxx"]

    async def test_pages_until_the_limit(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        fake.search_results = many
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=60)
        assert [r.external_id for r in found] == many[:60]
        assert len(fake.calls("search")) == 2
        assert [len(params(r)["id"].split(",")) for r in fake.calls("videos")] == [50, 50]
        # one author, fetched once
        assert len(fake.calls("channels")) == 1

    async def test_stops_at_the_end_of_the_results(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        fake.search_results = many[:70]
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=100)
        assert len(found) == 70
        assert len(fake.calls("search")) == 2

    async def test_endless_paging_is_capped(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        """Every page brings new ids and a next token, but fewer Shorts than asked for (§10)."""
        fake.add_videos(*(payloads.video(f"long{n:07d}", duration="PT10M") for n in range(500)))
        counter = iter(range(1000))

        def endless(request: httpx.Request) -> httpx.Response:
            page = next(counter)
            ids = [many[page]] + [f"long{page * 49 + n:07d}" for n in range(49)]
            items = [{"id": {"kind": "youtube#video", "videoId": i}} for i in ids]
            return httpx.Response(200, json={"items": items, "nextPageToken": f"t{page + 1}"})

        fake.handlers["search"] = endless
        with capture_logs() as logs:
            found = await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=100)
        assert len(fake.calls("search")) == SEARCH_PAGES
        assert len(found) == SEARCH_PAGES
        assert {
            "event": "youtube.page_cap",
            "resource": "search",
            "pages": SEARCH_PAGES,
            "log_level": "info",
        } in logs

    async def test_a_page_of_repeated_ids_ends_the_walk(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        counter = iter(range(1000))
        items = [{"id": {"kind": "youtube#video", "videoId": i}} for i in many[:3]]
        fake.handlers["search"] = lambda _r: httpx.Response(
            200, json={"items": items, "nextPageToken": f"t{next(counter)}"}
        )
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=100)
        assert len(found) == 3
        assert len(fake.calls("search")) == 2
        assert len(fake.calls("videos")) == 1

    async def test_a_repeated_page_token_ends_the_walk(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        counter = iter(range(1000))

        def same_token(_request: httpx.Request) -> httpx.Response:
            page = next(counter)
            items = [{"id": {"kind": "youtube#video", "videoId": many[page]}}]
            return httpx.Response(200, json={"items": items, "nextPageToken": "again"})

        fake.handlers["search"] = same_token
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=100)
        assert len(found) == 2
        assert len(fake.calls("search")) == 2

    async def test_no_results(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        assert await connector.search_videos(YT, "nothing", SINCE, UNTIL) == []
        assert len(fake.calls("search")) == 1
        assert fake.calls("videos") == []

    async def test_nothing_asked_costs_nothing(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        assert await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=0) == []
        assert await connector.search_videos(YT, "  ", SINCE, UNTIL) == []
        assert fake.requests == []

    async def test_an_unmappable_item_is_skipped(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        fake.videos[many[1]]["snippet"]["publishedAt"] = "not a time"
        fake.videos[many[2]]["id"] = 42
        fake.search_results = many[:4]
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL)
        assert [r.external_id for r in found] == [many[0], many[3]]

    async def test_channels_are_kept_a_day(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str], clock: ManualClock
    ) -> None:
        fake.search_results = many[:5]
        await connector.search_videos(YT, "bread", SINCE, UNTIL)
        await connector.search_videos(YT, "bread", SINCE, UNTIL)
        assert len(fake.calls("channels")) == 1
        clock.advance(timedelta(hours=24))
        await connector.search_videos(YT, "bread", SINCE, UNTIL)
        assert len(fake.calls("channels")) == 2

    async def test_each_pages_new_authors_in_one_call(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        channels = [f"UC{n:022d}" for n in range(60)]
        fake.add_channels(*(payloads.channel(c, f"maker{n}") for n, c in enumerate(channels)))
        fake.search_results = fake.add_videos(
            *(payloads.video(f"w{n:010d}", channel=c) for n, c in enumerate(channels))
        )
        found = await connector.search_videos(YT, "bread", SINCE, UNTIL, limit=100)
        assert {r.creator.handle for r in found if r.creator} == {f"maker{n}" for n in range(60)}
        assert [len(params(r)["id"].split(",")) for r in fake.calls("channels")] == [50, 10]


class TestDiscoveryFeed:
    async def test_a_regions_chart_of_shorts(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        fake.add_channels(copy.deepcopy(payloads.CHANNELS["items"][0]))
        fake.charts["GB"] = fake.add_videos(
            payloads.video("gbshort0001", duration="PT20S", published="2026-11-01T00:00:00Z"),
            payloads.video("gblongvideo", duration="PT12M"),
            payloads.video("gbshort0002", duration="PT50S"),
        )
        found = await connector.discovery_feed(YT, "gb", UNTIL - timedelta(minutes=5), UNTIL)
        # the chart has no window: a video posted weeks ago is in it all the same
        assert [r.external_id for r in found] == ["gbshort0001", "gbshort0002"]
        assert {r.feed_region for r in found} == {"gb"}
        (chart,) = fake.calls("videos")
        assert params(chart)["chart"] == "mostPopular"
        assert params(chart)["regionCode"] == "GB"
        assert params(chart)["maxResults"] == "50"

    async def test_the_chart_is_read_up_to_its_page_cap(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        fake.add_channels(copy.deepcopy(payloads.CHANNELS["items"][0]))
        fake.charts["US"] = fake.add_videos(*(payloads.video(f"us{n:09d}") for n in range(300)))
        found = await connector.discovery_feed(YT, "US", SINCE, UNTIL)
        assert len(fake.calls("videos")) == FEED_PAGES
        assert len(found) == FEED_PAGES * 50
        assert {r.feed_region for r in found} == {"us"}

    @pytest.mark.parametrize("region", [None, "global", "", "usa", "1a"])
    async def test_no_worldwide_chart(
        self, connector: YouTubeConnector, fake: FakeYouTube, region: str | None
    ) -> None:
        with pytest.raises(Unavailable):
            await connector.discovery_feed(YT, region, SINCE, UNTIL)
        assert fake.requests == []


class TestVideo:
    async def test_the_reference_video(self, connector: YouTubeConnector, reference: FakeYouTube) -> None:
        record = await connector.video(YT, "Zt3kQ9vLm0A")
        assert record.external_id == "Zt3kQ9vLm0A"
        assert record.creator is not None and record.creator.handle == "crumblab"
        assert [r.url.path.rsplit("/", 1)[-1] for r in reference.requests] == ["videos", "channels"]

    async def test_an_unknown_video_is_not_found(
        self, connector: YouTubeConnector, reference: FakeYouTube
    ) -> None:
        with pytest.raises(NotFound):
            await connector.video(YT, "zzzzzzzzzzz")

    @pytest.mark.parametrize(
        ("duration", "live"), [("PT20M", "none"), ("P0D", "upcoming"), ("PT30S", "live")]
    )
    async def test_a_video_that_is_no_short_is_not_found(
        self, connector: YouTubeConnector, fake: FakeYouTube, duration: str, live: str
    ) -> None:
        fake.add_videos(payloads.video("notashort01", duration=duration, live=live))
        with pytest.raises(NotFound, match="not a Short"):
            await connector.video(YT, "notashort01")


class TestStats:
    async def test_one_videos_counters(
        self, connector: YouTubeConnector, reference: FakeYouTube, clock: ManualClock
    ) -> None:
        stats = await connector.video_stats(YT, "pL0wN4cR7sE")
        assert (stats.external_id, stats.views, stats.likes, stats.comments) == ("pL0wN4cR7sE", 1207, 0, 0)
        assert stats.shares is None and stats.bookmarks is None
        assert stats.fetched_at == clock.now()

    async def test_an_unknown_videos_counters_are_not_found(
        self, connector: YouTubeConnector, reference: FakeYouTube
    ) -> None:
        with pytest.raises(NotFound):
            await connector.video_stats(YT, "zzzzzzzzzzz")

    async def test_the_reference_batch_leaves_the_unknown_id_out(
        self, connector: YouTubeConnector, reference: FakeYouTube
    ) -> None:
        found = await connector.videos_stats(YT, ["Zt3kQ9vLm0A", "pL0wN4cR7sE", "zzzzzzzzzzz"])
        assert [(s.external_id, s.views, s.likes, s.comments) for s in found] == [
            ("Zt3kQ9vLm0A", 88412, 3920, 57),
            ("pL0wN4cR7sE", 1207, 0, 0),
        ]
        (request,) = reference.requests
        assert params(request)["part"] == "statistics"
        assert params(request)["id"] == "Zt3kQ9vLm0A,pL0wN4cR7sE,zzzzzzzzzzz"

    async def test_fifty_ids_a_call_each_once(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        found = await connector.videos_stats(YT, [*many, *many[:10], " "])
        assert [s.external_id for s in found] == many
        assert [len(params(r)["id"].split(",")) for r in fake.requests] == [50, 50, 20]
        assert await connector.videos_stats(YT, []) == []
        assert len(fake.requests) == 3


class TestCreator:
    @pytest.mark.parametrize("handle", ["crumblab", "@crumblab", " @CrumbLab "])
    async def test_the_reference_channel_by_handle(
        self, connector: YouTubeConnector, reference: FakeYouTube, handle: str
    ) -> None:
        creator = await connector.creator(YT, handle)
        assert (creator.handle, creator.followers, creator.platform_user_id) == ("crumblab", 48100, CHANNEL)
        (request,) = reference.requests
        assert params(request)["forHandle"].lower() == "@crumblab"
        assert params(request)["part"] == "snippet,statistics,contentDetails"

    async def test_an_unknown_handle_is_not_found(
        self, connector: YouTubeConnector, reference: FakeYouTube
    ) -> None:
        with pytest.raises(NotFound):
            await connector.creator(YT, "nobody")
        with pytest.raises(NotFound):
            await connector.creator(YT, "@")

    async def test_a_looked_up_channel_serves_the_next_videos(
        self, connector: YouTubeConnector, reference: FakeYouTube
    ) -> None:
        await connector.creator(YT, "crumblab")
        await connector.video(YT, "Zt3kQ9vLm0A")
        assert [r.url.path.rsplit("/", 1)[-1] for r in reference.requests] == ["channels", "videos"]


class TestCreatorPosts:
    @pytest.fixture
    def channel_with_uploads(self, fake: FakeYouTube) -> list[str]:
        """A channel whose uploads playlist holds a long video, a live, and Shorts, newest first."""
        fake.add_channels(payloads.channel(CHANNEL, "crumblab", uploads="UUlisted"))
        start = datetime(2026, 11, 20, tzinfo=UTC)
        ids = fake.add_videos(
            *(
                payloads.video(
                    f"up{n:09d}",
                    published=(start - timedelta(days=n)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                    duration="PT25M" if n == 1 else "PT45S",
                    live="live" if n == 2 else "none",
                )
                for n in range(8)
            )
        )
        # the playlist is not quite in date order: the connector sorts
        fake.playlists["UUlisted"] = [ids[3], *ids[:3], *ids[4:]]
        return ids

    async def test_newest_shorts_first(
        self, connector: YouTubeConnector, fake: FakeYouTube, channel_with_uploads: list[str]
    ) -> None:
        posts = await connector.creator_posts(YT, "@crumblab", limit=4)
        ids = channel_with_uploads
        assert [p.external_id for p in posts] == [ids[0], ids[3], ids[4], ids[5]]
        assert {p.creator.handle for p in posts if p.creator} == {"crumblab"}
        (playlist,) = fake.calls("playlistItems")
        assert params(playlist)["playlistId"] == "UUlisted"
        assert params(playlist)["maxResults"] == "50"
        # the channel was read once, by handle; its videos need no second channels call
        assert len(fake.calls("channels")) == 1
        assert fake.calls("search") == []

    async def test_the_uploads_playlist_by_convention(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        fake.add_channels(payloads.channel(CHANNEL, "crumblab"))  # no contentDetails
        fake.playlists["UUq7Rr2Tn8Wb0Yc5Ld3Hs1Kx"] = fake.add_videos(payloads.video("conventio1"))
        posts = await connector.creator_posts(YT, "crumblab")
        assert [p.external_id for p in posts] == ["conventio1"]

    async def test_a_channel_without_uploads_has_no_posts(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        fake.add_channels(payloads.channel(CHANNEL, "crumblab", uploads="UUnothing"))
        assert await connector.creator_posts(YT, "crumblab") == []

    async def test_an_unknown_creator_is_not_found(
        self, connector: YouTubeConnector, fake: FakeYouTube
    ) -> None:
        with pytest.raises(NotFound):
            await connector.creator_posts(YT, "nobody")

    async def test_the_uploads_are_read_up_to_the_page_cap(
        self, connector: YouTubeConnector, fake: FakeYouTube, many: list[str]
    ) -> None:
        fake.add_channels(payloads.channel(CHANNEL, "crumblab", uploads="UUlong"))
        longs = fake.add_videos(*(payloads.video(f"lo{n:09d}", duration="PT30M") for n in range(400)))
        fake.playlists["UUlong"] = [*longs, *many]
        assert await connector.creator_posts(YT, "crumblab", limit=5) == []
        assert len(fake.calls("playlistItems")) == UPLOADS_PAGES

    async def test_no_posts_asked_costs_nothing(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        assert await connector.creator_posts(YT, "crumblab", limit=0) == []
        assert fake.requests == []


class TestCheck:
    async def test_one_cheap_call(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        await connector.check()
        (request,) = fake.requests
        assert params(request)["chart"] == "mostPopular" and params(request)["maxResults"] == "1"

    async def test_a_refused_key_is_unavailable(self, connector: YouTubeConnector, fake: FakeYouTube) -> None:
        fake.fail("videos", 400, payloads.error(400, "keyInvalid", domain="usageLimits"))
        with pytest.raises(Unavailable):
            await connector.check()

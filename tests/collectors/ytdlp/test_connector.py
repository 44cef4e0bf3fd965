"""yt-dlp as a source, with recorded info dicts and a fake child process (issue 26 item 4; connectors
reference §5, §8)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reelscope.collectors.base import (
    Capability,
    Connector,
    NotFound,
    RateLimited,
    Unavailable,
    UpstreamError,
)
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.registry import build_sources
from reelscope.collectors.ytdlp.client import SOURCE, host_bucket
from reelscope.collectors.ytdlp.connector import RESOLVE_AT_MOST, YtdlpConnector
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.collectors.ytdlp.conftest import (
    BOT_CHECK,
    INSTAGRAM,
    POSTED,
    TIKTOK,
    YOUTUBE,
    FakeChild,
    MakeYtdlp,
    error,
    youtube,
)

SHORT_URL = "https://www.youtube.com/shorts/Zt3kQ9vLm0A"
TIKTOK_URL = "https://www.tiktok.com/@/video/7432109876543210987"
REEL_URL = "https://www.instagram.com/reel/DAx7kLmPq2R/"


def flat_short(video_id: str, **changes: object) -> dict[str, object]:
    """A search result or Shorts-tab entry: no date, no likes (reference §5.1)."""
    return {
        "_type": "url",
        "ie_key": "Youtube",
        "id": video_id,
        "url": f"https://www.youtube.com/shorts/{video_id}",
        "title": f"Short {video_id}",
        "view_count": 100,
    } | changes


class TestVideo:
    async def test_a_youtube_short_by_id(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve(SHORT_URL, YOUTUBE)

        video = await ytdlp.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")

        assert child.targets == [SHORT_URL]
        assert video.url == SHORT_URL
        assert (video.views, video.likes, video.comments, video.shares) == (88412, 3920, 57, None)
        assert video.published_at == datetime.fromtimestamp(POSTED, UTC)
        assert video.hashtags == ("#shorts", "#baking")

    async def test_a_youtube_video_that_is_not_a_short_is_not_found(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(SHORT_URL, YOUTUBE | {"media_type": "video"})

        with pytest.raises(NotFound, match="not a Short"):
            await ytdlp.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")

    async def test_a_tiktok_by_id_needs_no_handle(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve(TIKTOK_URL, TIKTOK)

        video = await ytdlp.video(Platform.TIKTOK, "7432109876543210987")

        assert (video.shares, video.bookmarks) == (1877, 3301)
        assert video.url == TIKTOK["webpage_url"]
        assert video.creator is not None and video.creator.handle == "crumblab"

    async def test_an_instagram_media_id_is_fetched_by_its_link_code(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(REEL_URL, INSTAGRAM)

        video = await ytdlp.video(Platform.INSTAGRAM, "3472818758777482641")

        assert child.targets == [REEL_URL]
        assert video.external_id == "3472818758777482641"
        assert video.duration == 41  # 40.6 s, rounded

    async def test_an_instagram_id_that_is_not_a_number_is_not_found(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        with pytest.raises(NotFound):
            await ytdlp.video(Platform.INSTAGRAM, "DAx7kLmPq2R")
        assert child.runs == []

    @pytest.mark.parametrize(
        ("platform", "external_id"),
        [(Platform.YOUTUBE, "../watch?v=x"), (Platform.TIKTOK, "7.43e18"), (Platform.YOUTUBE, "short")],
    )
    async def test_an_id_not_of_its_platforms_shape_is_not_found_without_a_fetch(
        self, ytdlp: YtdlpConnector, child: FakeChild, platform: Platform, external_id: str
    ) -> None:
        with pytest.raises(NotFound):
            await ytdlp.video(platform, external_id)
        assert child.runs == []

    async def test_a_partial_dict_reports_zero_for_what_it_lacks(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(TIKTOK_URL, {k: TIKTOK[k] for k in ("id", "timestamp", "webpage_url", "extractor_key")})

        video = await ytdlp.video(Platform.TIKTOK, "7432109876543210987")

        assert (video.views, video.likes, video.comments, video.duration) == (0, 0, 0, None)

    @pytest.mark.parametrize(
        "broken",
        [
            {"timestamp": None, "upload_date": None},  # ignoreerrors left no date
            {"view_count": "1.2M"},
            {"view_count": -5},
            {"timestamp": 10**10},  # posted in the future
        ],
    )
    async def test_a_dict_that_cannot_be_read_or_true_is_a_retryable_failure(
        self, ytdlp: YtdlpConnector, child: FakeChild, broken: dict[str, object]
    ) -> None:
        child.serve(TIKTOK_URL, TIKTOK | broken)

        with pytest.raises(UpstreamError) as raised:
            await ytdlp.video(Platform.TIKTOK, "7432109876543210987")

        assert raised.value.retryable


class TestStats:
    async def test_one_video(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve(TIKTOK_URL, TIKTOK)

        stats = await ytdlp.video_stats(Platform.TIKTOK, "7432109876543210987")

        assert (stats.views, stats.likes, stats.shares, stats.bookmarks) == (391020, 28410, 1877, 3301)

    async def test_many_videos_leave_the_unknown_out(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve(SHORT_URL, YOUTUBE)
        child.serve("https://www.youtube.com/shorts/Bb3kQ9vLm0B", youtube("Bb3kQ9vLm0B", view_count=7))

        stats = await ytdlp.videos_stats(Platform.YOUTUBE, ["Zt3kQ9vLm0A", "Gone0000000", "Bb3kQ9vLm0B"])

        assert sorted((s.external_id, s.views) for s in stats) == [("Bb3kQ9vLm0B", 7), ("Zt3kQ9vLm0A", 88412)]

    async def test_many_videos_all_failing_raise_the_most_hopeful_failure(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(SHORT_URL, error("ERROR: [youtube] Zt3kQ9vLm0A: HTTP Error 503: Service Unavailable"))
        child.serve(
            "https://www.youtube.com/shorts/Bb3kQ9vLm0B", error("ERROR: Unable to extract secondary user ID")
        )

        with pytest.raises(UpstreamError) as raised:
            await ytdlp.videos_stats(Platform.YOUTUBE, ["Zt3kQ9vLm0A", "Bb3kQ9vLm0B"])

        assert raised.value.retryable


class TestCreatorPosts:
    async def test_a_tiktok_profile_in_one_fetch(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        newer = TIKTOK | {"id": "7432109876543210999", "timestamp": POSTED + 3600}
        entries = [
            TIKTOK | {"_type": "url", "ie_key": "TikTok"},
            None,  # ignoreerrors: an entry that failed
            {"_type": "url", "ie_key": "TikTok", "id": "7432109876543210000"},  # partial: no date
            newer | {"_type": "url", "ie_key": "TikTok"},
        ]
        child.serve("https://www.tiktok.com/@crumblab", {"_type": "playlist", "entries": entries})

        posts = await ytdlp.creator_posts(Platform.TIKTOK, "@crumblab", limit=10)

        assert child.runs == [["https://www.tiktok.com/@crumblab", "--items", "10"]]
        assert [p.external_id for p in posts] == ["7432109876543210999", "7432109876543210987"]

    async def test_a_youtube_shorts_tab_resolves_each_entry(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(
            "https://www.youtube.com/@crumblab/shorts",
            {"entries": [flat_short("Aa3kQ9vLm0A"), flat_short("Bb3kQ9vLm0B"), flat_short("Cc3kQ9vLm0C")]},
        )
        child.serve("https://www.youtube.com/shorts/Aa3kQ9vLm0A", youtube("Aa3kQ9vLm0A", timestamp=POSTED))
        child.serve(
            "https://www.youtube.com/shorts/Cc3kQ9vLm0C", youtube("Cc3kQ9vLm0C", timestamp=POSTED + 60)
        )

        posts = await ytdlp.creator_posts(Platform.YOUTUBE, "crumblab", limit=5)

        assert child.runs[0] == ["https://www.youtube.com/@crumblab/shorts", "--items", "5"]
        assert [p.external_id for p in posts] == ["Cc3kQ9vLm0C", "Aa3kQ9vLm0A"]  # B is gone; newest first

    async def test_a_handle_that_could_not_be_one_is_not_found_without_a_fetch(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        with pytest.raises(NotFound):
            await ytdlp.creator_posts(Platform.TIKTOK, "crumblab/../../login?next=x")
        assert child.runs == []

    async def test_instagram_profiles_are_not_offered(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        with pytest.raises(Unavailable):
            await ytdlp.creator_posts(Platform.INSTAGRAM, "crumblab")
        assert child.runs == []


class TestSearch:
    async def test_shorts_among_the_results_resolved_in_the_window_top_first(
        self, ytdlp: YtdlpConnector, child: FakeChild, clock: ManualClock
    ) -> None:
        long_ago = (clock.now() - timedelta(days=90)).timestamp()
        child.serve(
            "ytsearch30:sourdough #shorts",
            {
                "entries": [
                    flat_short("Aa3kQ9vLm0A"),
                    flat_short("Ww3kQ9vLm0W", url="https://www.youtube.com/watch?v=Ww3kQ9vLm0W"),
                    flat_short("Oo3kQ9vLm0O", timestamp=long_ago),  # approximately 3 months old
                    flat_short("Bb3kQ9vLm0B"),
                    flat_short("Dd3kQ9vLm0D"),
                ]
            },
        )
        child.serve("https://www.youtube.com/shorts/Aa3kQ9vLm0A", youtube("Aa3kQ9vLm0A", view_count=10))
        child.serve("https://www.youtube.com/shorts/Bb3kQ9vLm0B", youtube("Bb3kQ9vLm0B", view_count=20))
        child.serve(
            "https://www.youtube.com/shorts/Dd3kQ9vLm0D", youtube("Dd3kQ9vLm0D", timestamp=POSTED - 86400 * 5)
        )

        found = await ytdlp.search_videos(
            Platform.YOUTUBE, "sourdough", clock.now() - timedelta(days=2), clock.now(), limit=10
        )

        assert [v.external_id for v in found] == ["Bb3kQ9vLm0B", "Aa3kQ9vLm0A"]
        assert "https://www.youtube.com/shorts/Oo3kQ9vLm0O" not in child.targets
        assert "https://www.youtube.com/shorts/Ww3kQ9vLm0W" not in child.targets

    async def test_resolving_stops_at_the_cap(
        self, ytdlp: YtdlpConnector, child: FakeChild, clock: ManualClock
    ) -> None:
        ids = [f"Id{n:09d}" for n in range(RESOLVE_AT_MOST + 10)]
        child.serve("ytsearch60:bread #shorts", {"entries": [flat_short(i) for i in ids]})
        for video_id in ids:
            child.serve(f"https://www.youtube.com/shorts/{video_id}", youtube(video_id))

        found = await ytdlp.search_videos(
            Platform.YOUTUBE, "bread", clock.now() - timedelta(days=2), clock.now(), limit=100
        )

        assert len(found) == RESOLVE_AT_MOST
        assert len(child.runs) == 1 + RESOLVE_AT_MOST

    async def test_tiktok_has_no_search(self, ytdlp: YtdlpConnector, clock: ManualClock) -> None:
        with pytest.raises(Unavailable):
            await ytdlp.search_videos(Platform.TIKTOK, "bread", clock.now() - timedelta(days=1), clock.now())


class TestErrors:
    @pytest.mark.parametrize(
        ("message", "kind"),
        [
            ("ERROR: [youtube] Zt3kQ9vLm0A: Video unavailable", NotFound),
            ("ERROR: [youtube] Zt3kQ9vLm0A: Private video. Sign in if you've been granted access", NotFound),
            ("ERROR: [youtube] Zt3kQ9vLm0A: This video has been removed by the uploader", NotFound),
            ("ERROR: [youtube] Zt3kQ9vLm0A: HTTP Error 500: Internal Server Error", UpstreamError),
            ("ERROR: [youtube] Zt3kQ9vLm0A: Unsupported URL", UpstreamError),
        ],
    )
    async def test_messages_are_classified(
        self, ytdlp: YtdlpConnector, child: FakeChild, message: str, kind: type[Exception]
    ) -> None:
        child.serve(SHORT_URL, error(message))

        with pytest.raises(kind):
            await ytdlp.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")

    async def test_a_broken_extractor_is_not_retryable(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve(TIKTOK_URL, error("ERROR: [TikTok:user] crumblab: Unable to extract secondary user ID"))

        with pytest.raises(UpstreamError) as raised:
            await ytdlp.video(Platform.TIKTOK, "7432109876543210987")

        assert not raised.value.retryable
        assert "upgrade" in str(raised.value)

    async def test_yt_dlp_missing_in_the_child_is_unavailable(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(SHORT_URL, {"error": "ImportError", "message": "yt-dlp is not installed"})

        with pytest.raises(Unavailable, match="pip install yt-dlp"):
            await ytdlp.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")

    async def test_the_instagram_login_wall_is_a_long_wait(
        self, ytdlp: YtdlpConnector, child: FakeChild, clock: ManualClock
    ) -> None:
        child.serve(
            REEL_URL,
            error(
                "ERROR: [Instagram] DAx7kLmPq2R: Requested content is not available, "
                "rate-limit reached or login required"
            ),
        )

        with pytest.raises(RateLimited) as raised:
            await ytdlp.video(Platform.INSTAGRAM, "3472818758777482641")

        assert raised.value.retry_at >= clock.now() + timedelta(hours=1)

    async def test_a_bot_check_leaves_youtube_alone_but_not_tiktok(
        self, ytdlp: YtdlpConnector, child: FakeChild, clock: ManualClock
    ) -> None:
        child.serve(SHORT_URL, error(BOT_CHECK))
        child.serve(TIKTOK_URL, TIKTOK)

        with pytest.raises(Unavailable, match=r"youtube\.com blocks"):
            await ytdlp.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")
        with pytest.raises(RateLimited) as raised:
            await ytdlp.video(Platform.YOUTUBE, "Bb3kQ9vLm0B")
        await ytdlp.video(Platform.TIKTOK, "7432109876543210987")

        assert child.targets == [SHORT_URL, TIKTOK_URL]
        assert raised.value.retry_at >= clock.now() + timedelta(hours=1)

    async def test_a_block_spares_the_calls_queued_behind_it(
        self, ytdlp: YtdlpConnector, child: FakeChild
    ) -> None:
        child.serve(SHORT_URL, error(BOT_CHECK))
        ids = ["Zt3kQ9vLm0A", *(f"Id{n:09d}" for n in range(6))]

        with pytest.raises(RateLimited):
            await ytdlp.videos_stats(Platform.YOUTUBE, ids)

        assert len(child.runs) <= 2  # at most the children already running; nothing after the block


@pytest.mark.both_databases
class TestHostCircuit:
    async def test_a_blocking_host_is_left_alone_by_every_process_until_the_pause_ends(
        self, make_ytdlp: MakeYtdlp, child: FakeChild, runtime: Runtime, clock: ManualClock
    ) -> None:
        child.serve(TIKTOK_URL, error("ERROR: [TikTok] 7432109876543210987: Your IP address is blocked"))
        with pytest.raises(Unavailable):
            await make_ytdlp(Ledger(runtime.db, clock)).video(Platform.TIKTOK, "7432109876543210987")

        other = make_ytdlp(Ledger(runtime.db, clock))  # another process
        with pytest.raises(RateLimited):
            await other.video(Platform.TIKTOK, "7432109876543210987")
        child.serve(SHORT_URL, YOUTUBE)
        await other.video(Platform.YOUTUBE, "Zt3kQ9vLm0A")
        runs_while_blocked = len(child.runs)

        clock.advance(timedelta(hours=6, minutes=1))
        child.serve(TIKTOK_URL, TIKTOK)
        later = await make_ytdlp(Ledger(runtime.db, clock)).video(Platform.TIKTOK, "7432109876543210987")

        assert runs_while_blocked == 2
        assert later.external_id == "7432109876543210987"

    async def test_each_call_counts_against_its_host(
        self, make_ytdlp: MakeYtdlp, child: FakeChild, runtime: Runtime, clock: ManualClock
    ) -> None:
        ledger = Ledger(runtime.db, clock)
        child.serve(SHORT_URL, YOUTUBE)

        await make_ytdlp(ledger).video(Platform.YOUTUBE, "Zt3kQ9vLm0A")
        await ledger.flush()
        buckets, _ = await ledger.rows()

        assert [(b.source, b.bucket, b.used) for b in buckets] == [
            (SOURCE, host_bucket(Platform.YOUTUBE).name, 1)
        ]


class TestSource:
    def test_declares_what_it_offers(self, ytdlp: YtdlpConnector) -> None:
        assert isinstance(ytdlp, Connector)
        assert ytdlp.capabilities[Capability.SEARCH] == frozenset({Platform.YOUTUBE})
        assert ytdlp.capabilities[Capability.CREATOR_POSTS] == frozenset({Platform.YOUTUBE, Platform.TIKTOK})
        assert ytdlp.capabilities[Capability.VIDEO] == frozenset(Platform)
        assert Capability.CREATOR not in ytdlp.capabilities

    async def test_operations_it_lacks_are_unavailable(self, ytdlp: YtdlpConnector) -> None:
        with pytest.raises(Unavailable, match="ytdlp does not offer creator"):
            await ytdlp.creator(Platform.TIKTOK, "crumblab")

    async def test_check_fetches_one_video(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve("https://www.youtube.com/watch?v=jNQXAC9IVRw", youtube("jNQXAC9IVRw", media_type="video"))

        await ytdlp.check()

        assert len(child.runs) == 1

    async def test_check_reports_a_block(self, ytdlp: YtdlpConnector, child: FakeChild) -> None:
        child.serve("https://www.youtube.com/watch?v=jNQXAC9IVRw", error(BOT_CHECK))

        with pytest.raises(Unavailable):
            await ytdlp.check()

    def test_the_registry_builds_it_in_order(self, clock: ManualClock) -> None:
        sources = build_sources(Settings(connectors="ytdlp,news,sandbox"), clock, None)

        assert [c.name for c in sources.connectors] == ["ytdlp", "news", "sandbox"]
        assert [c.name for c in sources.offering(Capability.SEARCH, Platform.YOUTUBE)] == ["ytdlp", "sandbox"]
        assert [c.name for c in sources.offering(Capability.SEARCH, Platform.TIKTOK)] == ["sandbox"]

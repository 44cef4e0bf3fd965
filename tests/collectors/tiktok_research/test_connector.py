"""The TikTok Research connector's operations against the fake API (connectors reference §2; issue 27
item 1): the queries it sends, 30-day windows, cursor and search_id paging and where it stops, ids kept
exact, and what each operation answers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import pytest

from reelscope.collectors.base import Capability, NotFound, Unavailable, UpstreamError
from reelscope.collectors.tiktok_research import TikTokResearchConnector
from reelscope.collectors.tiktok_research.connector import FEED_MIN_VIEWS, SEARCH_PAGES
from reelscope.kit.platforms import Platform
from tests.collectors.tiktok_research import payloads
from tests.collectors.tiktok_research.fake import FakeTikTok

TT = Platform.TIKTOK
NOW = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)  # START of tests/conftest.py


def days_ago(days: float) -> datetime:
    return NOW - timedelta(days=days)


@pytest.fixture
def bread(fake: FakeTikTok) -> list[str]:
    """250 bread videos of the last 5 days, 10 older ones (40-50 days ago), and one about cake."""
    recent = [payloads.video(days_ago((n + 1) / 50), n, views=1000 + n) for n in range(250)]
    older = [payloads.video(days_ago(40 + n), 900 + n, views=5) for n in range(10)]
    cake = payloads.video(days_ago(1), 999, description="Lemon cake #cake", hashtags=["cake"])
    return fake.add_videos(*recent, *older, cake)


class TestSearch:
    async def test_a_keyword_query_in_one_window_paged_with_cursor_and_search_id(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, bread: list[str]
    ) -> None:
        found = await connector.search_videos(TT, "sourdough", days_ago(7), NOW, limit=250)
        assert len(found) == 250
        assert [v.views for v in found] == sorted((v.views for v in found), reverse=True)  # top first
        first, second, third = fake.bodies("video/query")
        assert first["query"] == {
            "and": [{"field_name": "keyword", "operation": "EQ", "field_values": ["sourdough"]}]
        }
        assert (first["start_date"], first["end_date"]) == ("20261114", "20261121")
        assert (first["max_count"], first["cursor"]) == (100, 0) and "search_id" not in first
        assert (second["cursor"], second["search_id"]) == (100, "7432200011122233344")
        assert (third["cursor"], third["search_id"]) == (200, "7432200011122233344")
        assert {b["start_date"] for b in (second, third)} == {"20261114"}  # the same query and dates
        fields = fake.calls("video/query")[0].url.params["fields"].split(",")
        assert {"id", "create_time", "username", "voice_to_text", "video_tag", "favorites_count"} <= set(
            fields
        )

    async def test_only_videos_posted_in_the_range_are_kept(
        self, connector: TikTokResearchConnector, bread: list[str]
    ) -> None:
        found = await connector.search_videos(TT, "sourdough", days_ago(2), days_ago(1), limit=100)
        assert found and all(days_ago(2) <= v.published_at < days_ago(1) for v in found)

    async def test_a_long_range_is_asked_in_windows_newest_first_within_the_page_cap(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, bread: list[str]
    ) -> None:
        found = await connector.search_videos(TT, "sourdough", days_ago(60), NOW, limit=1000)
        bodies = fake.bodies("video/query")
        assert len(bodies) == SEARCH_PAGES  # 3 pages of the newest window: the cap, not the 260 videos
        assert len(found) == 250
        few = await connector.search_videos(TT, "sourdough", days_ago(60), NOW, limit=20)
        assert len(few) == 20
        windows = [(b["start_date"], b["end_date"]) for b in fake.bodies("video/query")[SEARCH_PAGES:]]
        assert windows == [("20261023", "20261121")]

    async def test_older_windows_are_read_when_the_newest_runs_out(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        fake.add_videos(payloads.video(days_ago(1), 1), payloads.video(days_ago(45), 2))
        found = await connector.search_videos(TT, "sourdough", days_ago(60), NOW)
        assert len(found) == 2
        windows = [(b["start_date"], b["end_date"]) for b in fake.bodies("video/query")]
        assert windows == [("20261023", "20261121"), ("20260923", "20261022"), ("20260922", "20260922")]
        assert all(
            (datetime.strptime(e, "%Y%m%d") - datetime.strptime(s, "%Y%m%d")).days <= 30 for s, e in windows
        )

    async def test_has_more_with_no_videos_is_the_end(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        empty = {
            "data": {"videos": [], "cursor": 100, "has_more": True, "search_id": "s"},
            "error": {"code": "ok"},
        }
        fake.handlers["video/query"] = lambda request, body: httpx.Response(200, json=empty)
        assert await connector.search_videos(TT, "sourdough", days_ago(7), NOW) == []
        assert len(fake.calls("video/query")) == 1

    async def test_a_page_that_repeats_itself_ends_the_walk(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        page = payloads.VIDEO_QUERY | {}
        fake.handlers["video/query"] = lambda request, body: httpx.Response(200, json=page)
        since, until = datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 10, 10, tzinfo=UTC)
        found = await connector.search_videos(TT, "sourdough", since, until)
        assert {v.external_id for v in found} == {"7432109876543210987", "7431998877665544332"}
        assert len(fake.calls("video/query")) == 2  # the second page brought nothing new

    async def test_an_expired_search_id_ends_the_window_with_what_was_read(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, bread: list[str]
    ) -> None:
        answer = fake._query

        def expire_later_pages(request: httpx.Request, body: dict[str, Any]) -> httpx.Response:
            if "search_id" in body:
                return httpx.Response(
                    400, json=payloads.error("invalid_params", "search_id is invalid or expired")
                )
            return answer(body)

        fake.handlers["video/query"] = expire_later_pages
        found = await connector.search_videos(TT, "sourdough", days_ago(7), NOW, limit=250)
        assert len(found) == 100
        assert len(fake.calls("video/query")) == 2

    async def test_ids_beyond_2_to_the_53_stay_exact(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        fake.handlers["video/query"] = lambda request, body: httpx.Response(200, json=payloads.VIDEO_QUERY)
        since, until = datetime(2026, 10, 1, tzinfo=UTC), datetime(2026, 10, 10, tzinfo=UTC)
        found = await connector.search_videos(TT, "loaf", since, until)
        assert sorted(v.external_id for v in found) == ["7431998877665544332", "7432109876543210987"]

    async def test_an_empty_keyword_asks_nothing(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        assert await connector.search_videos(TT, "  ", days_ago(7), NOW) == []
        assert fake.requests == []

    async def test_other_platforms_are_unavailable(self, connector: TikTokResearchConnector) -> None:
        with pytest.raises(Unavailable):
            await connector.search_videos(Platform.YOUTUBE, "bread", days_ago(7), NOW)


class TestHashtagsAndFeeds:
    async def test_hashtag_videos_of_the_last_30_days_top_or_recent(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, bread: list[str]
    ) -> None:
        top = await connector.hashtag_videos(TT, "#Cake", sort="top", limit=10)
        assert [v.hashtags for v in top] == [("cake",)]
        (body,) = fake.bodies("video/query")
        assert body["query"]["and"] == [
            {"field_name": "hashtag_name", "operation": "EQ", "field_values": ["cake"]}
        ]
        assert (body["start_date"], body["end_date"]) == ("20261023", "20261121")
        recent = await connector.hashtag_videos(TT, "sourdough", sort="recent", limit=300)
        assert len(recent) == 250  # the older ten are beyond 30 days
        assert [v.published_at for v in recent] == sorted((v.published_at for v in recent), reverse=True)

    async def test_a_country_feed_asks_its_accounts_recent_videos_past_a_view_floor(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        fake.add_videos(
            payloads.video(days_ago(0.5), 1, region="US", views=FEED_MIN_VIEWS * 3),
            payloads.video(days_ago(0.5), 2, region="US", views=10),
            payloads.video(days_ago(0.5), 3, region="GB", views=FEED_MIN_VIEWS * 3),
        )
        found = await connector.discovery_feed(TT, "us", days_ago(1 / 24), NOW)
        assert [(v.upload_region, v.feed_region) for v in found] == [("US", "us")]
        (body,) = fake.bodies("video/query")
        assert body["query"]["and"] == [
            {"field_name": "region_code", "operation": "EQ", "field_values": ["US"]},
            {"field_name": "view_count", "operation": "GTE", "field_values": [str(FEED_MIN_VIEWS)]},
        ]
        assert (body["start_date"], body["end_date"]) == ("20261120", "20261121")

    @pytest.mark.parametrize("region", [None, "global", "u"])
    async def test_no_feed_without_a_country(
        self, connector: TikTokResearchConnector, region: str | None
    ) -> None:
        with pytest.raises(Unavailable, match="two-letter"):
            await connector.discovery_feed(TT, region, days_ago(1), NOW)


class TestVideosById:
    async def test_stats_by_100_ids_a_call_in_the_window_each_id_names(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, bread: list[str]
    ) -> None:
        wanted = bread[:150] + bread[250:252] + ["7000000000000000000"]  # an unknown id is left out
        stats = await connector.videos_stats(TT, wanted)
        assert {s.external_id for s in stats} == set(bread[:150] + bread[250:252])
        assert all(s.shares is not None and s.bookmarks is not None for s in stats)
        bodies = fake.bodies("video/query")
        sizes = sorted(len(b["query"]["and"][0]["field_values"]) for b in bodies)
        assert sizes[-1] <= 100 and sum(sizes) >= 153
        windows = {(b["start_date"], b["end_date"]) for b in bodies}
        assert ("20261023", "20261121") in windows
        assert ("20260923", "20261022") in windows  # the older videos' own window

    async def test_an_id_whose_time_is_not_its_creation_is_asked_in_the_last_30_days(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        odd = payloads.video(days_ago(2)) | {"id": 7000000000000000001}  # carries 2021 in its top bits
        fake.add_videos(odd)
        video = await connector.video(TT, "7000000000000000001")
        assert video.external_id == "7000000000000000001"
        assert [(b["start_date"], b["end_date"]) for b in fake.bodies("video/query")][-1] == (
            "20261023",
            "20261121",
        )

    async def test_an_unknown_video_is_not_found(self, connector: TikTokResearchConnector) -> None:
        with pytest.raises(NotFound):
            await connector.video(TT, payloads.video_id(days_ago(3), 5))
        with pytest.raises(NotFound):
            await connector.video_stats(TT, "not-an-id")


class TestCreators:
    async def test_a_profile_and_the_last_90_days_of_posts_newest_first(
        self, connector: TikTokResearchConnector, fake: FakeTikTok, bread: list[str]
    ) -> None:
        fake.users["crumblab"] = payloads.USER_INFO["data"]
        fake.add_videos(payloads.video(days_ago(2), 77, username="ovennotes"))
        creator = await connector.creator(TT, "@crumblab")
        assert (creator.handle, creator.followers) == ("crumblab", 48100)
        assert fake.bodies("user/info") == [{"username": "crumblab"}]
        assert fake.calls("user/info")[0].url.params["fields"].startswith("display_name,")
        posts = await connector.creator_posts(TT, "crumblab", limit=300)
        assert len(posts) == 261 and {p.creator.handle for p in posts if p.creator} == {"crumblab"}
        assert [p.published_at for p in posts] == sorted((p.published_at for p in posts), reverse=True)
        assert {b["query"]["and"][0]["field_values"][0] for b in fake.bodies("video/query")} == {"crumblab"}

    async def test_a_user_with_no_recent_posts_has_none(self, connector: TikTokResearchConnector) -> None:
        assert await connector.creator_posts(TT, "quietbaker") == []


class TestComments:
    async def test_comments_paged_by_cursor_each_its_own_commenter(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        video = payloads.video_id(days_ago(1), 1)
        fake.comments[video] = [
            payloads.comment(7433000000000000000 + n, video, days_ago(0.5)) for n in range(230)
        ]
        found = await connector.comments(TT, video, limit=200)
        assert len(found) == 200 and len({c.author_handle for c in found}) == 200
        first, second = fake.bodies("video/comment/list")
        assert first == {"video_id": int(video), "max_count": 100, "cursor": 0}
        assert second["cursor"] == 100
        fields = fake.calls("video/comment/list")[0].url.params["fields"]
        assert fields == "id,video_id,text,like_count,reply_count,parent_comment_id,create_time"

    async def test_comments_of_an_unknown_video_are_not_found(
        self, connector: TikTokResearchConnector
    ) -> None:
        with pytest.raises(NotFound):
            await connector.comments(TT, payloads.video_id(days_ago(1), 9))


class TestDeclarations:
    def test_what_the_source_offers(self, connector: TikTokResearchConnector) -> None:
        assert connector.name == "tiktok_research"
        assert set(connector.capabilities) == {
            Capability.SEARCH, Capability.HASHTAG_VIDEOS, Capability.POPULAR_FEED, Capability.VIDEO,
            Capability.STATS, Capability.CREATOR, Capability.CREATOR_POSTS, Capability.COMMENTS,
        }  # fmt: skip
        assert all(platforms == {TT} for platforms in connector.capabilities.values())
        assert connector.bucket_of(Capability.SEARCH).name == "requests"
        assert connector.unavailable_reason is None

    async def test_what_it_does_not_offer_is_unavailable(self, connector: TikTokResearchConnector) -> None:
        with pytest.raises(Unavailable):
            await connector.ads("bread")
        with pytest.raises(Unavailable):
            await connector.sound(TT, "7400011122233344455")

    async def test_check_is_one_research_call(
        self, connector: TikTokResearchConnector, fake: FakeTikTok
    ) -> None:
        fake.users["tiktok"] = payloads.USER_INFO["data"]
        await connector.check()
        assert [r.url.path for r in fake.requests] == ["/v2/oauth/token/", "/v2/research/user/info/"]
        fake.users.clear()
        with pytest.raises(UpstreamError):  # an unknown user answers invalid_params: the check fails
            await connector.check()

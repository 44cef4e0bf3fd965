"""The Instagram Graph API connector against the fake Graph (connectors reference §3; issue 27 item 2),
without a database: hashtag search and edges and where their paging stops, Business Discovery profiles and
Reels, the Graph's errors as typed errors (an expired token: ``Unavailable`` saying what to renew), and
the token never reaching logs or messages."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from reelscope.collectors.base import (
    Capability,
    ConnectorError,
    NotFound,
    RateLimited,
    Unavailable,
    UpstreamError,
)
from reelscope.collectors.instagram import InstagramConnector
from reelscope.collectors.instagram.connector import HASHTAG_PAGES
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from tests.collectors.instagram import payloads
from tests.collectors.instagram.conftest import MakeConnector
from tests.collectors.instagram.fake import TOKEN, FakeInstagram

IG = Platform.INSTAGRAM
NOW = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)


def hours_ago(hours: float) -> datetime:
    return NOW - timedelta(hours=hours)


@pytest.fixture
def sourdough(fake: FakeInstagram) -> str:
    """#sourdough: 120 media of the last 5 days, two of three Reels, the others images."""
    media = [
        payloads.media(
            n, hours_ago(n + 1), kind="VIDEO" if n % 3 else "IMAGE", product="REELS" if n % 3 else "FEED"
        )
        for n in range(120)
    ]
    return fake.add_hashtag("sourdough", media)


class TestHashtags:
    async def test_a_keyword_is_searched_as_its_hashtag_and_its_top_reels_kept(
        self, connector: InstagramConnector, fake: FakeInstagram, sourdough: str
    ) -> None:
        found = await connector.search_videos(IG, "#Sour dough", hours_ago(48), NOW, limit=100)
        (search,) = fake.calls("hashtag_search")
        assert dict(search.url.params) == {
            "user_id": payloads.ACCOUNT,
            "q": "sourdough",
            "access_token": TOKEN,
        }
        first = fake.calls("edge")[0]
        assert first.url.path == f"/v25.0/{sourdough}/top_media"
        assert first.url.params["fields"] == (
            "id,caption,comments_count,like_count,media_type,media_product_type,permalink,timestamp"
        )
        assert first.url.params["limit"] == "50"
        assert found and all(v.platform is IG and v.views == 0 and v.creator is None for v in found)
        assert all(hours_ago(48) <= v.published_at < NOW for v in found)
        assert len(found) == 32  # the Reels of the 48 media posted within 48 hours
        assert all(v.url.startswith("https://www.instagram.com/reel/") for v in found)

    async def test_ids_are_the_permalinks_decoded_and_gaps_are_not_reported(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        fake.add_hashtag("sourdough", payloads.RECENT_MEDIA["data"])  # type: ignore[arg-type]
        (reel,) = await connector.hashtag_videos(IG, "sourdough", sort="recent")
        assert reel.external_id == "3472818758777482641"  # DAx7kLmPq2R, not the Graph id
        assert reel.published_at == datetime(2026, 10, 4, 16, 20, 5, tzinfo=UTC)
        assert reel.hashtags == ("sourdough", "Baking")
        assert (reel.likes, reel.comments, reel.views) == (214, 9, 0)
        assert reel.shares is None and reel.thumbnail_url is None and reel.duration is None
        assert fake.calls("edge")[0].url.path.endswith("/recent_media")

    async def test_a_cursor_that_never_changes_is_not_followed(
        self, connector: InstagramConnector, fake: FakeInstagram, sourdough: str
    ) -> None:
        fake.stuck_cursor = True
        await connector.hashtag_videos(IG, "sourdough", limit=200)
        edges = fake.calls("edge")
        assert len(edges) == 2  # the second page handed back the same cursor
        assert "after" not in edges[0].url.params and edges[1].url.params["after"] == "QVFIUmFmdGVyMQ"
        assert all("access_token=" + TOKEN not in str(r.url).split("?", 1)[0] for r in edges)

    async def test_a_page_of_media_already_seen_ends_the_walk(
        self, connector: InstagramConnector, fake: FakeInstagram, sourdough: str
    ) -> None:
        page = {"data": payloads.RECENT_MEDIA["data"], "paging": {"cursors": {"after": "c50"}}}
        second = {"data": payloads.RECENT_MEDIA["data"], "paging": {"cursors": {"after": "c100"}}}
        fake.fail("edge", 200, page)
        fake.fail("edge", 200, second)
        found = await connector.hashtag_videos(IG, "sourdough", limit=200)
        assert len(found) == 1 and len(fake.calls("edge")) == 2

    async def test_the_page_cap_holds(self, connector: InstagramConnector, fake: FakeInstagram) -> None:
        fake.add_hashtag("bread", [payloads.media(n, hours_ago(n / 10)) for n in range(400)])
        found = await connector.hashtag_videos(IG, "bread", limit=400)
        assert len(fake.calls("edge")) == HASHTAG_PAGES and len(found) == HASHTAG_PAGES * 50

    async def test_an_unknown_hashtag_is_not_found(self, connector: InstagramConnector) -> None:
        with pytest.raises(NotFound, match="#nosuchtag"):
            await connector.hashtag_videos(IG, "nosuchtag")

    async def test_a_refused_hashtag_is_not_found(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        fake.fail("hashtag_search", 400, payloads.error(24, message="This hashtag is sensitive."))
        with pytest.raises(NotFound, match="refused"):
            await connector.hashtag_videos(IG, "sensitive")

    async def test_an_empty_keyword_asks_nothing(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        assert await connector.search_videos(IG, " #! ", hours_ago(48), NOW) == []
        assert fake.requests == []


class TestBusinessDiscovery:
    async def test_the_reference_fixture(self, connector: InstagramConnector, fake: FakeInstagram) -> None:
        found = dict(payloads.BUSINESS_DISCOVERY["business_discovery"])  # type: ignore[call-overload]
        fake.accounts["crumblab"] = (found, found.pop("media")["data"])
        creator = await connector.creator(IG, "@crumblab")
        assert (creator.handle, creator.display_name, creator.platform_user_id) == (
            "crumblab", "Crumb Lab", "17841400000000777",
        )  # fmt: skip
        assert (creator.followers, creator.following, creator.video_count) == (48100, 12, 311)
        assert creator.verified is None and creator.country is None
        (call,) = fake.calls("discovery")
        assert call.url.path == f"/v25.0/{payloads.ACCOUNT}"
        assert call.url.params["fields"] == (
            "business_discovery.username(crumblab){id,username,name,biography,followers_count,follows_count,"
            "media_count,profile_picture_url}"
        )
        (reel,) = await connector.creator_posts(IG, "crumblab")
        assert reel.external_id == "3473078592572415508"  # DAy2pQrSt4U
        assert (reel.views, reel.likes, reel.comments) == (2210, 0, 4)  # likes hidden: not reported
        assert reel.thumbnail_url == "https://scontent.cdninstagram.com/v/t51.2885-15/thumb.jpg"
        assert reel.creator is not None and reel.creator.handle == "crumblab"

    async def test_posts_are_the_accounts_reels_newest_first_paged_by_cursor(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        media = [
            payloads.media(n, hours_ago(n * 5), kind="IMAGE" if n % 4 == 0 else "VIDEO", views=1000 - n)
            for n in range(60)
        ]
        fake.accounts["crumblab"] = (payloads.profile("crumblab"), media)
        posts = await connector.creator_posts(IG, "crumblab", limit=40)
        assert len(posts) == 40
        assert [p.published_at for p in posts] == sorted((p.published_at for p in posts), reverse=True)
        fields = [r.url.params["fields"] for r in fake.calls("discovery")]
        assert len(fields) == 3
        assert "media.limit(25){" in fields[0] and "media.after(c25).limit(25){" in fields[1]
        assert "view_count" in fields[0] and "thumbnail_url" in fields[0]

    @pytest.mark.parametrize("handle", ["nobody", "not a name", "x" * 31])
    async def test_an_unknown_or_impossible_account_is_not_found(
        self, connector: InstagramConnector, handle: str
    ) -> None:
        with pytest.raises(NotFound):
            await connector.creator(IG, handle)


class TestErrors:
    async def test_an_expired_token_is_unavailable_saying_what_to_renew(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        fake.fail("discovery", 400, payloads.EXPIRED)
        with pytest.raises(Unavailable) as raised:
            await connector.creator(IG, "crumblab")
        message = str(raised.value)
        assert "code 190/463" in message and "expired or was revoked" in message
        assert "REELSCOPE_INSTAGRAM_ACCESS_TOKEN" in message

    async def test_a_missing_permission_is_unavailable_naming_the_steps(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        fake.fail(
            "hashtag_search", 400, payloads.error(10, message="(#10) Application does not have permission")
        )
        with pytest.raises(Unavailable, match="Instagram Public Content Access"):
            await connector.hashtag_videos(IG, "sourdough")

    @pytest.mark.parametrize("code", [4, 17, 32, 613, 80002])
    async def test_throttling_is_rate_limited(
        self, connector: InstagramConnector, fake: FakeInstagram, clock: ManualClock, code: int
    ) -> None:
        fake.fail("discovery", 400, payloads.error(code))
        with pytest.raises(RateLimited) as raised:
            await connector.creator(IG, "crumblab")
        assert raised.value.retry_at == clock.now() + timedelta(minutes=10)

    async def test_a_policy_block_rests_an_hour(
        self, connector: InstagramConnector, fake: FakeInstagram, clock: ManualClock
    ) -> None:
        fake.fail("discovery", 400, payloads.error(368))
        with pytest.raises(RateLimited) as raised:
            await connector.creator(IG, "crumblab")
        assert raised.value.retry_at == clock.now() + timedelta(hours=1)

    @pytest.mark.parametrize(
        "answer",
        [
            httpx.Response(400, json=payloads.error(2, message="Service temporarily unavailable")),
            httpx.Response(500, json=payloads.error(1)),
            httpx.Response(502, text="<html>bad gateway</html>"),
            httpx.Response(200, text="[]"),
        ],
        ids=["code 2", "code 1", "html 502", "not an object"],
    )
    async def test_transient_faults_are_retryable(
        self, connector: InstagramConnector, fake: FakeInstagram, answer: httpx.Response
    ) -> None:
        fake._queued["discovery"] = [answer]
        with pytest.raises(UpstreamError) as raised:
            await connector.creator(IG, "crumblab")
        assert raised.value.retryable

    @pytest.mark.parametrize(
        ("missing", "named"),
        [
            ("instagram_access_token", "REELSCOPE_INSTAGRAM_ACCESS_TOKEN"),
            ("instagram_user_id", "REELSCOPE_INSTAGRAM_USER_ID"),
        ],
    )
    async def test_missing_configuration_is_unavailable_and_nothing_is_sent(
        self, make_connector: MakeConnector, fake: FakeInstagram, missing: str, named: str
    ) -> None:
        connector = make_connector(**{missing: None})
        assert connector.unavailable_reason is not None and named in connector.unavailable_reason
        for call in (
            connector.creator(IG, "crumblab"),
            connector.creator_posts(IG, "crumblab"),
            connector.hashtag_videos(IG, "sourdough"),
            connector.search_videos(IG, "sourdough", hours_ago(48), NOW),
            connector.check(),
        ):
            with pytest.raises(Unavailable, match=named):
                await call
        assert fake.requests == []


class TestSecrets:
    async def test_the_token_reaches_no_log_and_no_message(
        self,
        connector: InstagramConnector,
        fake: FakeInstagram,
        sourdough: str,
        caplog: pytest.LogCaptureFixture,
    ) -> None:
        caplog.set_level(logging.DEBUG)
        await connector.hashtag_videos(IG, "sourdough", limit=100)  # paging.next links carry the token
        said = []
        for answer in (
            payloads.EXPIRED,
            payloads.THROTTLED,
            payloads.error(100, message=f"bad token {TOKEN}"),
        ):
            fake.fail("discovery", 400, answer)
            try:
                await connector.creator(IG, "crumblab")
            except ConnectorError as exc:
                said.append(str(exc))
        assert len(said) == 3
        assert any(
            "HTTP Request" in r.getMessage() and "access_token=***" in r.getMessage() for r in caplog.records
        )
        assert TOKEN not in caplog.text and TOKEN not in " ".join(said)


class TestDeclarations:
    def test_what_the_source_offers(self, connector: InstagramConnector) -> None:
        assert connector.name == "instagram"
        assert set(connector.capabilities) == {
            Capability.SEARCH, Capability.HASHTAG_VIDEOS, Capability.CREATOR, Capability.CREATOR_POSTS,
        }  # fmt: skip
        assert all(platforms == {IG} for platforms in connector.capabilities.values())

    async def test_check_is_one_call_for_our_account(
        self, connector: InstagramConnector, fake: FakeInstagram
    ) -> None:
        await connector.check()
        (call,) = fake.requests
        assert call.url.path == f"/v25.0/{payloads.ACCOUNT}" and call.url.params["fields"] == "id,username"

    async def test_comments_are_not_offered(self, connector: InstagramConnector) -> None:
        with pytest.raises(Unavailable):
            await connector.comments(IG, "3472818758777482641")

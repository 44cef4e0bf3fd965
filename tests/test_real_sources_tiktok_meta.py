"""The whole service on the research sources (issue 27 item 5): ``REELSCOPE_CONNECTORS=tiktok_research,
instagram,meta_ads`` against in-process fakes of the TikTok Research API, the Instagram Graph API and the
Meta Ad Library, each served over HTTP on 127.0.0.1 and reached through the base-URL settings. A collection
cycle fills the TikTok digest from the country feeds; an agent run finds videos of every platform and ads;
a tracked TikTok creator's audience snapshot samples real-shaped (anonymous) comments; a creator lookup
reads Instagram's Business Discovery; each is charged as the spec says, and the collector status shows
the quota and the hashtag places without a secret. Jobs run when their request commits (Huey's
immediate mode)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from reelscope.billing import service as billing_service
from reelscope.catalog import collection
from reelscope.catalog import repository as catalog_repository
from reelscope.collectors.registry import build_sources
from reelscope.config import Settings
from reelscope.digest import service as digest_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.trend import service as trend_service
from reelscope.worker.engine import JobEngine
from tests.collectors.instagram import fake as instagram_fake
from tests.collectors.meta_ads import payloads as ad_payloads
from tests.collectors.meta_ads.fake import TOKEN as META_TOKEN
from tests.collectors.meta_ads.fake import FakeAdLibrary
from tests.collectors.tiktok_research import fake as tiktok_fake
from tests.collectors.youtube.fake import KEY as YOUTUBE_KEY
from tests.collectors.youtube.fake import FakeYouTube
from tests.collectors.youtube.fake import populated as populated_youtube
from tests.conftest import START, TeamKey
from tests.fixtures.http import serving

REGIONS = ["us", "gb", "au"]
IG_ACCOUNT = "17841400000000001"
pytestmark = pytest.mark.both_databases


@pytest.fixture(scope="module")
def tiktok_api() -> Iterator[tuple[tiktok_fake.FakeTikTok, str]]:
    fake = tiktok_fake.populated(tiktok_fake.FakeTikTok(), REGIONS, 24, START)
    with serving(fake) as base:
        yield fake, base


@pytest.fixture(scope="module")
def instagram_api() -> Iterator[tuple[instagram_fake.FakeInstagram, str]]:
    fake = instagram_fake.populated(instagram_fake.FakeInstagram(), ["crumblab", "ovennotes"], 16, START)
    with serving(fake) as base:
        yield fake, base


@pytest.fixture(scope="module")
def ads_api() -> Iterator[tuple[FakeAdLibrary, str]]:
    fake = FakeAdLibrary()
    fake.ads = [ad_payloads.ad(n, f"Fresh sourdough delivered by 8am, offer {n}") for n in range(12)]
    with serving(fake) as base:
        yield fake, base


@pytest.fixture(scope="module")
def youtube_api() -> Iterator[tuple[FakeYouTube, str]]:
    fake = populated_youtube(FakeYouTube(), ["us"], 12, START)
    with serving(fake) as base:
        yield fake, base


@pytest.fixture
def settings(
    data_dir: Path,
    database_url: str,
    tiktok_api: tuple[tiktok_fake.FakeTikTok, str],
    instagram_api: tuple[instagram_fake.FakeInstagram, str],
    ads_api: tuple[FakeAdLibrary, str],
) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        connectors="tiktok_research,instagram,meta_ads",
        tiktok_client_key=SecretStr(tiktok_fake.CLIENT_KEY),
        tiktok_client_secret=SecretStr(tiktok_fake.CLIENT_SECRET),
        tiktok_base_url=tiktok_api[1],
        instagram_access_token=SecretStr(instagram_fake.TOKEN),
        instagram_user_id=IG_ACCOUNT,
        instagram_base_url=f"{instagram_api[1]}/v25.0",
        meta_access_token=SecretStr(META_TOKEN),
        meta_base_url=f"{ads_api[1]}/v25.0",
    )


@pytest.fixture(autouse=True)
async def regions(runtime: Runtime) -> None:
    """The default trend regions, as a first start's migration seeds them (global, us, gb, au)."""
    async with runtime.db.transaction() as session:
        await trend_service.seed_default_regions(session)


async def balance(runtime: Runtime, team: TeamKey) -> int:
    async with runtime.db.transaction(write=False) as session:
        return await billing_service.balance(session, team.team_id)


SECRETS = (tiktok_fake.CLIENT_SECRET, instagram_fake.TOKEN, META_TOKEN, "clt.fake")


class TestCollection:
    async def test_the_country_feeds_fill_the_tiktok_digest_and_stats_refresh_within_the_quota(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        team: TeamKey,
        tiktok_api: tuple[tiktok_fake.FakeTikTok, str],
    ) -> None:
        fake, _base = tiktok_api
        asked_before = len(fake.calls("video/query"))
        sources = build_sources(runtime.settings, clock, runtime.db)
        async with runtime.db.transaction(write=False) as session:
            countries = await catalog_repository.country_regions(session)
        now = clock.now()
        result = await collection.collect(
            runtime.db, sources, clock, now - timedelta(hours=1), now, regions=countries
        )
        assert result.failures == {}
        assert result.videos == {f"tiktok_research:tiktok:{r}": 24 for r in REGIONS}
        refreshed = await collection.refresh_recent_stats(runtime.db, sources, clock)
        assert refreshed.refreshed == 72 and refreshed.missing == 0
        asked = [c["query"]["and"][0] for c in fake.bodies("video/query")[asked_before:]]
        assert [(c["field_name"], c["field_values"]) for c in asked[:3]] == [
            ("region_code", ["US"]), ("region_code", ["GB"]), ("region_code", ["AU"]),
        ]  # fmt: skip
        assert asked[3]["field_name"] == "video_id" and len(asked[3]["field_values"]) == 72
        await digest_service.refresh(runtime.db, now)
        assert sources.ledger is not None
        await sources.ledger.flush()

        digest = await client.get("/v1/tiktok/videos/digest", headers=team.headers)
        assert digest.status_code == 200, digest.text
        assert digest.headers["X-Cost"] == "0.25"  # §8.2
        videos = digest.json()["data"]
        assert videos and {v["type"] for v in videos} == {"tiktok"}
        top = max(videos, key=lambda v: v["views"])
        assert top["views"] == 1_020_000 and top["hashtags"][0] == "sourdough"  # TikTok's have no #
        assert (
            top["number_of_shares"] is not None and top["transcript_raw"] == "first you fold the dough twice"
        )
        assert int(top["external_id"]) > 2**53  # exact, as a string
        assert top["upload_region_source"] == "platform_account_region"
        assert await balance(runtime, team) == 1000 - 25

        status = await client.get("/v1/account/collectors", headers=team.headers)
        by_name = {c["name"]: c for c in status.json()["data"]}
        assert list(by_name) == ["tiktok_research", "instagram", "meta_ads"]
        (requests,) = by_name["tiktok_research"]["buckets"]
        # 3 feed pages (one per country) + 1 stats call of the 72 ids (100 a call): the background share
        assert (requests["name"], requests["used"], requests["used_background"]) == ("requests", 4, 4)
        assert requests["daily_limit"] == 1000 and requests["resets_at"] == "2026-11-22T00:00:00Z"
        assert not any(secret in status.text for secret in SECRETS)


class TestAgents:
    @pytest.fixture
    def settings(self, settings: Settings, youtube_api: tuple[FakeYouTube, str]) -> Settings:
        """Part 1's YouTube beside them: an agent of all three platforms."""
        return settings.model_copy(
            update={
                "connectors": "tiktok_research,instagram,meta_ads,youtube",
                "youtube_api_key": SecretStr(YOUTUBE_KEY),
                "youtube_base_url": f"{youtube_api[1]}/youtube/v3",
            }
        )

    async def test_an_agent_run_finds_videos_of_every_platform_and_ads(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        team: TeamKey,
        jobs: JobEngine,
        instagram_api: tuple[instagram_fake.FakeInstagram, str],
    ) -> None:
        agent = await client.post(
            "/v1/agents",
            json={
                "name": "bread",
                "keywords": ["sourdough"],
                "platforms": ["tiktok", "instagram", "youtube"],
                "meta_ads_enabled": True,
            },
            headers=team.headers,
        )
        assert agent.status_code == 201, agent.text
        assert agent.headers["X-Cost"] == "0.50"  # §4.4: a one-shot agent, ads included
        agent_id = agent.json()["data"]["id"]
        runs = await client.get(f"/v1/agents/{agent_id}/runs", headers=team.headers)
        (run,) = runs.json()["data"]["runs"]
        assert run["status"] == "completed", run

        videos = await client.get(
            f"/v1/agents/{agent_id}/videos", params={"limit": 100}, headers=team.headers
        )
        assert videos.status_code == 200, videos.text
        found = videos.json()["data"]["videos"]
        assert {v["type"] for v in found} == {"tiktok", "instagram", "youtube"}
        reels = [v for v in found if v["type"] == "instagram"]
        assert all(v["url"].startswith("https://www.instagram.com/reel/") for v in reels)

        ads = await client.get(f"/v1/agents/{agent_id}/ads", headers=team.headers)
        assert ads.status_code == 200, ads.text
        listed = ads.json()["data"]
        listed = listed.get("ads", listed) if isinstance(listed, dict) else listed
        assert len(listed) == 12
        assert all(a["snapshot_url"].startswith("https://www.facebook.com/ads/library/?id=") for a in listed)
        assert await balance(runtime, team) == 1000 - 50

        fake, _base = instagram_api
        assert fake.calls("hashtag_search")[-1].url.params["q"] == "sourdough"
        status = await client.get("/v1/account/collectors", headers=team.headers)
        instagram = next(c for c in status.json()["data"] if c["name"] == "instagram")
        places = next(b for b in instagram["buckets"] if b["name"] == "hashtags_7d")
        assert (places["used"], places["left"]) == (1, 29)
        assert not any(secret in status.text + runs.text + ads.text for secret in SECRETS)


class TestCreators:
    async def test_an_audience_snapshot_of_a_tracked_tiktok_creator_from_its_comments(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        team: TeamKey,
        jobs: JobEngine,
        tiktok_api: tuple[tiktok_fake.FakeTikTok, str],
    ) -> None:
        fake, _base = tiktok_api
        tracked = await client.post(
            "/v1/tracking/creators", json={"platform": "tiktok", "handle": "gbbaker1"}, headers=team.headers
        )
        assert tracked.status_code == 201, tracked.text
        assert tracked.headers["X-Cost"] == "0.25"  # §4.7: pays the first cycle
        tracking_id = tracked.json()["data"]["id"]

        refresh = await client.post(
            f"/v1/tracking/creators/{tracking_id}/audience-refresh", headers=team.headers
        )
        assert refresh.status_code == 202, refresh.text
        assert refresh.headers["X-Cost"] == "0.50"
        snapshot = await client.get(refresh.json()["data"]["poll_url"], headers=team.headers)
        assert snapshot.status_code == 200, snapshot.text
        data = snapshot.json()["data"]
        assert data["status"] == "completed", data
        posts = [v for v in fake.videos.values() if v["username"] == "gbbaker1"]
        comments = sum(len(fake.comments[str(v["id"])]) for v in posts)
        # the Research API names no commenter: each comment stands for one (an upper bound of people)
        assert data["snapshot"]["sample_size"] == comments
        assert data["snapshot"]["signal_breakdown"]["comments"] == comments
        assert await balance(runtime, team) == 1000 - 25 - 50  # people were sampled: not refunded

    async def test_a_creator_lookup_on_instagram_reads_business_discovery(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        team: TeamKey,
        jobs: JobEngine,
    ) -> None:
        lookup = await client.get("/v1/satellite/creator/instagram/crumblab", headers=team.headers)
        assert lookup.status_code == 200, lookup.text
        assert lookup.headers["X-Cost"] == "0.50"  # §4.7
        status = await client.get(lookup.json()["data"]["poll_url"], headers=team.headers)
        data = status.json()["data"]
        assert data["status"] == "completed", data
        result = data["result"]
        assert result["profile"]["handle"].lstrip("@") == "crumblab"
        assert result["profile"]["followers"] == 48100
        videos = result["videos"]
        assert videos and all(v["platform"] == "instagram" for v in videos)
        assert max(v["views"] for v in videos) == 50_000  # Business Discovery gives Reels' views
        assert await balance(runtime, team) == 1000 - 50

    async def test_an_unknown_instagram_creator_fails_the_lookup_and_is_refunded(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, jobs: JobEngine
    ) -> None:
        lookup = await client.get("/v1/satellite/creator/instagram/nobodyhere", headers=team.headers)
        assert lookup.status_code == 200, lookup.text
        status = await client.get(lookup.json()["data"]["poll_url"], headers=team.headers)
        data = status.json()["data"]
        assert data["status"] == "failed" and data["error"]["code"] == "not_found", data
        assert await balance(runtime, team) == 1000  # §3: a failed lookup is refunded

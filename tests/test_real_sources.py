"""The whole service on real sources (issue 26 item 8): ``REELSCOPE_CONNECTORS=youtube,news`` against an
in-process fake of the YouTube Data API and of GDELT and Google News, each served over HTTP on
127.0.0.1 and reached through the base-URL settings. One collection cycle and its follow-ups (stats
refresh, hashtag rollup, a trend run) fill the digests, hashtags and trends; an agent run, a creator
lookup and a tracking cycle read the fake through capability routing; each is charged as the spec says.
Jobs run when their request commits (Huey's immediate mode)."""

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
from reelscope.hashtag import service as hashtag_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.trend import runs as trend_runs
from reelscope.trend import service as trend_service
from reelscope.worker.engine import JobEngine
from tests.collectors.youtube.fake import KEY, FakeYouTube, populated
from tests.conftest import TeamKey
from tests.fixtures.http import serving

REGIONS = ["us", "gb", "au"]
pytestmark = pytest.mark.both_databases


class FakeNews:
    """GDELT's artlist JSON and a Google News RSS feed, one article each, whatever the query."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path.endswith("/doc/doc"):
            article = {
                "url": "https://www.thegrocer.example/news/flour-prices",
                "url_mobile": "",
                "title": "Flour prices jump ahead of winter",
                "seendate": "20261121T113000Z",
                "socialimage": "",
                "domain": "thegrocer.example",
                "language": "English",
                "sourcecountry": "United Kingdom",
            }
            return httpx.Response(200, json={"articles": [article]})
        rss = (
            '<rss version="2.0"><channel><title>news</title><item><title>Ovens sell out - Bake Daily</title>'
            "<link>https://news.google.com/rss/articles/CBMiOvens?oc=5</link>"
            "<pubDate>Sat, 21 Nov 2026 11:00:00 GMT</pubDate>"
            '<source url="https://bakedaily.example">Bake Daily</source></item></channel></rss>'
        )
        return httpx.Response(200, content=rss.encode(), headers={"Content-Type": "application/rss+xml"})


@pytest.fixture(scope="module")
def youtube_api() -> Iterator[tuple[FakeYouTube, str]]:
    from tests.conftest import START

    fake = populated(FakeYouTube(), REGIONS, 60, START)
    with serving(fake) as base:
        yield fake, base


@pytest.fixture(scope="module")
def news_api() -> Iterator[tuple[FakeNews, str]]:
    fake = FakeNews()
    with serving(fake) as base:
        yield fake, base


@pytest.fixture
def settings(
    data_dir: Path,
    database_url: str,
    youtube_api: tuple[FakeYouTube, str],
    news_api: tuple[FakeNews, str],
) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        connectors="youtube,news",
        youtube_api_key=SecretStr(KEY),
        youtube_base_url=f"{youtube_api[1]}/youtube/v3",
        gdelt_base_url=f"{news_api[1]}/api/v2/doc/doc",
        news_rss_base_url=f"{news_api[1]}/rss",
    )


@pytest.fixture(autouse=True)
async def regions(runtime: Runtime) -> None:
    """The default trend regions, as a first start's migration seeds them (global, us, gb, au)."""
    async with runtime.db.transaction() as session:
        await trend_service.seed_default_regions(session)


async def collect_cycle(runtime: Runtime, clock: ManualClock) -> collection.CollectResult:
    """What the periodic jobs do: the feeds, a stats refresh, the hashtag rollup and the digests."""
    now = clock.now()
    sources = build_sources(runtime.settings, clock, runtime.db)
    async with runtime.db.transaction(write=False) as session:
        countries = await catalog_repository.country_regions(session)
    assert countries == REGIONS
    since = now - timedelta(hours=1)
    result = await collection.collect(runtime.db, sources, clock, since, now, regions=countries)
    await collection.refresh_recent_stats(runtime.db, sources, clock)
    await hashtag_service.rollup(runtime.db, now)
    await digest_service.refresh(runtime.db, now)
    assert sources.ledger is not None
    await sources.ledger.flush()
    return result


async def balance(runtime: Runtime, team: TeamKey) -> int:
    async with runtime.db.transaction(write=False) as session:
        return await billing_service.balance(session, team.team_id)


class TestRealSources:
    async def test_collected_feeds_fill_the_reads_each_charged_as_the_spec_says(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        team: TeamKey,
        jobs: JobEngine,
        youtube_api: tuple[FakeYouTube, str],
    ) -> None:
        result = await collect_cycle(runtime, clock)
        assert result.failures == {}
        assert result.videos == {f"youtube:youtube:{r}": 40 for r in REGIONS}  # the Shorts of each chart

        digest = await client.get("/v1/youtube/videos/digest", headers=team.headers)
        assert digest.status_code == 200, digest.text
        assert digest.headers["X-Cost"] == "0.25"  # §8.2
        videos = digest.json()["data"]
        assert videos and {v["type"] for v in videos} == {"youtube"}
        assert all(v["url"].startswith("https://www.youtube.com/shorts/") for v in videos)
        top = max(videos, key=lambda v: v["views"])
        assert top["views"] == 1_000_000 // 2  # the first Short of a chart (n=1; n=0 is 12 minutes long)
        assert top["hashtags"] in (["#ustrend"], ["#gbtrend"], ["#autrend"])  # YouTube's keep their #

        week = {"start_date": "2026-11-15", "end_date": "2026-11-21"}
        hashtags = await client.get("/v1/hashtags", params=week, headers=team.headers)
        assert hashtags.status_code == 200, hashtags.text
        assert hashtags.headers["X-Cost"] == "0.05"
        names = {h["hashtag"].lstrip("#").lower() for h in hashtags.json()["data"]}
        assert {"ustrend", "gbtrend", "autrend"} <= names

        async with runtime.db.transaction(write=False) as session:
            from reelscope.models import TrendRegion

            us = await session.get(TrendRegion, "us")
            assert us is not None
        at = trend_runs.latest_scheduled(us.timezone, clock.now())
        run = await trend_runs.run_region(runtime.db, "us", at, now=clock.now())
        assert run is not None and run.status == "completed"
        trends = await client.get("/v1/trends", params={"region": "us"}, headers=team.headers)
        assert trends.status_code == 200, trends.text
        assert trends.headers["X-Cost"] == "0.25"

        spent = 25 + 5 + 25
        assert await balance(runtime, team) == 1000 - spent

    async def test_an_agent_a_lookup_and_tracking_read_the_source_and_are_charged(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        team: TeamKey,
        jobs: JobEngine,
        youtube_api: tuple[FakeYouTube, str],
    ) -> None:
        fake, _base = youtube_api
        searches_before = len(fake.calls("search"))
        agent = await client.post(
            "/v1/agents",
            json={"name": "charts", "keywords": ["chart"], "platforms": ["youtube"]},
            headers=team.headers,
        )
        assert agent.status_code == 201, agent.text
        assert agent.headers["X-Cost"] == "0.50"  # §4.4: a one-shot agent
        agent_id = agent.json()["data"]["id"]
        assert len(fake.calls("search")) > searches_before  # the run searched the fake API
        videos = await client.get(f"/v1/agents/{agent_id}/videos", headers=team.headers)
        assert videos.status_code == 200, videos.text
        found = videos.json()["data"]["videos"]
        assert found and {v["type"] for v in found} == {"youtube"}

        lookup = await client.get("/v1/satellite/creator/youtube/maker001", headers=team.headers)
        assert lookup.status_code == 200, lookup.text
        assert lookup.headers["X-Cost"] == "0.50"  # §4.7
        status = await client.get(lookup.json()["data"]["poll_url"], headers=team.headers)
        assert status.status_code == 200, status.text
        data = status.json()["data"]
        assert data["status"] == "completed", data
        assert data["result"]["profile"]["handle"].lstrip("@").lower() == "maker001"

        tracked = await client.post(
            "/v1/tracking/creators", json={"platform": "youtube", "handle": "maker002"}, headers=team.headers
        )
        assert tracked.status_code == 201, tracked.text
        assert tracked.headers["X-Cost"] == "0.25"  # §4.7: pays the first cycle
        report = await client.get(
            f"/v1/tracking/creators/{tracked.json()['data']['id']}", headers=team.headers
        )
        assert report.status_code == 200, report.text

        assert await balance(runtime, team) == 1000 - 50 - 50 - 25

        collectors = await client.get("/v1/account/collectors", headers=team.headers)
        by_name = {c["name"]: c for c in collectors.json()["data"]}
        assert list(by_name) == ["youtube", "news"]
        youtube = by_name["youtube"]
        assert youtube["state"] == "ok" and youtube["last_success_at"] is not None
        buckets = {b["name"]: b for b in youtube["buckets"]}
        assert buckets["search"]["used"] >= 1 and buckets["search"]["daily_limit"] == 100
        assert buckets["units"]["used"] >= 3 and buckets["units"]["left"] == 10_000 - buckets["units"]["used"]
        assert KEY not in collectors.text

    async def test_the_news_source_answers_through_routing(
        self, runtime: Runtime, clock: ManualClock, news_api: tuple[FakeNews, str]
    ) -> None:
        fake, _base = news_api
        sources = build_sources(runtime.settings, clock, runtime.db)
        items = await sources.news(["flour", "ovens"], clock.now() - timedelta(days=1), clock.now())
        assert {i.domain for i in items} == {"thegrocer.example", "bakedaily.example"}
        assert {r.url.path for r in fake.requests} >= {"/api/v2/doc/doc", "/rss/search"}


class TestWhatSourcesCannotDo:
    async def test_a_platform_no_source_serves_is_named_in_the_partial_failure(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, jobs: JobEngine
    ) -> None:
        agent = await client.post(
            "/v1/agents",
            json={"name": "both", "keywords": ["chart"], "platforms": ["youtube", "tiktok"]},
            headers=team.headers,
        )
        assert agent.status_code == 201, agent.text
        runs = await client.get(f"/v1/agents/{agent.json()['data']['id']}/runs", headers=team.headers)
        run = runs.json()["data"]["runs"][0]
        assert run["status"] == "partial_failure", run
        by_source = {(t["source"], t["kind"]): t for t in run["targets"]}
        assert by_source[("youtube", "videos")]["status"] == "completed"
        tiktok = by_source[("tiktok", "videos")]
        assert tiktok["status"] == "failed"
        assert tiktok["error"] == "no enabled source offers search for tiktok (REELSCOPE_CONNECTORS)"
        assert by_source[("tiktok", "slideshows")]["status"] == "skipped"  # nobody offers carousels
        assert await balance(runtime, team) == 1000 - 50  # partly served: charged (§3)


class TestSpentSource:
    @pytest.fixture
    def settings(self, settings: Settings) -> Settings:
        return settings.model_copy(update={"youtube_search_daily_limit": 0})

    async def test_a_spent_source_fails_the_run_saying_until_when_and_it_is_refunded(
        self, client: httpx.AsyncClient, runtime: Runtime, team: TeamKey, jobs: JobEngine
    ) -> None:
        agent = await client.post(
            "/v1/agents",
            json={"name": "spent", "keywords": ["chart"], "platforms": ["youtube"]},
            headers=team.headers,
        )
        assert agent.status_code == 201, agent.text
        runs = await client.get(f"/v1/agents/{agent.json()['data']['id']}/runs", headers=team.headers)
        run = runs.json()["data"]["runs"][0]
        assert run["status"] == "failed", run
        (target,) = run["targets"]
        assert target["error"] == "youtube: youtube search: daily quota spent until 2026-11-22T08:00:00+00:00"
        assert KEY not in runs.text
        assert await balance(runtime, team) == 1000  # every target failed: refunded (§3)

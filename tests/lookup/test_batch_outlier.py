"""Batch creator lookups and video outliers through HTTP (spec §4.7, §8.3, §8.4)."""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import create_async_engine

from reelscope.collectors.base import Connector
from reelscope.collectors.routing import Sources
from reelscope.collectors.sandbox.world import World
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.lookup import tasks
from reelscope.models import Job
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.lookup.conftest import Balance, Events, HandleOf

pytestmark = pytest.mark.both_databases

BATCH = "/v1/satellite/creators/batch"


class TestBatch:
    async def test_each_creator_costs_50_and_gets_a_run(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, balance: Balance
    ) -> None:
        handles = [handle(index=i) for i in (1, 2, 3)]
        response = await client.post(
            BATCH, json={"platform": "tiktok", "handles": handles}, headers=team.headers
        )
        assert response.status_code == 202, response.text
        assert response.headers["X-Credits-Used"] == "150"
        data = response.json()["data"]
        assert data["total"] == 3 and [c["handle"] for c in data["creators"]] == handles
        assert await balance(team.team_id) == 850
        status = await client.get(f"{BATCH}/{data['batch_id']}", headers=team.headers)
        assert status.headers["X-Credits-Used"] == "0"
        body = status.json()["data"]
        assert body["status"] == "completed" and body["completed"] == 3 and body["failed"] == 0
        for entry, asked in zip(body["creators"], handles, strict=True):
            assert entry["lookup"]["status"] == "completed"
            assert entry["lookup"]["result"]["profile"]["handle"] == asked
        runs = (await client.get("/v1/satellite/runs", headers=team.headers)).json()["data"]
        assert {run["batch_id"] for run in runs["runs"]} == {data["batch_id"]}

    async def test_audience_data_makes_it_100_each(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        body = {"platform": "tiktok", "handles": [handle(index=1), handle(index=2)], "include_audience": True}
        response = await client.post(BATCH, json=body, headers=team.headers)
        assert response.headers["X-Credits-Used"] == "200"
        batch_id = response.json()["data"]["batch_id"]
        creators = (await client.get(f"{BATCH}/{batch_id}", headers=team.headers)).json()["data"]["creators"]
        assert all(c["lookup"]["result"]["audience"]["sample_size"] > 0 for c in creators)

    async def test_cached_repeats_are_free(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        balance: Balance,
        events: Events,
    ) -> None:
        await client.get(f"/v1/satellite/creator/tiktok/{handle(index=1)}", headers=team.headers)
        clock.advance(timedelta(hours=1))
        handles = [handle(index=1), handle(index=2), handle(index=2)]
        response = await client.post(
            BATCH, json={"platform": "tiktok", "handles": handles}, headers=team.headers
        )
        assert response.headers["X-Credits-Used"] == "50"  # one cached, one named twice: one new lookup
        assert [c["cached"] for c in response.json()["data"]["creators"]] == [True, False, False]
        assert await balance(team.team_id) == 900
        assert len(await events(team.team_id)) == 2  # the single lookup and the one new creator

    async def test_26_handles_are_a_400_before_billing(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance
    ) -> None:
        body = {"platform": "tiktok", "handles": [f"creator{i}" for i in range(26)]}
        assert_error(await client.post(BATCH, json=body, headers=team.headers), 400, "validation_error")
        assert await balance(team.team_id) == 1000

    @pytest.mark.parametrize(
        "body",
        [
            {"platform": "tiktok", "handles": []},
            {"platform": "tiktok", "handles": [""]},
            {"platform": "myspace", "handles": ["a"]},
            {"platform": "tiktok", "handles": ["a"], "unknown": 1},
        ],
    )
    async def test_bad_bodies_are_a_400(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance, body: dict[str, object]
    ) -> None:
        assert_error(await client.post(BATCH, json=body, headers=team.headers), 400, "validation_error")
        assert await balance(team.team_id) == 1000

    async def test_a_failed_creator_is_refunded_alone(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, balance: Balance
    ) -> None:
        body = {"platform": "tiktok", "handles": [handle(index=1), "nobody_at_all"]}
        batch_id = (await client.post(BATCH, json=body, headers=team.headers)).json()["data"]["batch_id"]
        data = (await client.get(f"{BATCH}/{batch_id}", headers=team.headers)).json()["data"]
        assert data["status"] == "partial_failure" and data["failed"] == 1
        assert await balance(team.team_id) == 950

    async def test_another_teams_batch_is_a_404(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, handle: HandleOf
    ) -> None:
        body = {"platform": "tiktok", "handles": [handle()]}
        batch_id = (await client.post(BATCH, json=body, headers=team.headers)).json()["data"]["batch_id"]
        other = await make_team()
        assert_error(await client.get(f"{BATCH}/{batch_id}", headers=other.headers), 404, "not_found")


@pytest.fixture
def video(runtime: Runtime, clock: ManualClock, handle: HandleOf) -> tuple[str, int, list[int]]:
    """A sandbox video (its id and views) and the views of its creator's recent posts."""
    posts = World(runtime.settings.sandbox_seed).creator_posts(Platform.TIKTOK, handle(), clock.now(), 50)
    assert posts is not None
    return posts[3].external_id, posts[3].views, [post.views for post in posts]


class TestVideoOutlier:
    async def test_it_costs_50_and_scores_the_video_against_its_creator(
        self, client: httpx.AsyncClient, team: TeamKey, video: tuple[str, int, list[int]]
    ) -> None:
        video_id, views, creator_views = video
        response = await client.post(
            "/v1/satellite/video-outlier",
            json={"platform": "tiktok", "video_id": video_id},
            headers=team.headers,
        )
        assert response.status_code == 202, response.text
        assert response.headers["X-Credits-Used"] == "50"
        started = response.json()["data"]
        status = await client.get(started["poll_url"], headers=team.headers)
        assert status.headers["X-Credits-Used"] == "0"
        data = status.json()["data"]
        assert data["status"] == "completed", data["error"]
        median = sorted(creator_views)[24:26]
        assert data["result"]["median_views"] == sum(median) / 2
        assert data["result"]["outlier_ratio"] == pytest.approx(views / (sum(median) / 2), rel=1e-3)
        assert data["result"]["is_outlier"] == (views / (sum(median) / 2) > 3)

    async def test_results_are_kept_24_hours_then_404(
        self, client: httpx.AsyncClient, team: TeamKey, clock: ManualClock, video: tuple[str, int, list[int]]
    ) -> None:
        body = {"platform": "tiktok", "video_id": video[0]}
        poll_url = (await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)).json()[
            "data"
        ]["poll_url"]
        clock.advance(timedelta(hours=23, minutes=59))
        assert (await client.get(poll_url, headers=team.headers)).status_code == 200
        clock.advance(timedelta(minutes=1))
        assert_error(await client.get(poll_url, headers=team.headers), 404, "not_found")

    async def test_an_unknown_video_fails_and_is_refunded(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance
    ) -> None:
        body = {"platform": "tiktok", "video_id": "9999999999999999999"}  # an id's shape, no video
        poll_url = (await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)).json()[
            "data"
        ]["poll_url"]
        data = (await client.get(poll_url, headers=team.headers)).json()["data"]
        assert data["status"] == "failed" and data["error"]["code"] == "not_found"
        assert await balance(team.team_id) == 1000

    async def test_a_value_that_cannot_be_an_id_is_a_free_400(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance
    ) -> None:
        """Issue 28: not charged, failed and refunded, but refused before the lookup starts."""
        for video_id in ("https://www.tiktok.com/@a/video/123", "no-such-video"):
            body = {"platform": "tiktok", "video_id": video_id}
            response = await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)
            assert_error(response, 400, "invalid_parameter")
            assert response.json()["message"].startswith("video_id: ")
            assert response.headers["X-Cost"] == "0.00"
        assert await balance(team.team_id) == 1000

    async def test_another_teams_job_is_a_404(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, video: tuple[str, int, list[int]]
    ) -> None:
        body = {"platform": "tiktok", "video_id": video[0]}
        poll_url = (await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)).json()[
            "data"
        ]["poll_url"]
        other = await make_team()
        assert_error(await client.get(poll_url, headers=other.headers), 404, "not_found")

    async def test_rate_limited_at_5_a_minute(self, client: httpx.AsyncClient, make_team: MakeTeam) -> None:
        rich = await make_team(credits=10_000)
        for index in range(5):
            body = {"platform": "tiktok", "video_id": f"{index}"}
            response = await client.post("/v1/satellite/video-outlier", json=body, headers=rich.headers)
            assert response.status_code == 202
        body = {"platform": "tiktok", "video_id": "5"}
        limited = await client.post("/v1/satellite/video-outlier", json=body, headers=rich.headers)
        assert_error(limited, 429, "rate_limit_exceeded")

    async def test_a_batch_is_not_limited_per_minute(
        self, client: httpx.AsyncClient, make_team: MakeTeam, handle: HandleOf
    ) -> None:
        """§8.1: batch lookup falls under "everything else" (no per-minute cap)."""
        rich = await make_team(credits=10_000)
        for index in range(6):
            body = {"platform": "youtube", "handles": [handle(Platform.YOUTUBE, index)]}
            assert (await client.post(BATCH, json=body, headers=rich.headers)).status_code == 202

    async def test_not_a_past_run(
        self, client: httpx.AsyncClient, team: TeamKey, video: tuple[str, int, list[int]]
    ) -> None:
        body = {"platform": "tiktok", "video_id": video[0]}
        job_id = (await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)).json()[
            "data"
        ]["job_id"]
        assert (await client.get("/v1/satellite/runs", headers=team.headers)).json()["data"]["total"] == 0
        assert_error(await client.get(f"/v1/satellite/runs/{job_id}", headers=team.headers), 404, "not_found")


class TestVideoOutlierLost:
    async def test_a_failure_after_the_job_was_taken_over_announces_and_refunds_nothing(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        runtime: Runtime,
        balance: Balance,
        events: Events,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        """While the source is read, another attempt takes the job over (a lost lease reclaimed): this
        attempt's failure must change nothing, as a completion would not (§6.3: one message per lookup)."""
        real = tasks.build_sources

        class Slow:
            def __init__(self, inner: Connector) -> None:
                self.inner = inner
                self.name = inner.name
                self.platforms = inner.platforms
                self.capabilities = inner.capabilities

            async def video(self, platform: Platform, video_id: str) -> object:
                # the job is someone else's now (an engine of the worker's own loop)
                engine = create_async_engine(runtime.settings.database_url)
                async with engine.begin() as connection:
                    await connection.execute(
                        update(Job).where(Job.task == tasks.VIDEO_OUTLIER_TASK).values(lease_token="other")
                    )
                await engine.dispose()
                return await self.inner.video(platform, video_id)

        monkeypatch.setattr(
            tasks,
            "build_sources",
            lambda settings, clock, db: Sources(
                [Slow(c) for c in real(settings, clock, db).connectors], None
            ),
        )
        body = {"platform": "tiktok", "video_id": "9999999999999999999"}
        response = await client.post("/v1/satellite/video-outlier", json=body, headers=team.headers)
        assert response.status_code == 202, response.text
        assert await events(team.team_id) == []
        assert await balance(team.team_id) == 950  # still charged: the owning attempt decides

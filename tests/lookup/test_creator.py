"""Creator lookups through HTTP (spec §4.7, §3, §6.3, §8.1, §8.4): price, job, status, result, the 6-hour
cache, refunds, rate limits. The job runs when the request commits (Huey's immediate mode), against the
sandbox world on the test clock."""

from __future__ import annotations

import math
import statistics
from datetime import timedelta

import httpx
import pytest

from reelscope.collectors.sandbox.world import World
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.lookup.conftest import Balance, Events, HandleOf

pytestmark = pytest.mark.both_databases


def lookup_path(username: str, platform: str = "tiktok") -> str:
    return f"/v1/satellite/creator/{platform}/{username}"


class TestStart:
    async def test_a_lookup_costs_50_credits_and_starts_a_job(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, balance: Balance
    ) -> None:
        response = await client.get(lookup_path(handle()), headers=team.headers)
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.50"
        assert response.headers["X-Credits-Used"] == "50"
        assert response.headers["X-Credits-Remaining"] == "950"
        data = response.json()["data"]
        assert data["status"] == "processing"  # as the job was queued; it runs once the request commits
        assert data["cached"] is False
        assert data["type"] == "creator_lookup"
        assert data["poll_url"] == f"/v1/satellite/creator/status/{data['job_id']}"
        assert data["request"]["username"] == handle()
        assert data["request"]["max_videos"] == 20  # §4.7 default
        assert await balance(team.team_id) == 950

    async def test_trend_analysis_adds_50_credits(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        response = await client.get(
            lookup_path(handle()), params={"trend_analysis": "true"}, headers=team.headers
        )
        assert response.status_code == 200
        assert response.headers["X-Credits-Used"] == "100"

    @pytest.mark.parametrize("max_videos", ["0", "101", "many"])
    async def test_max_videos_outside_1_to_100_is_a_400_uncharged(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, balance: Balance, max_videos: str
    ) -> None:
        response = await client.get(
            lookup_path(handle()), params={"max_videos": max_videos}, headers=team.headers
        )
        assert_error(response, 400, "validation_error")
        assert await balance(team.team_id) == 1000

    async def test_an_unknown_parameter_is_a_400(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        response = await client.get(lookup_path(handle()), params={"page": "2"}, headers=team.headers)
        assert_error(response, 400, "validation_error")

    async def test_an_unknown_platform_is_a_404(self, client: httpx.AsyncClient, team: TeamKey) -> None:
        assert_error(
            await client.get(lookup_path("someone", "myspace"), headers=team.headers), 404, "not_found"
        )

    async def test_too_little_credit_is_a_402(
        self, client: httpx.AsyncClient, make_team: MakeTeam, handle: HandleOf
    ) -> None:
        poor = await make_team(credits=40)
        assert_error(
            await client.get(lookup_path(handle()), headers=poor.headers), 402, "insufficient_credits"
        )


class TestResult:
    async def test_the_status_is_free_and_carries_the_result(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, runtime: Runtime, clock: ManualClock
    ) -> None:
        started = (await client.get(lookup_path(handle()), headers=team.headers)).json()["data"]
        response = await client.get(started["poll_url"], headers=team.headers)
        assert response.status_code == 200
        assert response.headers["X-Credits-Used"] == "0"
        data = response.json()["data"]
        assert data["status"] == "completed"
        assert data["run_id"] == started["run_id"] and data["completed_at"] is not None
        result = data["result"]
        # an independent reading of the same sandbox creator: the norm is the median of 50 recent posts
        posts = World(runtime.settings.sandbox_seed).creator_posts(Platform.TIKTOK, handle(), clock.now(), 50)
        assert posts is not None
        median = statistics.median(p.views for p in posts)
        assert result["median_views"] == median
        assert result["profile"]["handle"] == handle()
        assert [v["external_id"] for v in result["videos"]] == [p.external_id for p in posts[:20]]
        assert result["videos"][0]["publish_date"] == posts[0].published_at.strftime("%Y-%m-%dT%H:%M:%S")
        expected = sorted((p for p in posts if p.views / median >= 3), key=lambda p: -p.views)
        assert [o["external_id"] for o in result["outliers"]] == [p.external_id for p in expected]
        top = result["outliers"][0]
        assert top["outlier_ratio"] == pytest.approx(expected[0].views / median, rel=1e-3)
        assert top["weighted_score"] == pytest.approx(
            math.log(expected[0].views / median) * math.log(median), rel=1e-3
        )
        assert result["posting_cadence"]["posts_analyzed"] == 50
        assert "trend_analysis" not in result

    async def test_options_shape_the_result(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        params = {
            "max_videos": "5",
            "outlier_threshold": "10",
            "trend_analysis": "true",
            "include_audience": "true",
            "include_cross_platform": "true",
        }
        started = (await client.get(lookup_path(handle()), params=params, headers=team.headers)).json()[
            "data"
        ]
        result = (await client.get(started["poll_url"], headers=team.headers)).json()["data"]["result"]
        assert len(result["videos"]) == 5
        assert all(o["outlier_ratio"] >= 10 for o in result["outliers"])
        assert {w["window"] for w in result["trend_analysis"]["time_windows"]} == {
            "last_7_days",
            "days_8_to_30",
            "days_31_to_90",
        }
        assert isinstance(result["trend_analysis"]["rising_themes"], list)
        assert result["audience"]["sample_size"] > 0 and result["audience"]["countries"]
        assert result["cross_platform"] == []  # sandbox handles are one platform's own

    async def test_another_teams_job_is_a_404(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, handle: HandleOf
    ) -> None:
        started = (await client.get(lookup_path(handle()), headers=team.headers)).json()["data"]
        other = await make_team()
        assert_error(await client.get(started["poll_url"], headers=other.headers), 404, "not_found")
        wrong_type = f"/v1/satellite/sounds/status/{started['job_id']}"
        assert_error(await client.get(wrong_type, headers=team.headers), 404, "not_found")


class TestFailure:
    async def test_an_unknown_creator_fails_is_refunded_and_says_why(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance, events: Events
    ) -> None:
        started = await client.get(lookup_path("nobody_at_all"), headers=team.headers)
        assert started.headers["X-Credits-Used"] == "50"
        data = (await client.get(started.json()["data"]["poll_url"], headers=team.headers)).json()["data"]
        assert data["status"] == "failed"
        assert data["error"]["code"] == "not_found"
        assert data["result"] is None
        assert await balance(team.team_id) == 1000  # §3, ARCHITECTURE §3: refunded
        [event] = await events(team.team_id)
        assert event["status"] == "failed"
        assert event["error"]["code"] == "not_found"
        assert event["results"] is None

    async def test_a_failed_lookup_is_not_served_from_the_cache(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance
    ) -> None:
        await client.get(lookup_path("nobody_at_all"), headers=team.headers)
        again = await client.get(lookup_path("nobody_at_all"), headers=team.headers)
        assert again.json()["data"]["cached"] is False
        assert again.headers["X-Credits-Used"] == "50"
        assert await balance(team.team_id) == 1000  # both refunded


class TestCache:
    """§4.7: a repeat within 6 hours returns the cached run free with ``cached: true`` and no webhook."""

    async def test_a_repeat_within_6_hours_is_the_cached_run_free(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        balance: Balance,
        events: Events,
    ) -> None:
        first = (await client.get(lookup_path(handle()), headers=team.headers)).json()["data"]
        clock.advance(timedelta(hours=5, minutes=59))
        again = await client.get(lookup_path(handle()), headers=team.headers)
        assert again.status_code == 200
        assert again.headers["X-Cost"] == "0.00" and again.headers["X-Credits-Used"] == "0"
        data = again.json()["data"]
        assert data["cached"] is True
        assert (data["run_id"], data["job_id"]) == (first["run_id"], first["job_id"])
        assert data["status"] == "completed" and data["result"]["profile"]["handle"] == handle()
        assert await balance(team.team_id) == 950
        assert len(await events(team.team_id)) == 1  # no webhook for the cached repeat

    async def test_the_same_handle_in_another_case_or_with_at_is_the_same_lookup(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        await client.get(lookup_path(handle()), headers=team.headers)
        again = await client.get(lookup_path("@" + handle().upper()), headers=team.headers)
        assert again.json()["data"]["cached"] is True

    async def test_other_options_are_another_lookup(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf
    ) -> None:
        await client.get(lookup_path(handle()), headers=team.headers)
        other = await client.get(lookup_path(handle()), params={"max_videos": "30"}, headers=team.headers)
        assert other.json()["data"]["cached"] is False
        assert other.headers["X-Credits-Used"] == "50"

    async def test_after_6_hours_the_lookup_runs_and_is_charged_again(
        self,
        client: httpx.AsyncClient,
        team: TeamKey,
        handle: HandleOf,
        clock: ManualClock,
        balance: Balance,
        events: Events,
    ) -> None:
        first = (await client.get(lookup_path(handle()), headers=team.headers)).json()["data"]
        clock.advance(timedelta(hours=6, seconds=1))
        again = await client.get(lookup_path(handle()), headers=team.headers)
        assert again.json()["data"]["cached"] is False
        assert again.json()["data"]["run_id"] != first["run_id"]
        assert again.headers["X-Credits-Used"] == "50"
        assert await balance(team.team_id) == 900
        assert len(await events(team.team_id)) == 2

    async def test_the_cache_is_per_team(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, handle: HandleOf
    ) -> None:
        await client.get(lookup_path(handle()), headers=team.headers)
        other = await make_team()
        response = await client.get(lookup_path(handle()), headers=other.headers)
        assert response.json()["data"]["cached"] is False
        assert response.headers["X-Credits-Used"] == "50"


class TestContract:
    async def test_five_lookups_a_minute_then_429(
        self, client: httpx.AsyncClient, make_team: MakeTeam, handle: HandleOf, clock: ManualClock
    ) -> None:
        """§8.1: creator lookups are limited to 5 per minute per key."""
        rich = await make_team(credits=10_000)
        for index in range(5):
            response = await client.get(lookup_path(handle(index=index)), headers=rich.headers)
            assert response.status_code == 200, response.text
        assert response.headers["X-RateLimit-Limit"] == "5"
        limited = await client.get(lookup_path(handle(index=6)), headers=rich.headers)
        assert_error(limited, 429, "rate_limit_exceeded")
        assert "Retry-After" in limited.headers
        clock.advance(timedelta(minutes=1))
        assert (await client.get(lookup_path(handle(index=6)), headers=rich.headers)).status_code == 200

    async def test_an_idempotency_key_replays_the_start_uncharged(
        self, client: httpx.AsyncClient, team: TeamKey, handle: HandleOf, balance: Balance, events: Events
    ) -> None:
        headers = {**team.headers, "Idempotency-Key": "lookup-1"}
        first = await client.get(lookup_path(handle()), headers=headers)
        again = await client.get(lookup_path(handle()), headers=headers)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json() == first.json()
        assert await balance(team.team_id) == 950
        assert len(await events(team.team_id)) == 1


class TestEmptyTargets:
    @pytest.mark.parametrize(
        "path",
        [
            "/v1/satellite/creator/tiktok/%40",
            "/v1/satellite/creator/tiktok/%40%40",
            "/v1/satellite/creator/tiktok/%20%40%20",
            "/v1/satellite/hashtags/tiktok/%23%23",
            "/v1/satellite/hashtags/tiktok/%23",
            "/v1/satellite/hashtags/tiktok/%20",
        ],
    )
    async def test_nothing_left_after_the_at_or_hash_is_a_400_and_not_billed(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance, events: Events, path: str
    ) -> None:
        """§7: a handle or hashtag that is only ``@``/``#`` (or blanks) names nothing: 400 before any
        charge, not a paid lookup refunded when the source finds nothing."""
        assert_error(await client.get(path, headers=team.headers), 400, "validation_error")
        assert await balance(team.team_id) == 1000
        assert await events(team.team_id) == []
        runs = await client.get("/v1/satellite/runs", headers=team.headers)
        assert runs.json()["data"]["total"] == 0

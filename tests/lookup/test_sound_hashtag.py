"""Sound and hashtag lookups through HTTP (spec §4.7, §8.1): prices, the 400s that come before billing,
status endpoints, results and trend analysis."""

from __future__ import annotations

from collections import Counter
from datetime import timedelta

import httpx
import pytest

from reelscope.collectors.sandbox.world import World
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam, TeamKey
from tests.kit.test_errors import assert_error
from tests.lookup.conftest import Balance, HandleOf

pytestmark = pytest.mark.both_databases


@pytest.fixture
def sound_id(runtime: Runtime, clock: ManualClock, handle: HandleOf) -> str:
    """A TikTok sound the sandbox world knows: the first sound of a creator's recent posts."""
    posts = World(runtime.settings.sandbox_seed).creator_posts(Platform.TIKTOK, handle(), clock.now(), 50)
    assert posts is not None
    return next(post.sound.external_id for post in posts if post.sound is not None)


@pytest.fixture
def tag(runtime: Runtime, clock: ManualClock, handle: HandleOf) -> str:
    posts = World(runtime.settings.sandbox_seed).creator_posts(Platform.TIKTOK, handle(), clock.now(), 50)
    assert posts is not None
    # the creator's most used tag: a head tag of its topic, with hundreds of videos for a deep lookup
    used = Counter(tag for post in posts for tag in post.hashtags)
    return used.most_common(1)[0][0]


class TestSoundLookup:
    async def test_a_sound_lookup_costs_50_and_completes(
        self, client: httpx.AsyncClient, team: TeamKey, sound_id: str
    ) -> None:
        response = await client.get(f"/v1/satellite/sounds/tiktok/{sound_id}", headers=team.headers)
        assert response.status_code == 200, response.text
        assert response.headers["X-Credits-Used"] == "50"
        started = response.json()["data"]
        assert started["poll_url"] == f"/v1/satellite/sounds/status/{started['job_id']}"
        status = await client.get(started["poll_url"], headers=team.headers)
        assert status.headers["X-Credits-Used"] == "0"
        data = status.json()["data"]
        assert data["status"] == "completed", data["error"]
        result = data["result"]
        assert result["sound"]["external_id"] == sound_id
        assert result["videos"] and all(len(v["id"]) == 36 for v in result["videos"])
        assert len(result["videos"]) <= 50
        assert "trend_analysis" not in result

    async def test_trend_analysis_adds_50_and_the_time_windows(
        self, client: httpx.AsyncClient, team: TeamKey, sound_id: str
    ) -> None:
        response = await client.get(
            f"/v1/satellite/sounds/tiktok/{sound_id}", params={"trend_analysis": "true"}, headers=team.headers
        )
        assert response.headers["X-Credits-Used"] == "100"
        result = (await client.get(response.json()["data"]["poll_url"], headers=team.headers)).json()["data"][
            "result"
        ]
        analysis = result["trend_analysis"]
        assert [w["window"] for w in analysis["time_windows"]] == [
            "last_24_hours",
            "days_1_to_3",
            "days_3_to_7",
            "days_7_to_30",
        ]
        assert analysis["momentum"]["status"] in {"rising", "steady", "fading"}
        assert isinstance(analysis["resurgence"]["detected"], bool)

    async def test_youtube_is_a_400_before_billing(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance
    ) -> None:
        response = await client.get("/v1/satellite/sounds/youtube/123", headers=team.headers)
        assert_error(response, 400, "validation_error")
        assert await balance(team.team_id) == 1000

    async def test_an_unknown_sound_fails_and_is_refunded(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance
    ) -> None:
        started = (await client.get("/v1/satellite/sounds/instagram/404404", headers=team.headers)).json()[
            "data"
        ]
        data = (await client.get(started["poll_url"], headers=team.headers)).json()["data"]
        assert data["status"] == "failed" and data["error"]["code"] == "not_found"
        assert await balance(team.team_id) == 1000

    async def test_rate_limited_at_5_a_minute(
        self, client: httpx.AsyncClient, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        rich = await make_team(credits=10_000)
        for index in range(5):
            ok = await client.get(f"/v1/satellite/sounds/tiktok/{index}", headers=rich.headers)
            assert ok.status_code == 200
        assert_error(
            await client.get("/v1/satellite/sounds/tiktok/9", headers=rich.headers),
            429,
            "rate_limit_exceeded",
        )
        clock.advance(timedelta(minutes=1))
        assert (await client.get("/v1/satellite/sounds/tiktok/9", headers=rich.headers)).status_code == 200


class TestHashtagLookup:
    @pytest.mark.parametrize(
        ("params", "credits"),
        [
            ({}, 50),
            ({"depth": "standard"}, 50),
            ({"depth": "deep"}, 100),
            ({"depth": "deep", "trend_analysis": "true"}, 100),  # deep's +$0.50 waived with trend_analysis
            ({"depth": "full"}, 200),
            ({"depth": "full", "trend_analysis": "true"}, 250),
            ({"trend_analysis": "true"}, 100),
        ],
    )
    async def test_prices(
        self,
        client: httpx.AsyncClient,
        make_team: MakeTeam,
        tag: str,
        params: dict[str, str],
        credits: int,
    ) -> None:
        team = await make_team(credits=1000)
        response = await client.get(
            f"/v1/satellite/hashtags/tiktok/{tag}", params=params, headers=team.headers
        )
        assert response.status_code == 200, response.text
        assert response.headers["X-Credits-Used"] == str(credits)

    async def test_the_result_follows_depth_sort_and_max_videos(
        self, client: httpx.AsyncClient, team: TeamKey, tag: str
    ) -> None:
        params = {"depth": "deep", "sort": "recent", "max_videos": "7"}
        started = (
            await client.get(f"/v1/satellite/hashtags/tiktok/%23{tag}", params=params, headers=team.headers)
        ).json()["data"]
        assert started["target"] == tag  # the leading # (sent as %23) is not part of the tag
        data = (await client.get(started["poll_url"], headers=team.headers)).json()["data"]
        assert data["status"] == "completed", data["error"]
        result = data["result"]
        assert result["depth"] == "deep" and result["sort"] == "recent"
        assert len(result["videos"]) == 7
        assert result["videos_analyzed"] > 100  # deep reads about 300 videos
        dates = [v["publish_date"] for v in result["videos"]]
        assert dates == sorted(dates, reverse=True)
        assert all(tag.lower() in [h.lower().lstrip("#") for h in v["hashtags"]] for v in result["videos"])

    @pytest.mark.parametrize("depth", ["deep", "full"])
    async def test_deep_and_full_on_instagram_are_a_400_before_billing(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance, depth: str
    ) -> None:
        response = await client.get(
            "/v1/satellite/hashtags/instagram/travel", params={"depth": depth}, headers=team.headers
        )
        assert_error(response, 400, "validation_error")
        assert await balance(team.team_id) == 1000

    @pytest.mark.parametrize(
        "params", [{"max_videos": "0"}, {"max_videos": "101"}, {"sort": "views"}, {"depth": "deepest"}]
    )
    async def test_bad_options_are_a_400(
        self, client: httpx.AsyncClient, team: TeamKey, balance: Balance, params: dict[str, str]
    ) -> None:
        response = await client.get(
            "/v1/satellite/hashtags/tiktok/travel", params=params, headers=team.headers
        )
        assert_error(response, 400, "validation_error")
        assert await balance(team.team_id) == 1000

    async def test_a_repeat_within_6_hours_is_cached_and_free(
        self, client: httpx.AsyncClient, team: TeamKey, tag: str, clock: ManualClock
    ) -> None:
        first = (await client.get(f"/v1/satellite/hashtags/tiktok/{tag}", headers=team.headers)).json()[
            "data"
        ]
        clock.advance(timedelta(hours=3))
        again = await client.get(f"/v1/satellite/hashtags/tiktok/{tag.upper()}", headers=team.headers)
        assert again.headers["X-Credits-Used"] == "0"
        assert again.json()["data"]["cached"] is True and again.json()["data"]["run_id"] == first["run_id"]

    async def test_rate_limited_at_5_a_minute(
        self, client: httpx.AsyncClient, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        rich = await make_team(credits=10_000)
        for word in ("travel", "food", "fitness", "gaming", "fashion"):
            assert (
                await client.get(f"/v1/satellite/hashtags/tiktok/{word}", headers=rich.headers)
            ).status_code == 200
        limited = await client.get("/v1/satellite/hashtags/tiktok/music", headers=rich.headers)
        assert_error(limited, 429, "rate_limit_exceeded")
        assert limited.headers["X-RateLimit-Limit"] == "5"

    async def test_status_of_another_team_is_a_404(
        self, client: httpx.AsyncClient, team: TeamKey, make_team: MakeTeam, tag: str
    ) -> None:
        started = (await client.get(f"/v1/satellite/hashtags/tiktok/{tag}", headers=team.headers)).json()[
            "data"
        ]
        other = await make_team()
        assert_error(await client.get(started["poll_url"], headers=other.headers), 404, "not_found")

"""/v1/agents CRUD through HTTP (spec §4.4, §7, §8.2, §8.3): bodies, billing of creation, lists, update,
delete, and another team's agent. Runs stay queued here (their behaviour is test_runs.py)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.kit.clock import ManualClock
from tests.agent.conftest import ONE_SHOT, CreateAgent
from tests.conftest import MakeTeam, TeamKey

pytestmark = pytest.mark.both_databases


@pytest.fixture
def queue_backend() -> str:
    """Jobs wait in a real queue: creating an agent does not run it here."""
    return "sqlite"


async def balance(client: httpx.AsyncClient, team: TeamKey) -> int:
    response = await client.get("/v1/account/balance", headers=team.headers)
    credits: int = response.json()["data"]["credits_remaining"]
    return credits


async def post(client: httpx.AsyncClient, team: TeamKey, body: dict[str, Any]) -> httpx.Response:
    return await client.post("/v1/agents", json=body, headers=team.headers)


class TestCreate:
    async def test_one_shot_costs_50_credits_and_returns_the_agent_with_its_job(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey
    ) -> None:
        response = await post(
            client, team, {**ONE_SHOT, "keywords": ["#Sourdough", "sourdough", " bread  loaf "]}
        )
        assert response.status_code == 201, response.text
        assert response.headers["X-Cost"] == "0.50"
        assert response.headers["X-Credits-Used"] == "50"
        data = response.json()["data"]
        assert data["job_id"] and data["run_id"] and data["id"]
        # §4.4: "#tag" and "tag" resolve alike
        assert data["keywords"] == ["Sourdough", "bread loaf"]
        assert data["pinned_keywords"] == data["keywords"]
        assert data["is_recurring"] is False and data["cadence"] is None
        assert data["status"] == "pending" and data["finalized"] is False
        assert data["autopilot"] is True
        assert data["autonomy_level"] == "autopilot" and data["autopilot_unlocked"] is True
        assert data["analysis_data"] is None and data["pending_jobs"] == []
        assert data["min_views"] == 0 and data["time_range"] == "30d"
        assert await balance(client, team) == 950

    async def test_data_intelligence_adds_a_dollar(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey
    ) -> None:
        response = await post(client, team, {**ONE_SHOT, "data_intelligence_enabled": True})
        assert response.status_code == 201
        assert response.headers["X-Cost"] == "1.50"
        assert await balance(client, team) == 850

    async def test_recurring_is_free_to_create_with_its_cadence_as_cron(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey, clock: ManualClock
    ) -> None:
        response = await post(client, team, {**ONE_SHOT, "is_recurring": True, "cadence": "daily"})
        assert response.status_code == 201, response.text
        assert response.headers["X-Cost"] == "0.00"
        data = response.json()["data"]
        # shortcuts fire at the creation minute and hour (UTC), shown as the cron they stand for (§6.3)
        assert data["cadence"] == "0 12 * * *"
        assert data["next_run_at"] == "2026-11-22T12:00:00Z"
        assert await balance(client, team) == 1000

    @pytest.mark.parametrize(
        ("cadence", "expected"),
        [("weekly", "0 12 * * 6"), ("monthly", "0 12 21 * *"), ("30 6 * * 1-5", "30 6 * * 1-5")],
    )
    async def test_cadences(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey, cadence: str, expected: str
    ) -> None:
        response = await post(client, team, {**ONE_SHOT, "is_recurring": True, "cadence": cadence})
        assert response.status_code == 201, response.text
        assert response.json()["data"]["cadence"] == expected

    @pytest.mark.parametrize(
        ("change", "mentions"),
        [
            ({"keywords": []}, "keywords"),
            ({"keywords": ["#", "  "]}, "keywords"),
            ({"keywords": None}, "keywords"),
            ({"platforms": ["facebook"]}, "platforms"),
            ({"platforms": []}, "platforms"),
            ({"min_views": 1000}, "min_views"),
            ({"time_range": "7d"}, "time_range"),
            ({"colour": "red"}, "colour"),
            ({"is_recurring": True, "cadence": "*/5 * * * *"}, "cadence"),
            ({"is_recurring": True, "cadence": "0 */12 * * *"}, "cadence"),
            ({"is_recurring": True, "cadence": "hourly"}, "cadence"),
            ({"cadence": "daily"}, "cadence"),
            # a valid cron past the column's 100 characters (a 500 on PostgreSQL, issue 31)
            ({"is_recurring": True, "cadence": "0 12 * * " + ",".join(["1"] * 49)}, "at most 100"),
            ({"is_recurring": True, "cadence": "0 12 * * *" + " " * 400_000}, "at most 100"),
            ({"keywords": [f"k{i}" for i in range(16)]}, "keywords"),
            ({"language": "english"}, "language"),
        ],
    )
    async def test_invalid_bodies_are_400_and_free(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey, change: dict[str, Any], mentions: str
    ) -> None:
        body = {**ONE_SHOT, **change}
        if change.get("keywords", 0) is None:
            del body["keywords"]
        response = await post(client, team, body)
        assert response.status_code == 400, response.text
        error = response.json()
        assert error["code"] == "validation_error"
        assert any(mentions in message for message in error["message"]), error
        assert response.headers["X-Cost"] == "0.00"
        assert await balance(client, team) == 1000

    async def test_balance_below_the_price_is_402(
        self, client: httpx.AsyncClient, jobs: Any, make_team: MakeTeam
    ) -> None:
        poor = await make_team(credits=100)
        response = await post(client, poor, {**ONE_SHOT, "data_intelligence_enabled": True})
        assert response.status_code == 402
        assert response.json()["required_credits"] == 150
        listed = await client.get("/v1/agents", headers=poor.headers)
        assert listed.json()["data"]["agents"] == []


class TestList:
    async def test_pages_by_count_newest_first_offset_ignored(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey, clock: ManualClock
    ) -> None:
        ids = []
        for name in ("a", "b", "c"):
            ids.append((await create_agent(team, name=name))["id"])
            clock.advance(timedelta(seconds=1))
        first = (await client.get("/v1/agents", params={"limit": 2}, headers=team.headers)).json()["data"]
        assert (first["limit"], first["page"], first["count"]) == (2, 1, 2)
        assert [a["id"] for a in first["agents"]] == [ids[2], ids[1]]
        second = (await client.get("/v1/agents", params={"limit": 2, "page": 2}, headers=team.headers)).json()
        assert second["data"]["count"] == 1 and second["data"]["agents"][0]["id"] == ids[0]
        ignored = await client.get("/v1/agents", params={"limit": 2, "offset": 2}, headers=team.headers)
        assert ignored.status_code == 200
        assert [a["id"] for a in ignored.json()["data"]["agents"]] == [ids[2], ids[1]]
        clamped = await client.get("/v1/agents", params={"limit": 500}, headers=team.headers)
        assert clamped.json()["data"]["limit"] == 100
        assert clamped.headers["X-Cost"] == "0.00"
        for bad in ({"limit": 0}, {"page": 0}, {"sort": "asc"}):
            assert (await client.get("/v1/agents", params=bad, headers=team.headers)).status_code == 400

    async def test_only_the_teams_own_agents(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, make_team: MakeTeam
    ) -> None:
        mine, theirs = await make_team(), await make_team()
        await create_agent(theirs)
        listed = (await client.get("/v1/agents", headers=mine.headers)).json()["data"]
        assert listed["count"] == 0 and listed["agents"] == []


class TestGetUpdateDelete:
    async def test_another_teams_agent_is_404_everywhere(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, make_team: MakeTeam
    ) -> None:
        owner, other = await make_team(), await make_team()
        agent = await create_agent(owner)
        base = f"/v1/agents/{agent['id']}"
        subs = [
            "",
            "/videos",
            "/slideshows",
            "/ads",
            "/creators/outliers",
            "/sounds",
            "/hashtags",
            "/benchmarks",
            "/runs",
            f"/runs/{agent['run_id']}",
        ]
        for sub in subs:
            response = await client.get(base + sub, headers=other.headers)
            assert response.status_code == 404, sub
            assert response.json()["code"] == "not_found"
            assert (await client.get(base + sub, headers=owner.headers)).status_code == 200, sub
        assert (await client.put(base, json={"name": "x"}, headers=other.headers)).status_code == 404
        assert (await client.delete(base, headers=other.headers)).status_code == 404
        assert (await client.get("/v1/agents/not-an-id", headers=owner.headers)).status_code == 404
        assert (await client.get(f"{base}/runs/not-a-run", headers=owner.headers)).status_code == 404

    async def test_put_replaces_keyword_lists_and_is_free(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey
    ) -> None:
        agent = await create_agent(team, exclude_keywords=["bread"])
        response = await client.put(
            f"/v1/agents/{agent['id']}",
            json={
                "keywords": ["#crumb"],
                "exclude_keywords": [],
                "autopilot": False,
                "platforms": ["instagram"],
            },
            headers=team.headers,
        )
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.00"
        data = response.json()["data"]
        assert data["keywords"] == ["crumb"] and data["pinned_keywords"] == ["crumb"]
        assert data["exclude_keywords"] == []
        assert data["platforms"] == ["instagram"]
        assert data["autopilot"] is False and data["autonomy_level"] == "suggest"
        assert data["name"] == agent["name"]  # untouched fields stay
        again = (await client.get(f"/v1/agents/{agent['id']}", headers=team.headers)).json()["data"]
        assert again["keywords"] == ["crumb"]

    async def test_put_validation(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey
    ) -> None:
        agent = await create_agent(team)
        path = f"/v1/agents/{agent['id']}"
        for body in (
            {"keywords": []},
            {"cadence": "daily"},
            {"min_views": 5},
            {"is_recurring": True},
            {"name": None},
            {"platforms": ["myspace"]},
        ):
            response = await client.put(path, json=body, headers=team.headers)
            assert response.status_code == 400, body
            assert response.json()["code"] == "validation_error"

    async def test_put_cadence_moves_the_next_run(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey
    ) -> None:
        agent = await create_agent(team, is_recurring=True, cadence="daily")
        path = f"/v1/agents/{agent['id']}"
        response = await client.put(path, json={"cadence": "0 6 * * 1"}, headers=team.headers)
        data = response.json()["data"]
        assert data["cadence"] == "0 6 * * 1"
        assert data["next_run_at"] == "2026-11-23T06:00:00Z"  # the next Monday 06:00 UTC
        bad = await client.put(path, json={"cadence": "*/10 * * * *"}, headers=team.headers)
        assert bad.status_code == 400
        long = await client.put(
            path, json={"cadence": "0 6 * * " + ",".join(["1"] * 49)}, headers=team.headers
        )
        assert long.status_code == 400 and "at most 100" in long.json()["message"][0]
        paused = (await client.put(path, json={"is_active": False}, headers=team.headers)).json()["data"]
        assert paused["is_active"] is False and paused["next_run_at"] is None

    async def test_delete_is_204_then_404(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey
    ) -> None:
        agent = await create_agent(team, is_recurring=True)
        path = f"/v1/agents/{agent['id']}"
        response = await client.delete(path, headers=team.headers)
        assert response.status_code == 204 and response.content == b""
        assert response.headers["X-Cost"] == "0.00"
        assert (await client.get(path, headers=team.headers)).status_code == 404
        assert (await client.get(path + "/videos", headers=team.headers)).status_code == 404
        assert (await client.delete(path, headers=team.headers)).status_code == 404
        listed = (await client.get("/v1/agents", headers=team.headers)).json()["data"]
        assert listed["agents"] == []

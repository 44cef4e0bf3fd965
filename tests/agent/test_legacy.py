"""Legacy orbit and comet (spec §4.5, §8.1, §9): the same agents under the old paths, deprecation headers
on every response, creates priced like agents, ignored create-time scope, tighter rate limits."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx

from reelscope.kit.clock import ManualClock
from tests.agent.conftest import Get
from tests.conftest import MakeTeam, TeamKey

SUNSET = "Mon, 03 Aug 2026 00:00:00 GMT"
SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"]}


def deprecated(response: httpx.Response) -> bool:
    return response.headers.get("Deprecation") == "true" and response.headers.get("Sunset") == SUNSET


async def create(client: httpx.AsyncClient, team: TeamKey, kind: str, **fields: Any) -> dict[str, Any]:
    response = await client.post(f"/v1/{kind}", json={**SMALL, **fields}, headers=team.headers)
    assert response.status_code == 202, response.text
    assert deprecated(response)
    data: dict[str, Any] = response.json()["data"]
    return data


class TestOrbit:
    async def test_create_is_a_charged_one_shot_agent_with_ignored_scope(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey, get: Get
    ) -> None:
        response = await client.post(
            "/v1/orbit",
            json={**SMALL, "min_views": 10_000, "time_range": "7d", "time_period": "week"},
            headers=team.headers,
        )
        assert response.status_code == 202, response.text
        assert response.headers["X-Cost"] == "0.50"
        queued = response.json()["data"]
        assert (
            queued["status"] == "queued"
            and queued["job_id"]
            and queued["poll_url"] == f"/v1/orbit/{queued['id']}"
        )
        agent = await get(team, f"/v1/agents/{queued['id']}")  # the ids are agent ids
        assert agent["is_recurring"] is False and agent["min_views"] == 0 and agent["time_range"] == "30d"
        assert agent["status"] == "completed"
        with_di = await client.post(
            "/v1/orbit", json={**SMALL, "data_intelligence_enabled": True}, headers=team.headers
        )
        assert with_di.headers["X-Cost"] == "1.50"

    async def test_reads_map_to_the_agent_reads(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey, get: Get
    ) -> None:
        queued = await create(client, team, "orbit", meta_ads_enabled=True)
        agent_id = queued["id"]
        for sub in ("/videos", "/slideshows", "/ads", "/creators/outliers"):
            legacy = await client.get(f"/v1/orbit/{agent_id}{sub}", params={"limit": 5}, headers=team.headers)
            assert legacy.status_code == 200 and deprecated(legacy), sub
            assert legacy.headers["X-Cost"] == "0.00"
            current = await client.get(
                f"/v1/agents/{agent_id}{sub}", params={"limit": 5}, headers=team.headers
            )
            assert "Deprecation" not in current.headers
            assert legacy.json() == current.json(), sub
        # comet paths take the same ids
        same = await client.get(f"/v1/comet/{agent_id}/videos", params={"limit": 5}, headers=team.headers)
        assert same.status_code == 200 and same.json()["data"]["total"] > 0

    async def test_status_and_results_in_the_legacy_orders(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey
    ) -> None:
        queued = await create(client, team, "orbit")
        path = f"/v1/orbit/{queued['id']}"
        data = (await client.get(path, params={"limit": 100}, headers=team.headers)).json()["data"]
        assert data["status"] == "completed" and data["finalized"] is True
        views = [v["views"] for v in data["results"]["videos"]]
        assert views == sorted(views, reverse=True)  # views first by default
        for order_by, key in (("likes", "number_of_likes"), ("comments", "number_of_comments")):
            response = await client.get(
                path, params={"order_by": order_by, "sort": "asc", "limit": 100}, headers=team.headers
            )
            values = [v[key] for v in response.json()["data"]["results"]["videos"]]
            assert values == sorted(values), order_by
        followers = await client.get(path, params={"order_by": "author.followers"}, headers=team.headers)
        assert followers.status_code == 200
        bad = await client.get(path, params={"order_by": "outlier_ratio"}, headers=team.headers)
        assert bad.status_code == 400 and deprecated(bad)

    async def test_lists_errors_and_other_teams(
        self, client: httpx.AsyncClient, jobs: Any, make_team: MakeTeam, clock: ManualClock
    ) -> None:
        team, other = await make_team(), await make_team()
        orbit = await create(client, team, "orbit")
        comet = await create(client, team, "comet")
        for path in ("/v1/orbit", "/v1/orbit/list"):
            response = await client.get(path, headers=team.headers)
            assert deprecated(response)
            assert [a["id"] for a in response.json()["data"]["agents"]] == [orbit["id"]]
        comets = (await client.get("/v1/comet/list", headers=team.headers)).json()["data"]["agents"]
        assert [a["id"] for a in comets] == [comet["id"]]
        clock.advance(timedelta(minutes=1))  # a fresh minute for the creates below (2 a minute)
        missing = await client.get(f"/v1/orbit/{orbit['id']}", headers=other.headers)
        assert missing.status_code == 404 and deprecated(missing)
        assert missing.json()["code"] == "not_found"
        invalid = await client.post("/v1/orbit", json={"keywords": []}, headers=team.headers)
        assert invalid.status_code == 400 and deprecated(invalid)
        recurring = await client.post("/v1/orbit", json={**SMALL, "is_recurring": True}, headers=team.headers)
        assert recurring.status_code == 400

    async def test_creates_are_limited_to_2_a_minute(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey
    ) -> None:
        """§8.1: legacy limits are tighter, "as low as 2 per minute" (ours: docs/architecture.md)."""
        await create(client, team, "orbit")
        await create(client, team, "orbit")
        third = await client.post("/v1/orbit", json=SMALL, headers=team.headers)
        assert third.status_code == 429 and deprecated(third)
        assert third.json()["code"] == "rate_limit_exceeded"
        assert third.headers["X-RateLimit-Limit"] == "2"


class TestComet:
    async def test_create_is_a_recurring_agent_free_to_create(
        self, client: httpx.AsyncClient, jobs: Any, team: TeamKey, get: Get
    ) -> None:
        response = await client.post(
            "/v1/comet", json={**SMALL, "cadence": "weekly", "min_views": 5}, headers=team.headers
        )
        assert response.status_code == 202, response.text
        assert response.headers["X-Cost"] == "0.00" and deprecated(response)
        agent = await get(team, f"/v1/agents/{response.json()['data']['id']}")
        assert agent["is_recurring"] is True and agent["cadence"] == "0 12 * * 6"
        one_shot = await client.post("/v1/comet", json={**SMALL, "is_recurring": False}, headers=team.headers)
        assert one_shot.status_code == 400

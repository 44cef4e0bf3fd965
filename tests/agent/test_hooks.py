"""GET /v1/agents/{id}/hooks (spec §4.4, issue 16): ranked hooks of the agent's videos, each video once,
coverage counts, exact pagination.total; $0.25, free with Data Intelligence."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
import pytest_asyncio
from sqlalchemy import text

from reelscope.analysis.hooks import HOOK_TYPES
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.agent import shared
from tests.agent.conftest import CreateAgent, creator
from tests.conftest import TeamKey

# one runtime per database for the module (tests/agent/shared.py): two tests read one agent's run
pytestmark = [pytest.mark.both_databases, shared.MODULE_LOOP]
backend, clock, settings, runtime = shared.backend, shared.clock, shared.settings, shared.runtime
jobs, client, team = shared.jobs, shared.client, shared.team

SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"]}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def small(client: httpx.AsyncClient, jobs: JobEngine, team: TeamKey) -> dict[str, Any]:
    return await creator(client)(team, **SMALL)


class TestAgentHooks:
    async def test_ranked_each_video_once_with_coverage_and_billed(
        self, client: httpx.AsyncClient, team: TeamKey, small: dict[str, Any]
    ) -> None:
        agent = small
        path = f"/v1/agents/{agent['id']}/hooks"
        response = await client.get(path, params={"limit": 100}, headers=team.headers)
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.25"
        body = response.json()
        coverage, pagination, rows = body["coverage"], body["pagination"], body["data"]
        videos = (await client.get(f"/v1/agents/{agent['id']}/videos", headers=team.headers)).json()["data"]
        assert coverage["videos"] == videos["total"] > 0
        assert coverage["with_hook"] + coverage["without_hook"] == coverage["videos"]
        assert pagination["total"] == coverage["with_hook"] == sum(coverage["by_hook_type"].values())
        ids = [r["video_id"] for r in rows]
        assert len(ids) == len(set(ids)) == min(100, pagination["total"])  # each video once
        views = [r["views"] for r in rows]
        assert views == sorted(views, reverse=True)
        assert all(r["hook_type"] in HOOK_TYPES and r["hook_text"] for r in rows)
        assert all(r["matched_cue"] is None for r in rows if r["hook_type"] == "statement")

        top_type = next(iter(coverage["by_hook_type"]))
        typed = (await client.get(path, params={"hook_type": top_type}, headers=team.headers)).json()
        assert typed["pagination"]["total"] == coverage["by_hook_type"][top_type]
        assert {r["hook_type"] for r in typed["data"]} == {top_type}
        second = (await client.get(path, params={"limit": 1, "page": 2}, headers=team.headers)).json()
        assert second["data"] == rows[1:2] and second["pagination"]["has_prev_page"] is True

    async def test_free_with_data_intelligence(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **SMALL, data_intelligence_enabled=True)
        response = await client.get(f"/v1/agents/{agent['id']}/hooks", headers=team.headers)
        assert response.status_code == 200 and response.headers["X-Cost"] == "0.00"

    async def test_kept_with_the_analytics_as_read_time_computes_them(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey, runtime: Runtime
    ) -> None:
        # ADR 0038: each run keeps the hooks and the genre adjacency; an agent whose analytics predate
        # that has them computed at read time, the same
        agent = await create_agent(team, **SMALL)
        paths = (f"/v1/agents/{agent['id']}/hooks?limit=100", f"/v1/agents/{agent['id']}/affinity")
        kept = [(await client.get(path, headers=team.headers)).json() for path in paths]
        assert kept[0]["data"] and kept[1]["data"]["video_count"] > 0
        async with runtime.db.transaction() as session:
            await session.execute(
                text("UPDATE agents SET hook_coverage = NULL, affinity = NULL WHERE id = :id"),
                {"id": agent["id"]},
            )
        assert [(await client.get(path, headers=team.headers)).json() for path in paths] == kept

    async def test_errors_are_free(
        self, client: httpx.AsyncClient, team: TeamKey, small: dict[str, Any]
    ) -> None:
        agent = small
        path = f"/v1/agents/{agent['id']}/hooks"
        response = await client.get(path, params={"hook_type": "shouting"}, headers=team.headers)
        assert response.status_code == 400 and response.json()["code"] == "validation_error"
        response = await client.get(
            "/v1/agents/00000000-0000-0000-0000-000000000000/hooks", headers=team.headers
        )
        assert response.status_code == 404 and response.headers.get("X-Cost", "0.00") == "0.00"

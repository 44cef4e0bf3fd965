"""The AI analysis and trend reads of an agent (spec §4.4, §4.5, §6.3; issue 16) through HTTP: the
latest analysis and its history, the latest trend batch and the filtered trend history, and a
recurring agent whose themes keep their ``stable_key`` over three runs on the manual clock."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
import pytest
import pytest_asyncio

from reelscope.kit.clock import ManualClock
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from tests.agent import shared
from tests.agent.conftest import CreateAgent, Get, creator
from tests.conftest import MakeTeam, TeamKey

# one runtime per database for the module (tests/agent/shared.py): three tests read one one-shot agent's
# run, the others make their own agents. Only TestRecurringTrends advances the clock (its own agent's
# dates); TestLegacyPaths, after it, compares two reads made at one moment.
pytestmark = [pytest.mark.both_databases, shared.MODULE_LOOP]
backend, clock, settings, runtime = shared.backend, shared.clock, shared.settings, shared.runtime
jobs, client, team, make_team = shared.jobs, shared.client, shared.team, shared.make_team

SMALL = {"keywords": ["sourdough"], "platforms": ["tiktok"]}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def small(client: httpx.AsyncClient, jobs: JobEngine, team: TeamKey) -> dict[str, Any]:
    return await creator(client)(team, **SMALL)


class TestAnalysis:
    async def test_latest_and_history_of_a_one_shot_run(
        self, get: Get, team: TeamKey, small: dict[str, Any]
    ) -> None:
        agent = small
        path = f"/v1/agents/{agent['id']}"
        latest = await get(team, f"{path}/analysis/latest")
        assert latest["run_id"] == agent["run_id"] and latest["status"] == "completed"
        assert latest["cost_usd"] == 0 and latest["video_count"] > 0
        data = latest["analysis_data"]
        assert data == (await get(team, path))["analysis_data"]  # the agent shows the same report
        assert latest["trends"] == data["themes"] and data["themes"]
        theme = data["themes"][0]
        assert theme["stable_key"].startswith("th_") and theme["video_count"] >= 3
        # evidence ids are the agent's own videos
        videos = await get(team, f"{path}/videos", limit=100)
        linked = {v["id"] for v in videos["videos"]}
        page2 = await get(team, f"{path}/videos", limit=100, page=2)
        linked |= {v["id"] for v in page2["videos"]}
        assert set(theme["evidence_video_ids"]) <= linked
        assert data["key_highlight"] and data["overview"].startswith(
            f"{latest['video_count']} videos analysed"
        )
        assert len(data["top_10_breakdown"]["videos"]) == 10
        assert data["timing_analysis"]["timezone"] == "UTC"
        assert all(e["reason"] in {"no_text", "no_theme"} for e in data["excluded_videos"])
        clustered = sum(t["video_count"] for t in data["themes"]) + len(data["excluded_videos"])
        assert clustered == latest["video_count"]

        history = await get(team, f"{path}/analysis")
        assert history["data"] == [latest]
        assert history["pagination"]["total"] == 1

    async def test_before_any_analysis_everything_is_empty(
        self, create_agent: CreateAgent, get: Get, team: TeamKey, jobs: object
    ) -> None:
        agent = await create_agent(team, keywords=["zzqqxx-nothing"], platforms=["tiktok"])
        path = f"/v1/agents/{agent['id']}"
        assert await get(team, f"{path}/analysis/latest") is None
        assert (await get(team, f"{path}/analysis"))["data"] == []
        assert await get(team, f"{path}/trends/latest") == {"batch_end": None, "run_id": None, "trends": []}
        trends = await get(team, f"{path}/trends")
        assert trends["data"] == [] and trends["pagination"]["total"] == 0

    async def test_another_teams_agent_and_bad_parameters(
        self, client: httpx.AsyncClient, make_team: MakeTeam, team: TeamKey, small: dict[str, Any]
    ) -> None:
        agent = small
        other = await make_team()
        for sub in ("analysis/latest", "analysis", "trends/latest", "trends"):
            response = await client.get(f"/v1/agents/{agent['id']}/{sub}", headers=other.headers)
            assert response.status_code == 404 and response.json()["code"] == "not_found"
        path = f"/v1/agents/{agent['id']}"
        for params in (
            {"start_date": "2026-11-22", "end_date": "2026-11-20"},
            {"start_date": "soon"},
            {"x": 1},
        ):
            response = await client.get(f"{path}/trends", params=params, headers=team.headers)
            assert response.status_code == 400 and response.json()["code"] == "validation_error"
        response = await client.get(f"{path}/analysis/latest", params={"x": 1}, headers=team.headers)
        assert response.status_code == 400


class TestRecurringTrends:
    async def test_stable_keys_over_three_runs_and_the_trend_filters(
        self,
        create_agent: CreateAgent,
        get: Get,
        make_team: MakeTeam,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        team = await make_team(credits=10_000)
        agent = await create_agent(team, **SMALL, is_recurring=True, cadence="daily")
        path = f"/v1/agents/{agent['id']}"
        batches = [await get(team, f"{path}/trends/latest")]
        for _ in range(2):
            clock.advance(timedelta(days=1))
            assert (await dispatch_once(task_context)).fired == 1
            batches.append(await get(team, f"{path}/trends/latest"))
        assert [b["batch_end"] for b in batches] == [
            "2026-11-21T12:00:30Z",
            "2026-11-22T12:00:30Z",
            "2026-11-23T12:00:30Z",
        ]
        # with the autopilot on (the default; issue 32 item 4), it added keywords, whose videos reshape
        # the themes and shift their terms
        assert len((await get(team, path))["keywords"]) > len(SMALL["keywords"])
        # the main theme (the most videos) keeps its key in every batch and is not new after the first
        main = batches[0]["trends"][0]
        assert main["status"] == "new"
        for later in batches[1:]:
            largest = later["trends"][0]
            assert largest["stable_key"] == main["stable_key"], [t["name"] for t in later["trends"]]
            assert largest["status"] in {"rising", "steady", "fading"}
            assert sum(t["stable_key"] == main["stable_key"] for t in later["trends"]) == 1
        # no two themes of one batch share a key (issue 32 item 4)
        for batch in batches:
            keys = [t["stable_key"] for t in batch["trends"]]
            assert len(keys) == len(set(keys)), keys
        # the member ids stored for the matching are not served
        assert all("member_ids" not in t for b in batches for t in b["trends"])
        analyses = await get(team, f"{path}/analysis")
        assert analyses["pagination"]["total"] == 3
        assert [a["run_id"] for a in analyses["data"]] == [b["run_id"] for b in reversed(batches)]

        # the history: newest first, filtered by key and by batch end
        everything = await get(team, f"{path}/trends", limit=100)
        total = sum(len(b["trends"]) for b in batches)
        assert everything["pagination"]["total"] == total == len(everything["data"])
        ends = [t["batch_end"] for t in everything["data"]]
        assert ends == sorted(ends, reverse=True)
        keyed = await get(team, f"{path}/trends", stable_key=main["stable_key"])
        assert [t["batch_end"] for t in keyed["data"]] == [b["batch_end"] for b in reversed(batches)]
        assert {t["stable_key"] for t in keyed["data"]} == {main["stable_key"]}
        middle = await get(team, f"{path}/trends", start_date="2026-11-22", end_date="2026-11-22", limit=100)
        assert {t["batch_end"] for t in middle["data"]} == {"2026-11-22T12:00:30Z"}
        assert middle["pagination"]["total"] == len(batches[1]["trends"])
        paged = await get(team, f"{path}/trends", limit=1, page=2)
        assert paged["data"] == [everything["data"][1]] and paged["pagination"]["total"] == total


class TestLegacyPaths:
    async def test_orbit_and_comet_read_the_same_trends_and_analysis(
        self, client: httpx.AsyncClient, team: TeamKey, small: dict[str, Any]
    ) -> None:
        """§4.5: the legacy reads map to the agent's, with the deprecation headers."""
        agent = small
        for kind in ("orbit", "comet"):
            for sub in ("trends/latest", "trends", "analysis/latest"):
                legacy = await client.get(f"/v1/{kind}/{agent['id']}/{sub}", headers=team.headers)
                assert legacy.status_code == 200 and legacy.headers["Deprecation"] == "true"
                assert legacy.headers["X-Cost"] == "0.00"
                current = await client.get(f"/v1/agents/{agent['id']}/{sub}", headers=team.headers)
                assert legacy.json() == current.json()
        missing = await client.get(
            "/v1/orbit/00000000-0000-0000-0000-000000000000/trends", headers=team.headers
        )
        assert missing.status_code == 404 and missing.headers["Deprecation"] == "true"

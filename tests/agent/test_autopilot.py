"""The autopilot through HTTP and the job engine (spec §4.4 autopilot rules, /activity, /proposals,
/autonomy; §8.3 "up to 15 in all"; ADR 0032): recurring runs on the manual clock, what it changes or
proposes, the deprecated proposal endpoints with their `Deprecation` header, and bad input."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from reelscope.catalog import service as catalog_service
from reelscope.collectors.base import VideoRecord
from reelscope.kit.clock import ManualClock, iso
from reelscope.models import AgentVideo
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from tests.agent.conftest import CreateAgent, Get
from tests.catalog_builders import ingest, video
from tests.conftest import MakeTeam, TeamKey

RECURRING = {"keywords": ["sourdough"], "platforms": ["tiktok"], "is_recurring": True}
# a keyword the sandbox has next to nothing for: a thin run
THIN = {"keywords": ["zzqxthinloaf"], "platforms": ["tiktok"], "is_recurring": True}


async def link(runtime: Runtime, agent: dict[str, Any], records: list[VideoRecord]) -> None:
    """Videos in the catalog, linked to the agent as a run of it would link them."""
    await ingest(runtime, *records)
    async with runtime.db.transaction() as session:
        for record in records:
            session.add(
                AgentVideo(
                    agent_id=agent["id"],
                    video_id=catalog_service.catalog_id("video", record.platform.value, record.external_id),
                    platform=record.platform.value,
                    published_at=record.published_at,
                    views=record.views,
                    run_id=agent["run_id"],
                    keyword=THIN["keywords"][0],
                    intelligence_status="disabled",
                    linked_at=record.fetched_at,
                )
            )


async def linked_within(runtime: Runtime, agent_id: str, end: datetime, days: int) -> int:
    async with runtime.db.transaction(write=False) as session:
        found = await session.scalar(
            select(func.count())
            .select_from(AgentVideo)
            .where(AgentVideo.agent_id == agent_id, AgentVideo.published_at >= end - timedelta(days=days))
        )
    return int(found or 0)


async def credits(client: httpx.AsyncClient, team: TeamKey) -> int:
    value: int = (await client.get("/v1/account/balance", headers=team.headers)).json()["data"][
        "credits_remaining"
    ]
    return value


class TestAutopilotOn:
    async def test_runs_grow_the_keywords_within_the_rules_at_the_same_price(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        """§4.4: after each run it adds keywords (up to 15), never removes the user's, never raises the
        price per run, never starts an extra billed run."""
        agent = await create_agent(team, **RECURRING, exclude_keywords=["gluten"])
        path = f"/v1/agents/{agent['id']}"
        assert agent["autopilot"] is True and agent["autonomy_level"] == "autopilot"
        first = await get(team, path)
        added = [k for k in first["keywords"] if k != "sourdough"]
        assert first["keywords"][0] == "sourdough" and added  # the run's best videos gave terms
        assert first["pinned_keywords"] == ["sourdough"] and first["exclude_keywords"] == ["gluten"]
        activity = (await get(team, f"{path}/activity"))["activity"]
        (made,) = [a for a in activity if a["action"] == "keywords_added"]
        assert made["run_id"] == agent["run_id"] and made["detail"]["added"] == added
        assert "most-viewed videos" in made["summary"]
        proposals = (await get(team, f"{path}/proposals"))["proposals"]
        assert {(p["status"], p["decided_by"]) for p in proposals} == {("applied", "autopilot")}
        assert await credits(client, team) == 950

        # three more daily runs, each deciding again (the cap of 15: tests/analysis/test_autopilot.py)
        for day in range(1, 4):
            clock.advance(timedelta(days=1))
            assert (await dispatch_once(task_context)).fired == 1
            now = await get(team, path)
            assert len(now["keywords"]) <= 15 and "sourdough" in now["keywords"]
            assert now["exclude_keywords"] == ["gluten"]
            assert await credits(client, team) == 950 - 50 * day  # one run per firing, $0.50 each
        runs = (await get(team, f"{path}/runs", limit=100))["runs"]
        assert len(runs) == 4 and {r["charged_credits"] for r in runs} == {50}
        # each run's decisions are in the log, a "nothing to change" included
        logged = {a["run_id"] for a in (await get(team, f"{path}/activity"))["activity"]}
        assert {r["id"] for r in runs} <= logged

    async def test_a_thin_run_widens_the_collection_window_and_the_next_run_is_analysed_over_it(
        self,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        runtime: Runtime,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        agent = await create_agent(team, **THIN)
        path = f"/v1/agents/{agent['id']}"
        done = await get(team, path)
        assert done["time_range"] == "60d" and done["keywords"] == ["zzqxthinloaf"]
        (widened,) = [
            a
            for a in (await get(team, f"{path}/activity"))["activity"]
            if a["action"] == "collection_widened"
        ]
        assert widened["detail"]["time_range_from"] == "30d" and widened["detail"]["time_range_to"] == "60d"
        # the run records the window it searched, before the autopilot widened the agent's
        first = await get(team, f"{path}/runs/{agent['run_id']}")
        assert first["metrics"]["time_range"] == "30d"

        # issue 31 item 4: the next run's analysis read a fixed 30 days, not the 60 the run searched.
        # Videos the agent linked, posted 45 days (within the next run's 60) and 75 days before it ends
        end = clock.now() + timedelta(days=1)
        await link(runtime, agent, [video(f"w45-{i}", end - timedelta(days=45)) for i in range(3)])
        await link(runtime, agent, [video(f"w75-{i}", end - timedelta(days=75)) for i in range(3)])
        clock.advance(timedelta(days=1))
        assert (await dispatch_once(task_context)).fired == 1
        run = (await get(team, f"{path}/runs"))["runs"][0]
        assert run["metrics"]["time_range"] == "60d" and run["completed_at"] == iso(end)
        latest = await get(team, f"{path}/analysis/latest")
        assert latest["run_id"] == run["id"]
        counts = {days: await linked_within(runtime, agent["id"], end, days) for days in (30, 60, 90)}
        assert counts[30] < counts[60] < counts[90]  # each window tells a different count
        assert latest["video_count"] == counts[60]

    async def test_a_one_shot_agent_is_left_alone(
        self, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])
        path = f"/v1/agents/{agent['id']}"
        assert (await get(team, path))["keywords"] == ["sourdough"]
        assert await get(team, f"{path}/activity") == {"count": 0, "activity": []}


class TestAutopilotOff:
    async def test_the_configuration_stays_as_sent_and_changes_become_proposals(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        clock: ManualClock,
    ) -> None:
        agent = await create_agent(team, **RECURRING, autopilot=False)
        path = f"/v1/agents/{agent['id']}"
        done = await get(team, path)
        assert done["keywords"] == ["sourdough"] and done["time_range"] == "30d"
        assert done["autonomy_level"] == "suggest"

        listed = await client.get(f"{path}/proposals", headers=team.headers)
        assert listed.status_code == 200 and listed.headers["Deprecation"] == "true"
        assert listed.headers["X-Cost"] == "0.00"
        (proposal,) = listed.json()["data"]["proposals"]
        assert proposal["kind"] == "add_keywords" and proposal["status"] == "proposed"
        assert proposal["add"] and proposal["effect"] is None and proposal["run_id"] == agent["run_id"]
        actions = [a["action"] for a in (await get(team, f"{path}/activity"))["activity"]]
        assert actions == ["proposal_created"]

        clock.advance(timedelta(minutes=1))
        applied = await client.post(f"{path}/proposals/{proposal['id']}/apply", headers=team.headers)
        assert applied.status_code == 200 and applied.headers["Deprecation"] == "true"
        body = applied.json()["data"]
        assert body["status"] == "applied" and body["decided_by"] == "user"
        assert (await get(team, path))["keywords"] == ["sourdough", *proposal["add"]]

        again = await client.post(f"{path}/proposals/{proposal['id']}/apply", headers=team.headers)
        assert again.status_code == 409 and again.json()["code"] == "conflict"
        assert again.headers["Deprecation"] == "true"

        clock.advance(timedelta(minutes=1))
        reverted = await client.post(f"{path}/proposals/{proposal['id']}/revert", headers=team.headers)
        assert reverted.status_code == 200 and reverted.json()["data"]["status"] == "reverted"
        assert (await get(team, path))["keywords"] == ["sourdough"]
        log = [a["action"] for a in (await get(team, f"{path}/activity"))["activity"]]
        assert log == ["proposal_reverted", "proposal_applied", "proposal_created"]
        assert await credits(client, team) == 950

    async def test_a_dismissed_proposal_is_not_applied(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, get: Get, team: TeamKey
    ) -> None:
        agent = await create_agent(team, **THIN, autopilot=False)
        path = f"/v1/agents/{agent['id']}"
        (widen,) = (await get(team, f"{path}/proposals"))["proposals"]
        assert widen["kind"] == "widen_collection" and widen["time_range_to"] == "60d"
        not_yet = await client.post(f"{path}/proposals/{widen['id']}/revert", headers=team.headers)
        assert not_yet.status_code == 409
        dismissed = await client.post(f"{path}/proposals/{widen['id']}/dismiss", headers=team.headers)
        assert dismissed.status_code == 200 and dismissed.json()["data"]["status"] == "dismissed"
        late = await client.post(f"{path}/proposals/{widen['id']}/apply", headers=team.headers)
        assert late.status_code == 409 and late.headers["Deprecation"] == "true"
        assert (await get(team, path))["time_range"] == "30d"

    async def test_unknown_proposals_and_other_teams_are_404_with_the_header(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        make_team: MakeTeam,
    ) -> None:
        agent = await create_agent(team, **THIN, autopilot=False)
        path = f"/v1/agents/{agent['id']}"
        missing = await client.post(f"{path}/proposals/nope/apply", headers=team.headers)
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
        assert missing.headers["Deprecation"] == "true"
        other = await make_team()
        proposal = (await get(team, f"{path}/proposals"))["proposals"][0]
        for method, sub in (("GET", "/proposals"), ("POST", f"/proposals/{proposal['id']}/apply")):
            response = await client.request(method, f"{path}{sub}", headers=other.headers)
            assert response.status_code == 404 and response.headers["Deprecation"] == "true"
        assert (await get(team, f"{path}/proposals"))["proposals"][0]["status"] == "proposed"


class TestAutonomy:
    async def test_switching_off_and_on(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        clock: ManualClock,
    ) -> None:
        agent = await create_agent(team, **RECURRING)
        path = f"/v1/agents/{agent['id']}"
        response = await client.put(
            f"{path}/autonomy",
            json={"autonomy_level": "suggest", "cognition_enabled": False},
            headers=team.headers,
        )
        assert response.status_code == 200 and response.headers["X-Cost"] == "0.00"
        data = response.json()["data"]
        assert data["autopilot"] is False and data["autonomy_level"] == "suggest"
        assert data["cognition_enabled"] is False
        clock.advance(timedelta(minutes=1))
        response = await client.put(f"{path}/autonomy", json={"autopilot": True}, headers=team.headers)
        assert response.json()["data"]["autopilot"] is True
        assert response.json()["data"]["cognition_enabled"] is False
        log = [
            a for a in (await get(team, f"{path}/activity"))["activity"] if a["action"] == "autonomy_changed"
        ]
        assert [a["detail"] for a in log] == [
            {"autopilot": True, "cognition_enabled": False},
            {"autopilot": False, "cognition_enabled": False},
        ]

    @pytest.mark.parametrize(
        "body",
        [
            {},
            {"autopilot": True, "extra": 1},
            {"autonomy_level": "full"},
            {"autonomy_level": "suggest", "autopilot": True},
            {"autopilot": None},
            {"cognition_enabled": "maybe"},
        ],
    )
    async def test_bad_input_is_400_costs_nothing_changes_nothing(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        get: Get,
        team: TeamKey,
        body: dict[str, object],
    ) -> None:
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])
        path = f"/v1/agents/{agent['id']}"
        before = await get(team, path)
        response = await client.put(f"{path}/autonomy", json=body, headers=team.headers)
        assert response.status_code == 400 and response.json()["code"] == "validation_error"
        assert response.headers["X-Cost"] == "0.00"
        assert await get(team, path) == before
        assert await credits(client, team) == 950

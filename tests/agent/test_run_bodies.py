"""An agent's runs and analyses as served from their stored JSON (ADR 0062): the bytes a client gets are
those the response models wrote before (``RunOut``, ``RunList``, ``Page``), whatever a JSON column holds,
and a value written since a process kept a rendering is what the next read shows."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import httpx
import pytest
from pydantic import TypeAdapter
from sqlalchemy import JSON, select, update

from reelscope.agent.schemas import RunList, RunOut
from reelscope.kit.clock import ManualClock
from reelscope.kit.pagination import Page
from reelscope.kit.schemas import Envelope
from reelscope.models import AgentRun
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from tests.agent.conftest import CreateAgent
from tests.conftest import TeamKey

pytestmark = pytest.mark.both_databases

RECURRING = {"keywords": ["sourdough"], "platforms": ["tiktok"], "is_recurring": True, "cadence": "daily"}
JSON_COLUMNS = ("metrics", "targets", "error", "analysis")


def odd_values(backend: str) -> dict[str, Any]:
    """Values whose JSON a serializer may write differently: integers past 64 bits, floats at the edges
    of their shortest forms, escapes and characters beyond ASCII; NaN only where the database takes it
    (PostgreSQL's json type refuses it)."""
    values: dict[str, Any] = {
        "big": 2**70,
        "negative": -(2**63),
        "floats": [1e16, 1e-7, 0.1, 100.0, -0.0, 5e-324, 1.7976931348623157e308, 123456789.123456789],
        "text": 'é 😀 \u2028 "quoted" \\ / \t\n \x01',
        "nested": {"empty": {}, "none": None, "list": [True, False, None, 0]},
    }
    if backend == "sqlite":
        values["nan"] = float("nan")
    return values


async def stored_runs(runtime: Runtime, agent_id: str) -> dict[str, AgentRun]:
    """The agent's runs as the ORM reads them (their JSON columns parsed as before ADR 0062)."""
    async with runtime.db.transaction(write=False) as session:
        rows = (await session.scalars(select(AgentRun).where(AgentRun.agent_id == agent_id))).all()
        return {run.id: run for run in rows}


def as_models_wrote(body: bytes, runs: dict[str, AgentRun], shape: Any, items: str | None) -> bytes:
    """``body`` made again by the response model ``shape`` from the stored runs' JSON columns: the bytes
    the model-rendered endpoint sent. ``items`` is where the runs are in the body."""
    parsed = json.loads(body)
    listed = parsed["data"] if items is None else parsed["data"][items]
    for item in listed if isinstance(listed, list) else [listed]:
        for column in JSON_COLUMNS:
            item[column] = getattr(runs[item["id"]], column)
    return models_write(shape, parsed)


def models_write(shape: Any, value: Any) -> bytes:
    adapter = TypeAdapter(shape)
    return adapter.dump_json(adapter.validate_python(value))


async def set_columns(runtime: Runtime, run_id: str, **values: Any) -> None:
    async with runtime.db.transaction() as session:
        await session.execute(update(AgentRun).where(AgentRun.id == run_id).values(**values))


class TestBytes:
    async def test_runs_and_analyses_are_the_bytes_the_models_wrote(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        team: TeamKey,
        runtime: Runtime,
        backend: str,
    ) -> None:
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])
        odd = odd_values(backend)
        await set_columns(
            runtime,
            agent["run_id"],
            metrics={**odd, "videos_linked": 3},
            error={"code": "odd", "detail": odd},
            analysis={"analysis_data": odd, "run_id": agent["run_id"]},
        )
        runs = await stored_runs(runtime, agent["id"])
        path = f"/v1/agents/{agent['id']}"
        for _ in range(2):  # rendered, then kept
            listed = (await client.get(f"{path}/runs", headers=team.headers)).content
            assert listed == as_models_wrote(listed, runs, Envelope[RunList], "runs")
            one = (await client.get(f"{path}/runs/{agent['run_id']}", headers=team.headers)).content
            assert one == as_models_wrote(one, runs, Envelope[RunOut], None)
            analyses = await client.get(f"{path}/analysis", headers=team.headers)
            expected = {
                "data": [runs[agent["run_id"]].analysis],
                "pagination": analyses.json()["pagination"],
            }
            assert analyses.content == models_write(Page[dict[str, Any]], expected)
            latest = await client.get(f"{path}/analysis/latest", headers=team.headers)
            expected_latest = {"data": runs[agent["run_id"]].analysis}
            assert latest.content == models_write(Envelope[dict[str, Any] | None], expected_latest)
        assert json.loads(listed)["data"]["runs"][0]["metrics"]["big"] == 2**70

    async def test_a_json_null_analysis_is_left_out_as_before(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey, runtime: Runtime
    ) -> None:
        """A JSON null (not SQL NULL) is counted by the page's total but not listed, and reads null."""
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])
        await set_columns(runtime, agent["run_id"], analysis=JSON.NULL)
        path = f"/v1/agents/{agent['id']}"
        analyses = (await client.get(f"{path}/analysis", headers=team.headers)).json()
        assert analyses["data"] == [] and analyses["pagination"]["total"] == 1
        latest = await client.get(f"{path}/analysis/latest", headers=team.headers)
        assert latest.content == b'{"data":null}'


class TestFresh:
    async def test_a_value_written_after_a_read_is_the_next_reads(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey, runtime: Runtime
    ) -> None:
        """A process keeps each column's rendering under its stored text: another text is another
        rendering, never the kept one."""
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])
        path = f"/v1/agents/{agent['id']}"
        before = (await client.get(f"{path}/runs", headers=team.headers)).json()["data"]["runs"][0]
        await set_columns(
            runtime,
            agent["run_id"],
            metrics={**before["metrics"], "videos_linked": 12345},
            targets=[],
            analysis={**before["analysis"], "video_count": 54321},
        )
        run = (await client.get(f"{path}/runs", headers=team.headers)).json()["data"]["runs"][0]
        assert run["metrics"]["videos_linked"] == 12345 and run["targets"] == []
        assert run["analysis"]["video_count"] == 54321
        analyses = (await client.get(f"{path}/analysis", headers=team.headers)).json()["data"]
        assert analyses[0]["video_count"] == 54321
        one = (await client.get(f"{path}/runs/{agent['run_id']}", headers=team.headers)).json()["data"]
        assert one == run

    @pytest.mark.parametrize("queue_backend", ["sqlite"], indirect=True)
    async def test_an_analysis_is_listed_once_its_job_wrote_it(
        self, client: httpx.AsyncClient, create_agent: CreateAgent, team: TeamKey, jobs: JobEngine
    ) -> None:
        agent = await create_agent(team, keywords=["sourdough"], platforms=["tiktok"])
        path = f"/v1/agents/{agent['id']}"
        assert jobs.run_next()  # the collection
        run = (await client.get(f"{path}/runs", headers=team.headers)).json()["data"]["runs"][0]
        assert run["analysis"] is None and run["metrics"]["videos_linked"] > 0
        assert (await client.get(f"{path}/analysis", headers=team.headers)).json()["data"] == []
        while jobs.run_next():  # the analysis, then the webhook pump
            pass
        run = (await client.get(f"{path}/runs", headers=team.headers)).json()["data"]["runs"][0]
        assert run["analysis"]["run_id"] == agent["run_id"]
        listed = (await client.get(f"{path}/analysis", headers=team.headers)).json()["data"]
        assert [a["run_id"] for a in listed] == [agent["run_id"]]

    async def test_a_scheduled_run_is_listed_once_made(
        self,
        client: httpx.AsyncClient,
        create_agent: CreateAgent,
        team: TeamKey,
        clock: ManualClock,
        task_context: TaskContext,
    ) -> None:
        agent = await create_agent(team, **RECURRING)
        path = f"/v1/agents/{agent['id']}"
        first = (await client.get(f"{path}/runs", headers=team.headers)).json()["data"]["runs"]
        clock.advance(timedelta(days=1))
        assert (await dispatch_once(task_context)).fired == 1
        runs = (await client.get(f"{path}/runs", headers=team.headers)).json()["data"]["runs"]
        assert len(runs) == 2 and runs[1] == first[0]
        assert runs[0]["trigger"] == "schedule" and runs[0]["analysis"]["run_id"] == runs[0]["id"]
        analyses = (await client.get(f"{path}/analysis", headers=team.headers)).json()["data"]
        assert [a["run_id"] for a in analyses] == [runs[0]["id"], runs[1]["id"]]

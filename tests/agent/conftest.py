"""Agent fixtures: create agents through HTTP, run queued jobs one message at a time, read as a client."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from reelscope.auth import service as auth_service
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.runtime import Runtime, build_runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey

ONE_SHOT = {"name": "bread", "keywords": ["sourdough", "#baking"], "platforms": ["tiktok", "youtube"]}


@pytest.fixture
def queue_backend(request: pytest.FixtureRequest) -> str:
    """Immediate by default (a job runs when its transaction commits); a test parametrized with
    ``sqlite`` keeps messages queued until it runs them (``step``)."""
    return str(getattr(request, "param", "immediate"))


CreateAgent = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def create_agent(client: httpx.AsyncClient, jobs: JobEngine) -> CreateAgent:
    return creator(client)


def creator(client: httpx.AsyncClient) -> CreateAgent:
    """POST /v1/agents (its run happens as the job engine bound to the client's runtime runs jobs)."""

    async def create(team: TeamKey, **fields: Any) -> dict[str, Any]:
        body = {**ONE_SHOT, **fields}
        response = await client.post("/v1/agents", json=body, headers=team.headers)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()["data"]
        return created

    return create


Get = Callable[..., Awaitable[Any]]


@pytest.fixture
def get(client: httpx.AsyncClient) -> Get:
    """GET a path as ``team``; the `data` of a 200 (asserting it is free)."""

    async def read(team: TeamKey, path: str, **params: Any) -> Any:
        response = await client.get(path, params=params, headers=team.headers)
        assert response.status_code == 200, response.text
        assert response.headers["X-Cost"] == "0.00"
        return response.json()["data"] if "pagination" not in response.json() else response.json()

    return read


def step(jobs: JobEngine) -> bool:
    """Run the next queued message (a queue backend that keeps them); False when none is left."""
    message = jobs.huey.dequeue()
    if message is None:
        return False
    jobs.huey.execute(message)
    return True


@dataclass(frozen=True)
class Shared:
    """A runtime, its client, an immediate job engine and a team with a key: what the function-scoped
    fixtures ``runtime``, ``client``, ``jobs`` and ``team`` give one test, built once for a module or
    class whose tests only read what was made there (see tests/agent/test_reads.py)."""

    runtime: Runtime
    client: httpx.AsyncClient
    jobs: JobEngine
    team: TeamKey


@asynccontextmanager
async def shared(settings: Settings, clock: ManualClock) -> AsyncIterator[Shared]:
    """As tests/conftest.py and tests/fixtures/jobs.py build them for one test."""
    runtime = build_runtime(settings, clock)
    jobs = JobEngine(settings, clock, immediate=True)
    jobs.bind(runtime.db)
    async with runtime.db.transaction() as session:
        made = await auth_service.create_team(session, "team-1", 1000, clock.now())
        issued = await auth_service.issue_key(session, made, clock.now(), "full")
    team = TeamKey(team_id=made.id, key_id=issued.key.id, api_key=issued.api_key, name="team-1")
    transport = httpx.ASGITransport(app=create_app(runtime=runtime), client=("203.0.113.7", 50000))
    try:
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield Shared(runtime, http, jobs, team)
    finally:
        await asyncio.to_thread(jobs.close)
        await runtime.close()

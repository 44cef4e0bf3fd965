"""Agent fixtures: create agents through HTTP, run queued jobs one message at a time, read as a client."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest

from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey

ONE_SHOT = {"name": "bread", "keywords": ["sourdough", "#baking"], "platforms": ["tiktok", "youtube"]}


@pytest.fixture
def queue_backend(request: pytest.FixtureRequest) -> str:
    """Immediate by default (a job runs when its transaction commits); a test parametrized with
    ``sqlite`` keeps messages queued until it runs them (``jobs.run_next()``)."""
    return str(getattr(request, "param", "immediate"))


CreateAgent = Callable[..., Awaitable[dict[str, Any]]]


@pytest.fixture
def create_agent(client: httpx.AsyncClient, jobs: JobEngine) -> CreateAgent:
    return creator(client)


def creator(client: httpx.AsyncClient) -> CreateAgent:
    """POST /v1/agents (the run happens as the job engine bound to the client's runtime runs jobs)."""

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

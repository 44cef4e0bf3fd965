"""The compatibility tests' environment: the webhook family's (an HTTPS receiver on 127.0.0.1 that
deliveries may reach), the job engine in immediate mode, the sandbox world and the default trend regions."""

from __future__ import annotations

import pytest

from reelscope.collectors.sandbox.world import World
from reelscope.runtime import Runtime
from reelscope.trend import service as trend_service
from reelscope.worker.engine import JobEngine
from tests.webhook.conftest import client, guard, receiver, receiver_server, settings, tls  # noqa: F401


@pytest.fixture(autouse=True)
def engine(jobs: JobEngine) -> JobEngine:
    """Jobs run when the request that queued them commits (agent runs, lookups, cycles, deliveries)."""
    return jobs


@pytest.fixture
def world(runtime: Runtime) -> World:
    return World(runtime.settings.sandbox_seed)


@pytest.fixture
async def regions(runtime: Runtime) -> None:
    async with runtime.db.transaction() as session:
        await trend_service.seed_default_regions(session)

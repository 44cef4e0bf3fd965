"""Lookup fixtures: the job engine in Huey's immediate mode (a lookup's job runs when the request that
started it commits), creators that exist in the sandbox world, and the team's balance and events."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import select

from reelscope.billing import service as billing_service
from reelscope.collectors.sandbox.creators import handle_of
from reelscope.kit.platforms import Platform
from reelscope.models import OutboxEvent
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine

HandleOf = Callable[..., str]
Balance = Callable[[str], Awaitable[int]]
Events = Callable[[str], Awaitable[list[dict[str, Any]]]]


@pytest.fixture(autouse=True)
def engine(jobs: JobEngine) -> JobEngine:
    return jobs


@pytest.fixture
def handle(runtime: Runtime) -> HandleOf:
    """The handle of sandbox creator ``index`` on ``platform`` (every index below 24,000 exists)."""
    seed = runtime.settings.sandbox_seed

    def of(platform: Platform = Platform.TIKTOK, index: int = 123) -> str:
        return handle_of(seed, platform, index)

    return of


@pytest.fixture
def balance(runtime: Runtime) -> Balance:
    """A team's balance: the sum of its ledger."""

    async def read(team_id: str) -> int:
        async with runtime.db.transaction(write=False) as session:
            return await billing_service.balance(session, team_id)

    return read


@pytest.fixture
def events(runtime: Runtime) -> Events:
    """The payloads of the team's ``satellite.lookup.completed`` events in the outbox, oldest first."""

    async def read(team_id: str) -> list[dict[str, Any]]:
        async with runtime.db.transaction(write=False) as session:
            rows = await session.execute(
                select(OutboxEvent.payload)
                .where(OutboxEvent.team_id == team_id, OutboxEvent.name == "satellite.lookup.completed")
                .order_by(OutboxEvent.sequence)
            )
            return [dict(payload) for payload in rows.scalars()]

    return read

"""Tracking fixtures: sandbox creators and videos, a client bound to the job engine, dispatcher passes."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx
import pytest

from reelscope.collectors.sandbox.creators import handle_of
from reelscope.collectors.sandbox.world import World
from reelscope.config import Settings
from reelscope.events import service as events_service
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from reelscope.worker.context import TaskContext
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine

SEED = Settings().sandbox_seed


def creator_handle(index: int, platform: Platform = Platform.TIKTOK) -> str:
    return handle_of(SEED, platform, index)


def world() -> World:
    return World(SEED)


Advance = Callable[[timedelta], Awaitable[None]]


@pytest.fixture
def advance(clock: ManualClock, task_context: TaskContext, jobs: JobEngine) -> Advance:
    """Move the clock and run one dispatcher pass (due cycles run as jobs, at once in immediate mode)."""

    async def move(delta: timedelta) -> None:
        clock.advance(delta)
        await dispatch_once(task_context)
        jobs.drain()

    return move


async def events(runtime: Runtime, name: str | None = None) -> list[dict[str, Any]]:
    async with runtime.db.transaction(write=False) as session:
        rows = await events_service.events_after(session, 0, 1000)
    return [{"name": r.name, "team_id": r.team_id, **r.payload} for r in rows if name in (None, r.name)]


def failing(jobs: JobEngine, source: str = "tiktok") -> None:
    """Every call to ``source`` fails from now on in the jobs (REELSCOPE_SANDBOX_FAILURES, rate 1)."""
    jobs.settings = jobs.settings.model_copy(update={"sandbox_failures": f"{source}:1.0"})


def healthy(jobs: JobEngine) -> None:
    jobs.settings = jobs.settings.model_copy(update={"sandbox_failures": ""})


Track = Callable[..., Awaitable[httpx.Response]]

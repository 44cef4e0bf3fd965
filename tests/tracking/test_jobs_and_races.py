"""Tracking under concurrent requests (spec §7 ``conflict``) and its scheduled jobs: on SQLite and
PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import func, select

from reelscope.models import Job, TrackedItem
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey
from tests.tracking.conftest import Advance, creator_handle

pytestmark = pytest.mark.both_databases


async def test_simultaneous_identical_creations_make_one_item_and_conflicts(
    client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime
) -> None:
    """Both requests pass the "already tracked?" check before either commits; the unique constraint
    decides, and the loser is a 409 ``conflict`` (not billed), never a 500."""
    body = {"platform": "tiktok", "handle": creator_handle(0)}
    responses = await asyncio.gather(
        *(client.post("/v1/tracking/creators", json=body, headers=team.headers) for _ in range(3))
    )
    statuses = Counter(response.status_code for response in responses)
    assert statuses == {201: 1, 409: 2}, [response.text for response in responses]
    for response in responses:
        if response.status_code == 409:
            assert response.json()["code"] == "conflict" and response.headers["X-Cost"] == "0.00"
    async with runtime.db.transaction(write=False) as session:
        count = await session.scalar(select(func.count()).select_from(TrackedItem))
    assert count == 1


async def test_scheduled_cycles_carry_the_poll_url_and_event_of_the_first(
    client: httpx.AsyncClient, team: TeamKey, jobs: JobEngine, runtime: Runtime, advance: Advance
) -> None:
    """§2.6: every cycle job of an item is listed alike in pending_jobs, the scheduled ones too."""
    created = await client.post(
        "/v1/tracking/creators",
        json={"platform": "tiktok", "handle": creator_handle(0)},
        headers=team.headers,
    )
    item_id = created.json()["data"]["id"]
    await advance(timedelta(days=1))
    async with runtime.db.transaction(write=False) as session:
        cycles = (
            (await session.execute(select(Job).where(Job.resource_id == item_id).order_by(Job.created_at)))
            .scalars()
            .all()
        )
    assert len(cycles) == 2 and "schedule_id" in cycles[1].params
    assert {(job.poll_url, job.webhook_event) for job in cycles} == {
        (f"/v1/tracking/creators/{item_id}/report", "tracking.cycle.completed")
    }

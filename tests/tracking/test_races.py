"""Tracking under concurrent requests (spec §7 ``conflict``): on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
import pytest
from sqlalchemy import func, select

from reelscope.models import TrackedItem
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey
from tests.tracking.conftest import creator_handle

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

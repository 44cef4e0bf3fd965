"""Reads of a tracked item stay bounded as its job history grows (ARCHITECTURE §9): a detail, a change
and the audience parts load only the item's unfinished jobs and at most one completed audience job."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import event

from reelscope.audience import service as audience_service
from reelscope.kit.clock import ManualClock
from reelscope.models import Job
from reelscope.runtime import Runtime
from reelscope.tracking import service as tracking_service
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.queue import SENDER_KEY
from tests.conftest import TeamKey
from tests.tracking.conftest import creator_handle
from tests.tracking.test_endpoints import track
from tests.worker.test_recovery import LostSender

pytestmark = pytest.mark.both_databases

HISTORY = 6


@pytest.fixture
def loaded() -> Iterator[list[str]]:
    """The ids of every jobs row the ORM loads while the test runs."""
    ids: list[str] = []

    def on_load(target: Job, _context: Any) -> None:
        ids.append(target.id)

    event.listen(Job, "load", on_load)
    yield ids
    event.remove(Job, "load", on_load)


async def finished_history(runtime: Runtime, clock: ManualClock, team: TeamKey, item_id: str) -> None:
    """``HISTORY`` completed cycles and audience snapshots of the item, as a long-tracked item has."""
    async with runtime.db.transaction() as session:
        session.sync_session.info[SENDER_KEY] = LostSender()
        for n in range(HISTORY):
            for task, kind in ((tracking_service.CYCLE_TASK, "tracking_report"),
                               (audience_service.SNAPSHOT_TASK, audience_service.JOB_TYPE)):  # fmt: skip
                job = await jobs_service.create(
                    session,
                    task=task,
                    type=kind,
                    at=clock.now(),
                    team_id=team.team_id,
                    resource_type=tracking_service.RESOURCE,
                    resource_id=item_id,
                    params={"item_id": item_id, "platform": "tiktok", "handle": "h"},
                )
                job.status, job.finished_at, job.next_attempt_at = "completed", clock.now(), None
                job.result = {"n": n, "sample_size": n}
            clock.advance(timedelta(seconds=1))


async def test_item_reads_load_no_finished_history(
    client: httpx.AsyncClient,
    team: TeamKey,
    jobs: JobEngine,
    runtime: Runtime,
    clock: ManualClock,
    loaded: list[str],
) -> None:
    item = await track(client, team, creator_handle(0))
    await finished_history(runtime, clock, team, item["id"])
    base = f"/v1/tracking/creators/{item['id']}"
    loaded.clear()
    detail = await client.get(base, headers=team.headers)
    assert detail.status_code == 200 and detail.json()["data"]["pending_jobs"] == []
    changed = await client.patch(base, json={"cadence": "weekly"}, headers=team.headers)
    assert changed.status_code == 200, changed.text
    assert loaded == []  # no completed cycle or snapshot is read to say nothing is pending
    geography = await client.get(base + "/audience-geography", headers=team.headers)
    assert geography.status_code == 200, geography.text
    assert geography.json()["data"]["sample_size"] == HISTORY - 1  # the latest completed snapshot
    assert len(loaded) == 1

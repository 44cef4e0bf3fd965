"""The §2.6 async envelope for every job status: ``finalized`` and ``pending_jobs``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from reelscope.kit.clock import ManualClock
from reelscope.models import Job
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.jobs.schemas import AsyncState
from reelscope.worker.queue import SENDER_KEY, Message
from tests.conftest import TeamKey
from tests.worker.test_recovery import LostSender

NOW = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)
CREATED = NOW - timedelta(minutes=5)


def job(status: str, **overrides: Any) -> Job:
    fields: dict[str, Any] = {
        "id": f"job-{status}",
        "task": "test.credit",
        "type": "viral_analysis",
        "status": status,
        "attempts": 0,
        "max_attempts": 3,
        "params": {},
        "charged_credits": 0,
        "expires_at": CREATED + timedelta(hours=2),
        "next_attempt_at": CREATED,
        "created_at": CREATED,
        "updated_at": CREATED,
    }
    fields.update(overrides)
    return Job(**fields)


def wire(state: AsyncState) -> dict[str, Any]:
    return state.model_dump(mode="json")


class TestFinalized:
    def test_a_resource_without_jobs_is_finalized(self) -> None:
        assert wire(jobs_service.render([], now=NOW)) == {"finalized": True, "pending_jobs": []}

    def test_a_resource_whose_main_job_runs_is_not_finalized_even_without_secondary_jobs(self) -> None:
        state = jobs_service.render([job("completed")], now=NOW, resource_done=False)
        assert wire(state) == {"finalized": False, "pending_jobs": []}

    def test_completed_jobs_are_not_listed_and_finalize_the_resource(self) -> None:
        state = jobs_service.render([job("completed", finished_at=NOW)], now=NOW)
        assert wire(state) == {"finalized": True, "pending_jobs": []}


class TestEntries:
    def test_pending_lists_the_known_fields_only(self) -> None:
        state = jobs_service.render([job("pending")], now=NOW)
        assert wire(state) == {
            "finalized": False,
            "pending_jobs": [
                {
                    "type": "viral_analysis",
                    "status": "pending",
                    "job_id": "job-pending",
                    "retry_after_seconds": 15,
                }
            ],
        }

    def test_processing_carries_started_at_and_the_family_links(self) -> None:
        running = job(
            "processing",
            attempts=1,
            started_at=NOW - timedelta(seconds=90),
            poll_url="/v1/audience/snapshot/job-processing",
            result_path="/data/audience_demographics",
            webhook_event="audience.snapshot.completed",
        )
        assert wire(jobs_service.render([running], now=NOW))["pending_jobs"] == [
            {
                "type": "viral_analysis",
                "status": "processing",
                "job_id": "job-processing",
                "poll_url": "/v1/audience/snapshot/job-processing",
                "result_path": "/data/audience_demographics",
                "webhook_event": "audience.snapshot.completed",
                "started_at": "2026-11-21T11:59:00Z",
                "retry_after_seconds": 15,
            }
        ]

    def test_failed_with_a_retry_ahead_suggests_polling_when_it_is_due(self) -> None:
        retrying = job("failed", attempts=1, started_at=CREATED, next_attempt_at=NOW + timedelta(seconds=100))
        [entry] = wire(jobs_service.render([retrying], now=NOW))["pending_jobs"]
        assert (entry["status"], entry["retry_after_seconds"]) == ("failed", 100)

    def test_failed_for_good_stays_listed_as_failed_until_its_window_ends(self) -> None:
        given_up = job("failed", attempts=3, started_at=CREATED, next_attempt_at=None, finished_at=CREATED)
        state = jobs_service.render([given_up], now=NOW)
        assert state.finalized is False
        [entry] = wire(state)["pending_jobs"]
        assert (entry["status"], entry["retry_after_seconds"]) == ("failed", 115 * 60)

    @pytest.mark.parametrize("status", ["pending", "processing", "failed"])
    def test_past_the_window_a_job_leaves_pending_jobs_and_the_resource_is_finalized(
        self, status: str
    ) -> None:
        # §2.6: "A job that fails for good or never runs leaves pending_jobs after the retry window",
        # even before the dispatcher has marked the row expired
        overdue = job(status, expires_at=NOW)
        assert wire(jobs_service.render([overdue], now=NOW)) == {"finalized": True, "pending_jobs": []}
        assert wire(jobs_service.render([job("expired")], now=NOW)) == {"finalized": True, "pending_jobs": []}

    def test_an_expired_job_shows_as_expired_while_another_is_still_open(self) -> None:
        expired = job("expired", id="old", started_at=CREATED)
        open_job = job("pending", id="new", type="tracking_report")
        state = wire(jobs_service.render([expired, open_job], now=NOW))
        assert state["finalized"] is False
        assert state["pending_jobs"] == [
            {
                "type": "viral_analysis",
                "status": "expired",
                "job_id": "old",
                "started_at": "2026-11-21T11:55:30Z",
            },
            {"type": "tracking_report", "status": "pending", "job_id": "new", "retry_after_seconds": 15},
        ]


class TestFromTheDatabase:
    @pytest.mark.both_databases
    async def test_envelope_reads_a_resources_jobs_and_follows_them_to_finalized(
        self, runtime: Runtime, jobs: JobEngine, team: TeamKey, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction() as session:
            session.sync_session.info[SENDER_KEY] = LostSender()
            created = await jobs_service.create(
                session,
                task="test.credit",
                type="tracking_report",
                at=clock.now(),
                team_id=team.team_id,
                resource_type="tracked_creator",
                resource_id="c1",
                params={"team_id": team.team_id},
                webhook_event="tracking.cycle.completed",
            )
        async with runtime.db.transaction(write=False) as session:
            state = await jobs_service.envelope(
                session, "tracked_creator", "c1", now=clock.now(), team_id=team.team_id
            )
            other_team = await jobs_service.envelope(
                session, "tracked_creator", "c1", now=clock.now(), team_id="x"
            )
        assert [(e.job_id, e.status, e.webhook_event) for e in state.pending_jobs] == [
            (created.id, "pending", "tracking.cycle.completed")
        ]
        assert other_team.finalized is True and other_team.pending_jobs == []

        jobs.send([Message(task=created.task, job_id=created.id)])
        jobs.drain()
        async with runtime.db.transaction(write=False) as session:
            state = await jobs_service.envelope(session, "tracked_creator", "c1", now=clock.now())
        assert wire(state) == {"finalized": True, "pending_jobs": []}

    async def test_an_unknown_webhook_event_is_refused(
        self, runtime: Runtime, jobs: JobEngine, clock: ManualClock
    ) -> None:
        with pytest.raises(ValueError, match="not an event"):
            async with runtime.db.transaction() as session:
                await jobs_service.create(
                    session, task="test.where", type="x", at=clock.now(), webhook_event="agent.finished"
                )

"""Audience snapshots of tracked creators: a $0.50 job that samples commenters (analysis/audience.py),
kept 24 hours for ``GET /v1/audience/snapshot/{job_id}`` (spec §4.7, §6.3; ADR 0023).

The job belongs to the tracked item (``resource_type`` tracked_item), so a pending snapshot shows in
the item's ``pending_jobs`` with ``webhook_event`` audience.snapshot.completed (§2.6). A snapshot that
finds no commenter (``profile_only``) is refunded when it completes; one that fails for good is refunded
by the jobs service and sends nothing.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis.audience import infer
from reelscope.audience.schemas import AudienceJobOut, AudiencePart
from reelscope.kit.clock import as_utc, iso
from reelscope.kit.errors import NotFound
from reelscope.models import Job, TrackedItem
from reelscope.worker.jobs import service as jobs_service

SNAPSHOT_TASK = "audience.snapshot"
JOB_TYPE = "audience_demographics"  # §2.6 pending_jobs type (one job infers demographics and geography)
EVENT = "audience.snapshot.completed"
RESOURCE = "tracked_item"
KEPT = timedelta(hours=24)  # §4.7: results kept 24 hours
NOBODY_SAMPLED = {
    key: value
    for key, value in infer([]).as_dict().items()
    if key in ("sample_size", "confidence_per_signal", "confidence_level", "signal_breakdown")
}


def snapshot_path(job_id: str) -> str:
    return f"/v1/audience/snapshot/{job_id}"


async def start(session: AsyncSession, item: TrackedItem, charged: int, now: datetime) -> AudienceJobOut:
    job = await jobs_service.create(
        session,
        task=SNAPSHOT_TASK,
        type=JOB_TYPE,
        at=now,
        team_id=item.team_id,
        resource_type=RESOURCE,
        resource_id=item.id,
        params={"item_id": item.id, "platform": item.platform, "handle": item.handle or item.target},
        charged_credits=charged,
        webhook_event=EVENT,
    )
    job.poll_url = snapshot_path(job.id)
    return render(job, now)


async def job_of_item(session: AsyncSession, item: TrackedItem, job_id: str, now: datetime) -> AudienceJobOut:
    job = await session.get(Job, job_id)
    if job is None or job.task != SNAPSHOT_TASK or job.resource_id != item.id or job.team_id != item.team_id:
        raise NotFound("Audience job not found")
    return render(job, now)


async def snapshot(session: AsyncSession, team_id: str, job_id: str, now: datetime) -> AudienceJobOut:
    """Any audience job of the team; a completed one for 24 hours after it completed."""
    job = await session.get(Job, job_id)
    if job is None or job.task != SNAPSHOT_TASK or job.team_id != team_id:
        raise NotFound("Audience snapshot not found")
    if job.finished_at is not None and as_utc(job.finished_at) + KEPT <= now:
        raise NotFound("Audience snapshot expired (results are kept 24 hours)")
    return render(job, now)


def render(job: Job, now: datetime) -> AudienceJobOut:
    status = jobs_service.effective_status(job, now)
    done = status == jobs_service.COMPLETED and isinstance(job.result, dict)
    return AudienceJobOut(
        snapshot_id=job.id,
        tracking_id=job.resource_id,
        platform=str(job.params.get("platform", "")),
        handle=str(job.params.get("handle", "")),
        status=status,
        poll_url=job.poll_url or snapshot_path(job.id),
        created_at=iso(job.created_at) or "",
        completed_at=iso(job.finished_at),
        expires_at=iso(as_utc(job.finished_at) + KEPT) if job.finished_at and done else None,
        error=job.error,
        snapshot=job.result if done else None,
    )


async def part(
    session: AsyncSession, item: TrackedItem, which: Literal["demographics", "geography"], now: datetime
) -> AudiencePart:
    """The latest completed snapshot's ``which`` part, and the audience jobs still open."""
    latest = await jobs_service.latest_completed_for_resource(
        session, RESOURCE, item.id, team_id=item.team_id, task=SNAPSHOT_TASK
    )
    pending = await jobs_service.unfinished_for_resource(
        session, RESOURCE, item.id, team_id=item.team_id, task=SNAPSHOT_TASK
    )
    state = jobs_service.render(pending, now=now)
    result: dict[str, Any] = latest.result if latest is not None and isinstance(latest.result, dict) else {}
    # every read carries a sample size and its confidence (issue 28): before the first snapshot nobody
    # was sampled, so the sample is 0 and the confidence nil, as a snapshot that found no one says
    sampled = {**NOBODY_SAMPLED, **result}
    return AudiencePart(
        tracking_id=item.id,
        snapshot_id=latest.id if latest else None,
        generated_at=iso(latest.finished_at) if latest else None,
        sample_size=sampled["sample_size"],
        data_source=result.get("data_source"),
        confidence_per_signal=sampled["confidence_per_signal"],
        confidence_level=sampled["confidence_level"],
        signal_breakdown=sampled["signal_breakdown"],
        demographics=result.get("demographics") if which == "demographics" else None,
        geography=result.get("geography") if which == "geography" else None,
        finalized=state.finalized,
        pending_jobs=state.pending_jobs,
    )

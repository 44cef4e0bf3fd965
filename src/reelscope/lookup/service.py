"""Satellite lookups (spec §4.7, §3, §6.3, §8.3, §8.4): start a lookup or find it cached, and read runs.

A creator, sound or hashtag lookup is a ``lookup_runs`` row (durable, never expires) driven by a jobs row
(``lookup.run`` in tasks.py). A repeat of the same lookup by the same team within 6 hours returns the
earlier run, uncharged, with ``cached: true``, and sends no webhook (§4.7, §6.3). A video outlier is a
jobs row alone: its result is not persisted and its status is 404 once 24 hours have passed (§4.7).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.auth.service import Principal
from reelscope.kit.clock import iso
from reelscope.kit.errors import NotFound
from reelscope.kit.ids import new_id
from reelscope.kit.platforms import Platform
from reelscope.lookup import repository
from reelscope.lookup.schemas import (
    BatchBody,
    BatchEntry,
    BatchOut,
    LookupJob,
    RunDetail,
    RunList,
    RunSummary,
    RunVideos,
)
from reelscope.models import Job, LookupBatch, LookupRun
from reelscope.worker.jobs import service as jobs_service

CACHE_FOR = timedelta(hours=6)  # §4.7, §8.3 "Lookup result cache: 6 hours for repeats"
POLL_CACHE_FOR = timedelta(hours=24)  # §4.7 video outlier, §8.3 "status poll cache 24 hours"
# §8.4: creator lookups take 20-60 s (60-120 with trend_analysis), sound and hashtag lookups up to 20 min
RETRY_WINDOW = timedelta(minutes=30)
MAX_ATTEMPTS = 3
RUN_TASK = "lookup.run"
VIDEO_OUTLIER_TASK = "lookup.video_outlier"
WEBHOOK_EVENT = "satellite.lookup.completed"
RESOURCE = "lookup_run"
PROCESSING, COMPLETED, FAILED = "processing", "completed", "failed"
STALLED = {"code": "lookup_stalled", "message": "The lookup did not finish within its retry window"}

POLL_PATHS = {
    "creator_lookup": "/v1/satellite/creator/status/{job_id}",
    "sound_lookup": "/v1/satellite/sounds/status/{job_id}",
    "hashtag_lookup": "/v1/satellite/hashtags/status/{job_id}",
    "video_outlier": "/v1/satellite/video-outlier/status/{job_id}",
}


@dataclass(frozen=True)
class Lookup:
    """What to look up: the type, where, whom or what, and the options (echoed by the webhook)."""

    type: str
    platform: Platform
    target: str
    options: dict[str, Any]

    @property
    def request(self) -> dict[str, Any]:
        target_name = {"creator_lookup": "username", "sound_lookup": "music_id", "hashtag_lookup": "hashtag"}
        return {target_name[self.type]: self.target, **self.options}

    @property
    def cache_key(self) -> str:
        """Two lookups are the same when type, platform, target (handles and tags in any case, without
        ``@``/``#``) and every option are."""
        target = self.target if self.type == "sound_lookup" else self.target.strip().lstrip("@#").lower()
        options = json.dumps(self.options, sort_keys=True, separators=(",", ":"))
        return f"{self.type}|{self.platform.value}|{target}|{options}"


@dataclass(frozen=True)
class Started:
    run: LookupRun
    job: Job | None
    cached: bool


async def start(
    session: AsyncSession,
    principal: Principal,
    lookup: Lookup,
    *,
    price: int,
    now: datetime,
    batch_id: str | None = None,
) -> Started:
    """The run of ``lookup``: the team's same lookup of the last 6 hours if there is one (cached), else a
    new run and its job, sent when the request commits. ``price`` is what the run was charged, refunded
    if it fails (§3, ARCHITECTURE §3)."""
    earlier = await repository.cached_run(session, principal.team_id, lookup.cache_key, now - CACHE_FOR)
    if earlier is not None:
        # a run whose job gave up (expired, lost worker) is still ``processing`` in its row, but a client
        # sees it failed: that is no result to serve as a cached repeat, so the lookup runs again
        earlier_job = (await repository.jobs_by_id(session, principal.team_id, [earlier.job_id])).get(
            earlier.job_id
        )
        if _effective(earlier, earlier_job, now)[0] != FAILED:
            return Started(run=earlier, job=earlier_job, cached=True)
    run_id = new_id()
    job = await jobs_service.create(
        session,
        task=RUN_TASK,
        type=lookup.type,
        at=now,
        team_id=principal.team_id,
        resource_type=RESOURCE,
        resource_id=run_id,
        params={"run_id": run_id},
        max_attempts=MAX_ATTEMPTS,
        retry_window=RETRY_WINDOW,
        charged_credits=price,
        webhook_event=WEBHOOK_EVENT,
    )
    job.poll_url = POLL_PATHS[lookup.type].format(job_id=job.id)
    run = LookupRun(
        id=run_id,
        team_id=principal.team_id,
        user_id=principal.user_id,
        type=lookup.type,
        platform=lookup.platform.value,
        target=lookup.target,
        cache_key=lookup.cache_key,
        request=lookup.request,
        status=PROCESSING,
        job_id=job.id,
        batch_id=batch_id,
        video_count=0,
        charged_credits=price,
        created_at=now,
    )
    repository.add(session, run)
    await session.flush()
    return Started(run=run, job=job, cached=False)


def _effective(run: LookupRun, job: Job | None, now: datetime) -> tuple[str, dict[str, Any] | None]:
    """The run's status and error as a client sees them: a run whose job gave up without finishing
    it (a stalled lookup, §6.3: no webhook) shows ``failed``."""
    if run.status != PROCESSING or job is None:
        return run.status, run.error
    status = jobs_service.effective_status(job, now)
    given_up = status == "expired" or (status == "failed" and job.next_attempt_at is None)
    if given_up:
        return FAILED, job.error or STALLED
    return PROCESSING, None


def view(run: LookupRun, job: Job | None, *, now: datetime, cached: bool = False) -> LookupJob:
    status, error = _effective(run, job, now)
    return LookupJob(
        job_id=run.job_id,
        run_id=run.id,
        type=run.type,
        platform=Platform(run.platform),
        target=run.target,
        status=status,
        cached=cached,
        request=run.request,
        poll_url=POLL_PATHS[run.type].format(job_id=run.job_id),
        retry_after_seconds=jobs_service.DEFAULT_POLL_SECONDS if status == PROCESSING else None,
        created_at=iso(run.created_at) or "",
        started_at=iso(run.started_at),
        completed_at=iso(run.completed_at),
        result=run.result if status == COMPLETED else None,
        error=error,
        finalized=status != PROCESSING,  # §2.6: a lookup has no secondary jobs
        pending_jobs=[],
    )


async def started_view(session: AsyncSession, started: Started, now: datetime) -> LookupJob:
    job = started.job
    if job is None:
        job = (await repository.jobs_by_id(session, started.run.team_id, [started.run.job_id])).get(
            started.run.job_id
        )
    return view(started.run, job, now=now, cached=started.cached)


async def status(session: AsyncSession, team_id: str, type: str, job_id: str, now: datetime) -> LookupJob:
    """A lookup's status by its job id; another team's, or another type's, is 404 (§5.4)."""
    run = await repository.run_of_job(session, team_id, job_id, type)
    if run is None:
        raise NotFound("No such lookup job")
    job = (await repository.jobs_by_id(session, team_id, [job_id])).get(job_id)
    return view(run, job, now=now)


# --- batches ----------------------------------------------------------------------------------------


async def start_batch(
    session: AsyncSession, principal: Principal, body: BatchBody, *, per_creator: int, now: datetime
) -> tuple[BatchOut, int]:
    """One creator lookup per creator (one named twice is looked up once) and the credits to charge:
    ``per_creator`` for each one not served from the 6-hour cache (§4.7 "cached repeats free")."""
    batch_id = new_id()
    options = body.options().model_dump(mode="json")
    entries: list[dict[str, Any]] = []
    views: list[BatchEntry] = []
    charged = 0
    seen: dict[str, Started] = {}
    for platform, handle in body.targets():
        lookup = Lookup("creator_lookup", platform, handle, options)
        started = seen.get(lookup.cache_key)
        if started is None:
            started = await start(session, principal, lookup, price=per_creator, now=now, batch_id=batch_id)
            seen[lookup.cache_key] = started
            charged += 0 if started.cached else per_creator
        entries.append({"handle": handle, "run_id": started.run.id, "cached": started.cached})
        lookup_view = await started_view(session, started, now)
        views.append(BatchEntry(platform=platform, handle=handle, cached=started.cached, lookup=lookup_view))
    out = _batch_out(batch_id, views)
    repository.add(
        session,
        LookupBatch(
            id=batch_id,
            team_id=principal.team_id,
            platform=out.platform.value if out.platform else None,
            request=body.model_dump(mode="json"),
            entries=entries,
            created_at=now,
        ),
    )
    return out, charged


async def batch(session: AsyncSession, team_id: str, batch_id: str, now: datetime) -> BatchOut:
    found = await repository.batch(session, team_id, batch_id)
    if found is None:
        raise NotFound("No such batch")
    runs = await repository.runs_by_id(session, team_id, [entry["run_id"] for entry in found.entries])
    jobs = await repository.jobs_by_id(session, team_id, [run.job_id for run in runs.values()])
    views = [
        BatchEntry(
            platform=Platform(runs[entry["run_id"]].platform),
            handle=entry["handle"],
            cached=entry["cached"],
            lookup=view(
                runs[entry["run_id"]], jobs.get(runs[entry["run_id"]].job_id), now=now, cached=entry["cached"]
            ),
        )
        for entry in found.entries
        if entry["run_id"] in runs
    ]
    return _batch_out(found.id, views)


def _batch_out(batch_id: str, views: Sequence[BatchEntry]) -> BatchOut:
    """The batch as its routes show it: its platform is its creators' one, null when they are on
    several; done (§2.6 ``finalized``) once every lookup is."""
    completed = sum(entry.lookup.status == COMPLETED for entry in views)
    failed = sum(entry.lookup.status == FAILED for entry in views)
    if completed + failed < len(views):
        state = "processing"
    elif failed == 0:
        state = "completed"
    else:
        state = "failed" if completed == 0 else "partial_failure"
    platforms = {entry.platform for entry in views}
    return BatchOut(
        batch_id=batch_id,
        platform=platforms.pop() if len(platforms) == 1 else None,
        status=state,
        total=len(views),
        completed=completed,
        failed=failed,
        creators=list(views),
        finalized=state != "processing",
        pending_jobs=[],
    )


# --- past runs (§8.3) -------------------------------------------------------------------------------


def _summary_fields(run: LookupRun, job: Job | None, now: datetime) -> dict[str, Any]:
    status, error = _effective(run, job, now)
    return {
        "run_id": run.id,
        "job_id": run.job_id,
        "type": run.type,
        "platform": run.platform,
        "target": run.target,
        "status": status,
        "request": run.request,
        "video_count": run.video_count,
        "batch_id": run.batch_id,
        "created_at": iso(run.created_at),
        "started_at": iso(run.started_at),
        "completed_at": iso(run.completed_at),
        "error": error,
        "finalized": status != PROCESSING,
        "pending_jobs": [],
    }


async def runs(
    session: AsyncSession, team_id: str, *, type: str | None, offset: int, limit: int, now: datetime
) -> RunList:
    rows, total = await repository.runs(session, team_id, type=type, offset=offset, limit=limit)
    jobs = await repository.jobs_by_id(session, team_id, [row.job_id for row in rows])
    return RunList(
        runs=[RunSummary.model_validate(_summary_fields(row, jobs.get(row.job_id), now)) for row in rows],
        total=total,
        limit=limit,
        offset=offset,
        has_more=offset + len(rows) < total,
    )


async def _run_or_404(session: AsyncSession, team_id: str, run_id: str) -> LookupRun:
    run = await repository.run(session, team_id, run_id)
    if run is None:
        raise NotFound("No such run")
    return run


async def run_detail(session: AsyncSession, team_id: str, run_id: str, now: datetime) -> RunDetail:
    run = await _run_or_404(session, team_id, run_id)
    job = (await repository.jobs_by_id(session, team_id, [run.job_id])).get(run.job_id)
    fields = _summary_fields(run, job, now)
    return RunDetail.model_validate(
        {**fields, "result": run.result if fields["status"] == COMPLETED else None}
    )


async def run_videos(
    session: AsyncSession, team_id: str, run_id: str, *, offset: int, limit: int
) -> RunVideos:
    """The videos a completed lookup returned, in its order (none while it runs or after it failed)."""
    run = await _run_or_404(session, team_id, run_id)
    videos: list[dict[str, Any]] = list((run.result or {}).get("videos", []))
    page = videos[offset : offset + limit]
    return RunVideos(
        run_id=run.id,
        videos=page,
        total=len(videos),
        limit=limit,
        offset=offset,
        has_more=offset + len(page) < len(videos),
    )


# --- video outlier (§4.7: not persisted, 24-hour poll cache) -----------------------------------------


async def start_video_outlier(
    session: AsyncSession,
    principal: Principal,
    *,
    platform: Platform,
    video_id: str,
    url: str | None = None,
    threshold: float,
    price: int,
    now: datetime,
) -> LookupJob:
    request: dict[str, Any] = {"video_id": video_id, "outlier_threshold": threshold}
    if url is not None:
        request["url"] = url  # §6.3 echoes the request as sent
    job = await jobs_service.create(
        session,
        task=VIDEO_OUTLIER_TASK,
        type="video_outlier",
        at=now,
        team_id=principal.team_id,
        params={"platform": platform.value, "user_id": principal.user_id, "request": request},
        max_attempts=MAX_ATTEMPTS,
        retry_window=RETRY_WINDOW,
        charged_credits=price,
        webhook_event=WEBHOOK_EVENT,
    )
    job.poll_url = POLL_PATHS["video_outlier"].format(job_id=job.id)
    await session.flush()
    return video_outlier_view(job, now)


def video_outlier_view(job: Job, now: datetime) -> LookupJob:
    status = jobs_service.effective_status(job, now)
    if status == "completed":
        shown, error = COMPLETED, None
    elif status == "expired" or (status == "failed" and job.next_attempt_at is None):
        shown, error = FAILED, job.error or STALLED
    else:
        shown, error = PROCESSING, None
    params = job.params or {}
    return LookupJob(
        job_id=job.id,
        run_id=job.id,
        type="video_outlier",
        platform=Platform(params["platform"]),
        target=params["request"]["video_id"],
        status=shown,
        cached=False,
        request=params["request"],
        poll_url=POLL_PATHS["video_outlier"].format(job_id=job.id),
        retry_after_seconds=jobs_service.DEFAULT_POLL_SECONDS if shown == PROCESSING else None,
        created_at=iso(job.created_at) or "",
        started_at=iso(job.started_at),
        completed_at=iso(job.finished_at) if shown != PROCESSING else None,
        result=job.result if shown == COMPLETED else None,
        error=error,
        finalized=shown != PROCESSING,
        pending_jobs=[],
    )


async def video_outlier_status(session: AsyncSession, team_id: str, job_id: str, now: datetime) -> LookupJob:
    """404 for another team's job, and once the poll cache's 24 hours have passed since it finished."""
    job = await repository.job(session, team_id, job_id, "video_outlier")
    if job is None or (job.finished_at or job.expires_at) + POLL_CACHE_FOR <= now:
        raise NotFound("No such video outlier job (results are kept 24 hours)")
    return video_outlier_view(job, now)

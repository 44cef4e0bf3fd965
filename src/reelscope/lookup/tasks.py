"""Lookup jobs (spec §3 "Lookup job", §6.3 ``satellite.lookup.completed``): collect through the
connectors, build the result, and finish the run.

A run ends in one transaction: ``completed`` with its result and the success event, or ``failed`` with
its error, the refund of what it was charged and the failure event (§3: "Same webhook with status
failed"). A connector error that may pass (5xx, timeouts, throttling) is retried while attempts last;
a missing creator, sound, hashtag or video fails at once. Collection holds no transaction.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import usage
from reelscope.collectors.base import Capability, ConnectorError
from reelscope.collectors.guard import SourceFailed, guarded
from reelscope.collectors.registry import build_sources
from reelscope.collectors.routing import Sources
from reelscope.events import service as events_service
from reelscope.events.schemas import ErrorInfo, LookupCompleted
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform
from reelscope.lookup import repository, results
from reelscope.lookup.schemas import DEPTH_VIDEOS, Depth
from reelscope.lookup.service import COMPLETED, FAILED, MAX_ATTEMPTS, PROCESSING, RUN_TASK, VIDEO_OUTLIER_TASK
from reelscope.models import LookupRun
from reelscope.worker import JobFailed, TaskContext, task

log = get_logger(__name__)

EVENT = "satellite.lookup.completed"
# the creator's norm is read from at least this many recent posts, whatever max_videos returns
NORM_POSTS = 50
TREND_POSTS = 100
AUDIENCE_VIDEOS, AUDIENCE_COMMENTS = 3, 100
VIDEO_OUTLIER_POSTS = 50


# a lookup fails as its source read did (collectors/guard.py), or for a reason of its own
LookupFailed = SourceFailed
_guarded = guarded


def _require(sources: Sources, capability: Capability, platform: Platform) -> None:
    """A lookup no enabled source can answer fails at once (not retried: configuration must change)."""
    if not sources.offers(capability, platform):
        raise LookupFailed("upstream_error", f"No data source serves {platform.value}", retryable=False)


async def _creator(
    sources: Sources,
    platform: Platform,
    target: str,
    options: dict[str, Any],
    now: datetime,
) -> dict[str, Any]:
    handle = target.strip().lstrip("@")
    _require(sources, Capability.CREATOR, platform)
    profile = await _guarded(sources.creator(platform, handle))
    wanted = max(options["max_videos"], TREND_POSTS if options.get("trend_analysis") else NORM_POSTS)
    posts = await _guarded(sources.creator_posts(platform, handle, limit=wanted))
    cross_platform = None
    if options.get("include_cross_platform"):
        cross_platform = []
        for other in sorted(set(Platform) - {platform}):
            if not sources.offers(Capability.CREATOR, other):
                continue
            try:
                found = await sources.creator(other, handle)
            except ConnectorError:
                continue  # not on that platform (or not reachable): no link
            cross_platform.append(
                {"platform": other.value, "handle": found.handle, "followers": found.followers}
            )
    audience = None
    if options.get("include_audience"):
        comments = []
        for video in sorted(posts, key=lambda v: -v.views)[:AUDIENCE_VIDEOS]:
            comments += await _guarded(sources.comments(platform, video.external_id, limit=AUDIENCE_COMMENTS))
        audience = results.audience_out(comments)
    return await asyncio.to_thread(
        results.creator_result,
        profile,
        posts,
        now=now,
        max_videos=options["max_videos"],
        include_videos=options["include_videos"],
        include_outliers=options["include_outliers"],
        outlier_threshold=options["outlier_threshold"],
        trend_analysis=bool(options.get("trend_analysis")),
        cross_platform=cross_platform,
        audience=audience,
    )


async def _collect(run: LookupRun, now: datetime, sources: Sources) -> dict[str, Any]:
    platform = Platform(run.platform)
    options = dict(run.request)
    if run.type == "creator_lookup":
        return await _creator(sources, platform, run.target, options, now)
    if run.type == "sound_lookup":
        _require(sources, Capability.SOUND, platform)
        sound = await _guarded(sources.sound(platform, run.target))
        videos = await _guarded(
            sources.sound_videos(platform, run.target, limit=max(options["max_videos"], 100))
        )
        return results.sound_result(
            sound, videos, now=now, max_videos=options["max_videos"], trend_analysis=options["trend_analysis"]
        )
    depth = Depth(options["depth"])
    _require(sources, Capability.HASHTAG_VIDEOS, platform)
    videos = await _guarded(
        sources.hashtag_videos(
            platform, run.target, sort=options["sort"], limit=max(options["max_videos"], DEPTH_VIDEOS[depth])
        )
    )
    if not videos:
        raise LookupFailed("not_found", f"No {platform.value} videos carry #{run.target}", retryable=False)
    return await asyncio.to_thread(
        results.hashtag_result,
        run.target,
        videos,
        now=now,
        depth=depth.value,
        sort=options["sort"],
        max_videos=options["max_videos"],
        trend_analysis=options["trend_analysis"],
    )


def _event(
    run: LookupRun, *, status: str, now: datetime, result: Any = None, error: dict[str, str] | None = None
) -> LookupCompleted:
    return LookupCompleted(
        run_id=run.id,
        team_id=run.team_id,
        user_id=run.user_id,
        status="success" if status == COMPLETED else "failed",
        type=run.type,
        platform=Platform(run.platform),
        started_at=run.started_at or run.created_at,
        completed_at=now,
        request=run.request,
        results=result,
        error=ErrorInfo(**error) if error else None,
    )


async def _fail(
    session: AsyncSession, run: LookupRun, job_id: str, error: dict[str, str], now: datetime
) -> None:
    """Failed for good: the error, the refund (the same reference the job engine uses, so it is given
    once) and the failure webhook, together."""
    run.status, run.error, run.completed_at = FAILED, error, now
    await usage.refund(session, run.team_id, run.charged_credits, f"job:{job_id}", now)
    await events_service.publish(
        session, EVENT, _event(run, status=FAILED, now=now, error=error), run.team_id, at=now
    )


@task(RUN_TASK)
async def run_lookup(ctx: TaskContext, *, run_id: str) -> dict[str, Any]:
    assert ctx.job is not None  # a lookup always runs as a jobs row
    async with ctx.db.transaction() as session:
        run = await repository.run_for_update(session, run_id)
        if run is None or run.status != PROCESSING:
            return {"run_id": run_id, "skipped": True}  # already finished: running twice changes nothing
        run.started_at = run.started_at or ctx.now()
    try:
        result = await _collect(run, ctx.now(), build_sources(ctx.settings, ctx.clock, ctx.db))
    except LookupFailed as exc:
        error = {"code": exc.code, "message": exc.message}
        if exc.retryable and ctx.job.attempt < MAX_ATTEMPTS:
            raise JobFailed(exc.code, exc.message, retry=True) from exc
        async with ctx.db.transaction() as session:
            current = await repository.run_for_update(session, run_id)
            if current is not None and current.status == PROCESSING:
                await ctx.hold(session)  # a lost attempt (the job expired meanwhile) announces nothing
                await _fail(session, current, ctx.job.id, error, ctx.now())
        log.info("lookup.failed", run_id=run_id, code=exc.code)
        raise JobFailed(exc.code, exc.message, retry=False) from exc
    now = ctx.now()
    async with ctx.db.transaction() as session:
        current = await repository.run_for_update(session, run_id)
        if current is None or current.status != PROCESSING:
            return {"run_id": run_id, "skipped": True}
        current.status, current.result, current.completed_at = COMPLETED, result, now
        current.video_count = len(result.get("videos", []))
        current.started_at = current.started_at or run.started_at
        await events_service.publish(
            session, EVENT, _event(current, status=COMPLETED, now=now, result=result), current.team_id, at=now
        )
        await ctx.complete(session, {"run_id": run_id, "videos": current.video_count})
    return {"run_id": run_id, "videos": current.video_count}


@task(VIDEO_OUTLIER_TASK)
async def video_outlier(
    ctx: TaskContext, *, platform: str, user_id: str, request: dict[str, Any]
) -> dict[str, Any]:
    """§4.7: how far one video sits above its creator's norm. The result lives on the jobs row only."""
    job = ctx.job
    assert job is not None and job.team_id is not None
    started = ctx.now()
    where = Platform(platform)
    try:
        sources = build_sources(ctx.settings, ctx.clock, ctx.db)
        _require(sources, Capability.VIDEO, where)
        video = await _guarded(sources.video(where, request["video_id"]))
        posts = []
        if video.creator is not None:
            posts = await _guarded(
                sources.creator_posts(where, video.creator.handle, limit=VIDEO_OUTLIER_POSTS)
            )
        result = results.video_outlier_result(video, posts, threshold=request["outlier_threshold"])
    except LookupFailed as exc:
        if exc.retryable and job.attempt < MAX_ATTEMPTS:
            raise JobFailed(exc.code, exc.message, retry=True) from exc
        error = {"code": exc.code, "message": exc.message}
        now = ctx.now()
        async with ctx.db.transaction() as session:
            # an attempt that lost the job (its lease reclaimed, the job expired) announces nothing
            await ctx.hold(session)
            await usage.refund(session, job.team_id, job.charged_credits, f"job:{job.id}", now)
            payload = LookupCompleted(
                run_id=job.id,
                team_id=job.team_id,
                user_id=user_id,
                status="failed",
                type="video_outlier",
                platform=where,
                started_at=started,
                completed_at=now,
                request=request,
                error=ErrorInfo(**error),
            )
            await events_service.publish(session, EVENT, payload, job.team_id, at=now)
        raise JobFailed(exc.code, exc.message, retry=False) from exc
    now = ctx.now()
    async with ctx.db.transaction() as session:
        payload = LookupCompleted(
            run_id=job.id,
            team_id=job.team_id,
            user_id=user_id,
            status="success",
            type="video_outlier",
            platform=where,
            started_at=started,
            completed_at=now,
            request=request,
            results=result,
        )
        await events_service.publish(session, EVENT, payload, job.team_id, at=now)
        await ctx.complete(session, result)
    return result

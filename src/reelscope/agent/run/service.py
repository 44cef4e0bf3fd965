"""One agent run (spec §3, §4.4, §6.3): begin (and, for a recurring agent, debit the run), collect, store,
finish; then the run-level AI analysis, after which a successful run's webhook fires.

    pending ──begin──▶ processing ──store──▶ completed | partial_failure ──analysis job──▶ webhook (success)
       │                    └──every target failed──▶ failed (refunded, webhook failed)
       └──balance cannot cover a recurring run──▶ failed, error insufficient_credits (never started)

Each step is one transaction; collection holds none. A repeated job is harmless: a terminal run is left
as it is, a run already processing is not debited again, links and analytics are upserts.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import affinity as agent_affinity
from reelscope.agent import analysis as agent_analysis
from reelscope.agent import hooks as agent_hooks
from reelscope.agent import intelligence as agent_intelligence
from reelscope.agent import repository, writing
from reelscope.agent import service as agent_service
from reelscope.agent.autopilot import service as autopilot_service
from reelscope.agent.run import collect, metrics
from reelscope.billing import service as billing_service
from reelscope.billing import usage
from reelscope.catalog import service as catalog_service
from reelscope.collectors.base import VideoRecord
from reelscope.collectors.routing import Sources
from reelscope.events import schemas as events
from reelscope.events import service as events_service
from reelscope.events.catalogue import EventName
from reelscope.kit.errors import InsufficientCredits
from reelscope.kit.logging import get_logger
from reelscope.kit.metrics import CREDITS_CHARGED
from reelscope.kit.platforms import Platform
from reelscope.llm import client as llm_client
from reelscope.models import (
    Agent,
    AgentAd,
    AgentCreator,
    AgentHashtag,
    AgentRun,
    AgentSlideshow,
    AgentSound,
    AgentVideo,
    Video,
)
from reelscope.rate_limit.features import feature_of
from reelscope.worker import TaskContext
from reelscope.worker.jobs import service as jobs_service

log = get_logger(__name__)

# the run-level secondary job's retry window (§2.6): past it the run is finalized without an analysis
ANALYSIS_WINDOW = timedelta(hours=1)
# the ledger's operation of a recurring agent's scheduled run, debited by the worker (§4.4)
SCHEDULED_RUN = "agent_scheduled_run"


async def execute(ctx: TaskContext, run_id: str, sources: Sources) -> dict[str, Any]:
    """The whole run; returns what it did (the job's result)."""
    started = time.perf_counter()
    async with ctx.db.transaction() as session:
        begun = await _begin(ctx, session, run_id)
        if isinstance(begun, dict):
            await ctx.complete(session, begun)
            return begun
        settings = begun
    now = ctx.now()
    results = await collect.collect_targets(sources, settings, now - settings.window, now)
    if not any(r.ok for r in results):  # every target failed (or none could be served)
        async with ctx.db.transaction() as session:
            outcome = await _fail(
                ctx,
                session,
                run_id,
                "collection_failed",
                "Every keyword and platform failed to collect",
                results,
            )
            await ctx.complete(session, outcome)
        return outcome
    filtered = collect.apply_filters(results, settings)
    videos = [record for record, _ in filtered.videos]
    posts = await collect.creator_posts(sources, collect.outlier_candidates(videos))
    found_outliers = collect.creator_outliers(videos, posts)
    async with ctx.db.transaction() as session:
        outcome = await _store(
            ctx, session, run_id, settings.window, results, filtered, posts, found_outliers, started
        )
        await ctx.complete(session, outcome)
    log.info("agent.run.collected", run_id=run_id, **{k: v for k, v in outcome.items() if isinstance(v, int)})
    return outcome


def settings_of(agent: Agent) -> collect.Settings:
    return collect.Settings(
        keywords=tuple(agent.keywords),
        exclude_keywords=tuple(agent.exclude_keywords),
        platforms=tuple(Platform(p) for p in agent.platforms),
        meta_ads_enabled=agent.meta_ads_enabled,
        language=agent.language,
        # §4.4 time_range: 30 days, widened by the autopilot after thin runs (ADR 0032)
        window=timedelta(days=autopilot_service.days_of(agent.time_range)),
    )


async def _begin(ctx: TaskContext, session: AsyncSession, run_id: str) -> collect.Settings | dict[str, Any]:
    """processing, after the recurring run's debit; or a result saying why nothing runs."""
    now = ctx.now()
    run = await repository.run_by_id(session, run_id)
    if run is None:
        return {"run_id": run_id, "skipped": "no such run"}
    if run.status in agent_service.TERMINAL:
        return {"run_id": run_id, "status": run.status}
    agent = await repository.get_agent_any_team(session, run.agent_id)
    if agent is None or agent.deleted_at is not None:
        run.status, run.completed_at = agent_service.FAILED, now
        run.error = {"code": "agent_deleted", "message": "The agent was deleted before the run started"}
        await _refund(session, run, now)
        return {"run_id": run_id, "status": run.status}
    if run.status == agent_service.PENDING and agent.is_recurring and run.charged_credits == 0:
        price = agent_service.run_price(agent)
        try:
            await billing_service.charge(
                session,
                agent.team_id,
                price,
                operation=SCHEDULED_RUN,
                reference=f"agent_run:{run.id}",
                at=now,
            )
        except InsufficientCredits as exc:
            # §4.4: a scheduled run the balance cannot cover does not start; the run list says why
            run.status, run.completed_at = agent_service.FAILED, now
            run.error = {"code": "insufficient_credits", "message": f"The run did not start: {exc.message}"}
            await _publish_failed(session, agent, run, now)
            return {"run_id": run_id, "status": run.status, "error": "insufficient_credits"}
        run.charged_credits = price
        # counted with the job's transaction still open: a job that then fails to commit is retried and
        # charged once (its reference), so the count may run one debit ahead, never behind
        CREDITS_CHARGED.labels(feature_of(SCHEDULED_RUN, ""), SCHEDULED_RUN).inc(price)
        if run.job_id is not None:
            await repository.set_job_charge(session, run.job_id, price)
    if run.status == agent_service.PENDING:
        run.status, run.started_at = agent_service.PROCESSING, now
    agent.last_run_at = now
    return settings_of(agent)


async def _refund(session: AsyncSession, run: AgentRun, now: datetime) -> None:
    if run.charged_credits > 0 and not run.refunded:
        await usage.refund(session, run.team_id, run.charged_credits, f"agent_run:{run.id}", now)
        run.refunded = True


async def _fail(
    ctx: TaskContext,
    session: AsyncSession,
    run_id: str,
    code: str,
    message: str,
    results: Sequence[collect.TargetResult],
) -> dict[str, Any]:
    now = ctx.now()
    run = await repository.run_by_id(session, run_id)
    assert run is not None
    agent = await repository.get_agent_any_team(session, run.agent_id)
    assert agent is not None
    run.status, run.completed_at = agent_service.FAILED, now
    run.targets = [r.summary() for r in results]
    run.error = {"code": code, "message": message}
    run.metrics = events.FailedRunMetrics().model_dump()
    await _refund(session, run, now)
    await _publish_failed(session, agent, run, now)
    return {"run_id": run_id, "status": run.status, "refunded": run.charged_credits if run.refunded else 0}


async def _store(
    ctx: TaskContext,
    session: AsyncSession,
    run_id: str,
    window: timedelta,
    results: Sequence[collect.TargetResult],
    filtered: collect.Filtered,
    posts: dict[tuple[Platform, str], list[VideoRecord]],
    found_outliers: Sequence[collect.CreatorOutlier],
    started: float,
) -> dict[str, Any]:
    """Catalog ingest, links, analytics, run metrics and the analysis job: one transaction."""
    now = ctx.now()
    run = await repository.run_by_id(session, run_id)
    assert run is not None
    agent = await repository.get_agent_any_team(session, run.agent_id)
    assert agent is not None
    videos = {
        catalog_service.catalog_id("video", r.platform.value, r.external_id): (r, k)
        for r, k in filtered.videos
    }
    video_ids = list(videos)
    known = await repository.existing_ids(session, Video, video_ids)
    extra_posts = [p for recent in posts.values() for p in recent]
    await catalog_service.ingest_videos(session, [r for r, _ in videos.values()] + extra_posts)
    slides = {
        catalog_service.catalog_id("slideshow", r.platform.value, r.external_id): (r, k)
        for r, k in filtered.slideshows
    }
    await catalog_service.ingest_slideshows(session, [r for r, _ in slides.values()], now)
    ads = {catalog_service.catalog_id("ad", r.external_id): (r, k) for r, k in filtered.ads}
    if agent.meta_ads_enabled:
        await catalog_service.ingest_ads(session, [r for r, _ in ads.values()])

    status = "disabled" if not agent.data_intelligence_enabled else "pending"
    linked_videos = await _link(
        session,
        AgentVideo,
        "video_id",
        agent.id,
        video_ids,
        {vid: record.views for vid, (record, _) in videos.items()},
        lambda vid: AgentVideo(
            agent_id=agent.id,
            video_id=vid,
            platform=videos[vid][0].platform.value,
            published_at=videos[vid][0].published_at,
            views=videos[vid][0].views,
            run_id=run.id,
            keyword=videos[vid][1],
            intelligence_status=status,
            linked_at=now,
        ),
    )
    await _link(
        session,
        AgentSlideshow,
        "slideshow_id",
        agent.id,
        list(slides),
        {sid: record.views for sid, (record, _) in slides.items()},
        lambda sid: AgentSlideshow(
            agent_id=agent.id,
            slideshow_id=sid,
            platform=slides[sid][0].platform.value,
            published_at=slides[sid][0].published_at,
            views=slides[sid][0].views,
            run_id=run.id,
            keyword=slides[sid][1],
            intelligence_status=status,
            linked_at=now,
        ),
    )
    linked_ads = 0
    if agent.meta_ads_enabled:
        linked_ads = await _link(
            session,
            AgentAd,
            "ad_id",
            agent.id,
            list(ads),
            None,
            lambda aid: AgentAd(
                agent_id=agent.id, ad_id=aid, run_id=run.id, keyword=ads[aid][1], linked_at=now
            ),
        )
    await session.flush()
    await refresh_analytics(session, agent, found_outliers, now)
    agent_affinity.prepare_later(session, agent)
    # §4.4: after each run of a recurring agent, the autopilot's changes (or proposals)
    facts = autopilot_service.run_facts([record for record, _ in filtered.videos], found_by_keyword(results))
    await autopilot_service.after_run(session, agent, run.id, facts, now)

    failed_targets = [r for r in results if not r.ok and not r.skipped]
    run.status = agent_service.PARTIAL_FAILURE if failed_targets else agent_service.COMPLETED
    run.completed_at = now
    run.targets = [r.summary() for r in results]
    run.metrics = {
        "credits_used": run.charged_credits,
        "execution_time_ms": int((time.perf_counter() - started) * 1000),
        "videos_linked": linked_videos,
        "videos_inserted": len(set(video_ids) - known),
        "videos_updated": len(known),
        "meta_ads_linked": linked_ads,
        "outliers_identified": len(found_outliers),
        "language_filtered": filtered.language_filtered,
        "exclude_keywords_filtered": filtered.exclude_keywords_filtered,
        "platforms": filtered.platforms,
        # beyond §6.3's metrics, for the run list
        "slideshows_found": len(slides),
        "ads_found": len(ads) if agent.meta_ads_enabled else 0,
        "targets_failed": len(failed_targets),
        "targets_total": len(results),
        # the window it searched (§4.4 time_range), which its analysis reads: the autopilot may have
        # widened the agent's for the next run above (ADR 0032)
        "time_range": f"{window.days}d",
    }
    # the run-level secondary job (§2.6): the AI analysis; the success webhook fires when it ends
    await jobs_service.create(
        session,
        task=agent_service.ANALYSIS_TASK,
        type="viral_analysis",
        at=now,
        team_id=agent.team_id,
        resource_type=agent_service.RUN_RESOURCE,
        resource_id=run.id,
        params={"run_id": run.id},
        retry_window=ANALYSIS_WINDOW,
        poll_url=f"/v1/agents/{agent.id}",
        result_path="/data/analysis_data",
        webhook_event=EventName.AGENT_RUN_COMPLETED.value,
        dedupe_key=f"agent_analysis:{run.id}",
    )
    return {
        "run_id": run.id,
        "status": run.status,
        **{k: v for k, v in run.metrics.items() if isinstance(v, int)},
    }


def found_by_keyword(results: Sequence[collect.TargetResult]) -> dict[str, int]:
    """Items each keyword's video and carousel searches returned, over the searches that answered."""
    found: dict[str, int] = {}
    for result in results:
        if result.ok and result.target.kind != "ads":
            found[result.target.keyword] = found.get(result.target.keyword, 0) + len(result.records)
    return found


async def _link(
    session: AsyncSession,
    model: Any,
    column: str,
    agent_id: str,
    ids: list[str],
    views: dict[str, int] | None,
    make: Any,
) -> int:
    """Link what is not linked yet (how many were new); links found again take this run's views."""
    already = await repository.linked_ids(session, model, column, agent_id, ids)
    fresh = [make(i) for i in ids if i not in already]
    repository.add_links(session, fresh)
    if views is not None:
        await repository.update_link_views(session, model, column, agent_id, {i: views[i] for i in already})
    return len(fresh)


async def refresh_analytics(
    session: AsyncSession, agent: Agent, found_outliers: Sequence[collect.CreatorOutlier], now: datetime
) -> None:
    # the legacy orbit read's orders kept on the links (ADR 0058): a new link's and a known one's alike
    await repository.refresh_link_orders(session, agent.id)
    facts = [
        metrics.VideoFact(
            video_id=row.id,
            platform=row.platform,
            published_at=row.published_at,
            views=int(row.views or 0),
            likes=int(row.likes or 0),
            comments=int(row.comments or 0),
            shares=row.shares,
            hashtags=tuple(row.hashtags or ()),
            sound_id=row.sound_id,
            creator_id=row.creator_id,
            handle=row.handle,
            followers=row.followers,
        )
        for row in await repository.linked_video_facts(session, agent.id)
    ]
    sound_rows = [
        AgentSound(
            agent_id=agent.id,
            sound_id=s.sound_id,
            video_count=s.week.count,
            total_views=s.week.total_views,
            videos_7d=s.week.videos_7d,
            videos_prev_7d=s.week.videos_prev_7d,
            growth_7d=s.week.growth_7d,
            rising_score=s.rising_score,
            lifecycle=s.lifecycle,
            first_used_at=s.week.first_at,
            last_used_at=s.week.last_at,
        )
        for s in metrics.sounds(facts, now)
    ]
    hashtag_rows = [
        AgentHashtag(
            agent_id=agent.id,
            hashtag=h.key[:200],
            display=h.display[:200],
            video_count=h.week.count,
            total_views=h.week.total_views,
            avg_views=round(h.week.total_views / h.week.count, 2),
            videos_7d=h.week.videos_7d,
            videos_prev_7d=h.week.videos_prev_7d,
            growth_7d=h.week.growth_7d,
            top_creators=h.top_creators,
        )
        for h in metrics.hashtags(facts, now)
    ]
    await repository.replace_analytics(session, agent.id, sounds=sound_rows, hashtags=hashtag_rows)
    agent.benchmarks = metrics.benchmarks(facts, now)
    # what /hooks and /affinity read, over the same linked videos (ADR 0038)
    await agent_hooks.keep(session, agent)
    await agent_affinity.keep(session, agent)
    creators = []
    for found in found_outliers:
        creator_id = catalog_service.catalog_id(
            "creator", found.platform.value, catalog_service.handle_key(found.handle)
        )
        creators.append(
            AgentCreator(
                agent_id=agent.id,
                creator_id=creator_id,
                platform=found.platform.value,
                handle=found.handle,
                follower_count=found.followers,
                video_count=found.video_count,
                avg_views=round(found.avg_views, 2),
                median_views=found.best.median_views,
                outlier_ratio=round(found.best.outlier_ratio, 4),
                weighted_score=round(found.best.weighted_score, 4),
                top_video_id=catalog_service.catalog_id("video", found.platform.value, found.best.video_id),
                top_video_views=found.best.views,
                updated_at=now,
            )
        )
    await repository.upsert_creators(session, creators)


# --- the analysis and the webhook ------------------------------------------------------------------

# the run outcomes that get an analysis
ANALYSED = (agent_service.COMPLETED, agent_service.PARTIAL_FAILURE)


async def analyse(ctx: TaskContext, run_id: str) -> dict[str, Any]:
    """The run-level AI analysis (``agent/analysis.py``), then the run's success webhook (§6.2) with it;
    ``finalized`` turns true as this job ends. A repeated job keeps the analysis already stored.

    With an LLM provider configured (``agent/writing.py``, ADR 0031) the job has three steps: the local
    analysis and Data Intelligence are stored; the provider rewords their written fields outside any
    transaction (no write lock is held while it answers); the reworded text is stored, then the webhook
    goes out and the job completes. A job repeated after the first step keeps the local text."""
    async with llm_client.open_client(ctx.settings) as llm:
        # the analysis is computed in a read transaction, and only stored in the write one: on SQLite
        # the write lock is not held while the themes are built (seconds for thousands of videos;
        # every debit and job start waits for it, issue 33 item 5)
        prepared = None
        async with ctx.db.transaction(write=False, off_loop=True) as session:
            run = await repository.run_by_id(session, run_id)
            agent = await repository.get_agent_any_team(session, run.agent_id) if run else None
            if run is not None and agent is not None and run.analysis is None and run.status in ANALYSED:
                prepared = await agent_analysis.prepare_run(session, agent, run, ctx.now())
        async with ctx.db.transaction() as session:
            now = ctx.now()
            run = await repository.run_by_id(session, run_id)
            agent = await repository.get_agent_any_team(session, run.agent_id) if run else None
            if run is None or agent is None:
                await ctx.complete(session, None)
                return {"run_id": run_id, "skipped": True}
            annotated = []
            if llm is not None:
                if ctx.job is not None:
                    # this step commits without completing the job: only the attempt holding the job
                    # may write it (the job row is locked, so a stale attempt cannot build it twice)
                    await ctx.hold(session)
                annotated = await writing.pending_items(session, agent)
            # §2.6 per-item intelligence first (Data Intelligence agents), then the run-level report
            await agent_intelligence.annotate(session, agent)
            found = run.analysis
            built = None
            if found is None and run.status in ANALYSED:
                # prepared above (built again here if another analysis of the agent was stored
                # meanwhile); computed here if the run was not ready to be prepared then
                found = built = (
                    await agent_analysis.store_prepared(session, agent, run, now, prepared)
                    if prepared is not None
                    else await agent_analysis.analyse_run(session, agent, run, now)
                )
            if llm is None:
                return {"run_id": run_id, "analysis": await _finish(ctx, session, agent, run, now)}
            draft = writing.draft(built, annotated)
        written = await writing.reword(llm, draft)
    async with ctx.db.transaction() as session:
        now = ctx.now()
        run = await repository.run_by_id(session, run_id)
        agent = await repository.get_agent_any_team(session, run.agent_id) if run else None
        if run is None or agent is None:  # deleted while the provider answered
            await ctx.complete(session, None)
            return {"run_id": run_id, "skipped": True}
        await writing.store(session, agent, run, written)
        return {"run_id": run_id, "analysis": await _finish(ctx, session, agent, run, now)}


async def _finish(
    ctx: TaskContext, session: AsyncSession, agent: Agent, run: AgentRun, now: datetime
) -> dict[str, Any] | None:
    """The success webhook with the stored analysis, and the job's completion (the job's last step)."""
    found = run.analysis
    await _publish_success(session, agent, run, now, found)
    result = None if found is None else {"analysis_id": found["id"], "video_count": found["video_count"]}
    await ctx.complete(session, result)
    return result


def webhook_analysis(found: dict[str, Any] | None) -> events.RunAnalysis | None:
    """The §6.3 ``analysis`` object of the webhook (the stored analysis without the read-only extras)."""
    if found is None:
        return None
    return events.RunAnalysis(
        id=found["id"],
        status=found["status"],
        analysis_data=events.AnalysisData(**found["analysis_data"]),
        trends=[events.Theme(**t) for t in found["trends"]],
        video_count=found["video_count"],
        cost_usd=found["cost_usd"],
    )


async def _settings(session: AsyncSession, agent: Agent) -> dict[str, Any]:
    next_runs = await repository.schedule_next_runs(session, [agent.schedule_id] if agent.schedule_id else [])
    return {
        "id": agent.id,
        "name": agent.name,
        "keywords": agent.keywords,
        "platforms": agent.platforms,
        "cadence": agent.cadence,
        "min_views": agent.min_views,
        "time_range": agent.time_range,
        "intent": agent.intent,
        "last_run_at": agent.last_run_at,
        "next_run_at": next_runs.get(agent.schedule_id or ""),
    }


async def _publish_success(
    session: AsyncSession, agent: Agent, run: AgentRun, now: datetime, found: dict[str, Any] | None
) -> None:
    settings = events.AgentSettings(**await _settings(session, agent), is_active=agent.is_active)
    stored = run.metrics or {}
    payload = events.AgentRunCompleted(
        run_id=run.id,
        team_id=agent.team_id,
        user_id=agent.user_id,
        started_at=run.started_at or run.created_at,
        completed_at=run.completed_at or now,
        is_recurring=agent.is_recurring,
        metrics=events.RunMetrics(**{k: stored[k] for k in events.RunMetrics.model_fields if k in stored}),
        orbit=None if agent.is_recurring else settings,
        comet=settings if agent.is_recurring else None,
        intent_summary=None,
        analysis=webhook_analysis(found),
    )
    await events_service.publish(session, EventName.AGENT_RUN_COMPLETED.value, payload, agent.team_id, at=now)


async def _publish_failed(session: AsyncSession, agent: Agent, run: AgentRun, now: datetime) -> None:
    settings = events.FailedAgentSettings(
        **await _settings(session, agent), is_recurring=agent.is_recurring, active=agent.is_active
    )
    payload = events.AgentRunFailed(
        run_id=run.id,
        team_id=agent.team_id,
        user_id=agent.user_id,
        started_at=run.started_at or run.created_at,
        completed_at=run.completed_at or now,
        content_research_agent=settings,
        intent_summary=events.IntentSummary(matched=0, total_evaluated=0),
        error=events.ErrorInfo(**(run.error or {"code": "run_failed", "message": "The run failed"})),
    )
    await events_service.publish(session, EventName.AGENT_RUN_COMPLETED.value, payload, agent.team_id, at=now)

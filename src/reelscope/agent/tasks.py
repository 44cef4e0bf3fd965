"""Agent jobs: a run (made at creation), a scheduled run of a recurring agent, the run's analysis, the
preparing of its creators for similar-creator questions (ADR 0056), and the hourly scan for breaking
stories between runs (ADR 0032)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from huey import crontab

from reelscope.agent import affinity, repository
from reelscope.agent import service as agent_service
from reelscope.agent.autopilot import breaking
from reelscope.agent.run import service as run_service
from reelscope.collectors.registry import build_sources
from reelscope.kit.logging import get_logger
from reelscope.worker import TaskContext, task

log = get_logger(__name__)


@task(agent_service.RUN_TASK)
async def run(ctx: TaskContext, *, run_id: str, **_: Any) -> dict[str, Any]:
    return await run_service.execute(ctx, run_id, build_sources(ctx.settings, ctx.clock, ctx.db))


@task(agent_service.SCHEDULED_RUN_TASK)
async def scheduled_run(ctx: TaskContext, *, agent_id: str, scheduled_for: str, **_: Any) -> dict[str, Any]:
    """One firing of a recurring agent's cadence: its run row (one per firing), then the run itself."""
    at = datetime.fromisoformat(scheduled_for.replace("Z", "+00:00"))
    async with ctx.db.transaction() as session:
        agent = await repository.get_agent_any_team(session, agent_id)
        if agent is None or agent.deleted_at is not None or not agent.is_active:
            result = {"agent_id": agent_id, "skipped": "agent deleted or paused"}
            if ctx.job is not None:
                await ctx.complete(session, result)
            return result
        found = await repository.run_for_firing(session, agent_id, at)
        if found is None:
            found = agent_service.new_run(
                agent, trigger="schedule", scheduled_for=at, charged=0, now=ctx.now()
            )
            found.job_id = ctx.job.id if ctx.job is not None else None
            session.add(found)
            agent.latest_run_id = found.id
        run_id = found.id
    return await run_service.execute(ctx, run_id, build_sources(ctx.settings, ctx.clock, ctx.db))


@task(agent_service.ANALYSIS_TASK)
async def analysis(ctx: TaskContext, *, run_id: str, **_: Any) -> dict[str, Any]:
    return await run_service.analyse(ctx, run_id)


@task(affinity.SIMILAR_TASK)
async def similar(ctx: TaskContext, *, agent_id: str, again: bool = False, **_: Any) -> dict[str, Any]:
    """The agent's creators prepared (TF-IDF rows, sounds) from its links now and kept, so that no
    similar-creators question prepares them (ADR 0056); ``again`` after a run, whatever is kept."""
    return {"agent_id": agent_id, **await _prepare_similar(ctx, agent_id, again=again)}


@task(affinity.SIMILAR_SWEEP_TASK, periodic=crontab(minute="35"))
async def similar_sweep(ctx: TaskContext) -> dict[str, int]:
    """Agents with linked videos whose creators were never prepared (made before the ``agent.similar``
    job, or its first message lost): a few prepared each hour, so that their questions stop preparing them."""
    async with ctx.db.transaction(write=False) as session:
        agent_ids = await repository.agents_without_similar_model(session, limit=affinity.SWEEP_AGENTS)
    kept = failed = 0
    for agent_id in agent_ids:
        # one agent that cannot be prepared must not hold up the others, hour after hour
        try:
            kept += (await _prepare_similar(ctx, agent_id))["kept"]
        except Exception as exc:  # the sweep's boundary: logged, the next agent goes on
            failed += 1
            log.error("agent.similar_failed", agent_id=agent_id, error_type=type(exc).__name__, exc_info=exc)
    return {"agents": len(agent_ids), "kept": kept, "failed": failed}


async def _prepare_similar(ctx: TaskContext, agent_id: str, *, again: bool = False) -> dict[str, Any]:
    """Read in one transaction, kept in a short second one: on SQLite a write transaction holds the one
    write lock, and preparing takes about a second at 10,000 linked videos."""
    async with ctx.db.transaction(write=False, off_loop=True) as session:
        made = await affinity.prepare_model(session, agent_id, again=again)
    if made is None:
        return {"kept": False, "reason": "already kept for these links"}
    links, model = made
    async with ctx.db.transaction() as session:
        kept = await affinity.keep_model(session, agent_id, links, model, ctx.now())
    return {"kept": kept, "links": links[1], "bytes": len(model or b"")}


@task(breaking.SCAN_TASK, periodic=crontab(minute="15"))
async def scan_events(ctx: TaskContext) -> dict[str, int]:
    """§4.4 /events, §6.2: news scan and corpus bursts for every recurring agent, between its runs."""
    report = await breaking.scan(ctx.db, build_sources(ctx.settings, ctx.clock, ctx.db), ctx.now())
    return vars(report)

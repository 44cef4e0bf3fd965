"""Agents (spec §4.4): create, read, update, delete, and how an agent and its runs are rendered.

A create makes the agent, its first run (pending) with the jobs row that collects it, and for a
recurring agent the schedule of its later runs. The run itself is ``agent/run/``.

Statuses (§3): a run is pending → processing → completed | partial_failure | failed. The agent's
``status`` is its latest run's. ``finalized`` (§2.6) is true once the latest run ended and its run-level
secondary jobs (the AI analysis) are done; a run whose collection job gave up for good reads ``failed``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Row
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import intelligence as agent_intelligence
from reelscope.agent import repository
from reelscope.agent.schemas import (
    AgentCreate,
    AgentCreated,
    AgentList,
    AgentOut,
    AgentPageQuery,
    AgentUpdate,
    TimelyKeyword,
)
from reelscope.auth.service import Principal
from reelscope.billing.prices import JOB_PRICES
from reelscope.kit import stored_json
from reelscope.kit.caches import ReadCaches
from reelscope.kit.clock import iso
from reelscope.kit.errors import NotFound, ValidationFailed
from reelscope.kit.ids import new_id
from reelscope.kit.platforms import Platform
from reelscope.models import Agent, AgentRun, Job, Schedule
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.jobs.schemas import PendingJob
from reelscope.worker.schedules import cadence as cadences
from reelscope.worker.schedules import service as schedules_service

# run statuses (§3)
PENDING, PROCESSING = "pending", "processing"
COMPLETED, PARTIAL_FAILURE, FAILED = "completed", "partial_failure", "failed"
TERMINAL = frozenset({COMPLETED, PARTIAL_FAILURE, FAILED})

RUN_TASK = "agent.run"
SCHEDULED_RUN_TASK = "agent.scheduled_run"
ANALYSIS_TASK = "agent.analysis"
# the collection job belongs to the agent; the run-level secondary jobs (§2.6) to the run
AGENT_RESOURCE = "agent"
RUN_RESOURCE = repository.RUN_RESOURCE

# the collection scope the service sets (§4.4: not settable at creation); reads filter further
SERVICE_MIN_VIEWS = 0
SERVICE_TIME_RANGE = "30d"


def run_price(agent: Agent) -> int:
    """What one run of a recurring agent costs, debited by the job (§4.4, billing JOB_PRICES)."""
    extra = JOB_PRICES["agent_data_intelligence_run"] if agent.data_intelligence_enabled else 0
    return JOB_PRICES["agent_scheduled_run"] + extra


def _cadence(value: str | None, *, recurring: bool, now: datetime) -> str | None:
    if not recurring:
        if value is not None:
            raise ValidationFailed("cadence is only for recurring agents (is_recurring: true)")
        return None
    return cadences.agent_cadence(value or "daily", anchor=now)


def _default_name(keywords: Sequence[str]) -> str:
    return ", ".join(keywords)[:200]


async def create(
    session: AsyncSession, principal: Principal, body: AgentCreate, *, charged: int, now: datetime
) -> AgentCreated:
    """The agent, its first run and that run's job; for a recurring agent also its schedule.

    ``charged`` is what the request charges (a one-shot's price; 0 for recurring, whose runs the jobs
    debit): a failed run gives it back.
    """
    cadence = _cadence(body.cadence, recurring=body.is_recurring, now=now)
    agent = Agent(
        id=new_id(),
        team_id=principal.team_id,
        user_id=principal.user_id,
        name=(body.name or "").strip() or _default_name(body.keywords),
        is_recurring=body.is_recurring,
        intent=body.intent,
        keywords=list(body.keywords),
        exclude_keywords=list(body.exclude_keywords),
        pinned_keywords=list(body.keywords),
        platforms=[p.value for p in body.platforms],
        meta_ads_enabled=body.meta_ads_enabled,
        data_intelligence_enabled=body.data_intelligence_enabled,
        cadence=cadence,
        language=body.language,
        autopilot=body.autopilot,
        cognition_enabled=True,
        timely_keywords=[],
        is_active=True,
        min_views=SERVICE_MIN_VIEWS,
        time_range=SERVICE_TIME_RANGE,
        created_at=now,
        updated_at=now,
    )
    session.add(agent)
    await session.flush()
    if cadence is not None:
        schedule = await schedules_service.create(
            session,
            task=SCHEDULED_RUN_TASK,
            job_type="agent_run",
            cadence=f"cron:{cadence}",
            at=now,
            team_id=agent.team_id,
            resource_type=AGENT_RESOURCE,
            resource_id=agent.id,
            params={"agent_id": agent.id},
        )
        agent.schedule_id = schedule.id
    run = await start_run(session, agent, trigger="create", charged=charged, now=now)
    assert run.job_id is not None
    rendered = await render(session, agent, now=now)
    return AgentCreated(**rendered.model_dump(), job_id=run.job_id, run_id=run.id)


async def start_run(
    session: AsyncSession, agent: Agent, *, trigger: str, charged: int, now: datetime
) -> AgentRun:
    """A pending run and the job that collects it (sent when the transaction commits)."""
    run = new_run(agent, trigger=trigger, scheduled_for=None, charged=charged, now=now)
    session.add(run)
    job = await jobs_service.create(
        session,
        task=RUN_TASK,
        type="agent_run",
        at=now,
        team_id=agent.team_id,
        resource_type=AGENT_RESOURCE,
        resource_id=agent.id,
        params={"run_id": run.id},
        charged_credits=charged,
        poll_url=f"/v1/agents/{agent.id}/runs/{run.id}",
    )
    run.job_id = job.id
    agent.latest_run_id = run.id
    return run


def new_run(
    agent: Agent, *, trigger: str, scheduled_for: datetime | None, charged: int, now: datetime
) -> AgentRun:
    return AgentRun(
        id=new_id(),
        agent_id=agent.id,
        team_id=agent.team_id,
        trigger=trigger,
        scheduled_for=scheduled_for,
        status=PENDING,
        charged_credits=charged,
        refunded=False,
        created_at=now,
    )


async def get_owned(session: AsyncSession, team_id: str, agent_id: str) -> Agent:
    """The team's agent, or 404 (another team's agent is 404 too, §7)."""
    agent = await repository.get_agent(session, team_id, agent_id)
    if agent is None:
        raise NotFound("Agent not found")
    return agent


async def update(
    session: AsyncSession, team_id: str, agent_id: str, body: AgentUpdate, *, now: datetime
) -> AgentOut:
    agent = await get_owned(session, team_id, agent_id)
    judged_by = (agent.intent, agent.data_intelligence_enabled)
    sent = body.model_fields_set
    if "cadence" in sent:
        if not agent.is_recurring:
            raise ValidationFailed("cadence is only for recurring agents")
        if body.cadence is None:
            raise ValidationFailed("cadence must not be null on a recurring agent")
    for name in (
        "name",
        "keywords",
        "platforms",
        "meta_ads_enabled",
        "data_intelligence_enabled",
        "autopilot",
        "is_active",
    ):
        if name in sent and getattr(body, name) is None:
            raise ValidationFailed(f"{name} must not be null")
    if "name" in sent:
        agent.name = str(body.name).strip()
    if "intent" in sent:
        agent.intent = body.intent
    if body.keywords is not None:
        # §4.4: sending keywords replaces the list; they are the user's, so they are the pinned ones
        agent.keywords = list(body.keywords)
        agent.pinned_keywords = list(body.keywords)
        # the list is now the user's: a short-lived keyword they kept is theirs, the others are gone
        agent.timely_keywords = []
    if "exclude_keywords" in sent:
        agent.exclude_keywords = list(body.exclude_keywords or [])
    if body.platforms is not None:
        agent.platforms = [p.value for p in body.platforms]
    for flag in ("meta_ads_enabled", "data_intelligence_enabled", "autopilot", "is_active"):
        value = getattr(body, flag)
        if value is not None:
            setattr(agent, flag, value)
    if "language" in sent:
        agent.language = body.language
    if (agent.intent, agent.data_intelligence_enabled) != judged_by:
        await agent_intelligence.match_intent(session, agent)  # §2.6: intent_match follows the intent
    schedule = await _schedule(session, agent)
    if schedule is not None:
        if body.cadence is not None:
            agent.cadence = cadences.agent_cadence(body.cadence, anchor=now)
            schedule.cadence = f"cron:{agent.cadence}"
            schedule.next_run_at = schedules_service.next_run(schedule, after=now)
        if body.is_active is not None and body.is_active != schedule.is_active:
            schedules_service.set_active(schedule, body.is_active, at=now)
        schedule.updated_at = now
    agent.updated_at = now
    await session.flush()
    return await render(session, agent, now=now)


async def delete(session: AsyncSession, team_id: str, agent_id: str, *, now: datetime) -> None:
    """Gone for the client (404 afterwards); its schedule stops. Rows stay for jobs already running."""
    agent = await get_owned(session, team_id, agent_id)
    agent.deleted_at = now
    agent.is_active = False
    schedule = await _schedule(session, agent)
    if schedule is not None:
        schedules_service.set_active(schedule, False, at=now)


async def _schedule(session: AsyncSession, agent: Agent) -> Schedule | None:
    if agent.schedule_id is None:
        return None
    for schedule in await schedules_service.for_resource(session, AGENT_RESOURCE, agent.id):
        if schedule.id == agent.schedule_id:
            return schedule
    return None


# --- rendering -------------------------------------------------------------------------------------


def run_status(run: AgentRun, job: Job | None, now: datetime) -> str:
    """The run's status; a run whose collection job gave up for good (or expired) is failed (§3)."""
    if run.status in TERMINAL or job is None:
        return run.status
    given_up = job.status == jobs_service.FAILED and job.next_attempt_at is None
    if given_up or jobs_service.effective_status(job, now) == jobs_service.EXPIRED:
        return FAILED
    return run.status


@dataclass(frozen=True)
class RunState:
    """What an agent shows of its latest run, and a run of its envelope (§2.6)."""

    status: str
    finalized: bool
    pending_jobs: list[PendingJob]


async def _run_states(session: AsyncSession, runs: Sequence[AgentRun], now: datetime) -> dict[str, RunState]:
    """Each run's status, ``finalized`` and ``pending_jobs``; two queries whatever the number of runs."""
    jobs = await repository.jobs_by_id(session, [r.job_id for r in runs if r.job_id])
    secondary = await repository.jobs_for_runs(session, [r.id for r in runs])
    states = {}
    for run in runs:
        status = run_status(run, jobs.get(run.job_id or ""), now)
        state = jobs_service.render(secondary.get(run.id, []), now=now, resource_done=status in TERMINAL)
        states[run.id] = RunState(status, state.finalized, state.pending_jobs)
    return states


async def _runs_out(
    session: AsyncSession, caches: ReadCaches, runs: Sequence[repository.StoredRun], now: datetime
) -> list[dict[str, Any]]:
    """Runs (rows of ``repository.list_runs``) in ``RunOut``'s shape and order, with their §2.6 envelope.
    Rendered without the model: its JSON columns are served as stored, serialized once per text
    (kit/stored_json.py, ADR 0062), the rest written by orjson as Pydantic writes it."""
    states = await _run_states(session, [row[0] for row in runs], now)
    out = []
    for run, *texts in runs:
        metrics, targets, error, analysis = (
            stored_json.fragment(caches, ("agent.run.json", run.id, column.key), text)
            for column, text in zip(repository.RUN_JSON_COLUMNS, texts, strict=True)
        )
        state = states[run.id]
        out.append(
            {
                "id": run.id,
                "agent_id": run.agent_id,
                "job_id": run.job_id,
                "trigger": run.trigger,
                "scheduled_for": iso(run.scheduled_for),
                "status": state.status,
                "charged_credits": run.charged_credits,
                "refunded": run.refunded,
                "metrics": metrics,
                "targets": targets,
                "error": error,
                "analysis": analysis,
                "started_at": iso(run.started_at),
                "completed_at": iso(run.completed_at),
                "created_at": iso(run.created_at) or "",
                "finalized": state.finalized,
                "pending_jobs": [job.model_dump(mode="json") for job in state.pending_jobs],
            }
        )
    return out


def analyses_as_stored(caches: ReadCaches, rows: Sequence[Row[str, str | None]]) -> list[Any]:
    """The analyses of ``repository.page_analyses`` rows, as stored (shared with the runs' renders): a
    JSON null among them is left out, as the model-rendered list left it out."""
    found = (
        stored_json.fragment(caches, ("agent.run.json", run_id, "analysis"), text) for run_id, text in rows
    )
    return [analysis for analysis in found if analysis is not None]


async def render(session: AsyncSession, agent: Agent, *, now: datetime) -> AgentOut:
    return (await render_many(session, [agent], now=now))[0]


async def render_many(session: AsyncSession, agents: Sequence[Agent], *, now: datetime) -> list[AgentOut]:
    next_runs = await repository.schedule_next_runs(session, [a.schedule_id for a in agents if a.schedule_id])
    # the latest runs' states only: their metrics, targets and analysis are not part of an agent
    latest = await repository.run_heads(session, [a.latest_run_id for a in agents if a.latest_run_id])
    runs = await _run_states(session, latest, now)
    out = []
    for agent in agents:
        run = runs.get(agent.latest_run_id or "")
        out.append(
            AgentOut(
                id=agent.id,
                name=agent.name,
                is_recurring=agent.is_recurring,
                intent=agent.intent,
                keywords=agent.keywords,
                exclude_keywords=agent.exclude_keywords,
                pinned_keywords=agent.pinned_keywords,
                platforms=[Platform(p) for p in agent.platforms],
                meta_ads_enabled=agent.meta_ads_enabled,
                data_intelligence_enabled=agent.data_intelligence_enabled,
                cadence=agent.cadence,
                language=agent.language,
                autopilot=agent.autopilot,
                cognition_enabled=agent.cognition_enabled,
                timely_keywords=[TimelyKeyword(**t) for t in agent.timely_keywords],
                autonomy_level="autopilot" if agent.autopilot else "suggest",
                autopilot_unlocked=True,
                is_active=agent.is_active,
                min_views=agent.min_views,
                time_range=agent.time_range,
                status=run.status if run else PENDING,
                latest_run_id=agent.latest_run_id,
                last_run_at=iso(agent.last_run_at),
                next_run_at=iso(next_runs.get(agent.schedule_id or "")),
                finalized=run.finalized if run else False,
                pending_jobs=run.pending_jobs if run else [],
                analysis_data=agent.analysis_data,
                created_at=iso(agent.created_at) or "",
                updated_at=iso(agent.updated_at) or "",
            )
        )
    return out


async def get(session: AsyncSession, team_id: str, agent_id: str, *, now: datetime) -> AgentOut:
    return await render(session, await get_owned(session, team_id, agent_id), now=now)


async def list_page(
    session: AsyncSession,
    team_id: str,
    query: AgentPageQuery,
    *,
    now: datetime,
    recurring: bool | None = None,
) -> AgentList:
    """A page of the team's agents, newest first (the legacy lists: only one-shot or only recurring)."""
    agents = await repository.list_agents(
        session, team_id, skip=query.skip, limit=query.limit, recurring=recurring
    )
    rendered = await render_many(session, agents, now=now)
    return AgentList(limit=query.limit, page=query.page, count=len(rendered), agents=rendered)


async def runs_page(
    session: AsyncSession,
    caches: ReadCaches,
    team_id: str,
    agent_id: str,
    query: AgentPageQuery,
    *,
    now: datetime,
) -> dict[str, Any]:
    """A page of the agent's runs in ``RunList``'s shape."""
    agent = await get_owned(session, team_id, agent_id)
    runs = await repository.list_runs(session, agent.id, skip=query.skip, limit=query.limit)
    rendered = await _runs_out(session, caches, runs, now)
    return {"limit": query.limit, "page": query.page, "count": len(rendered), "runs": rendered}


async def get_run(
    session: AsyncSession, caches: ReadCaches, team_id: str, agent_id: str, run_id: str, *, now: datetime
) -> dict[str, Any]:
    """One run in ``RunOut``'s shape."""
    agent = await get_owned(session, team_id, agent_id)
    run = await repository.get_run(session, agent.id, run_id)
    if run is None:
        raise NotFound("Run not found")
    return (await _runs_out(session, caches, [run], now))[0]

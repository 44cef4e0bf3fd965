"""The autopilot of a recurring agent (spec §4.4 "Autopilot rules"; ADR 0032): what it changes after a
run, the proposals it leaves when it is off, autonomy, and the decision log.

``analysis/autopilot.py`` decides (pure); this module reads the agent, records each change as an
``agent_changes`` row and an activity entry, and either makes it (autopilot on: ``applied``) or leaves
it as a proposal (``proposed``; the configuration stays exactly as sent). Nothing here starts a run or
touches a priced setting: a change edits keywords and the service-set window the next scheduled run
reads.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import service as agent_service
from reelscope.agent.autopilot import repository
from reelscope.agent.autopilot.schemas import (
    ActivityEntry,
    ActivityList,
    AutonomyUpdate,
    ProposalList,
    ProposalOut,
)
from reelscope.agent.schemas import AgentOut
from reelscope.analysis import autopilot as decide
from reelscope.collectors.base import VideoRecord
from reelscope.kit.clock import iso
from reelscope.kit.errors import Conflict, NotFound
from reelscope.kit.ids import new_id, new_ordered_id
from reelscope.kit.logging import get_logger
from reelscope.models import Agent, AgentActivity, AgentChange

log = get_logger(__name__)

PROPOSED, APPLIED, DISMISSED, REVERTED, EXPIRED = "proposed", "applied", "dismissed", "reverted", "expired"
# the activity action of a change made, by kind
MADE = {
    "add_keywords": "keywords_added",
    "reword_keyword": "keyword_reworded",
    "widen_collection": "collection_widened",
    "add_timely_keywords": "timely_keywords_added",
    "expire_timely_keywords": "timely_keywords_expired",
}


def days_of(time_range: str) -> int:
    """``"30d"`` → 30 (the service's window notation, §4.4 time_range)."""
    return int(time_range.rstrip("d"))


def config_of(agent: Agent) -> decide.Config:
    return decide.Config(
        keywords=tuple(agent.keywords),
        pinned_keywords=tuple(agent.pinned_keywords),
        exclude_keywords=tuple(agent.exclude_keywords),
        time_range_days=days_of(agent.time_range),
        timely_keywords=tuple(t["keyword"] for t in agent.timely_keywords),
    )


def log_activity(
    session: AsyncSession,
    agent: Agent,
    action: str,
    summary: str,
    now: datetime,
    *,
    change_id: str | None = None,
    event_id: str | None = None,
    run_id: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    session.add(
        AgentActivity(
            id=new_ordered_id(),  # append-only, and the order of entries logged at one moment
            agent_id=agent.id,
            team_id=agent.team_id,
            at=now,
            action=action,
            summary=summary,
            change_id=change_id,
            event_id=event_id,
            run_id=run_id,
            detail=detail or {},
        )
    )


# --- after a run ------------------------------------------------------------------------------------


def run_facts(videos: Sequence[VideoRecord], found_by_keyword: dict[str, int]) -> decide.RunFacts:
    return decide.RunFacts(
        videos=tuple(decide.RunVideo(views=v.views, hashtags=tuple(v.hashtags)) for v in videos),
        found_by_keyword=found_by_keyword,
    )


async def after_run(
    session: AsyncSession, agent: Agent, run_id: str, facts: decide.RunFacts, now: datetime
) -> list[AgentChange]:
    """§4.4: after each run of a recurring agent, the changes it calls for, made or proposed."""
    if not agent.is_recurring:
        return []
    rejected = await repository.rejected_keywords(session, agent.id)
    changes = decide.after_run(config_of(agent), facts, rejected=rejected)
    if not changes:
        log_activity(
            session,
            agent,
            "no_change",
            f"The run kept {len(facts.videos)} videos; nothing to change",
            now,
            run_id=run_id,
        )
        return []
    return [await record(session, agent, change, now, run_id=run_id) for change in changes]


async def record(
    session: AsyncSession,
    agent: Agent,
    change: decide.Change,
    now: datetime,
    *,
    run_id: str | None = None,
    event_id: str | None = None,
    expires_at: datetime | None = None,
) -> AgentChange:
    """The change as a row: made now with autopilot on, else a proposal (configuration untouched)."""
    row = AgentChange(
        id=new_id(),
        agent_id=agent.id,
        team_id=agent.team_id,
        kind=change.kind,
        status=PROPOSED,
        decided_by=None,
        add=list(change.add),
        remove=list(change.remove),
        time_range_from=None if change.time_range_from is None else f"{change.time_range_from}d",
        time_range_to=None if change.time_range_to is None else f"{change.time_range_to}d",
        reason=change.reason,
        evidence=dict(change.evidence),
        effect=None,
        run_id=run_id,
        event_id=event_id,
        expires_at=expires_at,
        created_at=now,
        decided_at=None,
    )
    session.add(row)
    if agent.autopilot:
        _make(agent, row, by="autopilot", now=now)
        log_activity(
            session,
            agent,
            MADE[row.kind],
            change.reason,
            now,
            change_id=row.id,
            event_id=event_id,
            run_id=run_id,
            detail=row.effect or {},
        )
    else:
        log_activity(
            session,
            agent,
            "proposal_created",
            f"Proposed ({row.kind}): {change.reason}",
            now,
            change_id=row.id,
            event_id=event_id,
            run_id=run_id,
            detail={"add": row.add, "remove": row.remove, "time_range_to": row.time_range_to},
        )
    return row


def change_of(row: AgentChange) -> decide.Change:
    return decide.Change(
        kind=cast(decide.Kind, row.kind),
        add=tuple(row.add),
        remove=tuple(row.remove),
        time_range_from=None if row.time_range_from is None else days_of(row.time_range_from),
        time_range_to=None if row.time_range_to is None else days_of(row.time_range_to),
        reason=row.reason,
    )


def _set_config(
    agent: Agent, before: decide.Config, after: decide.Config, *, row: AgentChange
) -> dict[str, Any]:
    """Write ``after`` onto the agent; what changed (the row's ``effect``)."""
    old = {decide.key(k) for k in before.keywords}
    new = {decide.key(k) for k in after.keywords}
    agent.keywords = list(after.keywords)
    agent.time_range = f"{after.time_range_days}d"
    timely = [t for t in agent.timely_keywords if decide.key(t["keyword"]) in new]
    known = {decide.key(t["keyword"]) for t in timely}
    for keyword in after.timely_keywords:
        if decide.key(keyword) not in known:
            timely.append(
                {
                    "keyword": keyword,
                    "event_id": row.event_id,
                    "expires_at": iso(row.expires_at),
                    "change_id": row.id,
                }
            )
    agent.timely_keywords = timely
    return {
        "added": [k for k in after.keywords if decide.key(k) not in old],
        "removed": [k for k in before.keywords if decide.key(k) not in new],
        "time_range_from": f"{before.time_range_days}d",
        "time_range_to": f"{after.time_range_days}d",
    }


def _make(agent: Agent, row: AgentChange, *, by: str, now: datetime) -> None:
    before = config_of(agent)
    after = decide.apply(before, change_of(row))
    row.effect = _set_config(agent, before, after, row=row)
    row.status, row.decided_by, row.decided_at = APPLIED, by, now
    agent.updated_at = now


def take_back(agent: Agent, row: AgentChange, now: datetime) -> dict[str, Any]:
    """Undo what ``row`` changed when it was applied (its ``effect``)."""
    effect = row.effect or {}
    widened = row.kind == "widen_collection" and effect.get("time_range_from")
    undo = decide.Change(
        "expire_timely_keywords" if row.kind == "add_timely_keywords" else cast(decide.Kind, row.kind),
        add=tuple(effect.get("removed", ())),
        remove=tuple(effect.get("added", ())),
        time_range_to=days_of(effect["time_range_from"]) if widened else None,
    )
    before = config_of(agent)
    undone = _set_config(agent, before, decide.apply(before, undo), row=row)
    agent.updated_at = now
    return undone


# --- proposals (deprecated endpoints, §4.4) ----------------------------------------------------------


def render_proposal(row: AgentChange) -> ProposalOut:
    return ProposalOut(
        id=row.id,
        agent_id=row.agent_id,
        kind=row.kind,
        status=row.status,
        decided_by=row.decided_by,
        add=row.add,
        remove=row.remove,
        time_range_from=row.time_range_from,
        time_range_to=row.time_range_to,
        reason=row.reason,
        evidence=row.evidence,
        effect=row.effect,
        run_id=row.run_id,
        event_id=row.event_id,
        expires_at=iso(row.expires_at),
        created_at=iso(row.created_at) or "",
        decided_at=iso(row.decided_at),
    )


async def proposals(session: AsyncSession, team_id: str, agent_id: str) -> ProposalList:
    agent = await agent_service.get_owned(session, team_id, agent_id)
    rows = await repository.list_changes(session, team_id, agent.id)
    return ProposalList(count=len(rows), proposals=[render_proposal(r) for r in rows])


async def _owned_change(
    session: AsyncSession, team_id: str, agent_id: str, change_id: str
) -> tuple[Agent, AgentChange]:
    agent = await agent_service.get_owned(session, team_id, agent_id)
    row = await repository.get_change(session, team_id, agent.id, change_id)
    if row is None:
        raise NotFound("Proposal not found")
    return agent, row


async def apply_proposal(
    session: AsyncSession, team_id: str, agent_id: str, change_id: str, *, now: datetime
) -> ProposalOut:
    """Make a proposed change; 409 unless it is ``proposed``, or when its story already ended."""
    agent, row = await _owned_change(session, team_id, agent_id, change_id)
    if row.status != PROPOSED:
        raise Conflict(f"The proposal is {row.status}; only a proposed change can be applied")
    if row.expires_at is not None and row.expires_at <= now:
        raise Conflict("The breaking story of this proposal has ended")
    _make(agent, row, by="user", now=now)
    log_activity(
        session,
        agent,
        "proposal_applied",
        f"Applied ({row.kind}): {row.reason}",
        now,
        change_id=row.id,
        event_id=row.event_id,
        detail=row.effect or {},
    )
    return render_proposal(row)


async def dismiss_proposal(
    session: AsyncSession, team_id: str, agent_id: str, change_id: str, *, now: datetime
) -> ProposalOut:
    """Set a proposed change aside; its keywords are not offered again. 409 unless ``proposed``."""
    agent, row = await _owned_change(session, team_id, agent_id, change_id)
    if row.status != PROPOSED:
        raise Conflict(f"The proposal is {row.status}; only a proposed change can be dismissed")
    row.status, row.decided_by, row.decided_at = DISMISSED, "user", now
    log_activity(session, agent, "proposal_dismissed", f"Dismissed ({row.kind})", now, change_id=row.id)
    return render_proposal(row)


async def revert_proposal(
    session: AsyncSession, team_id: str, agent_id: str, change_id: str, *, now: datetime
) -> ProposalOut:
    """Undo an applied change (by the user or the autopilot); its keywords are not offered again.
    Keywords the user has set since stay (§4.4: never removes a user-set keyword). 409 unless applied."""
    agent, row = await _owned_change(session, team_id, agent_id, change_id)
    if row.status != APPLIED:
        raise Conflict(f"The proposal is {row.status}; only an applied change can be reverted")
    undone = take_back(agent, row, now)
    row.status, row.decided_by, row.decided_at = REVERTED, "user", now
    log_activity(
        session,
        agent,
        "proposal_reverted",
        f"Reverted ({row.kind}): {row.reason}",
        now,
        change_id=row.id,
        detail=undone,
    )
    return render_proposal(row)


# --- autonomy and the log ---------------------------------------------------------------------------


async def set_autonomy(
    session: AsyncSession, team_id: str, agent_id: str, body: AutonomyUpdate, *, now: datetime
) -> AgentOut:
    """§4.4 PUT /autonomy: autopilot on or off (open proposals stay open), cognition on or off."""
    agent = await agent_service.get_owned(session, team_id, agent_id)
    before = {"autopilot": agent.autopilot, "cognition_enabled": agent.cognition_enabled}
    wanted = body.autopilot_wanted()
    if wanted is not None:
        agent.autopilot = wanted
    if body.cognition_enabled is not None:
        agent.cognition_enabled = body.cognition_enabled
    after = {"autopilot": agent.autopilot, "cognition_enabled": agent.cognition_enabled}
    if after != before:
        agent.updated_at = now
        said = ", ".join(f"{k} {'on' if v else 'off'}" for k, v in after.items())
        log_activity(session, agent, "autonomy_changed", f"Autonomy set: {said}", now, detail=after)
    await session.flush()
    return await agent_service.render(session, agent, now=now)


async def activity(session: AsyncSession, team_id: str, agent_id: str) -> ActivityList:
    agent = await agent_service.get_owned(session, team_id, agent_id)
    rows = await repository.list_activity(session, team_id, agent.id)
    entries = [
        ActivityEntry(
            id=r.id,
            at=iso(r.at) or "",
            action=r.action,
            summary=r.summary,
            change_id=r.change_id,
            event_id=r.event_id,
            run_id=r.run_id,
            detail=r.detail,
        )
        for r in rows
    ]
    return ActivityList(count=len(entries), activity=entries)

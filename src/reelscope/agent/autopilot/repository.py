"""SQL of the autopilot: an agent's changes (proposals), its decision log and its breaking events.

Requests reach these rows through an agent their team owns (``agent.service.get_owned``), and every
query here also names the team or the agent; the scan job reads agents of every team and acts for
each agent's own team.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import (
    Agent,
    AgentActivity,
    AgentChange,
    AgentEvent,
    AgentHashtag,
    Hashtag,
    Video,
    VideoHashtag,
)

# §8.3: activity, events and proposals are not paged; the newest this many are served
LISTED = 200


async def get_change(
    session: AsyncSession, team_id: str, agent_id: str, change_id: str
) -> AgentChange | None:
    return await session.scalar(
        select(AgentChange).where(
            AgentChange.id == change_id, AgentChange.agent_id == agent_id, AgentChange.team_id == team_id
        )
    )


async def list_changes(session: AsyncSession, team_id: str, agent_id: str) -> Sequence[AgentChange]:
    """Open proposals first, then the rest, newest first."""
    open_first = case((AgentChange.status == "proposed", 0), else_=1)
    rows = await session.scalars(
        select(AgentChange)
        .where(AgentChange.agent_id == agent_id, AgentChange.team_id == team_id)
        .order_by(open_first, AgentChange.created_at.desc(), AgentChange.id.desc())
        .limit(LISTED)
    )
    return rows.all()


async def rejected_keywords(session: AsyncSession, agent_id: str) -> list[str]:
    """Keywords of changes the user dismissed or reverted: the autopilot does not offer them again."""
    rows = await session.scalars(
        select(AgentChange.add).where(
            AgentChange.agent_id == agent_id, AgentChange.status.in_(("dismissed", "reverted"))
        )
    )
    return [keyword for added in rows for keyword in added]


async def open_changes_of_event(session: AsyncSession, event_id: str) -> Sequence[AgentChange]:
    rows = await session.scalars(
        select(AgentChange).where(AgentChange.event_id == event_id, AgentChange.status == "proposed")
    )
    return rows.all()


async def list_activity(session: AsyncSession, team_id: str, agent_id: str) -> Sequence[AgentActivity]:
    rows = await session.scalars(
        select(AgentActivity)
        .where(AgentActivity.agent_id == agent_id, AgentActivity.team_id == team_id)
        .order_by(AgentActivity.at.desc(), AgentActivity.id.desc())
        .limit(LISTED)
    )
    return rows.all()


async def list_events(session: AsyncSession, team_id: str, agent_id: str) -> Sequence[AgentEvent]:
    """Active (candidate, confirmed) first, then the ended ones; each part by salience, newest first."""
    active_first = case((AgentEvent.status.in_(("candidate", "confirmed")), 0), else_=1)
    rows = await session.scalars(
        select(AgentEvent)
        .where(AgentEvent.agent_id == agent_id, AgentEvent.team_id == team_id)
        .order_by(active_first, AgentEvent.salience.desc(), AgentEvent.detected_at.desc(), AgentEvent.id)
        .limit(LISTED)
    )
    return rows.all()


async def latest_event(session: AsyncSession, agent_id: str, source: str, topic: str) -> AgentEvent | None:
    return await session.scalar(
        select(AgentEvent)
        .where(AgentEvent.agent_id == agent_id, AgentEvent.source == source, AgentEvent.topic == topic)
        .order_by(AgentEvent.detected_at.desc(), AgentEvent.id)
        .limit(1)
    )


async def active_events(session: AsyncSession, agent_id: str) -> Sequence[AgentEvent]:
    rows = await session.scalars(
        select(AgentEvent).where(
            AgentEvent.agent_id == agent_id, AgentEvent.status.in_(("candidate", "confirmed"))
        )
    )
    return rows.all()


async def scanned_agent_ids(session: AsyncSession) -> list[str]:
    """Recurring agents not deleted: the scan detects for the active ones with cognition on, and expires
    the stories (and their short-lived keywords) of every one."""
    rows = await session.scalars(
        select(Agent.id)
        .where(Agent.is_recurring.is_(True), Agent.deleted_at.is_(None))
        .order_by(Agent.created_at, Agent.id)
    )
    return list(rows)


async def domain_terms(session: AsyncSession, agent_id: str, limit: int) -> list[str]:
    """The hashtags of the agent's videos, most used first (its read model, refreshed by each run)."""
    rows = await session.scalars(
        select(AgentHashtag.hashtag)
        .where(AgentHashtag.agent_id == agent_id)
        .order_by(AgentHashtag.video_count.desc(), AgentHashtag.hashtag)
        .limit(limit)
    )
    return list(rows)


async def term_counts(
    session: AsyncSession,
    keys: Sequence[str],
    *,
    recent_from: datetime,
    baseline_from: datetime,
    until: datetime,
) -> dict[str, tuple[int, int]]:
    """Per hashtag key: catalog videos published in [recent_from, until) and in [baseline_from,
    recent_from)."""
    if not keys:
        return {}
    recent = case((Video.published_at >= recent_from, 1), else_=0)
    rows = await session.execute(
        select(Hashtag.key, func.sum(recent), func.count() - func.sum(recent))
        .join(VideoHashtag, VideoHashtag.hashtag_id == Hashtag.id)
        .join(Video, Video.id == VideoHashtag.video_id)
        .where(Hashtag.key.in_(keys), Video.published_at >= baseline_from, Video.published_at < until)
        .group_by(Hashtag.key)
    )
    return {k: (int(r or 0), int(b or 0)) for k, r, b in rows}


async def recent_videos_with(
    session: AsyncSession, key: str, *, since: datetime, until: datetime, limit: int
) -> Sequence[Video]:
    """The most viewed catalog videos with hashtag ``key`` published in [since, until)."""
    rows = await session.scalars(
        select(Video)
        .join(VideoHashtag, VideoHashtag.video_id == Video.id)
        .join(Hashtag, Hashtag.id == VideoHashtag.hashtag_id)
        .where(Hashtag.key == key, Video.published_at >= since, Video.published_at < until)
        .order_by(Video.views.desc(), Video.id)
        .limit(limit)
    )
    return rows.all()

"""Breaking stories between runs of recurring agents (spec §4.4 /events, §6.2, §6.3; ADR 0032).

A periodic job (``agent.scan_events``, hourly) looks after every recurring agent, one transaction each:

1. stories past ``expires_at`` end (``expired``), their short-lived keywords leave the agent and their
   open proposals expire — whether or not the autopilot is on: they were added as short-lived;
2. for an active agent with ``cognition_enabled``: the news scan (the connector's ``news`` operation
   over the agent's keywords, the last 48 hours) and corpus-burst detection (the agent's terms in the
   catalog's newest videos against their baseline) find stories (``analysis/breaking.py``);
3. a story already known moves along its lifecycle; a new one is stored as a candidate or confirmed;
4. a confirmation adds the story's keywords as short-lived ones (autopilot on) or leaves a proposal
   (off), and publishes ``content_research_agent.event.detected``. No run starts and nothing is charged.

Idempotent: a known story is found by (source, topic), so a scan repeated at once changes nothing;
state lives in ``agent_events``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast
from urllib.parse import urlsplit

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository as agent_repository
from reelscope.agent.autopilot import repository
from reelscope.agent.autopilot import service as autopilot_service
from reelscope.agent.autopilot.schemas import EventList, EventOut, EvidenceOut
from reelscope.analysis import autopilot as decide
from reelscope.analysis import breaking
from reelscope.analysis.themes import GENERIC_TAGS
from reelscope.collectors.base import Capability, ConnectorError
from reelscope.collectors.routing import Sources
from reelscope.events import schemas as events
from reelscope.events import service as events_service
from reelscope.events.catalogue import EventName
from reelscope.kit.clock import iso
from reelscope.kit.db import Database
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.models import Agent, AgentEvent

log = get_logger(__name__)

SCAN_TASK = "agent.scan_events"
# the agent's own hashtags (its videos', most used first) watched for bursts, beside its keywords
DOMAIN_TERMS = 30
# tags used alongside a bursting term offered with it (at least this many of its recent videos)
CO_TERM_SUPPORT = 2


@dataclass
class ScanReport:
    agents: int = 0
    detected: int = 0
    confirmed: int = 0
    dismissed: int = 0
    expired: int = 0
    news_failures: int = 0


async def scan(db: Database, sources: Sources, now: datetime) -> ScanReport:
    """One pass over every recurring agent (the job's body)."""
    report = ScanReport()
    async with db.transaction(write=False) as session:
        agent_ids = await repository.scanned_agent_ids(session)
    for agent_id in agent_ids:
        async with db.transaction(write=False) as session:
            agent = await agent_repository.get_agent_any_team(session, agent_id)
            keywords = list(agent.keywords) if agent is not None and _detects(agent) else None
        articles = None
        if keywords and sources.offers(Capability.NEWS):
            try:
                found = await sources.news(keywords, now - breaking.NEWS_WINDOW, now)
            except ConnectorError as exc:  # the news source failing leaves the corpus scan
                log.warning("agent.scan.news_failed", agent_id=agent_id, error=str(exc))
                report.news_failures += 1
            else:
                articles = [
                    breaking.Article(a.title, a.url, a.domain, a.published_at, a.summary, tuple(a.keywords))
                    for a in found
                ]
        async with db.transaction() as session:
            agent = await agent_repository.get_agent_any_team(session, agent_id)
            if agent is None or agent.deleted_at is not None:
                continue
            await scan_agent(session, agent, articles, now, report, queried=keywords or [])
            report.agents += 1
    log.info("agent.scan.done", **vars(report))
    return report


def _detects(agent: Agent) -> bool:
    return agent.is_recurring and agent.is_active and agent.deleted_at is None and agent.cognition_enabled


async def scan_agent(
    session: AsyncSession,
    agent: Agent,
    articles: Sequence[breaking.Article] | None,
    now: datetime,
    report: ScanReport,
    *,
    queried: Sequence[str] = (),
) -> None:
    """Expire, detect, advance and confirm for one agent (``articles`` None: no news this time;
    ``queried``: the keywords the news was asked about, coverage of which is no story either, even if
    one of them, short-lived, has just left)."""
    for event in await repository.active_events(session, agent.id):
        if now >= event.expires_at:
            await _end(session, agent, event, "expired", now)
            report.expired += 1
    if not _detects(agent):
        return
    own = [*agent.keywords, *queried]
    stories = breaking.news_stories(articles, own) if articles is not None else []
    stories += await _bursts(session, agent, now)
    # terms an active story already carries (a burst's co-used tag, now a short-lived keyword,
    # bursts with it): the same story, not a new one
    covered = {decide.key(k) for e in await repository.active_events(session, agent.id) for k in e.keywords}
    seen: set[str] = set()
    for story in stories:
        seen.add(f"{story.source}:{story.topic}")
        known = await repository.latest_event(session, agent.id, story.source, story.topic[:300])
        if known is None and story.source == "corpus_burst" and story.topic in covered:
            continue
        if known is not None and known.status in breaking.ACTIVE:
            await _advance(session, agent, known, story, now, report)
        elif known is not None and now - known.detected_at < breaking.COOLDOWN:
            continue  # the same story, ended lately: not a new one
        else:
            await _detect(session, agent, story, now, report)
    for event in await repository.active_events(session, agent.id):
        if f"{event.source}:{event.topic}" in seen or (event.source == "news_scan" and articles is None):
            continue
        status = breaking.advance(
            cast(breaking.Status, event.status),
            source=cast(breaking.Source, event.source),
            seen=False,
            strong=False,
            now=now,
            detected_at=event.detected_at,
            expires_at=event.expires_at,
        )
        if status != event.status:
            await _end(session, agent, event, status, now)
            report.dismissed += status == "dismissed"
            report.expired += status == "expired"


async def _bursts(session: AsyncSession, agent: Agent, now: datetime) -> list[breaking.Story]:
    """The agent's terms bursting in the catalog's newest videos, with evidence and co-used tags."""
    own = [decide.key(k) for k in agent.keywords]
    terms = list(dict.fromkeys(own + await repository.domain_terms(session, agent.id, DOMAIN_TERMS)))
    recent_from = now - breaking.RECENT
    counts = await repository.term_counts(
        session,
        terms,
        recent_from=recent_from,
        baseline_from=recent_from - breaking.BASELINE_DAYS * breaking.RECENT,
        until=now,
    )
    found = []
    for term, (recent, baseline) in counts.items():
        activity = breaking.TermActivity(term, recent, baseline)
        if not breaking.bursting(activity):
            continue
        videos = await repository.recent_videos_with(session, term, since=recent_from, until=now, limit=50)
        co: Counter[str] = Counter()
        for video in videos:
            co.update({decide.key(t) for t in video.hashtags or ()} - {term, *own, ""} - GENERIC_TAGS)
        co_terms = tuple(t for t, n in co.most_common(2) if n >= CO_TERM_SUPPORT)
        evidence = tuple(
            breaking.Evidence(
                title=(v.description or "").strip()[:200] or f"{v.platform} video",
                url=v.url,
                domain=urlsplit(v.url).hostname or v.platform,
            )
            for v in videos[: breaking.EVIDENCE]
        )
        found.append(replace(activity, evidence=evidence, co_terms=co_terms))
    return breaking.bursts(found)


async def _detect(
    session: AsyncSession, agent: Agent, story: breaking.Story, now: datetime, report: ScanReport
) -> None:
    event = AgentEvent(
        id=new_id(),
        agent_id=agent.id,
        team_id=agent.team_id,
        source=story.source,
        topic=story.topic[:300],
        dedupe_key=f"{story.source}:{story.topic[:300]}:{now.date().isoformat()}",
        title=story.title[:500],
        summary=story.summary,
        salience=story.salience,
        status="candidate",
        detected_at=now,
        confirmed_at=None,
        expires_at=now + breaking.TTL,
        ended_at=None,
        keywords=list(story.keywords),
        keywords_added=[],
        evidence=[vars(e) for e in story.evidence],
        action_taken=None,
        change_id=None,
        updated_at=now,
    )
    session.add(event)
    await session.flush()
    report.detected += 1
    if breaking.first_status(story) == "confirmed":
        await _confirm(session, agent, event, now)
        report.confirmed += 1


async def _advance(
    session: AsyncSession,
    agent: Agent,
    event: AgentEvent,
    story: breaking.Story,
    now: datetime,
    report: ScanReport,
) -> None:
    """A known active story found again: fresher evidence, then its next status."""
    status = breaking.advance(
        cast(breaking.Status, event.status),
        source=story.source,
        seen=True,
        strong=story.strong,
        now=now,
        detected_at=event.detected_at,
        expires_at=event.expires_at,
    )
    if event.status == "candidate":
        event.salience = max(event.salience, story.salience)
        event.evidence = [vars(e) for e in story.evidence]
        if not event.keywords:
            event.keywords = list(story.keywords)
    if status == "confirmed" and event.status == "candidate":
        await _confirm(session, agent, event, now)
        report.confirmed += 1
    elif status != event.status:
        await _end(session, agent, event, status, now)
        report.expired += status == "expired"
    event.updated_at = now


async def _confirm(session: AsyncSession, agent: Agent, event: AgentEvent, now: datetime) -> None:
    """Confirmed: its keywords as short-lived ones (or a proposal), the log entry and the webhook."""
    event.status, event.confirmed_at, event.updated_at = "confirmed", now, now
    rejected = await repository.rejected_keywords(session, agent.id)
    config = autopilot_service.config_of(agent)
    change = decide.for_event(config, event.keywords, title=event.title, rejected=rejected)
    added: list[str] = []
    if change is not None:
        row = await autopilot_service.record(
            session, agent, change, now, event_id=event.id, expires_at=event.expires_at
        )
        event.change_id = row.id
        added = list((row.effect or {}).get("added", []))
    event.keywords_added = added
    # §6.3 action_taken: no extra cost; the keywords are the only action taken here
    event.action_taken = "timely_keywords" if added else "none"
    autopilot_service.log_activity(
        session,
        agent,
        "event_confirmed",
        f"Breaking story confirmed ({event.source}): {event.title}",
        now,
        event_id=event.id,
        change_id=event.change_id,
        detail={"salience": event.salience, "keywords": event.keywords, "keywords_added": added},
    )
    await _publish(session, agent, event, now)


async def _end(session: AsyncSession, agent: Agent, event: AgentEvent, status: str, now: datetime) -> None:
    """Dismissed or expired: its short-lived keywords leave, its open proposals expire."""
    event.status, event.ended_at, event.updated_at = status, now, now
    mine = [t["keyword"] for t in agent.timely_keywords if t.get("event_id") == event.id]
    change = decide.expiring(autopilot_service.config_of(agent), mine) if mine else None
    if change is not None:
        before = autopilot_service.config_of(agent)
        after = decide.apply(before, change)
        agent.keywords = list(after.keywords)
        agent.updated_at = now
        autopilot_service.log_activity(
            session,
            agent,
            "timely_keywords_expired",
            f"Short-lived keywords left with the story: {', '.join(change.remove)}",
            now,
            event_id=event.id,
            detail={"removed": list(change.remove)},
        )
    agent.timely_keywords = [t for t in agent.timely_keywords if t.get("event_id") != event.id]
    for row in await repository.open_changes_of_event(session, event.id):
        row.status, row.decided_at = autopilot_service.EXPIRED, now


async def _publish(session: AsyncSession, agent: Agent, event: AgentEvent, now: datetime) -> None:
    next_runs = await agent_repository.schedule_next_runs(
        session, [agent.schedule_id] if agent.schedule_id else []
    )
    assert event.confirmed_at is not None and event.action_taken is not None
    payload = events.AgentEventDetected(
        agent_id=agent.id,
        agent_name=agent.name,
        is_recurring=agent.is_recurring,
        event_id=event.id,
        title=event.title,
        summary=event.summary,
        salience=event.salience,
        source=cast(Any, event.source),
        detected_at=event.detected_at,
        confirmed_at=event.confirmed_at,
        expires_at=event.expires_at,
        keywords=event.keywords,
        keywords_added=event.keywords_added,
        evidence=[events.Evidence(**e) for e in event.evidence],
        action_taken=cast(Any, event.action_taken),
        next_run_at=next_runs.get(agent.schedule_id or ""),
    )
    await events_service.publish(
        session, EventName.AGENT_EVENT_DETECTED.value, payload, agent.team_id, at=now
    )


# --- the read ---------------------------------------------------------------------------------------


def render(event: AgentEvent) -> EventOut:
    return EventOut(
        event_id=event.id,
        agent_id=event.agent_id,
        title=event.title,
        summary=event.summary,
        salience=event.salience,
        source=event.source,
        status=event.status,
        detected_at=iso(event.detected_at) or "",
        confirmed_at=iso(event.confirmed_at),
        expires_at=iso(event.expires_at) or "",
        keywords=event.keywords,
        keywords_added=event.keywords_added,
        evidence=[EvidenceOut(**e) for e in event.evidence],
        action_taken=event.action_taken,
        proposal_id=event.change_id,
    )


async def list_events(session: AsyncSession, team_id: str, agent: Agent) -> EventList:
    rows = await repository.list_events(session, team_id, agent.id)
    return EventList(count=len(rows), events=[render(r) for r in rows])

"""The AI analysis of an agent run and its trend batches (spec §4.4, §4.5, §6.3), computed locally by
``analysis.report`` (ARCHITECTURE §8: analysis is pure; the service's own cost is 0).

A run's videos are those the agent had linked by the run's end and that were posted in the run's
window (the days it searched: §4.4 time_range, 30 days unless the autopilot widened it; the run records
it). The agent's baseline is every video it had linked by then. The run's
themes are stored as one trend batch (``agent_trends``, batch end = the run's completion), each row with
the ids of the theme's videos (``member_ids``, not served); a theme keeps the ``stable_key``
of the earlier theme whose videos, else whose top terms, it shares, and its status compares its video
count with the previous batch's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.agent.schemas import TrendQuery
from reelscope.analysis import report as reports
from reelscope.analysis.themes import Doc, PastTheme
from reelscope.kit.clock import iso
from reelscope.kit.ids import new_id
from reelscope.kit.pagination import Page, PageQuery, Pagination
from reelscope.models import Agent, AgentRun, AgentTrend

# §4.4 time_range "30d": the window a run searched, unless it recorded another (``window_of``)
WINDOW = timedelta(days=30)


def doc_of(row: Any) -> Doc:
    return Doc(
        id=row.id,
        text=" ".join(x for x in (row.description, row.transcript) if x),
        hashtags=tuple(row.hashtags or ()),
        sound_id=row.sound_id,
        views=int(row.views or 0),
        likes=int(row.likes or 0),
        comments=int(row.comments or 0),
        shares=row.shares,
        published_at=row.published_at,
        duration=row.duration,
        platform=row.platform,
    )


@dataclass(frozen=True)
class Prepared:
    """A run's analysis computed from reads alone (``prepare_run``), to be stored by ``store_run``: the
    themes' TF-IDF and statistics take seconds for an agent of thousands of videos, and on SQLite a
    write transaction holds the one write lock while it lasts (issue 33 item 5)."""

    end: datetime
    built: reports.Report | None  # None: no video in the run's window
    baseline: reports.Baseline | None
    # the newest trend batch the themes were matched against: another run's analysis stored since
    # then makes this one stale (``store_prepared`` builds it again)
    matched_against: datetime | None


async def prepare_run(session: AsyncSession, agent: Agent, run: AgentRun, now: datetime) -> Prepared:
    end = run.completed_at or now
    matched_against = await repository.latest_batch_end(session, agent.id)
    docs = [doc_of(row) for row in await repository.analysis_docs(session, agent.id, end)]
    searched = window_of(run)
    window = [d for d in docs if end - searched <= d.published_at <= end]
    if not window:
        return Prepared(end=end, built=None, baseline=None, matched_against=matched_against)
    baseline = reports.baseline_of(docs)
    earlier = [
        PastTheme(key, terms, frozenset(member_ids))
        for key, terms, member_ids in await repository.earlier_themes(session, agent.id)
    ]
    previous = {t.stable_key: t.video_count for t in await repository.latest_batch(session, agent.id)}
    built = reports.build(window, baseline, earlier, previous)
    return Prepared(end=end, built=built, baseline=baseline, matched_against=matched_against)


def store_run(
    session: AsyncSession, agent: Agent, run: AgentRun, now: datetime, prepared: Prepared
) -> dict[str, Any] | None:
    """Store and return the run's analysis (the §6.3 ``analysis`` object); None when the run found no
    videos to analyse (§6.3: null when the report "found no new videos")."""
    built, baseline = prepared.built, prepared.baseline
    if built is None or baseline is None:
        return None
    for theme in built.themes:
        session.add(
            AgentTrend(
                id=new_id(),
                agent_id=agent.id,
                run_id=run.id,
                batch_end=prepared.end,
                stable_key=theme.stable_key,
                name=theme.name[:300],
                status=built.statuses[theme.stable_key],
                video_count=len(theme.members),
                terms=theme.terms,
                data={**reports.theme_object(theme), "stats": theme.stats},
                member_ids=[d.id for d in theme.members],
            )
        )
    themes = built.theme_objects()
    analysis = {
        "id": new_id(),
        "status": "completed",
        "analysis_data": built.analysis_data,
        "trends": themes,
        "video_count": built.video_count,
        "cost_usd": 0.0,
        # beyond §6.3, for the analysis reads
        "run_id": run.id,
        "created_at": iso(now),
        "baseline": {"median_views": baseline.median_views, "video_count": baseline.video_count},
    }
    run.analysis = analysis
    agent.analysis_data = built.analysis_data
    return analysis


async def store_prepared(
    session: AsyncSession, agent: Agent, run: AgentRun, now: datetime, prepared: Prepared
) -> dict[str, Any] | None:
    """``store_run`` in the write transaction of an analysis prepared in a read one, unless another
    analysis of the agent was stored in between: then built again here, against it."""
    if await repository.latest_batch_end(session, agent.id) != prepared.matched_against:
        return await analyse_run(session, agent, run, now)
    return store_run(session, agent, run, now, prepared)


async def analyse_run(
    session: AsyncSession, agent: Agent, run: AgentRun, now: datetime
) -> dict[str, Any] | None:
    """Build, store and return the run's analysis in one transaction (``prepare_run``, ``store_run``)."""
    return store_run(session, agent, run, now, await prepare_run(session, agent, run, now))


def window_of(run: AgentRun) -> timedelta:
    """The window the run searched, as its metrics record it (agent/run/service.py): the agent's
    ``time_range`` when the run began, not as the autopilot left it after the run; 30 days for a run
    recorded without it."""
    time_range = (run.metrics or {}).get("time_range")
    return WINDOW if not isinstance(time_range, str) else timedelta(days=int(time_range.rstrip("d")))


def trend_object(row: AgentTrend) -> dict[str, Any]:
    data = dict(row.data)
    stats = data.pop("stats", {})
    return {
        **data,
        "status": row.status,
        "engagement": {
            "median_views": stats.get("median_views"),
            "median_engagement_rate": stats.get("median_engagement_rate"),
            "views_lift": stats.get("views_lift"),
            "platforms": stats.get("platforms", {}),
        },
        "top_hashtags": stats.get("top_hashtags", []),
        "batch_end": iso(row.batch_end),
        "run_id": row.run_id,
    }


def latest_trends(rows: Sequence[AgentTrend]) -> dict[str, Any]:
    """The newest batch; empty (``batch_end`` null) before the first analysis (§4.5)."""
    return {
        "batch_end": iso(rows[0].batch_end) if rows else None,
        "run_id": rows[0].run_id if rows else None,
        "trends": [trend_object(r) for r in rows],
    }


async def trend_page(session: AsyncSession, agent: Agent, query: TrendQuery) -> Page[dict[str, Any]]:
    """The trend history, newest batch first, filtered by ``stable_key`` and batch end."""
    rows, total = await repository.page_trends(
        session,
        agent.id,
        stable_key=query.stable_key,
        start=query.start_date,
        end=query.end_date,
        skip=query.skip,
        limit=query.limit,
    )
    items = [trend_object(r) for r in rows]
    return Page(data=items, pagination=Pagination.of(PageQuery(page=query.page, limit=query.limit), total))

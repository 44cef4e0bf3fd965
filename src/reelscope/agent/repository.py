"""SQL of the agent family: agents, runs, and the read-time lists over what agents linked.

Every read starts from an agent the caller's team owns (``get_agent`` filters by team); the sub-resource
queries then filter by that agent's id.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Row, Select, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import defer, load_only

from reelscope.catalog.reads import VIDEO_SOUND_COLUMNS
from reelscope.kit.stored_json import json_text
from reelscope.models import (
    Ad,
    Agent,
    AgentAd,
    AgentCreator,
    AgentHashtag,
    AgentHook,
    AgentRun,
    AgentSimilarModel,
    AgentSlideshow,
    AgentSound,
    AgentTrend,
    AgentVideo,
    Creator,
    Job,
    Schedule,
    Slideshow,
    Sound,
    Video,
)

# the resource of a run's secondary jobs (the AI analysis, §2.6): the run itself
RUN_RESOURCE = "agent_run"


# what only /affinity and /hooks read (``kept_reads``): not loaded with an agent
_KEPT_FOR_READS = (defer(Agent.affinity), defer(Agent.hook_coverage))


async def get_agent(session: AsyncSession, team_id: str, agent_id: str) -> Agent | None:
    return await session.scalar(
        select(Agent)
        .options(*_KEPT_FOR_READS)
        .where(Agent.id == agent_id, Agent.team_id == team_id, Agent.deleted_at.is_(None))
    )


async def kept_reads(session: AsyncSession, agent_id: str) -> tuple[Any, Any]:
    """The agent's kept genre adjacency and hook coverage (None when not kept yet)."""
    row = (
        await session.execute(select(Agent.affinity, Agent.hook_coverage).where(Agent.id == agent_id))
    ).one()
    return row[0], row[1]


async def get_agent_any_team(session: AsyncSession, agent_id: str) -> Agent | None:
    """For jobs, which act for the agent's own team."""
    return await session.get(Agent, agent_id)


async def list_agents(
    session: AsyncSession, team_id: str, *, skip: int, limit: int, recurring: bool | None = None
) -> Sequence[Agent]:
    # an agent's benchmarks are served by their own read, not with the agent
    stmt = select(Agent).options(defer(Agent.benchmarks), *_KEPT_FOR_READS)
    stmt = stmt.where(Agent.team_id == team_id, Agent.deleted_at.is_(None))
    if recurring is not None:
        stmt = stmt.where(Agent.is_recurring.is_(recurring))
    rows = await session.scalars(stmt.order_by(Agent.created_at.desc(), Agent.id).offset(skip).limit(limit))
    return rows.all()


# a run's JSON columns, most of its bytes (the analysis ~90 KB): read as their stored text, which the
# service serves once serialized per text (kit/stored_json.py, ADR 0062)
RUN_JSON_COLUMNS = (AgentRun.metrics, AgentRun.targets, AgentRun.error, AgentRun.analysis)


# a run as the run list reads it: the run, its JSON columns deferred, and their texts in that order
StoredRun = Row[AgentRun, str | None, str | None, str | None, str | None]


def _runs_with_json_text() -> Select[AgentRun, str | None, str | None, str | None, str | None]:
    metrics, targets, error, analysis = RUN_JSON_COLUMNS
    return select(
        AgentRun, json_text(metrics), json_text(targets), json_text(error), json_text(analysis)
    ).options(*(defer(column) for column in RUN_JSON_COLUMNS))


async def get_run(session: AsyncSession, agent_id: str, run_id: str) -> StoredRun | None:
    """The run (its JSON columns deferred) and their stored texts, as ``list_runs``."""
    stmt = _runs_with_json_text().where(AgentRun.id == run_id, AgentRun.agent_id == agent_id)
    return (await session.execute(stmt)).first()


async def run_by_id(session: AsyncSession, run_id: str) -> AgentRun | None:
    return await session.get(AgentRun, run_id)


async def run_heads(session: AsyncSession, run_ids: Sequence[str]) -> Sequence[AgentRun]:
    """Runs with only what their status needs loaded (their JSON columns are the bulk of a run row)."""
    if not run_ids:
        return []
    stmt = select(AgentRun).options(load_only(AgentRun.id, AgentRun.status, AgentRun.job_id))
    return (await session.scalars(stmt.where(AgentRun.id.in_(run_ids)))).all()


async def jobs_for_runs(session: AsyncSession, run_ids: Sequence[str]) -> dict[str, list[Job]]:
    """The run-level secondary jobs (§2.6) of each run, oldest first."""
    found: dict[str, list[Job]] = {}
    if not run_ids:
        return found
    rows = await session.scalars(
        select(Job)
        .where(Job.resource_type == RUN_RESOURCE, Job.resource_id.in_(run_ids))
        .order_by(Job.created_at, Job.id)
    )
    for job in rows:
        found.setdefault(job.resource_id or "", []).append(job)
    return found


async def run_for_firing(session: AsyncSession, agent_id: str, scheduled_for: datetime) -> AgentRun | None:
    return await session.scalar(
        select(AgentRun).where(AgentRun.agent_id == agent_id, AgentRun.scheduled_for == scheduled_for)
    )


async def list_runs(session: AsyncSession, agent_id: str, *, skip: int, limit: int) -> Sequence[StoredRun]:
    """A page of the agent's runs, newest first: each the run (its JSON columns deferred) and their
    stored texts in ``RUN_JSON_COLUMNS`` order."""
    stmt = (
        _runs_with_json_text()
        .where(AgentRun.agent_id == agent_id)
        .order_by(AgentRun.created_at.desc(), AgentRun.id.desc())
        .offset(skip)
        .limit(limit)
    )
    return (await session.execute(stmt)).all()


async def jobs_by_id(session: AsyncSession, job_ids: Sequence[str]) -> dict[str, Job]:
    if not job_ids:
        return {}
    rows = await session.scalars(select(Job).where(Job.id.in_(job_ids)))
    return {job.id: job for job in rows}


async def schedule_next_runs(
    session: AsyncSession, schedule_ids: Sequence[str]
) -> dict[str, datetime | None]:
    if not schedule_ids:
        return {}
    rows = await session.execute(
        select(Schedule.id, Schedule.next_run_at, Schedule.is_active).where(Schedule.id.in_(schedule_ids))
    )
    return {sid: (next_at if active else None) for sid, next_at, active in rows}


async def set_job_charge(session: AsyncSession, job_id: str, credits: int) -> None:
    """The credits a job debited itself (a recurring run), so the engine refunds them if the job gives up
    for good, as it does for a charge made by the request that created the job."""
    await session.execute(update(Job).where(Job.id == job_id).values(charged_credits=credits))


# --- links -----------------------------------------------------------------------------------------


async def linked_ids(
    session: AsyncSession, model: Any, column: str, agent_id: str, ids: Sequence[str]
) -> set[str]:
    if not ids:
        return set()
    col = getattr(model, column)
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        rows = await session.scalars(
            select(col).where(model.agent_id == agent_id, col.in_(ids[start : start + 500]))
        )
        found.update(rows)
    return found


async def existing_ids(session: AsyncSession, model: Any, ids: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(ids), 500):
        rows = await session.scalars(select(model.id).where(model.id.in_(ids[start : start + 500])))
        found.update(rows)
    return found


def add_links(session: AsyncSession, rows: Sequence[Any]) -> None:
    session.add_all(rows)


async def update_link_views(
    session: AsyncSession, model: Any, column: str, agent_id: str, views: dict[str, int]
) -> None:
    if not views:
        return
    # a Core statement: the ORM would read an executemany UPDATE as an update by primary key values
    table = model.__table__
    stmt = (
        update(table)
        .where(table.c.agent_id == bindparam("b_agent"), table.c[column] == bindparam("b_item"))
        .values(views=bindparam("b_views"))
    )
    await session.execute(
        stmt, [{"b_agent": agent_id, "b_item": item, "b_views": count} for item, count in views.items()]
    )


# --- analytics input -------------------------------------------------------------------------------


async def linked_video_facts(session: AsyncSession, agent_id: str) -> Sequence[Any]:
    """Every linked video with what the analytics read: views, engagement, creator, sound, hashtags."""
    rows = await session.execute(
        select(
            Video.id,
            Video.platform,
            Video.published_at,
            Video.views,
            Video.likes,
            Video.comments,
            Video.shares,
            Video.hashtags,
            Video.sound_id,
            Video.creator_id,
            Creator.handle,
            Creator.followers,
        )
        .join(AgentVideo, AgentVideo.video_id == Video.id)
        .outerjoin(Creator, Creator.id == Video.creator_id)
        .where(AgentVideo.agent_id == agent_id)
    )
    return rows.all()


async def replace_analytics(
    session: AsyncSession,
    agent_id: str,
    *,
    sounds: Sequence[AgentSound],
    hashtags: Sequence[AgentHashtag],
) -> None:
    for model in (AgentSound, AgentHashtag):
        await session.execute(model.__table__.delete().where(model.agent_id == agent_id))  # type: ignore[attr-defined]
    session.add_all([*sounds, *hashtags])


async def upsert_creators(session: AsyncSession, rows: Sequence[AgentCreator]) -> None:
    for row in rows:
        await session.merge(row)


# --- read-time lists -------------------------------------------------------------------------------


def _order(column: Any, descending: bool) -> Any:
    return column.desc() if descending else column.asc()


# the orders of the link tables' own columns, each a walk of one per-agent index: the list filters' orders
# (§4.5) and, on videos only, the legacy orbit read's others (likes, comments, shares, bookmarks,
# author.followers), kept on the link as the catalog had them at the agent's latest run (ADR 0058)
LINK_ORDERS = frozenset({"publish_date", "views", "created_at"})
VIDEO_ORDERS = {
    "likes": AgentVideo.likes,
    "comments": AgentVideo.comments,
    "shares": AgentVideo.shares,
    "bookmarks": AgentVideo.bookmarks,
    "author.followers": AgentVideo.author_followers,
}


def _link_order(link: Any, order: str) -> Any:
    if order in VIDEO_ORDERS:
        assert link is AgentVideo, f"{order} orders videos only"
        return VIDEO_ORDERS[order]
    return {"publish_date": link.published_at, "views": link.views, "created_at": link.linked_at}[order]


async def _page_ids(
    session: AsyncSession,
    link: Any,
    key: Any,
    agent_id: str,
    filters: dict[str, Any],
    order: str,
    descending: bool,
    skip: int,
    limit: int,
) -> tuple[list[str], int]:
    """One page of linked item ids and the matching count, on the link table alone."""
    stmt = _item_filters(select(key).where(link.agent_id == agent_id), link, link, filters)
    total = await session.scalar(
        _item_filters(
            select(func.count()).select_from(link).where(link.agent_id == agent_id), link, link, filters
        )
    )
    ordered = stmt.order_by(_order(_link_order(link, order), descending), _order(key, descending))
    ids = list(await session.scalars(ordered.offset(skip).limit(limit)))
    return ids, int(total or 0)


# what each of the kept orders is in the catalog (a count the source did not report is 0)
_CATALOG_VALUES = {
    "likes": func.coalesce(Video.likes, 0),
    "comments": func.coalesce(Video.comments, 0),
    "shares": func.coalesce(Video.shares, 0),
    "bookmarks": func.coalesce(Video.bookmarks, 0),
    "author_followers": func.coalesce(Creator.followers, 0),
}


async def refresh_link_orders(session: AsyncSession, agent_id: str) -> int:
    """The agent's video links given the catalog's counts and their creators' followers as they are now
    (``_CATALOG_VALUES``); only the links whose values changed are read back and written (the
    comparison is the database's: most links of a run are unchanged). How many were."""
    kept = {name: getattr(AgentVideo, name) for name in _CATALOG_VALUES}
    rows = await session.execute(
        select(AgentVideo.video_id, *(value.label(name) for name, value in _CATALOG_VALUES.items()))
        .join(Video, Video.id == AgentVideo.video_id)
        .outerjoin(Creator, Creator.id == Video.creator_id)
        .where(
            AgentVideo.agent_id == agent_id,
            or_(*(kept[name] != value for name, value in _CATALOG_VALUES.items())),
        )
    )
    changed = [{"agent_id": agent_id, **row._mapping} for row in rows]
    if changed:
        # the ORM's UPDATE by primary key: one executemany
        await session.execute(update(AgentVideo), changed)
    return len(changed)


async def page_videos(
    session: AsyncSession,
    agent_id: str,
    filters: dict[str, Any],
    order: str,
    descending: bool,
    skip: int,
    limit: int,
) -> tuple[Sequence[Any], int]:
    ids, total = await _page_ids(
        session, AgentVideo, AgentVideo.video_id, agent_id, filters, order, descending, skip, limit
    )
    if not ids:
        return [], total
    rows = await session.execute(
        select(
            *Video.__table__.columns,
            AgentVideo.intelligence_status,
            AgentVideo.intelligence,
            AgentVideo.intent_match,
            AgentVideo.keyword,
            AgentVideo.linked_at,
            *VIDEO_SOUND_COLUMNS,
        )
        .join(AgentVideo, AgentVideo.video_id == Video.id)
        .outerjoin(Sound, Sound.id == Video.sound_id)
        .where(AgentVideo.agent_id == agent_id, Video.id.in_(ids))
    )
    by_id = {row.id: row for row in rows}
    return [by_id[i] for i in ids if i in by_id], total


async def page_slideshows(
    session: AsyncSession,
    agent_id: str,
    filters: dict[str, Any],
    order: str,
    descending: bool,
    skip: int,
    limit: int,
) -> tuple[Sequence[Any], int]:
    ids, total = await _page_ids(
        session,
        AgentSlideshow,
        AgentSlideshow.slideshow_id,
        agent_id,
        filters,
        order,
        descending,
        skip,
        limit,
    )
    if not ids:
        return [], total
    rows = await session.execute(
        select(
            *Slideshow.__table__.columns,
            AgentSlideshow.intelligence_status,
            AgentSlideshow.intelligence,
            AgentSlideshow.intent_match,
            AgentSlideshow.keyword,
            AgentSlideshow.linked_at,
        )
        .join(AgentSlideshow, AgentSlideshow.slideshow_id == Slideshow.id)
        .where(AgentSlideshow.agent_id == agent_id, Slideshow.id.in_(ids))
    )
    by_id = {row.id: row for row in rows}
    return [by_id[i] for i in ids if i in by_id], total


def _item_filters(stmt: Any, item: Any, link: Any, filters: dict[str, Any]) -> Any:
    if filters.get("min_views") is not None:
        stmt = stmt.where(item.views >= filters["min_views"])
    if filters.get("platforms"):
        stmt = stmt.where(item.platform.in_(filters["platforms"]))
    if filters.get("start_date") is not None:
        stmt = stmt.where(item.published_at >= filters["start_date"])
    if filters.get("end_date") is not None:
        stmt = stmt.where(item.published_at <= filters["end_date"])
    if filters.get("intent_match") is not None:
        stmt = stmt.where(link.intent_matches.is_(filters["intent_match"]))
    return stmt


async def _count(session: AsyncSession, stmt: Any) -> int:
    total = await session.scalar(select(func.count()).select_from(stmt.order_by(None).subquery()))
    return int(total or 0)


async def page_ads(
    session: AsyncSession, agent_id: str, order: str, descending: bool, skip: int, limit: int
) -> tuple[Sequence[Any], int]:
    stmt = (
        select(Ad, AgentAd.keyword, AgentAd.linked_at)
        .join(AgentAd, AgentAd.ad_id == Ad.id)
        .where(AgentAd.agent_id == agent_id)
    )
    column = {"created_at": AgentAd.linked_at, "page_like_count": Ad.page_likes}[order]
    total = await _count(session, stmt)
    rows = await session.execute(
        stmt.order_by(_order(column, descending), _order(Ad.id, descending)).offset(skip).limit(limit)
    )
    return rows.all(), total


async def page_outliers(
    session: AsyncSession,
    agent_id: str,
    platform: str | None,
    order: str,
    descending: bool,
    skip: int,
    limit: int,
) -> tuple[Sequence[AgentCreator], int]:
    stmt = select(AgentCreator).where(AgentCreator.agent_id == agent_id)
    if platform is not None:
        stmt = stmt.where(AgentCreator.platform == platform)
    column = getattr(AgentCreator, order)
    total = await _count(session, stmt)
    rows = await session.scalars(
        stmt.order_by(_order(column, descending), AgentCreator.creator_id).offset(skip).limit(limit)
    )
    return rows.all(), total


async def page_sounds(
    session: AsyncSession, agent_id: str, order: str, skip: int, limit: int
) -> tuple[Sequence[Any], int]:
    """A page of the agent's sounds: their ids from ``agent_sounds`` alone in list order (by rising
    score, a walk of ``ix_agent_sounds_rising``), then the page's rows with their sounds."""
    column = AgentSound.rising_score if order == "rising" else func.coalesce(AgentSound.growth_7d, -1.0)
    ids = select(AgentSound.sound_id).where(AgentSound.agent_id == agent_id)
    total = await _count(session, ids)
    ordered = ids.order_by(column.desc(), AgentSound.video_count.desc(), AgentSound.sound_id)
    page = list(await session.scalars(ordered.offset(skip).limit(limit)))
    if not page:
        return [], total
    rows = await session.execute(
        select(AgentSound, Sound)
        .join(Sound, Sound.id == AgentSound.sound_id)
        .where(AgentSound.agent_id == agent_id, AgentSound.sound_id.in_(page))
    )
    by_id = {stat.sound_id: (stat, sound) for stat, sound in rows}
    return [by_id[sound_id] for sound_id in page if sound_id in by_id], total


async def page_hashtags(
    session: AsyncSession, agent_id: str, skip: int, limit: int
) -> tuple[Sequence[AgentHashtag], int]:
    """A page of the agent's hashtags, most used first: a walk of ``ix_agent_hashtags_order``."""
    stmt = select(AgentHashtag).where(AgentHashtag.agent_id == agent_id)
    total = await _count(session, select(AgentHashtag.hashtag).where(AgentHashtag.agent_id == agent_id))
    rows = await session.scalars(
        stmt.order_by(AgentHashtag.video_count.desc(), AgentHashtag.total_views.desc(), AgentHashtag.hashtag)
        .offset(skip)
        .limit(limit)
    )
    return rows.all(), total


# --- analysis and trends (issue 16) ----------------------------------------------------------------


# what the analysis reads of a linked video (``agent.analysis.doc_of``)
DOC_COLUMNS = (
    Video.id,
    Video.description,
    Video.transcript,
    Video.hashtags,
    Video.sound_id,
    AgentVideo.views,
    Video.likes,
    Video.comments,
    Video.shares,
    Video.published_at,
    Video.duration,
    Video.platform,
)


async def analysis_docs(session: AsyncSession, agent_id: str, linked_by: datetime) -> Sequence[Any]:
    """Every video the agent had linked by ``linked_by`` with what the analysis reads."""
    rows = await session.execute(
        select(*DOC_COLUMNS)
        .join(AgentVideo, AgentVideo.video_id == Video.id)
        .where(AgentVideo.agent_id == agent_id, AgentVideo.linked_at <= linked_by)
    )
    return rows.all()


async def earlier_themes(
    session: AsyncSession, agent_id: str, limit: int = 500
) -> list[tuple[str, list[str], list[str]]]:
    """(stable_key, terms, member video ids) of the newest stored theme of each key among the agent's
    newest ``limit`` themes, newest batch first; member ids are empty for themes stored without them."""
    rows = await session.execute(
        select(AgentTrend.id, AgentTrend.stable_key, AgentTrend.terms)
        .where(AgentTrend.agent_id == agent_id)
        .order_by(AgentTrend.batch_end.desc(), AgentTrend.id)
        .limit(limit)
    )
    newest: dict[str, tuple[str, list[str]]] = {}
    for row_id, key, terms in rows:
        newest.setdefault(key, (row_id, list(terms)))
    found = await session.execute(
        select(AgentTrend.id, AgentTrend.member_ids).where(
            AgentTrend.id.in_([row_id for row_id, _ in newest.values()])
        )
    )
    members: dict[str, list[str]] = {row_id: list(ids or ()) for row_id, ids in found}
    return [(key, terms, members.get(row_id, [])) for key, (row_id, terms) in newest.items()]


async def latest_batch_end(session: AsyncSession, agent_id: str) -> datetime | None:
    """When the agent's newest trend batch ended (None before its first analysis)."""
    newest: datetime | None = await session.scalar(
        select(func.max(AgentTrend.batch_end)).where(AgentTrend.agent_id == agent_id)
    )
    return newest


async def links_changed_at(session: AsyncSession, agent_id: str) -> tuple[datetime | None, int]:
    """When a video was last linked to the agent, and how many are: what changes when a run stores its
    videos (``ix_agent_videos_agent_linked``)."""
    row = (
        await session.execute(
            select(func.max(AgentVideo.linked_at), func.count()).where(AgentVideo.agent_id == agent_id)
        )
    ).one()
    return row[0], int(row[1])


async def latest_batch(session: AsyncSession, agent_id: str) -> Sequence[AgentTrend]:
    """The themes of the agent's newest trend batch (empty before the first analysis)."""
    newest = await session.scalar(
        select(func.max(AgentTrend.batch_end)).where(AgentTrend.agent_id == agent_id)
    )
    if newest is None:
        return []
    rows = await session.scalars(
        select(AgentTrend)
        .where(AgentTrend.agent_id == agent_id, AgentTrend.batch_end == newest)
        .order_by(AgentTrend.video_count.desc(), AgentTrend.stable_key)
    )
    return rows.all()


async def trends_of_run(session: AsyncSession, run_id: str) -> Sequence[AgentTrend]:
    """The themes one run's analysis stored."""
    rows = await session.scalars(select(AgentTrend).where(AgentTrend.run_id == run_id))
    return rows.all()


async def page_trends(
    session: AsyncSession,
    agent_id: str,
    *,
    stable_key: str | None,
    start: datetime | None,
    end: datetime | None,
    skip: int,
    limit: int,
) -> tuple[Sequence[AgentTrend], int]:
    where = [AgentTrend.agent_id == agent_id]
    if stable_key is not None:
        where.append(AgentTrend.stable_key == stable_key)
    if start is not None:
        where.append(AgentTrend.batch_end >= start)
    if end is not None:
        where.append(AgentTrend.batch_end <= end)
    total = await session.scalar(select(func.count()).select_from(AgentTrend).where(*where)) or 0
    rows = await session.scalars(
        select(AgentTrend)
        .where(*where)
        .order_by(AgentTrend.batch_end.desc(), AgentTrend.video_count.desc(), AgentTrend.stable_key)
        .offset(skip)
        .limit(limit)
    )
    return rows.all(), total


async def page_analyses(
    session: AsyncSession, agent_id: str, *, skip: int, limit: int
) -> tuple[Sequence[Row[str, str | None]], int]:
    """The agent's runs that have an analysis, newest first: (run id, the analysis's stored text)."""
    where = [AgentRun.agent_id == agent_id, AgentRun.analysis.is_not(None)]
    total = await session.scalar(select(func.count()).select_from(AgentRun).where(*where)) or 0
    rows = await session.execute(
        select(AgentRun.id, json_text(AgentRun.analysis))
        .where(*where)
        .order_by(AgentRun.completed_at.desc(), AgentRun.id.desc())
        .offset(skip)
        .limit(limit)
    )
    return rows.all(), total


async def pending_videos(session: AsyncSession, agent_id: str) -> Sequence[Any]:
    """Linked videos whose intelligence is pending, with the text it reads."""
    rows = await session.execute(
        select(
            AgentVideo,
            Video.description,
            Video.transcript,
            Video.hashtags,
            Video.is_duet,
            Video.is_stitch,
        )
        .join(Video, Video.id == AgentVideo.video_id)
        .where(AgentVideo.agent_id == agent_id, AgentVideo.intelligence_status == "pending")
    )
    return rows.all()


async def pending_slideshows(session: AsyncSession, agent_id: str) -> Sequence[Any]:
    rows = await session.execute(
        select(AgentSlideshow, Slideshow.description, Slideshow.panels, Slideshow.hashtags)
        .join(Slideshow, Slideshow.id == AgentSlideshow.slideshow_id)
        .where(AgentSlideshow.agent_id == agent_id, AgentSlideshow.intelligence_status == "pending")
    )
    return rows.all()


async def intent_inputs(session: AsyncSession, agent_id: str) -> tuple[Sequence[Any], Sequence[Any]]:
    """The agent's items whose intelligence is ready, with what intent matching reads: (link, caption,
    transcript, hashtags) per video and (link, caption, panels, hashtags) per slideshow."""
    videos = await session.execute(
        select(AgentVideo, Video.description, Video.transcript, Video.hashtags)
        .join(Video, Video.id == AgentVideo.video_id)
        .where(AgentVideo.agent_id == agent_id, AgentVideo.intelligence_status == "ready")
        .order_by(AgentVideo.video_id)
    )
    slideshows = await session.execute(
        select(AgentSlideshow, Slideshow.description, Slideshow.panels, Slideshow.hashtags)
        .join(Slideshow, Slideshow.id == AgentSlideshow.slideshow_id)
        .where(AgentSlideshow.agent_id == agent_id, AgentSlideshow.intelligence_status == "ready")
        .order_by(AgentSlideshow.slideshow_id)
    )
    return videos.all(), slideshows.all()


async def clear_intent_matches(session: AsyncSession, agent_id: str) -> None:
    for model in (AgentVideo, AgentSlideshow):
        await session.execute(
            update(model)
            .where(model.agent_id == agent_id, model.intent_match.is_not(None))
            .values(intent_match=None, intent_matches=None)
        )


async def hook_inputs(session: AsyncSession, agent_id: str) -> Sequence[Any]:
    """Every linked video with what the hook extractor reads."""
    rows = await session.execute(
        select(
            Video.id,
            Video.platform,
            Video.url,
            Video.description,
            Video.transcript,
            Video.hashtags,
            Video.is_duet,
            Video.is_stitch,
            Video.published_at,
            AgentVideo.views,
        )
        .join(AgentVideo, AgentVideo.video_id == Video.id)
        .where(AgentVideo.agent_id == agent_id)
    )
    return rows.all()


async def replace_hooks(session: AsyncSession, agent_id: str, rows: Sequence[dict[str, Any]]) -> None:
    """The agent's ``agent_hooks`` rows, all replaced by ``rows``."""
    await session.execute(delete(AgentHook).where(AgentHook.agent_id == agent_id))
    if rows:
        await session.execute(insert(AgentHook), [{"agent_id": agent_id, **row} for row in rows])


_HOOK_COLUMNS = tuple(c for c in AgentHook.__table__.c if c.name != "agent_id")


async def page_hooks(
    session: AsyncSession, agent_id: str, hook_type: str | None, limit: int, offset: int
) -> Sequence[Any]:
    """A page of the agent's hooks (of ``hook_type``), views descending then video id: a walk of
    ``ix_agent_hooks_views`` (``ix_agent_hooks_type_views``)."""
    stmt = select(*_HOOK_COLUMNS).where(AgentHook.agent_id == agent_id)
    if hook_type is not None:
        stmt = stmt.where(AgentHook.hook_type == hook_type)
    stmt = stmt.order_by(AgentHook.views.desc(), AgentHook.video_id).limit(limit).offset(offset)
    return [row._mapping for row in await session.execute(stmt)]


# --- affinity and similar creators (issue 16) ------------------------------------------------------


async def genre_inputs(session: AsyncSession, agent_id: str) -> Sequence[Any]:
    """Every linked video with what genre adjacency reads."""
    rows = await session.execute(
        select(Video.id, Video.description, Video.hashtags, Video.creator_id, AgentVideo.views)
        .join(AgentVideo, AgentVideo.video_id == Video.id)
        .where(AgentVideo.agent_id == agent_id)
        .order_by(Video.id)
    )
    return rows.all()


async def creator_videos(session: AsyncSession, agent_id: str) -> Sequence[Any]:
    """Every linked video that has a creator, with the analysis columns and its creator's handle,
    platform and followers."""
    rows = await session.execute(
        select(*DOC_COLUMNS, Video.creator_id, Creator.handle, Creator.followers)
        .join(AgentVideo, AgentVideo.video_id == Video.id)
        .join(Creator, Creator.id == Video.creator_id)
        .where(AgentVideo.agent_id == agent_id)
        .order_by(Video.creator_id, Video.id)
    )
    return rows.all()


# ids per statement of a read by many ids (below SQLite's and asyncpg's limits on parameters)
IDS_PER_READ = 1_000


async def creator_people(session: AsyncSession, creator_ids: Sequence[str]) -> list[Any]:
    """The handle and followers of these creators (those the catalog has), by primary key."""
    rows: list[Any] = []
    for start in range(0, len(creator_ids), IDS_PER_READ):
        chunk = creator_ids[start : start + IDS_PER_READ]
        found = await session.execute(
            select(Creator.id, Creator.handle, Creator.followers).where(Creator.id.in_(chunk))
        )
        rows += found.all()
    return rows


async def similar_model(session: AsyncSession, agent_id: str) -> Any:
    """The agent's prepared creators as the ``agent.similar`` job kept them (``links_at``,
    ``links_count``, ``model``), or None."""
    columns = (AgentSimilarModel.links_at, AgentSimilarModel.links_count, AgentSimilarModel.model)
    found = await session.execute(select(*columns).where(AgentSimilarModel.agent_id == agent_id))
    return found.one_or_none()


async def agents_without_similar_model(session: AsyncSession, *, limit: int) -> list[str]:
    """Agents (not deleted) with linked videos and no prepared creators kept, oldest first."""
    kept = select(AgentSimilarModel.agent_id).where(AgentSimilarModel.agent_id == Agent.id)
    linked = select(AgentVideo.agent_id).where(AgentVideo.agent_id == Agent.id)
    rows = await session.scalars(
        select(Agent.id)
        .where(Agent.deleted_at.is_(None), ~kept.exists(), linked.exists())
        .order_by(Agent.created_at, Agent.id)
        .limit(limit)
    )
    return list(rows.all())


async def keep_similar_model(
    session: AsyncSession,
    agent_id: str,
    links: tuple[datetime | None, int],
    model: bytes | None,
    now: datetime,
) -> None:
    at, count = links
    values = {"agent_id": agent_id, "links_at": at, "links_count": count, "model": model, "built_at": now}
    # one statement: a run's job and the sweep may keep the same agent at once (on PostgreSQL a read
    # then an insert would fail the second on the primary key)
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(AgentSimilarModel).values(**values)
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=[AgentSimilarModel.agent_id],
            set_={name: stmt.excluded[name] for name in values if name != "agent_id"},
        )
    )

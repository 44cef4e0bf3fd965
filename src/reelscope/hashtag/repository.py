"""SQL of the hashtag family: the daily rollup (§2.3 counting rules) and reads over it (issue 6)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from typing import Any

from sqlalchemy import String, Table, case, delete, func, insert, literal, literal_column, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from reelscope.catalog.repository import CHANGED_FROM, NOTHING_CHANGED
from reelscope.kit.fast_reads import FastReads
from reelscope.models import Hashtag, HashtagDaily, HashtagTopList, ReadVersion, Video, VideoHashtag

ROLLUP = "hashtag_rollup"


def _day(session: AsyncSession) -> ColumnElement[str]:
    """The UTC posting day of a video as YYYY-MM-DD."""
    if session.get_bind().dialect.name == "postgresql":
        return func.to_char(func.timezone("UTC", Video.published_at), "YYYY-MM-DD")
    # SQLite stores UTC as naive "YYYY-MM-DD HH:MM:SS.ffffff" (kit/db.py UtcDateTime)
    return func.substr(Video.published_at, 1, 10)


def _found_within_a_week(session: AsyncSession) -> ColumnElement[bool]:
    """§2.3: a video found more than a week after posting is never counted."""
    if session.get_bind().dialect.name == "postgresql":
        return Video.found_at - Video.published_at <= literal_column("interval '7 days'")
    # julianday is a float of days; the margin (about 0.1 s) absorbs its rounding at exactly 7 days
    return func.julianday(Video.found_at) - func.julianday(Video.published_at) <= 7.000001


def _posted_from(session: AsyncSession, day: str) -> ColumnElement[bool]:
    """``published_at`` on or after the start of UTC ``day``, in a form the published_at index serves."""
    if session.get_bind().dialect.name == "postgresql":
        return Video.published_at >= datetime.combine(date.fromisoformat(day), time(), UTC)
    # as text: every stored "YYYY-MM-DD HH:MM:SS[.ffffff]" of that day or later sorts at or after "YYYY-MM-DD"
    return Video.published_at >= literal(day, String)


async def rebuild_rollup(session: AsyncSession, from_day: str, *, everything: bool = False) -> int:
    """Replace the rollup's rows of the posting days from ``from_day`` on with the counted videos of those
    days, in two statements (ADR 0012, 0016). ``everything``: ``from_day`` is the floor of all stats, so
    every row goes and the catalog is read whole (a scan, not the ``published_at`` index: at 1M videos
    the index range over all of them took 2.7 times as long).

    Views are frozen at a week (``views_at_7d``); a video younger than that counts its current views.
    """
    if everything:
        await session.execute(delete(HashtagDaily))
    else:
        await session.execute(delete(HashtagDaily).where(HashtagDaily.day >= from_day))
    day = _day(session)
    posted = [day >= from_day] if everything else [_posted_from(session, from_day), day >= from_day]
    source = (
        select(
            day.label("day"),
            Video.platform,
            VideoHashtag.hashtag_id,
            func.count().label("videos"),
            func.sum(func.coalesce(Video.views_at_7d, Video.views)).label("views"),
            func.sum(Video.likes).label("likes"),
            func.sum(Video.comments).label("comments"),
        )
        .select_from(Video)
        .join(VideoHashtag, VideoHashtag.video_id == Video.id)
        # the day compared as text: SQLite rows written by the bulk upsert may lack the ".ffffff" part
        .where(*posted, _found_within_a_week(session))
        .group_by(day, Video.platform, VideoHashtag.hashtag_id)
    )
    columns = ["day", "platform", "hashtag_id", "videos", "views", "likes", "comments"]
    result = await session.execute(insert(HashtagDaily).from_select(columns, source))
    return int(result.rowcount or 0)  # type: ignore[attr-defined]


async def take_changed_from(session: AsyncSession, floor: str, at: datetime) -> str | None:
    """The earliest posting day of a video written since the last call (catalog/repository.py
    ``note_videos_changed``), reset to "nothing changed" in this transaction; None when nothing was.

    A database that never had the mark (new, or rolled up before marks existed) starts it at ``floor``:
    everything may have changed. The row is locked until commit (PostgreSQL), so a writer that marks
    meanwhile waits, and its mark is kept for the next rollup."""
    marks: Table = ReadVersion.__table__  # type: ignore[assignment]
    dialect = session.get_bind().dialect.name
    ensure = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(marks).values(
        name=CHANGED_FROM, version=floor, updated_at=at
    )
    await session.execute(ensure.on_conflict_do_nothing(index_elements=["name"]))
    read = select(marks.c.version).where(marks.c.name == CHANGED_FROM)
    if dialect == "postgresql":
        read = read.with_for_update()
    value = (await session.execute(read)).scalar_one()
    if value == NOTHING_CHANGED:
        return None
    await session.execute(
        update(marks).where(marks.c.name == CHANGED_FROM).values(version=NOTHING_CHANGED, updated_at=at)
    )
    return str(value)


async def current_version(reads: FastReads, name: str) -> str | None:
    """``version`` as a point read without the ORM (kit/fast_reads.py): the hot path reads it per request."""
    row = await reads.one("SELECT version FROM read_versions WHERE name = :name", {"name": name})
    return None if row is None else str(row[0])


async def touch_version(session: AsyncSession, name: str, at: datetime) -> None:
    """The result was checked at ``at`` and is still current: its version stays."""
    await session.execute(update(ReadVersion).where(ReadVersion.name == name).values(updated_at=at))


async def set_version(session: AsyncSession, name: str, value: str, at: datetime) -> None:
    existing = await session.get(ReadVersion, name)
    if existing is None:
        session.add(ReadVersion(name=name, version=value, updated_at=at))
    else:
        existing.version, existing.updated_at = value, at
    await session.flush()


async def top(
    session: AsyncSession,
    first_day: str,
    last_day: str,
    platform: str | None,
    order_by: str,
    descending: bool,
    limit: int,
) -> Sequence[Any]:
    """(display, count, total_views) of the tags used in [first_day, last_day], ordered by count or
    views (then the other, then the tag, so equal rows keep one order)."""
    count = func.sum(HashtagDaily.videos).label("count")
    views = func.sum(HashtagDaily.views).label("total_views")
    per_tag = select(HashtagDaily.hashtag_id, count, views).where(
        HashtagDaily.day >= first_day, HashtagDaily.day <= last_day
    )
    if platform is not None:
        per_tag = per_tag.where(HashtagDaily.platform == platform)
    grouped = per_tag.group_by(HashtagDaily.hashtag_id).subquery()
    primary, secondary = (grouped.c.count, grouped.c.total_views)
    if order_by == "views":
        primary, secondary = secondary, primary
    ordering = [primary.desc(), secondary.desc()] if descending else [primary.asc(), secondary.asc()]
    stmt = (
        select(Hashtag.display, grouped.c.count, grouped.c.total_views)
        .join(Hashtag, Hashtag.id == grouped.c.hashtag_id)
        .order_by(*ordering, Hashtag.key)
        .limit(limit)
    )
    return (await session.execute(stmt)).all()


async def window_totals(session: AsyncSession, first_days: Sequence[str], last_day: str) -> Sequence[Any]:
    """Per tag and platform used in [min(first_days), last_day]: (hashtag_id, display, platform, then the
    count and total views over [first_day, last_day] of each of ``first_days``, None where it has no row),
    in one pass over the rollup. Rows come in ``hashtags.key`` order, the database's own collation: the order
    ``top`` breaks ties by."""
    in_window = [HashtagDaily.day >= first for first in first_days]
    sums = [
        func.sum(case((inside, column))).label(f"{name}_{n}")
        for n, inside in enumerate(in_window)
        for name, column in (("count", HashtagDaily.videos), ("views", HashtagDaily.views))
    ]
    grouped = (
        select(HashtagDaily.hashtag_id, HashtagDaily.platform, *sums)
        .where(HashtagDaily.day >= min(first_days), HashtagDaily.day <= last_day)
        .group_by(HashtagDaily.hashtag_id, HashtagDaily.platform)
        .subquery()
    )
    stmt = (
        select(grouped.c.hashtag_id, Hashtag.display, grouped.c.platform, *(grouped.c[s.name] for s in sums))
        .join(Hashtag, Hashtag.id == grouped.c.hashtag_id)
        .order_by(Hashtag.key, grouped.c.platform)
    )
    return (await session.execute(stmt)).all()


async def rollup_version(session: AsyncSession, name: str) -> str | None:
    stmt = select(ReadVersion.version).where(ReadVersion.name == name)
    value: str | None = (await session.execute(stmt)).scalar_one_or_none()
    return value


async def has_top_lists(session: AsyncSession, version: str, last_day: str) -> bool:
    stmt = select(HashtagTopList.body).where(
        HashtagTopList.version == version, HashtagTopList.last_day == last_day
    )
    return (await session.execute(stmt.limit(1))).first() is not None


async def keep_top_lists(session: AsyncSession, version: str, lists: Sequence[dict[str, str]]) -> None:
    """Store built top lists under ``version`` and drop those of any other version: a list is only ever
    read under the version it was built from, so older ones are dead weight."""
    await session.execute(delete(HashtagTopList).where(HashtagTopList.version != version))
    if lists:
        await session.execute(insert(HashtagTopList), [{"version": version, **kept} for kept in lists])


async def kept_top_list(
    reads: FastReads, version: str, first_day: str, last_day: str, scope: str, order_by: str, sort: str
) -> str | None:
    """The body of a top list the rollup built under ``version``, as a primary-key read; None if none."""
    row = await reads.one(
        "SELECT body FROM hashtag_top_lists WHERE version = :version AND first_day = :first_day"
        " AND last_day = :last_day AND scope = :scope AND order_by = :order_by AND sort = :sort",
        {
            "version": version,
            "first_day": first_day,
            "last_day": last_day,
            "scope": scope,
            "order_by": order_by,
            "sort": sort,
        },
    )
    return None if row is None else str(row[0])


async def performance(session: AsyncSession, key: str, first_day: str, last_day: str) -> Any | None:
    """(display, videos, views, likes, comments) of one tag over [first_day, last_day], all platforms."""
    stmt = (
        select(
            Hashtag.display,
            func.sum(HashtagDaily.videos).label("videos"),
            func.sum(HashtagDaily.views).label("views"),
            func.sum(HashtagDaily.likes).label("likes"),
            func.sum(HashtagDaily.comments).label("comments"),
        )
        .join(HashtagDaily, HashtagDaily.hashtag_id == Hashtag.id)
        .where(Hashtag.key == key, HashtagDaily.day >= first_day, HashtagDaily.day <= last_day)
        .group_by(Hashtag.display)
    )
    return (await session.execute(stmt)).first()


async def updated_at(session: AsyncSession, name: str) -> datetime | None:
    stmt = select(ReadVersion.updated_at).where(ReadVersion.name == name)
    value: datetime | None = (await session.execute(stmt)).scalar_one_or_none()
    return value

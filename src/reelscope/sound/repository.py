"""SQL of the sound family: sounds with counts of their catalog videos, usage history, resolutions.

Counts are read from ``sound_stats``, kept by ``sound.refresh`` (one aggregate over ``videos`` grouped by
``sound_id``, from the index ``ix_videos_sound_views`` alone); a request never aggregates the catalog.
A list reads the ids of its page by walking one index in the list's order, then those sounds' rows, and
counts its total up to ``_MANY`` (ADR 0038). Every statement is plain SQLAlchemy Core that reads the
same on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    Select,
    case,
    delete,
    func,
    literal,
    literal_column,
    or_,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from reelscope.analysis import hooks as analysis_hooks
from reelscope.catalog import reads as catalog_reads
from reelscope.models import Creator, Sound, SoundResolution, SoundStats, SoundUsage, Video
from reelscope.models.fulltext import POSTGRESQL_SEARCH_SETTINGS, SOUND_TSVECTOR

_SOUND_COLUMNS = (
    Sound.id,
    Sound.title,
    Sound.duration,
    Sound.platform,
    Sound.cover_url,
    Sound.is_original,
    Sound.usage_count,
    Sound.owner_handle,
    Sound.owner_nickname,
    Sound.is_commerce_music,
    Sound.first_seen_at,
    Sound.updated_at,
)
# a list's total counts its rows up to this many, or to one past the page asked for if that is further
# (ADR 0035, 0038): exact below it; at or above it a lower bound that always exceeds the page's end, so
# a client paging until offset >= total or has_next_page is false never stops early (§8.3: "total can be
# too low" for sound lists). Counting a common search word's 200,000 matches cost 300-650 ms; counting
# every trending sound is the catalog's size. On SQLite search pages this many matches or more by
# walking ix_sounds_search_order instead of sorting them all (PostgreSQL's planner makes that choice).
_MANY = 5000
# a search with fewer matches reads them all and orders its page among them by their keys (``search``)
_FEW = 1000
COUNTS = ("video_count", "videos_7d", "videos_30d", "videos_90d")
# a sound no catalog video used when the counts were last kept has no row: zeros
_COUNT_COLUMNS = tuple(func.coalesce(getattr(SoundStats, name), 0).label(name) for name in COUNTS)
# the rows a trending or breakout list may hold, written as a literal: the condition of the partial
# index the list walks (models/sounds.py), which a bound parameter would not let the planners prove
_TRENDING: ColumnElement[bool] = text("sound_stats.videos_30d > 0")  # type: ignore[assignment]
_BREAKOUT: ColumnElement[bool] = text("sound_stats.videos_7d > 0")  # type: ignore[assignment]


def _with_counts() -> Select[*tuple[Any, ...]]:
    """The sounds' columns and their counts."""
    return select(*_SOUND_COLUMNS, *_COUNT_COLUMNS).join_from(
        Sound, SoundStats, SoundStats.sound_id == Sound.id, isouter=True
    )


async def _rows_of(session: AsyncSession, page: Sequence[str], *extra: Any) -> Sequence[Any]:
    """The rows of the sounds of ``page`` (their ids, in list order), with their counts."""
    if not page:
        return []
    stmt = _with_counts().add_columns(*extra).where(Sound.id.in_(page))
    rows = {row.id: row for row in await session.execute(stmt)}
    return [rows[sound_id] for sound_id in page if sound_id in rows]


async def _ids(session: AsyncSession, matches: ColumnElement[bool]) -> list[str]:
    """The ids of the first ``_FEW`` sounds ``matches`` selects, in no order."""
    return list((await session.execute(select(Sound.id).where(matches).limit(_FEW))).scalars())


async def _count_up_to(session: AsyncSession, stmt: Select[*tuple[Any, ...]], up_to: int) -> int:
    """How many rows ``stmt`` selects, counted up to ``up_to``."""
    capped = stmt.limit(up_to).subquery()
    return int((await session.execute(select(func.count()).select_from(capped))).scalar_one())


async def _stats_page(
    session: AsyncSession,
    conditions: Sequence[ColumnElement[bool]],
    order: Sequence[Any],
    limit: int,
    offset: int,
    *extra: Any,
) -> tuple[Sequence[Any], int]:
    """A page of a list over ``sound_stats``: its ids by walking the list's index, then their rows; the
    total counted up to ``_MANY`` (or one past the page)."""
    ids = select(SoundStats.sound_id).where(*conditions)
    page = list((await session.execute(ids.order_by(*order).limit(limit).offset(offset))).scalars())
    total = await _count_up_to(session, ids, max(_MANY, offset + limit + 1))
    return await _rows_of(session, page, *extra), total


async def get_sound(session: AsyncSession, sound_id: str) -> Any | None:
    return (await session.execute(_with_counts().where(Sound.id == sound_id))).one_or_none()


async def sound_exists(session: AsyncSession, sound_id: str) -> bool:
    return (await session.execute(select(literal(1)).where(Sound.id == sound_id))).first() is not None


async def get_resolution(session: AsyncSession, sound_id: str) -> SoundResolution | None:
    return await session.get(SoundResolution, sound_id)


async def add_resolution(session: AsyncSession, row: dict[str, Any]) -> bool:
    """Insert a resolution unless the sound has one; whether this insert made it."""
    insert = postgresql.insert if _dialect(session) == "postgresql" else sqlite.insert
    stmt = insert(SoundResolution).values(**row).on_conflict_do_nothing(index_elements=["sound_id"])
    result = await session.execute(stmt)
    return bool(result.rowcount)  # type: ignore[attr-defined]


def _dialect(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


async def usage_history(session: AsyncSession, sound_id: str, since: datetime) -> Sequence[Any]:
    stmt = (
        select(SoundUsage.at, SoundUsage.usage_count)
        .where(SoundUsage.sound_id == sound_id, SoundUsage.at >= since)
        .order_by(SoundUsage.at)
    )
    return (await session.execute(stmt)).all()


# --- keeping sound_stats ------------------------------------------------------------------------------


async def count_videos(session: AsyncSession, now: datetime) -> dict[str, tuple[int, int, int, int]]:
    """Per sound used by a catalog video: (all, posted in 7, 30, 90 days) of its videos, in one pass
    over ``ix_videos_sound_views`` (it holds ``published_at``)."""

    def posted_since(days: int) -> ColumnElement[int]:
        return func.sum(case((Video.published_at >= now - timedelta(days=days), 1), else_=0))

    stmt = (
        select(Video.sound_id, func.count(), posted_since(7), posted_since(30), posted_since(90))
        .where(Video.sound_id.is_not(None))
        .group_by(Video.sound_id)
    )
    rows = await session.execute(stmt)
    return {str(row[0]): (int(row[1]), int(row[2]), int(row[3]), int(row[4])) for row in rows}


async def sound_facts(session: AsyncSession, sound_ids: Sequence[str]) -> dict[str, tuple[str, int | None]]:
    """(platform, usage_count) of the sounds, by id."""
    found: dict[str, tuple[str, int | None]] = {}
    for start in range(0, len(sound_ids), 5000):
        chunk = list(sound_ids[start : start + 5000])
        stmt = select(Sound.id, Sound.platform, Sound.usage_count).where(Sound.id.in_(chunk))
        found.update({row[0]: (row[1], row[2]) for row in await session.execute(stmt)})
    return found


async def kept_stats(session: AsyncSession) -> dict[str, tuple[Any, ...]]:
    """Every row of ``sound_stats`` as it is, by sound id."""
    columns = [c for c in SoundStats.__table__.c if c.name != "sound_id"]
    stmt = select(SoundStats.sound_id, *columns)
    return {row[0]: tuple(row[1:]) for row in await session.execute(stmt)}


async def write_stats(session: AsyncSession, rows: list[dict[str, Any]], gone: Sequence[str]) -> None:
    """Upsert ``rows`` (whole ``sound_stats`` rows) and delete the rows of ``gone``."""
    if rows:
        insert = postgresql.insert if _dialect(session) == "postgresql" else sqlite.insert
        stmt = insert(SoundStats)
        stmt = stmt.on_conflict_do_update(
            index_elements=["sound_id"],
            set_={c.name: stmt.excluded[c.name] for c in SoundStats.__table__.c if c.name != "sound_id"},
        )
        for start in range(0, len(rows), 5000):
            await session.execute(stmt, rows[start : start + 5000])
    for start in range(0, len(gone), 5000):
        chunk = list(gone[start : start + 5000])
        await session.execute(delete(SoundStats).where(SoundStats.sound_id.in_(chunk)))


def _like(pattern: str) -> str:
    """A LIKE pattern for a substring, with LIKE's own wildcards taken literally."""
    escaped = pattern.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _full_text(dialect: str, words: list[str], *, in_order: bool = False) -> ColumnElement[bool]:
    """Sounds whose title, owner handle or owner nickname has a word starting with each of ``words``,
    through the full-text index (models/fulltext.py). ``in_order`` (SQLite): test each row's membership
    in the match list while walking the search-order index, rather than fetching and sorting every
    match (a common word). PostgreSQL's planner makes that choice itself: the expression index's
    statistics tell it how many rows match."""
    if dialect == "postgresql":
        vector: ColumnElement[Any] = literal_column(SOUND_TSVECTOR.replace("coalesce(", "coalesce(sounds."))
        query = " & ".join(f"{w}:*" for w in words)  # words are letters and digits only
        return vector.op("@@")(func.to_tsquery(literal_column("'simple'"), query))
    found = text("SELECT rowid FROM sounds_fts WHERE sounds_fts MATCH :match").bindparams(match=_match(words))
    rowid: ColumnElement[Any] = literal_column("+sounds.rowid" if in_order else "sounds.rowid")
    return rowid.in_(found.columns(literal_column("rowid")))


def _match(words: list[str]) -> str:
    return " ".join(f'"{w}"*' for w in words)


async def search(session: AsyncSession, q: str, limit: int, offset: int) -> tuple[Sequence[Any], int]:
    """Sounds whose title, owner handle or owner nickname matches ``q``; most used on the platform first.

    A query with a word of 3+ letters or digits is full-text: each of its words begins a word of those
    fields ("sabrina carp" finds "Sabrina Carpenter"), case and punctuation ignored. A shorter one
    ("o", "_") is a case-insensitive substring scan, LIKE's wildcards taken literally. The total counts
    the matches up to ``_MANY`` (or just past the page asked for, if that is further).
    """
    dialect = _dialect(session)
    words = analysis_hooks.words(q)
    up_to = max(_MANY, offset + limit + 1)
    # most used first, NULLs last: on PostgreSQL written as ix_sounds_search_order has it
    order: tuple[Any, ...] = (Sound.usage_count.is_(None), Sound.usage_count.desc(), Sound.id)
    if dialect == "postgresql":
        order = (Sound.usage_count.desc().nulls_last(), Sound.id)
        # for this transaction, a GET's (models/fulltext.py)
        settings = POSTGRESQL_SEARCH_SETTINGS.items()
        await session.execute(select(*(func.set_config(k, v, True) for k, v in settings)))
    if any(len(word) >= 3 for word in words):
        matches = _full_text(dialect, words)
        if dialect == "sqlite":  # every indexed row is a sound: count the matches in the index alone
            counted = text(
                "SELECT count(*) FROM (SELECT 1 FROM sounds_fts WHERE sounds_fts MATCH :match LIMIT :n)"
            )
            total = (await session.execute(counted.bindparams(match=_match(words), n=up_to))).scalar_one()
            if total >= _MANY:
                matches = _full_text(dialect, words, in_order=True)
                order = (Sound.usage_count.desc(), Sound.id)  # the index's order: NULLs sort last
        else:
            total = await _count_up_to(session, select(literal(1)).select_from(Sound).where(matches), up_to)
            if total < _FEW:
                # PostgreSQL would walk the search order testing each row, expecting the matches spread
                # along it; a word whose few sounds are the least used ("original": 412 of 31k, usage
                # unknown) had it walk the whole index (~50 ms at 1M videos)
                matches = Sound.id.in_(await _ids(session, matches))
    else:
        pattern = _like(q)
        matches = or_(
            *(
                func.lower(column).like(pattern, escape="\\")
                for column in (Sound.title, Sound.owner_handle, Sound.owner_nickname)
            )
        )
        # no index helps a substring: a pass over the table finds the first ``_FEW`` matches. Fewer are
        # all of them, counted, rather than the table read twice more, to count and in the search
        # order's walk (issue 33 item 4: "s1" at 1M videos, 139 matches, took ~60 ms on SQLite)
        found = await _ids(session, matches)
        if len(found) < _FEW:
            total, matches = len(found), Sound.id.in_(found)
        else:
            total = await _count_up_to(session, select(literal(1)).select_from(Sound).where(matches), up_to)
    # the page's sounds first, from the sounds table alone; then their rows with their counts
    page = list(
        (
            await session.execute(
                select(Sound.id).where(matches).order_by(*order).limit(limit).offset(offset)
            )
        ).scalars()
    )
    return await _rows_of(session, page), int(total)


async def trending(
    session: AsyncSession, sort: str, platform: str | None, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Sounds used by catalog videos posted in the last 30 days, by ``sort`` descending (ties by the
    7-day count, then id): a walk of ``ix_sound_stats_<sort>``."""
    conditions = [_TRENDING]
    if platform is not None:
        conditions.append(SoundStats.platform == platform)
    key = SoundStats.usage_rank if sort == "usage_count" else getattr(SoundStats, sort)
    order = [key.desc(), SoundStats.videos_7d.desc(), SoundStats.sound_id]
    return await _stats_page(session, conditions, order, limit, offset)


async def breakout(
    session: AsyncSession, min_recent: int, min_baseline: int, platform: str | None, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Sounds with at least ``min_recent`` videos in 7 days and ``min_baseline`` in 90, by score
    videos_7d x (videos_7d / videos_90d) descending (ties by the 7-day count, then id): a walk of
    ``ix_sound_stats_breakout``."""
    conditions = [_BREAKOUT, SoundStats.videos_7d >= min_recent, SoundStats.videos_90d >= min_baseline]
    if platform is not None:
        conditions.append(SoundStats.platform == platform)
    order = [SoundStats.breakout_score.desc(), SoundStats.videos_7d.desc(), SoundStats.sound_id]
    return await _stats_page(session, conditions, order, limit, offset, SoundStats.breakout_score)


async def find_creator_id(session: AsyncSession, platform: str, handle_key: str) -> str | None:
    stmt = select(Creator.id).where(Creator.platform == platform, Creator.handle_key == handle_key)
    return (await session.execute(stmt)).scalar_one_or_none()


async def creator_sounds(
    session: AsyncSession, creator_id: str, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Sounds used in the creator's catalog videos (``ix_videos_creator_sound``), the most used in the
    catalog first."""
    used = select(Video.sound_id).where(Video.creator_id == creator_id, Video.sound_id.is_not(None))
    stmt = _with_counts().where(Sound.id.in_(used))
    total = (await session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one()
    order = (func.coalesce(SoundStats.video_count, 0).desc(), Sound.id)
    rows = (await session.execute(stmt.order_by(*order).limit(limit).offset(offset))).all()
    return rows, int(total)


async def sound_videos(
    session: AsyncSession, sound_id: str, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """The catalog videos using the sound, most viewed first (ties by id): their ids by walking
    ``ix_videos_sound_views``, then their rows; the total counted up to ``_MANY`` (or one past the
    page)."""
    ids = select(Video.id).where(Video.sound_id == sound_id)
    order = (Video.views.desc(), Video.id)
    page = list((await session.execute(ids.order_by(*order).limit(limit).offset(offset))).scalars())
    total = await _count_up_to(session, ids, max(_MANY, offset + limit + 1))
    if not page:
        return [], total
    video_columns = [c for c in Video.__table__.c if c.name != "sound_id"]
    stmt = (
        select(*video_columns, *catalog_reads.VIDEO_SOUND_COLUMNS)
        .join(Sound, Sound.id == Video.sound_id)
        .where(Video.id.in_(page))
    )
    rows = {row.id: row for row in await session.execute(stmt)}
    return [rows[video_id] for video_id in page if video_id in rows], total

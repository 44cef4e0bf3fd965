"""SQL of the sound family: sounds with counts of their catalog videos, usage history, resolutions.

Counts come from one aggregate over ``videos`` grouped by ``sound_id`` (``ix_videos_sound_id``), joined
to ``sounds``; every statement is plain SQLAlchemy Core that reads the same on SQLite and PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Float, Select, and_, case, cast, func, literal, literal_column, or_, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from reelscope.analysis import hooks as analysis_hooks
from reelscope.catalog import reads as catalog_reads
from reelscope.models import Creator, Sound, SoundResolution, SoundUsage, Video
from reelscope.models.fulltext import POSTGRESQL_SEARCH_SETTINGS, SOUND_FIELDS, SOUND_TSVECTOR

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


def _counts(now: datetime, videos: ColumnElement[bool] | None) -> Any:
    def posted_since(days: int) -> ColumnElement[int]:
        return func.coalesce(
            func.sum(case((Video.published_at >= now - timedelta(days=days), 1), else_=0)), 0
        )

    return (
        select(
            Video.sound_id.label("sound_id"),
            func.count().label("video_count"),
            posted_since(7).label("videos_7d"),
            posted_since(30).label("videos_30d"),
            posted_since(90).label("videos_90d"),
        )
        .where(Video.sound_id.is_not(None) if videos is None else videos)
        .group_by(Video.sound_id)
        .subquery("counts")
    )


def _with_counts(
    now: datetime, *, inner: bool, videos: ColumnElement[bool] | None = None
) -> tuple[Select[*tuple[Any, ...]], Any]:
    """Sounds with their counts (zero for a sound no catalog video uses, unless ``inner``); ``videos``
    narrows the counted videos to the sounds asked for, so the aggregate does not cover the catalog."""
    counts = _counts(now, videos)
    columns = [
        func.coalesce(counts.c[name], 0).label(name)
        for name in ("video_count", "videos_7d", "videos_30d", "videos_90d")
    ]
    stmt: Select[*tuple[Any, ...]] = select(*_SOUND_COLUMNS, *columns).join_from(
        Sound, counts, counts.c.sound_id == Sound.id, isouter=not inner
    )
    return stmt, counts


async def _page(
    session: AsyncSession,
    stmt: Select[*tuple[Any, ...]],
    order_by: Sequence[Any],
    limit: int,
    offset: int,
) -> tuple[Sequence[Any], int]:
    total = (await session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one()
    rows = (await session.execute(stmt.order_by(*order_by).limit(limit).offset(offset))).all()
    return rows, int(total)


async def get_sound(session: AsyncSession, sound_id: str, now: datetime) -> Any | None:
    stmt, _ = _with_counts(now, inner=False, videos=Video.sound_id == sound_id)
    return (await session.execute(stmt.where(Sound.id == sound_id))).one_or_none()


async def sound_exists(session: AsyncSession, sound_id: str) -> bool:
    return (await session.execute(select(literal(1)).where(Sound.id == sound_id))).first() is not None


async def get_resolution(session: AsyncSession, sound_id: str) -> SoundResolution | None:
    return await session.get(SoundResolution, sound_id)


async def add_resolution(session: AsyncSession, row: dict[str, Any]) -> bool:
    """Insert a resolution unless the sound has one; whether this insert made it."""
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    stmt = insert(SoundResolution).values(**row).on_conflict_do_nothing(index_elements=["sound_id"])
    result = await session.execute(stmt)
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def usage_history(session: AsyncSession, sound_id: str, since: datetime) -> Sequence[Any]:
    stmt = (
        select(SoundUsage.at, SoundUsage.usage_count)
        .where(SoundUsage.sound_id == sound_id, SoundUsage.at >= since)
        .order_by(SoundUsage.at)
    )
    return (await session.execute(stmt)).all()


def _like(pattern: str) -> str:
    """A LIKE pattern for a substring, with LIKE's own wildcards taken literally."""
    escaped = pattern.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _full_text(dialect: str, words: list[str], *, in_order: bool = False) -> ColumnElement[bool]:
    """Sounds whose title, owner handle or owner nickname has a word starting with each of ``words``,
    through the full-text index (models/fulltext.py). ``in_order``: test each row while walking the
    search-order index rather than fetching and sorting every match (a common word): on SQLite a
    membership test in the match list, on PostgreSQL a regular expression (a word begins after the
    start or a character that is not a letter or digit, as the full-text parser splits words)."""
    if dialect == "postgresql":
        if in_order:
            fields: ColumnElement[Any] = literal_column(SOUND_FIELDS.replace("coalesce(", "coalesce(sounds."))
            return and_(*(fields.regexp_match(f"(^|[^[:alnum:]]){w}") for w in words))
        vector: ColumnElement[Any] = literal_column(SOUND_TSVECTOR.replace("coalesce(", "coalesce(sounds."))
        query = " & ".join(f"{w}:*" for w in words)  # words are letters and digits only
        return vector.op("@@")(func.to_tsquery(literal_column("'simple'"), query))
    found = text("SELECT rowid FROM sounds_fts WHERE sounds_fts MATCH :match").bindparams(match=_match(words))
    rowid: ColumnElement[Any] = literal_column("+sounds.rowid" if in_order else "sounds.rowid")
    return rowid.in_(found.columns(literal_column("rowid")))


def _match(words: list[str]) -> str:
    return " ".join(f'"{w}"*' for w in words)


# matches are counted up to this many, or to one past the page asked for if that is further (ADR 0035):
# exact below it; at or above it a lower bound that always exceeds the page's end, so a client paging
# until offset >= total or has_next_page is false never stops early. A deliberate departure from §8.3,
# which calls only an agent's lists approximate: counting a common word's 200,000 matches costs
# 300-650 ms. This many or more are paged by walking ix_sounds_search_order instead of sorting them all.
_MANY = 5000


async def search(
    session: AsyncSession, q: str, now: datetime, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Sounds whose title, owner handle or owner nickname matches ``q``; most used on the platform first.

    A query with a word of 3+ letters or digits is full-text: each of its words begins a word of those
    fields ("sabrina carp" finds "Sabrina Carpenter"), case and punctuation ignored. A shorter one
    ("o", "_") is a case-insensitive substring scan, LIKE's wildcards taken literally. The total counts
    the matches up to ``_MANY`` (or just past the page asked for, if that is further).
    """
    dialect = session.get_bind().dialect.name
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
        else:
            total = await _count(session, matches, up_to)
        if total >= _MANY:
            matches = _full_text(dialect, words, in_order=True)
            if dialect == "sqlite":
                order = (Sound.usage_count.desc(), Sound.id)  # the index's order: NULLs sort last
    else:
        pattern = _like(q)
        matches = or_(
            *(
                func.lower(column).like(pattern, escape="\\")
                for column in (Sound.title, Sound.owner_handle, Sound.owner_nickname)
            )
        )
        total = await _count(session, matches, up_to)
    # the page's sounds first, from the sounds table alone; then the video counts of those only
    page = [
        row[0]
        for row in await session.execute(
            select(Sound.id).where(matches).order_by(*order).limit(limit).offset(offset)
        )
    ]
    if not page:
        return [], int(total)
    stmt, _ = _with_counts(now, inner=False, videos=Video.sound_id.in_(page))
    rows = (await session.execute(stmt.where(Sound.id.in_(page)).order_by(*order))).all()
    return rows, int(total)


async def _count(session: AsyncSession, matches: ColumnElement[bool], up_to: int) -> int:
    capped = select(literal(1)).select_from(Sound).where(matches).limit(up_to).subquery()
    return int((await session.execute(select(func.count()).select_from(capped))).scalar_one())


async def trending(
    session: AsyncSession, now: datetime, sort: str, platform: str | None, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Sounds used by catalog videos posted in the last 30 days, by ``sort`` descending (ties by the
    7-day count, then id)."""
    stmt, counts = _with_counts(now, inner=True)
    stmt = stmt.where(counts.c.videos_30d > 0)
    if platform is not None:
        stmt = stmt.where(Sound.platform == platform)
    if sort == "usage_count":
        key: list[Any] = [Sound.usage_count.is_(None), Sound.usage_count.desc()]
    else:
        key = [counts.c[sort].desc()]
    return await _page(session, stmt, [*key, counts.c.videos_7d.desc(), Sound.id], limit, offset)


async def breakout(
    session: AsyncSession,
    now: datetime,
    min_recent: int,
    min_baseline: int,
    platform: str | None,
    limit: int,
    offset: int,
) -> tuple[Sequence[Any], int]:
    """Sounds with at least ``min_recent`` videos in 7 days and ``min_baseline`` in 90, by score
    videos_7d x (videos_7d / videos_90d) descending (ties by the 7-day count, then id)."""
    stmt, counts = _with_counts(now, inner=True)
    score = (cast(counts.c.videos_7d, Float) * counts.c.videos_7d / counts.c.videos_90d).label(
        "breakout_score"
    )
    stmt = stmt.add_columns(score).where(
        and_(counts.c.videos_7d >= min_recent, counts.c.videos_90d >= min_baseline)
    )
    if platform is not None:
        stmt = stmt.where(Sound.platform == platform)
    return await _page(session, stmt, [score.desc(), counts.c.videos_7d.desc(), Sound.id], limit, offset)


async def find_creator_id(session: AsyncSession, platform: str, handle_key: str) -> str | None:
    stmt = select(Creator.id).where(Creator.platform == platform, Creator.handle_key == handle_key)
    return (await session.execute(stmt)).scalar_one_or_none()


async def creator_sounds(
    session: AsyncSession, creator_id: str, now: datetime, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Sounds used in the creator's catalog videos, the most used in the catalog first."""
    used = select(Video.sound_id).where(Video.creator_id == creator_id, Video.sound_id.is_not(None))
    stmt, counts = _with_counts(now, inner=True, videos=Video.sound_id.in_(used))
    return await _page(session, stmt, [counts.c.video_count.desc(), Sound.id], limit, offset)


async def sound_videos(
    session: AsyncSession, sound_id: str, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """The catalog videos using the sound, most viewed first (ties by id)."""
    video_columns = [c for c in Video.__table__.c if c.name != "sound_id"]
    stmt = (
        select(*video_columns, *catalog_reads.VIDEO_SOUND_COLUMNS)
        .join(Sound, Sound.id == Video.sound_id)
        .where(Video.sound_id == sound_id)
    )
    return await _page(session, stmt, [Video.views.desc(), Video.id], limit, offset)

"""SQL of the catalog: bulk upserts (``INSERT ... ON CONFLICT``) and the lookups ingest needs.

Bulk statements are built and compiled by SQLAlchemy for the session's dialect, then run as one
driver-level ``executemany`` over parameter tuples made with the columns' own bind processors. That
skips SQLAlchemy's per-row parameter machinery, which costs more than SQLite itself at 10,000+ rows a
second (ADR 0008); the SQL and the value encoding stay SQLAlchemy's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Table, Text, bindparam, case, cast, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import ReadVersion, TrendRegion
from reelscope.models.catalog import (
    Ad,
    Comment,
    Creator,
    Hashtag,
    Slideshow,
    Sound,
    SoundUsage,
    Video,
    VideoHashtag,
    ViewSnapshot,
)

Row = dict[str, Any]
LOOKUP_CHUNK = 2_000

creators_t: Table = Creator.__table__  # type: ignore[assignment]
sounds_t: Table = Sound.__table__  # type: ignore[assignment]
sound_usage_t: Table = SoundUsage.__table__  # type: ignore[assignment]
videos_t: Table = Video.__table__  # type: ignore[assignment]
hashtags_t: Table = Hashtag.__table__  # type: ignore[assignment]
video_hashtags_t: Table = VideoHashtag.__table__  # type: ignore[assignment]
snapshots_t: Table = ViewSnapshot.__table__  # type: ignore[assignment]
slideshows_t: Table = Slideshow.__table__  # type: ignore[assignment]
ads_t: Table = Ad.__table__  # type: ignore[assignment]
comments_t: Table = Comment.__table__  # type: ignore[assignment]


read_versions_t: Table = ReadVersion.__table__  # type: ignore[assignment]

# the earliest posting day (YYYY-MM-DD) of a video written since the hashtag rollup last consumed the
# mark, or NOTHING_CHANGED; kept in ``read_versions`` (ADR 0016)
CHANGED_FROM = "catalog.videos_changed_from"
NOTHING_CHANGED = "9999-12-31"
# what a first mark says when there was none: writes made before marks existed (an upgrade) went
# unrecorded, so every day may have changed (the rollup starts at its own floor)
EVERYTHING_CHANGED = "0001-01-01"


def _insert(session: AsyncSession, table: Table) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)


async def _execute_many(session: AsyncSession, stmt: Any, rows: Sequence[Row]) -> None:
    """Run a statement with named bind parameters once per row, in one driver executemany."""
    if not rows:
        return
    dialect = session.get_bind().dialect
    compiled = stmt.compile(dialect=dialect)
    names = list(compiled.positiontup or ())
    getter = itemgetter(*names)
    processors = [
        (i, p)
        for i, p in enumerate(compiled.binds[n].type.bind_processor(dialect) for n in names)
        if p is not None
    ]
    params: list[Any] = []
    for row in rows:
        values = list(getter(row)) if len(names) > 1 else [row[names[0]]]
        for i, process in processors:
            values[i] = process(values[i])
        params.append(tuple(values))
    connection = await session.connection()
    await connection.exec_driver_sql(compiled.string, params)


def _values(table: Table, rows: Sequence[Row]) -> dict[str, Any]:
    return {name: bindparam(name, type_=table.c[name].type) for name in rows[0]}


def _source(session: AsyncSession, table: Table, rows: Sequence[Row]) -> tuple[Any, bool]:
    """``INSERT`` of ``rows``; True when it takes one array per column (PostgreSQL), False when it
    runs once per row (SQLite).

    On PostgreSQL the rows go in as one ``INSERT ... SELECT unnest($1), unnest($2), ...``: one
    statement and one round trip per batch instead of one execution per row (ADR 0008).
    """
    insert = _insert(session, table)
    if session.get_bind().dialect.name != "postgresql":
        return insert.values(_values(table, rows)), False
    names = list(rows[0])
    arrays: list[Any] = []
    for name in names:
        column_type = table.c[name].type
        if isinstance(column_type, JSON):
            # JSON values travel as text (a JSON array of arrays would read as a 2-D array)
            arrays.append(cast(func.unnest(bindparam(f"{name}_values", type_=postgresql.ARRAY(Text))), JSON))
        else:
            arrays.append(func.unnest(bindparam(f"{name}_values", type_=postgresql.ARRAY(column_type))))
    return insert.from_select(names, select(*arrays)), True


async def _run(session: AsyncSession, stmt: Any, rows: Sequence[Row], by_column: bool) -> None:
    if not by_column:
        await _execute_many(session, stmt, rows)
        return
    table = stmt.table
    params = {}
    for name in rows[0]:
        values = [row[name] for row in rows]
        if isinstance(table.c[name].type, JSON):
            values = [None if v is None else json.dumps(v) for v in values]
        params[f"{name}_values"] = values
    await session.execute(stmt, params)


def _chunks(items: Sequence[Any], size: int = LOOKUP_CHUNK) -> Iterable[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def in_key_order(rows: list[Row], keys: Sequence[str]) -> list[Row]:
    """The rows sorted by their conflict key. An upsert locks each existing row it meets, in the order
    the rows come: two jobs upserting the same sounds or videos in different orders each held a row the
    other waited for, and PostgreSQL ended one with "deadlock detected" (benchmarks/soak.py, two
    agent runs at once). In one order, the second waits for the first instead."""
    return sorted(rows, key=lambda row: tuple(row[key] for key in keys))


async def _upsert(
    session: AsyncSession,
    table: Table,
    rows: list[Row],
    keys: Sequence[str],
    *,
    keep: Sequence[str] = (),
    coalesce: Sequence[str] = (),
    first_wins: Sequence[str] = (),
    newer_only: str | None = None,
) -> None:
    """Insert rows; on a key conflict update every column except ``keys``, ``keep`` and ``id``.

    ``coalesce`` columns keep their stored value when the new one is NULL, ``first_wins`` columns keep
    a stored non-NULL value; with ``newer_only`` the update applies only when that timestamp column is
    not older than the stored one.
    """
    if not rows:
        return
    rows = in_key_order(rows, keys)
    stmt, by_column = _source(session, table, rows)
    excluded = stmt.excluded
    skip = {"id", *keys, *keep}
    values: dict[str, Any] = {}
    for column in table.columns:
        if column.name in skip or column.name not in rows[0]:
            continue
        new, old = excluded[column.name], table.c[column.name]
        if column.name in first_wins:
            values[column.name] = func.coalesce(old, new)
        else:
            values[column.name] = func.coalesce(new, old) if column.name in coalesce else new
    where = table.c[newer_only] <= excluded[newer_only] if newer_only else None
    await _run(
        session,
        stmt.on_conflict_do_update(index_elements=list(keys), set_=values, where=where),
        rows,
        by_column,
    )


async def _insert_ignore(session: AsyncSession, table: Table, rows: list[Row], keys: Sequence[str]) -> None:
    if rows:
        rows = in_key_order(rows, keys)
        stmt, by_column = _source(session, table, rows)
        await _run(session, stmt.on_conflict_do_nothing(index_elements=list(keys)), rows, by_column)


async def _ids(
    session: AsyncSession, table: Table, a: str, b: str, pairs: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], str]:
    found: dict[tuple[str, str], str] = {}
    unique = list(dict.fromkeys(pairs))
    by_first: dict[str, list[str]] = {}
    for first, second in unique:
        by_first.setdefault(first, []).append(second)
    for first, seconds in by_first.items():
        for chunk in _chunks(seconds):
            result = await session.execute(
                select(table.c[b], table.c.id).where(table.c[a] == first, table.c[b].in_(chunk))
            )
            found.update({(first, second): id_ for second, id_ in result.all()})
    return found


async def upsert_creators(session: AsyncSession, rows: list[Row]) -> None:
    """Creators by (platform, handle_key). Counts the source did not report keep their value."""
    counts = ("display_name", "platform_user_id", "followers", "following", "total_likes", "total_views",
              "video_count", "verified", "avatar_url", "bio", "country")  # fmt: skip
    await _upsert(
        session, creators_t, rows, ("platform", "handle_key"), keep=("first_seen_at",), coalesce=counts
    )


async def upsert_sounds(session: AsyncSession, rows: list[Row]) -> None:
    await _upsert(
        session, sounds_t, rows, ("platform", "external_id"), keep=("first_seen_at",),
        coalesce=("duration", "usage_count", "owner_handle", "owner_nickname", "is_commerce_music"),
    )  # fmt: skip


async def add_sound_usage(session: AsyncSession, rows: list[Row]) -> None:
    await _insert_ignore(session, sound_usage_t, rows, ("sound_id", "at"))


async def upsert_videos(session: AsyncSession, rows: list[Row], *, keep: Iterable[str] = ()) -> None:
    """Videos by (platform, external_id). ``found_at`` is set once, and the ``keep`` columns of a video
    already stored (a new one takes the rows' values); an older observation never overwrites a newer
    one; ``views_at_7d`` is kept once known."""
    await _upsert(
        session, videos_t, rows, ("platform", "external_id"), keep=("found_at", *keep),
        coalesce=("sound_id", "creator_id", "feed_region"),
        first_wins=("views_at_7d",), newer_only="fetched_at",
    )  # fmt: skip


async def video_counters(session: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, int | None]]:
    """The stored counters of videos by id."""
    c = videos_t.c
    found: dict[str, dict[str, int | None]] = {}
    for chunk in _chunks(ids):
        result = await session.execute(
            select(c.id, c.views, c.likes, c.comments, c.shares, c.bookmarks).where(c.id.in_(chunk))
        )
        for id_, *values in result.all():
            found[id_] = dict(zip(("views", "likes", "comments", "shares", "bookmarks"), values, strict=True))
    return found


async def settle_observations(session: AsyncSession, rows: list[Row]) -> None:
    """For videos whose observations may have arrived out of order (rows: id, found_at, frozen_from):
    ``found_at`` becomes the earliest sighting, and where ``frozen_from`` (posting + 7 days) is given,
    ``views_at_7d`` the views of the first stored snapshot at or after it (§2.3)."""
    if not rows:
        return
    c = videos_t.c
    connection = await session.connection()
    found = bindparam("b_found_at", type_=c.found_at.type)
    await connection.execute(
        update(videos_t)
        .where(c.id == bindparam("b_id"))
        .values(found_at=case((c.found_at > found, found), else_=c.found_at)),
        [{"b_id": r["id"], "b_found_at": r["found_at"]} for r in rows],
    )
    frozen = [r for r in rows if r["frozen_from"] is not None]
    if not frozen:
        return
    s = snapshots_t.c
    first_week_views = (
        select(s.views)
        .where(s.video_id == c.id, s.at >= bindparam("b_frozen_from", type_=s.at.type))
        .order_by(s.at)
        .limit(1)
        .scalar_subquery()
    )
    await connection.execute(
        update(videos_t)
        .where(c.id == bindparam("b_id"))
        .values(views_at_7d=func.coalesce(first_week_views, c.views_at_7d)),
        [{"b_id": r["id"], "b_frozen_from": r["frozen_from"]} for r in frozen],
    )


async def count_snapshots(session: AsyncSession, video_ids: Sequence[str]) -> int:
    total = 0
    for chunk in _chunks(list(video_ids)):
        stmt = select(func.count()).select_from(snapshots_t).where(snapshots_t.c.video_id.in_(chunk))
        total += int((await session.execute(stmt)).scalar_one())
    return total


async def note_videos_changed(session: AsyncSession, earliest_published: datetime, at: datetime) -> None:
    """Remember, in the writer's transaction, that videos posted from ``earliest_published``'s UTC day
    on were written: the hashtag rollup rebuilds from the earliest such day (ADR 0016). On PostgreSQL
    the row lock taken here orders this transaction with a rollup that reads and resets the mark."""
    day = earliest_published.astimezone(UTC).date().isoformat()
    first = {"name": CHANGED_FROM, "version": EVERYTHING_CHANGED, "updated_at": at}
    stmt = _insert(session, read_versions_t).values(**first)
    least = func.least if session.get_bind().dialect.name == "postgresql" else func.min
    stmt = stmt.on_conflict_do_update(
        index_elements=["name"],
        set_={"version": least(read_versions_t.c.version, day), "updated_at": at},
    )
    await session.execute(stmt)


async def add_hashtags(session: AsyncSession, rows: list[Row]) -> None:
    """Hashtags by key; an existing one keeps its first display form."""
    await _insert_ignore(session, hashtags_t, rows, ("key",))


async def link_hashtags(session: AsyncSession, rows: list[Row]) -> None:
    await _insert_ignore(session, video_hashtags_t, rows, ("video_id", "hashtag_id"))


async def add_snapshots(session: AsyncSession, rows: list[Row]) -> None:
    """One row per (video, observation time); the same observation twice is stored once."""
    await _insert_ignore(session, snapshots_t, rows, ("video_id", "at"))


async def update_video_stats(session: AsyncSession, rows: list[Row]) -> None:
    """Set counters of videos by id (rows: id, fetched_at, views, likes, comments, shares, bookmarks,
    views_at_7d), skipping rows older than what is stored."""
    if not rows:
        return
    c = videos_t.c

    def param(name: str) -> Any:
        return bindparam(f"b_{name}", type_=c[name].type)

    stmt = (
        update(videos_t)
        .where(c.id == param("id"), c.fetched_at <= param("fetched_at"))
        .values(
            fetched_at=param("fetched_at"),
            views=param("views"),
            likes=param("likes"),
            comments=param("comments"),
            shares=param("shares"),
            bookmarks=param("bookmarks"),
            views_at_7d=func.coalesce(c.views_at_7d, param("views_at_7d")),
        )
    )
    await _execute_many(session, stmt, [{f"b_{k}": v for k, v in r.items()} for r in rows])


async def videos_published_since(
    session: AsyncSession, since: datetime
) -> list[tuple[str, str, str, datetime]]:
    """(id, platform, external_id, published_at) of videos posted at or after ``since``."""
    result = await session.execute(
        select(videos_t.c.id, videos_t.c.platform, videos_t.c.external_id, videos_t.c.published_at).where(
            videos_t.c.published_at >= since
        )
    )
    return [tuple(r) for r in result.all()]


async def videos_for_refresh(session: AsyncSession, since: datetime) -> list[tuple[str, str, str, datetime]]:
    """(id, platform, external_id, published_at) of videos posted at or after ``since``, the least
    recently observed first (a budgeted stats refresh reads them in this order)."""
    result = await session.execute(
        select(videos_t.c.id, videos_t.c.platform, videos_t.c.external_id, videos_t.c.published_at)
        .where(videos_t.c.published_at >= since)
        .order_by(videos_t.c.fetched_at, videos_t.c.id)
    )
    return [tuple(r) for r in result.all()]


async def country_regions(session: AsyncSession) -> list[str]:
    """The trend regions that are countries (§2.4), in their order: whose popular charts collection pulls."""
    result = await session.execute(
        select(TrendRegion.code).where(TrendRegion.is_country.is_(True)).order_by(TrendRegion.position)
    )
    return list(result.scalars())


async def upsert_slideshows(session: AsyncSession, rows: list[Row]) -> None:
    await _upsert(
        session, slideshows_t, rows, ("platform", "external_id"), keep=("found_at",),
        coalesce=("sound_id", "creator_id"), newer_only="fetched_at",
    )  # fmt: skip


async def upsert_ads(session: AsyncSession, rows: list[Row]) -> None:
    await _upsert(session, ads_t, rows, ("external_id",), keep=("first_seen_at",), newer_only="fetched_at")


async def upsert_comments(session: AsyncSession, rows: list[Row]) -> None:
    await _upsert(
        session,
        comments_t,
        rows,
        ("platform", "external_id"),
        coalesce=("video_id",),
        newer_only="fetched_at",
    )


async def earliest_published(session: AsyncSession, ids: Sequence[str]) -> datetime | None:
    """The earliest stored ``published_at`` among videos ``ids`` (None if none is stored yet)."""
    # The rows are read by primary key and the minimum taken here. ``SELECT min(published_at) … WHERE id
    # IN (…)`` let PostgreSQL's generic plan walk ix_videos_published_at from the oldest video, filtering
    # on id, hoping to meet one of the ids early: the ids of a collection batch are the newest videos, so
    # each call read the whole index (3 s a chunk on a 10-day catalog).
    earliest: datetime | None = None
    for chunk in _chunks(ids):
        stmt = select(videos_t.c.published_at).where(videos_t.c.id.in_(chunk))
        for found in (await session.execute(stmt)).scalars():
            if found is None:
                continue
            found = found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)
            earliest = found if earliest is None else min(earliest, found)
    return earliest


async def video_ids(session: AsyncSession, keys: Sequence[tuple[str, str]]) -> dict[tuple[str, str], str]:
    return await _ids(session, videos_t, "platform", "external_id", keys)


async def is_empty(session: AsyncSession) -> bool:
    return (await session.execute(select(videos_t.c.id).limit(1))).first() is None


async def latest_found_at(session: AsyncSession) -> datetime | None:
    """When the catalog last saw a new video (the resume point of continuous collection)."""
    value = (await session.execute(select(func.max(Video.found_at)))).scalar_one_or_none()
    return value if value is None or value.tzinfo else value.replace(tzinfo=UTC)


# --- reads other families use (trend detection and exemplars) -------------------------------------------


async def posts_between(session: AsyncSession, since: datetime, until: datetime) -> Sequence[Any]:
    """Videos posted in (since, until] with what trend detection reads: (id, platform, published_at,
    views, hashtags, description, sound id, sound title, sound is_original, country, tags, creator id).

    The country is the feed region first (the country whose feed listed the video: it trends there,
    ADR 0026), then the creator's country, the upload region, the legacy region."""
    country = func.lower(func.coalesce(Video.feed_region, Creator.country, Video.upload_region, Video.region))
    stmt = (
        select(
            Video.id,
            Video.platform,
            Video.published_at,
            Video.views,
            Video.hashtags,
            Video.description,
            Video.sound_id,
            Sound.title,
            Sound.is_original,
            country,
            Video.tags,
            Video.creator_id,
        )
        .outerjoin(Creator, Creator.id == Video.creator_id)
        .outerjoin(Sound, Sound.id == Video.sound_id)
        .where(Video.published_at > since, Video.published_at <= until)
    )
    return (await session.execute(stmt)).all()


async def exemplar_rows(session: AsyncSession, video_ids: Sequence[str]) -> Sequence[Any]:
    rows: list[Any] = []
    for chunk in _chunks(list(video_ids)):
        stmt = (
            select(
                Video.id,
                Video.platform,
                Video.external_id,
                Video.url,
                Video.views,
                Video.likes,
                Video.thumbnail_url,
                Video.published_at,
                Creator.handle,
                Creator.avatar_url,
                Creator.verified,
            )
            .outerjoin(Creator, Creator.id == Video.creator_id)
            .where(Video.id.in_(chunk))
        )
        rows.extend((await session.execute(stmt)).all())
    return rows


async def snapshot_views_as_of(
    session: AsyncSession, video_ids: Sequence[str], at: datetime
) -> dict[str, tuple[int, int]]:
    """(views, likes) of each video's last snapshot taken at or before ``at`` or, for a video first
    observed later, its first snapshot; videos without any are left out."""
    found: dict[str, tuple[int, int]] = {}
    s = snapshots_t.c
    inner = snapshots_t.alias("other")
    for chunk in _chunks(list(dict.fromkeys(video_ids))):
        last_by_then = (
            select(func.max(inner.c.at))
            .where(inner.c.video_id == s.video_id, inner.c.at <= at)
            .scalar_subquery()
        )
        first = select(func.min(inner.c.at)).where(inner.c.video_id == s.video_id).scalar_subquery()
        stmt = select(s.video_id, s.views, s.likes).where(
            s.video_id.in_(chunk), s.at == func.coalesce(last_by_then, first)
        )
        rows = (await session.execute(stmt)).all()
        found.update({vid: (int(views), int(likes)) for vid, views, likes in rows})
    return found

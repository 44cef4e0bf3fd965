"""SQL of the hook family: the hooks table kept from the catalog's videos, its lists and its search.

Search reads ``hook_texts`` (one row per distinct text, kept from the hooks by triggers; ADR 0055)
through its full-text indexes of models/fulltext.py: FTS5 on SQLite, GIN indexes over stored word
vectors on PostgreSQL. Trending and search read at most ``TOP`` rows
(§8.3) and run under a time limit (``time_limit``).
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from time import monotonic
from typing import Any

from sqlalchemy import (
    Select,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    literal,
    literal_column,
    select,
    text,
    true,
    union_all,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from reelscope.models import (
    Hook,
    HookCategoryStats,
    HookLibrary,
    HookText,
    HookTypeStats,
    ReadVersion,
    Video,
)
from reelscope.models.fulltext import POSTGRESQL_SEARCH_SETTINGS
from reelscope.models.hooks import UNSCORED

# §4.7, §8.3: trending and search serve the top 1,000 results
TOP = 1000


class QueryTooLong(Exception):
    """A statement ran past its time limit and was stopped."""


@asynccontextmanager
async def time_limit(session: AsyncSession, milliseconds: int) -> AsyncIterator[None]:
    """Stop any statement of the block that runs past ``milliseconds`` (raising ``QueryTooLong``):
    ``statement_timeout`` for the transaction on PostgreSQL, a progress handler on SQLite."""
    connection = await session.connection()
    if connection.dialect.name == "postgresql":
        # one round trip: the settings as they were, then this transaction's limit and search planning
        settings = {"statement_timeout": f"{milliseconds}ms", **POSTGRESQL_SEARCH_SETTINGS}
        before = (
            await session.execute(
                select(
                    *(func.current_setting(name) for name in settings),
                    *(func.set_config(name, value, True) for name, value in settings.items()),
                )
            )
        ).one()
        try:
            yield
        except DBAPIError as exc:
            if "canceling statement due to statement timeout" in str(exc.orig):
                raise QueryTooLong() from exc
            raise
        restore = (func.set_config(name, value, True) for name, value in zip(settings, before, strict=False))
        await session.execute(select(*restore))
        return
    raw = (await connection.get_raw_connection()).driver_connection
    deadline = monotonic() + milliseconds / 1000

    def stop_when_late() -> int:
        return 1 if monotonic() > deadline else 0  # non-zero interrupts the statement

    await _progress_handler(raw, stop_when_late)
    try:
        yield
    except DBAPIError as exc:
        if isinstance(exc.orig, sqlite3.OperationalError) and "interrupted" in str(exc.orig):
            raise QueryTooLong() from exc
        raise
    finally:
        await _progress_handler(raw, None)


async def _progress_handler(raw: Any, handler: Any) -> None:
    # every 10,000 SQLite virtual-machine steps: well under a millisecond apart
    if isinstance(raw, sqlite3.Connection):  # the inline read driver (kit/sqlite_inline.py)
        raw.set_progress_handler(handler, 10_000)
    else:  # aiosqlite
        await raw.set_progress_handler(handler, 10_000)


# --- keeping the table ----------------------------------------------------------------------------------


async def videos_to_refresh(session: AsyncSession, limit: int, *, after: str | None = None) -> Sequence[Any]:
    """Catalog videos after ``after`` (by id) with no hook row yet, or whose views moved since their row
    was made: a refresh walks the catalog once, in id order (not again from its start each batch)."""
    stmt = (
        select(
            Video.id,
            Video.creator_id,
            Video.platform,
            Video.language,
            Video.description,
            Video.transcript,
            Video.hashtags,
            Video.is_duet,
            Video.is_stitch,
            Video.views,
            Video.published_at,
            Hook.text_key.label("old_text_key"),
        )
        .join(Hook, Hook.video_id == Video.id, isouter=True)
        .where((Hook.seq.is_(None)) | (Hook.views != Video.views))
        .order_by(Video.id)
        .limit(limit)
    )
    if after is not None:
        stmt = stmt.where(Video.id > after)
    return (await session.execute(stmt)).all()


async def creator_views(session: AsyncSession, creator_ids: Sequence[str]) -> Sequence[Any]:
    stmt = select(Video.creator_id, Video.views).where(Video.creator_id.in_(creator_ids))
    return (await session.execute(stmt)).all()


async def creator_hooks(session: AsyncSession, creator_ids: Sequence[str]) -> Sequence[Any]:
    stmt = select(Hook.seq, Hook.video_id, Hook.creator_id, Hook.views, Hook.text_key).where(
        Hook.creator_id.in_(creator_ids)
    )
    return (await session.execute(stmt)).all()


async def upsert_hooks(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    if not rows:
        return
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    stmt = insert(Hook)
    kept = {"seq", "id", "video_id"}
    stmt = stmt.on_conflict_do_update(
        index_elements=["video_id"],
        set_={c.name: stmt.excluded[c.name] for c in Hook.__table__.c if c.name not in kept},
    )
    await session.execute(stmt, rows)


async def set_scores(session: AsyncSession, scores: list[dict[str, Any]]) -> None:
    """``scores``: ``{"s": seq, "r": outlier_ratio, "w": weighted_score}`` each."""
    if not scores:
        return
    await session.execute(
        text("UPDATE hooks SET outlier_ratio = :r, weighted_score = :w, rank_score = :k WHERE seq = :s"),
        [{**score, "k": UNSCORED if score["w"] is None else score["w"]} for score in scores],
    )


async def recount_usage(session: AsyncSession, text_keys: Sequence[str]) -> None:
    """``usage_count`` of every hook with one of ``text_keys``: the hooks sharing its text."""
    for start in range(0, len(text_keys), 500):
        keys = list(text_keys[start : start + 500])
        counts = (
            select(Hook.text_key, func.count().label("n"))
            .where(Hook.text_key.in_(keys))
            .group_by(Hook.text_key)
        )
        found = (await session.execute(counts)).all()
        if found:
            await session.execute(
                text("UPDATE hooks SET usage_count = :n WHERE text_key = :k"),
                [{"n": row.n, "k": row.text_key} for row in found],
            )


# --- keeping what the lists read (ADR 0038) -----------------------------------------------------------

# the filters of the library with a scope of their own in hook_library, and how a scope is named
LIBRARY_FACETS = ("platform", "category", "language", "visual_hook_type")
ALL = "all"
# read_versions row: the library and the types' and categories' figures have been built (absent: a
# database from before them, whose first refresh builds them in full)
LISTS_BUILT = "hook.lists"


def library_scope(facet: str, value: str) -> str:
    return f"{facet}:{value}"


def _library_selects(where: ColumnElement[bool]) -> list[Select[Any]]:
    """One INSERT ... SELECT source per scope: the hooks ``where`` holds, grouped by words and type (and
    the scope's value)."""
    best = func.max(Hook.weighted_score)
    aggregates = (
        Hook.text_key,
        Hook.hook_type,
        func.min(Hook.text),
        func.count(),
        best,
        func.coalesce(best, UNSCORED),
        func.max(Hook.views),
        func.count(func.distinct(Hook.platform)),
    )
    selects = []
    for facet in (None, *LIBRARY_FACETS):
        column = getattr(Hook, facet) if facet else None
        scope = literal(ALL) if column is None else literal(f"{facet}:") + column
        stmt = select(scope, *aggregates).where(where)
        if column is not None:
            stmt = stmt.where(column.is_not(None))
        group = (Hook.text_key, Hook.hook_type) if column is None else (column, Hook.text_key, Hook.hook_type)
        selects.append(stmt.group_by(*group))
    return selects


_LIBRARY_COLUMNS = (
    "scope",
    "text_key",
    "hook_type",
    "text",
    "usage_count",
    "best_weighted_score",
    "best_rank",
    "max_views",
    "platform_count",
)


# PostgreSQL: the transactions that write the hooks or hook_library take this lock first, so two
# refreshes (the periodic one, one after a catalog change) never interleave a delete and its inserts
# (duplicate keys), nor update the same creators' hooks in different orders (deadlocks, which retries
# did not end while both refreshes went on: the soak of issue 31)
_LIBRARY_LOCK = 330_038  # issue 33, ADR 0038


async def hold_hook_writes(session: AsyncSession) -> None:
    """Take the hook writers' lock for the rest of the transaction (PostgreSQL; a no-op on SQLite)."""
    if session.get_bind().dialect.name == "postgresql":  # SQLite's writers are one at a time already
        await session.execute(select(func.pg_advisory_xact_lock(_LIBRARY_LOCK)))


async def _insert_library(session: AsyncSession, where: ColumnElement[bool], *, upsert: bool = False) -> None:
    """The library's rows of the hooks ``where`` holds; ``upsert``: replacing rows already there."""
    await hold_hook_writes(session)
    dialect = session.get_bind().dialect.name
    for source in _library_selects(where):
        if not upsert:
            await session.execute(insert(HookLibrary).from_select(list(_LIBRARY_COLUMNS), source))
            continue
        stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(HookLibrary).from_select(
            list(_LIBRARY_COLUMNS), source
        )
        keys = ("scope", "text_key", "hook_type")
        await session.execute(
            stmt.on_conflict_do_update(
                index_elements=list(keys),
                set_={c: stmt.excluded[c] for c in _LIBRARY_COLUMNS if c not in keys},
            )
        )


async def rebuild_library(session: AsyncSession, keys: Sequence[str]) -> None:
    """The library's rows of the hooks with ``keys`` (their words), again from the hooks."""
    unique = sorted(set(keys))
    await hold_hook_writes(session)
    for start in range(0, len(unique), 500):
        chunk = unique[start : start + 500]
        await session.execute(delete(HookLibrary).where(HookLibrary.text_key.in_(chunk)))
        await _insert_library(session, Hook.text_key.in_(chunk))


async def clear_library(session: AsyncSession) -> None:
    await hold_hook_writes(session)
    await session.execute(delete(HookLibrary))


async def library_range_end(session: AsyncSession, start: str | None, rows: int) -> str | None:
    """Where a range of about ``rows`` hooks from ``start`` (their ``text_key`` order) ends: the first
    key after it, beyond ``start``; None when the range reaches the last hook."""
    stmt = select(Hook.text_key)
    if start is not None:
        stmt = stmt.where(Hook.text_key >= start)
    end = (await session.execute(stmt.order_by(Hook.text_key).offset(rows).limit(1))).scalar_one_or_none()
    if end is not None and end == start:  # a text shared by more hooks than a range: the next text
        following = select(func.min(Hook.text_key)).where(Hook.text_key > start)
        end = (await session.execute(following)).scalar_one_or_none()
    return end


async def build_library_range(session: AsyncSession, start: str | None, end: str | None) -> None:
    """The library's rows of the hooks whose ``text_key`` is in [start, end) (None: unbounded), in the
    library's first build. Rows already there are replaced: two refreshes that both found the library
    unbuilt (on a first start, the collection's and the stats refresh's) build the same ranges, and the
    second met the first's rows as a UNIQUE failure (the soak of issue 31)."""
    conditions = []
    if start is not None:
        conditions.append(Hook.text_key >= start)
    if end is not None:
        conditions.append(Hook.text_key < end)
    await _insert_library(session, and_(*conditions) if conditions else true(), upsert=True)


async def type_scores(session: AsyncSession) -> Sequence[Any]:
    """Per hook: its type, score and ratio (the types' counts and medians)."""
    stmt = select(Hook.hook_type, Hook.weighted_score, Hook.outlier_ratio)
    return (await session.execute(stmt)).all()


async def category_counts(session: AsyncSession) -> dict[str, int]:
    stmt = select(Hook.category, func.count()).where(Hook.category.is_not(None)).group_by(Hook.category)
    return {str(category): int(count) for category, count in (await session.execute(stmt)).all()}


async def write_list_figures(
    session: AsyncSession, types: list[dict[str, Any]], categories: list[dict[str, Any]], at: datetime
) -> None:
    """Replace the types' and categories' rows, and mark the lists built. Under the library's lock on
    PostgreSQL: two refreshes replacing them at once each deleted, then both inserted."""
    await hold_hook_writes(session)
    await session.execute(delete(HookTypeStats))
    await session.execute(delete(HookCategoryStats))
    if types:
        await session.execute(insert(HookTypeStats), types)
    if categories:
        await session.execute(insert(HookCategoryStats), categories)
    existing = await session.get(ReadVersion, LISTS_BUILT)
    if existing is None:
        session.add(ReadVersion(name=LISTS_BUILT, version="built", updated_at=at))
    else:
        existing.updated_at = at
    await session.flush()


async def lists_built(session: AsyncSession) -> bool:
    found = await session.execute(select(ReadVersion.name).where(ReadVersion.name == LISTS_BUILT))
    return found.first() is not None


# --- reading --------------------------------------------------------------------------------------------

_OUT = (
    Hook.id,
    Hook.video_id,
    Hook.text,
    Hook.hook_type,
    Hook.visual_hook_type,
    Hook.platform,
    Hook.language,
    Hook.category,
    Hook.source,
    Hook.usage_count,
    Hook.views,
    Hook.outlier_ratio,
    Hook.weighted_score,
    Hook.published_at,
    Video.url,
)
# the best first: the highest weighted score (unscored last), ties to the newer row: the order of the
# index ix_hooks_rank, read backwards, so a page stops as soon as it has its rows
_BEST = (Hook.rank_score.desc(), Hook.seq.desc())


async def type_rows(session: AsyncSession) -> dict[str, HookTypeStats]:
    return {row.hook_type: row for row in (await session.execute(select(HookTypeStats))).scalars()}


async def category_rows(session: AsyncSession) -> dict[str, int]:
    rows = await session.execute(select(HookCategoryStats.category, HookCategoryStats.hook_count))
    return {str(category): int(count) for category, count in rows.all()}


def _conditions(filters: dict[str, Any]) -> list[ColumnElement[bool]]:
    found: list[ColumnElement[bool]] = []
    for name in ("platform", "category", "hook_type", "visual_hook_type", "language"):
        if (value := filters.get(name)) is not None:
            found.append(getattr(Hook, name) == value)
    if (min_views := filters.get("min_views")) is not None:
        found.append(Hook.views >= min_views)
    if (since := filters.get("since")) is not None:
        found.append(Hook.published_at >= since)
    return found


def _filtered(stmt: Select[*tuple[Any, ...]], filters: dict[str, Any]) -> Select[*tuple[Any, ...]]:
    return stmt.where(*_conditions(filters))


async def _top_page(
    session: AsyncSession, conditions: Sequence[ColumnElement[bool]], limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """A page of the top ``TOP`` hooks meeting ``conditions``, the best first, and how many of those
    there are. Both statements read the hooks table alone (the count in list order, so it walks the
    same covering index as the page and stops at ``TOP``); the page's rows are then joined to their
    videos."""
    capped = select(Hook.seq).where(*conditions).order_by(*_BEST).limit(TOP).subquery()
    total = int((await session.execute(select(func.count()).select_from(capped))).scalar_one())
    limit = max(0, min(limit, TOP - offset))
    return (await _rows(session, conditions, limit, offset) if limit else []), total


async def trending(
    session: AsyncSession, since: datetime, filters: dict[str, Any], limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Hooks of videos posted since ``since`` matching ``filters``, the best first."""
    return await _top_page(session, _conditions({**filters, "since": since}), limit, offset)


async def _rows(
    session: AsyncSession, conditions: Sequence[ColumnElement[bool]], limit: int, offset: int
) -> Sequence[Any]:
    page = (
        select(Hook.seq.label("page_seq"))
        .where(*conditions)
        .order_by(*_BEST)
        .limit(limit)
        .offset(offset)
        .subquery("page")
    )
    stmt = (
        select(*_OUT)
        .join(page, page.c.page_seq == Hook.seq)
        .join(Video, Video.id == Hook.video_id)
        .order_by(*_BEST)
    )
    return (await session.execute(stmt)).all()


def _text_match(
    session: AsyncSession, words: Sequence[str], *, phrase: bool = False, in_rank_order: bool = False
) -> ColumnElement[bool]:
    """Texts of ``hook_texts`` holding every one of ``words`` as a whole word (``phrase``: all of them in a
    row), through its full-text index; words are letters and digits only, safe inside the query syntax.

    ``in_rank_order``: test each text while walking ``ix_hook_texts_best`` instead of fetching every
    match from the full-text index (SQLite: ``+seq`` keeps it from driving the query by the match list;
    PostgreSQL: see ``_pg_text_match``): faster when the matches are many, as for a common word; slower
    when they are few."""
    if session.get_bind().dialect.name == "postgresql":
        return _pg_text_match(words, phrase=phrase, in_rank_order=in_rank_order)
    match = '"' + " ".join(words) + '"' if phrase else " ".join(f'"{w}"' for w in words)
    # unique: a statement may hold two of these (the similar tier: all the words, not the phrase)
    found = text("SELECT rowid FROM hook_texts_fts WHERE hook_texts_fts MATCH :match").bindparams(
        bindparam("match", match, unique=True)
    )
    seq: ColumnElement[Any] = literal_column("+hook_texts.seq" if in_rank_order else "hook_texts.seq")
    return seq.in_(found.columns(literal_column("rowid")))


def _pg_text_match(words: Sequence[str], *, phrase: bool, in_rank_order: bool) -> ColumnElement[bool]:
    """PostgreSQL (ADR 0035, 0055). Through the GIN indexes of the stored vectors: the words by
    ``ix_hook_texts_fts``; a phrase of two or more words by its adjacent pairs
    (``ix_hook_texts_fts_pairs``: exact for two words; with more, the texts holding every pair are then
    checked for the phrase), since the index of words keeps no positions.

    ``in_rank_order``: a regular expression over ``text_key`` (words between spaces), which no full-text
    index serves, so the planner walks ``ix_hook_texts_best`` testing each text."""
    if in_rank_order:
        if phrase:
            return HookText.text_key.regexp_match(f"(^| ){' '.join(words)}( |$)")
        return and_(*(HookText.text_key.regexp_match(f"(^| ){w}( |$)") for w in words))
    vector: ColumnElement[Any] = literal_column("hook_texts.words")
    simple: ColumnElement[Any] = literal_column("'simple'")
    if not phrase or len(words) == 1:
        return vector.op("@@")(func.plainto_tsquery(simple, " ".join(words)))
    pairs: ColumnElement[Any] = literal_column("hook_texts.word_pairs")
    query = " & ".join(f"'{a}_{b}'" for a, b in itertools.pairwise(words))
    in_pairs = pairs.op("@@")(cast(bindparam("pairs", query, unique=True), postgresql.TSQUERY))
    if len(words) == 2:
        return in_pairs
    return and_(in_pairs, vector.op("@@")(func.phraseto_tsquery(simple, " ".join(words))))


async def search(
    session: AsyncSession, key: str, words: Sequence[str], limit: int, offset: int
) -> tuple[Sequence[Any], list[int], int]:
    """Distinct hook texts holding every one of ``words`` (the query's words of 3+ characters), in tiers:
    0 ``exact`` (the text is the query's words), 1 ``contains`` (all the query's words in a row: a
    full-text phrase), 2 ``similar`` (its words of 3+ characters anywhere); within a tier the best
    first. Videos opening with the same words are one row, their best hook (``usage_count`` says how
    many there are): five videos with one hook are not five results (issue 32 item 5). The rows of the
    page, the tier of each, and how many of the top ``TOP`` there are (§4.7, §8.3).

    Everything is read from ``hook_texts`` (ADR 0055), one row per text with its best hook, never from
    the hooks a text repeats: each tier is counted up to ``TOP`` texts, and a page is the tier's texts
    in their best hooks' order, joined to those hooks and their videos."""
    everything = key.split(" ")

    def tier_conditions(tier: int, in_rank_order: bool) -> list[ColumnElement[bool]]:
        if tier == 0:
            return [HookText.text_key == key]
        in_row = _text_match(session, everything, phrase=True, in_rank_order=in_rank_order)
        if tier == 1:
            return [in_row, HookText.text_key != key]
        return [_text_match(session, words, in_rank_order=in_rank_order), ~in_row]

    found: list[Any] = []
    kinds: list[int] = []
    total = 0
    start, wanted = offset, max(0, min(limit, TOP - offset))
    for tier in range(3):
        if total >= TOP:
            break
        # counted up to TOP whatever is left of it: a tier of TOP or more texts (a common word) is read
        # by walking the best order (see _text_match); a smaller one by fetching its texts and sorting
        texts = select(HookText.seq).where(*tier_conditions(tier, in_rank_order=False)).limit(TOP).subquery()
        matched = int((await session.execute(select(func.count()).select_from(texts))).scalar_one())
        count = min(matched, TOP - total)
        total += count
        if wanted and start < count:
            conditions = tier_conditions(tier, in_rank_order=tier > 0 and matched >= TOP)
            rows = await _best_hooks(session, conditions, min(wanted, count - start), start)
            found.extend(rows)
            kinds.extend([tier] * len(rows))
            wanted -= len(rows)
            start = 0
        else:
            start -= min(start, count)
    return found, kinds, total


async def _best_hooks(
    session: AsyncSession, conditions: Sequence[ColumnElement[bool]], limit: int, offset: int
) -> Sequence[Any]:
    """A page of the texts meeting ``conditions``, in their best hooks' order (``_BEST``): each text's
    best hook with its video, and the text's ``usage_count``."""
    page = (
        select(HookText.best_seq, HookText.usage_count)
        .where(*conditions)
        .order_by(HookText.best_rank.desc(), HookText.best_seq.desc())
        .limit(limit)
        .offset(offset)
        .subquery("page")
    )
    columns = [c if c is not Hook.usage_count else page.c.usage_count for c in _OUT]
    stmt = (
        select(*columns)
        .join(page, page.c.best_seq == Hook.seq)
        .join(Video, Video.id == Hook.video_id)
        .order_by(*_BEST)
    )
    return (await session.execute(stmt)).all()


# a library list's total counts its rows up to this many, or to one past the page asked for if that is
# further: exact below it; at or above it a lower bound that always exceeds the page's end, so a client
# paging until has_next_page is false never stops early (§8.3: a hook list's "total can be too low";
# ADR 0038). Counting them all is counting the catalog's distinct hooks.
LIBRARY_MANY = 5000
# a library walk (below) reads at most this many kept rows of its scope; a list it cannot answer within
# them has few hooks matching among many (or a page this deep), which the aggregate of the matching hooks
# answers instead (ADR 0057)
LIBRARY_WALK_MAX = 20_000
# the kept rows a walk reads first, per row of the page's end, and at least (then four times as many
# each time)
LIBRARY_WALK_START = 4
LIBRARY_WALK_LEAST = 100
# a library whose min_views, or one of whose filters of LIBRARY_FACETS, fewer hooks than this meet is
# aggregated from those hooks instead of walked (ADR 0057)
LIBRARY_FEW_HOOKS = 10_000
# a walk's total looks up at most this many kept rows' hooks (with two filters of platform, category,
# language and visual_hook_type): about 5 us each on SQLite at 1M hooks
LIBRARY_COUNT_LOOKUPS = 5000


def library_total_cap(limit: int, offset: int) -> int:
    return max(LIBRARY_MANY, offset + limit + 1)


def library_scope_of(filters: dict[str, Any]) -> str | None:
    """The hook_library scope that answers a list with these filters: ``all``, or the one filter of
    ``LIBRARY_FACETS`` it has; None when it has two of them or ``min_views`` (read from the hooks)."""
    given = _library_scopes(filters)
    if filters.get("min_views") is not None or len(given) > 1:
        return None
    return given[0] if given else ALL


def _library_scopes(filters: dict[str, Any]) -> list[str]:
    return [
        library_scope(facet, filters[facet]) for facet in LIBRARY_FACETS if filters.get(facet) is not None
    ]


def _library_order(sort: str, columns: Any) -> list[Any]:
    """The library's order over ``columns`` (``usage_count``, ``best_rank``, ``text_key``, ``hook_type``):
    by usage (default) or best score, ties by words, then type (ix_hook_library_usage, _best)."""
    if sort == "weighted_score":
        first = [columns.best_rank.desc(), columns.usage_count.desc()]
    else:
        first = [columns.usage_count.desc(), columns.best_rank.desc()]
    return [*first, columns.text_key, columns.hook_type]


async def library(
    session: AsyncSession, filters: dict[str, Any], sort: str, limit: int, offset: int
) -> tuple[Sequence[Any], int]:
    """Distinct hooks (one per text and type) with how many catalog videos use them, their best
    weighted score and the text of the best-scored one, and how many there are up to
    ``library_total_cap``. From ``hook_library`` for the filters that have a scope there (a walk of one
    index); else (two of ``LIBRARY_FACETS``, or ``min_views``; ADR 0057) aggregated from the hooks over
    ``min_views`` when they are few, or by a walk of the kept rows of the narrowest scope the filters
    name (``_library_walk``), or, when neither settles it, aggregated from the hooks that match."""
    scope = library_scope_of(filters)
    cap = library_total_cap(limit, offset)
    if scope is None:
        if (few := await _few_hooks(session, filters)) is not None:
            rows, total = await library_from_hooks(session, filters, sort, limit, offset, among=few)
            return rows, min(total, cap)
        walked = await _library_walk(session, filters, sort, limit, offset)
        if walked is not None:
            return walked
        rows, total = await library_from_hooks(session, filters, sort, limit, offset)
        return rows, min(total, cap)
    conditions = [HookLibrary.scope == scope]
    if filters.get("hook_type") is not None:
        conditions.append(HookLibrary.hook_type == filters["hook_type"])
    stmt = select(
        HookLibrary.text,
        HookLibrary.text_key,
        HookLibrary.hook_type,
        HookLibrary.usage_count,
        HookLibrary.best_weighted_score,
        HookLibrary.max_views,
        HookLibrary.platform_count,
    ).where(*conditions)
    rows = (
        await session.execute(stmt.order_by(*_library_order(sort, HookLibrary)).limit(limit).offset(offset))
    ).all()
    counted = select(literal(1)).select_from(HookLibrary).where(*conditions)
    capped = counted.limit(cap).subquery()
    total = (await session.execute(select(func.count()).select_from(capped))).scalar_one()
    return rows, int(total)


async def _few_hooks(session: AsyncSession, filters: dict[str, Any]) -> ColumnElement[bool] | None:
    """One filter of ``filters`` (min_views, or one of ``LIBRARY_FACETS``) that fewer than
    ``LIBRARY_FEW_HOOKS`` hooks meet, each counted up to that many on its index (``ix_hooks_views``,
    ``ix_hooks_<facet>_rank``); None when each is met by more."""
    if LIBRARY_FEW_HOOKS == 0:
        return None
    candidates: list[ColumnElement[bool]] = []
    if filters.get("min_views") is not None:
        candidates.append(Hook.views >= filters["min_views"])
    candidates += [getattr(Hook, f) == filters[f] for f in LIBRARY_FACETS if filters.get(f) is not None]
    for condition in candidates:
        over = select(Hook.seq).where(condition).limit(LIBRARY_FEW_HOOKS).subquery()
        met = int((await session.execute(select(func.count()).select_from(over))).scalar_one())
        if met < LIBRARY_FEW_HOOKS:
            return condition
    return None


async def _kept_rows(session: AsyncSession, kept: Sequence[ColumnElement[bool]], most: int) -> int:
    """How many kept rows meet ``kept``, counted up to ``most``."""
    capped = select(literal(1)).select_from(HookLibrary).where(*kept).limit(most).subquery()
    return int((await session.execute(select(func.count()).select_from(capped))).scalar_one())


async def _library_walk(
    session: AsyncSession, filters: dict[str, Any], sort: str, limit: int, offset: int
) -> tuple[Sequence[Any], int] | None:
    """A library no kept scope answers (two of ``LIBRARY_FACETS``, or ``min_views``), read from the kept
    rows of the narrowest scope its filters name (``all`` with min_views alone), in the list's order, each
    one's figures within all the filters read from ``ix_hooks_library_group`` alone (ADR 0057).

    Within the filters a hook is used no more often, and scored no better, than within the scope; so once
    the page's end has that many hooks placed before the next kept row not yet read, no later row can
    come before them: the page is final (a threshold walk). The rows read grow fourfold until it is, up to
    ``LIBRARY_WALK_MAX``; the total counts the scope's hooks with a hook matching, up to
    ``library_total_cap``, among as many rows (``LIBRARY_COUNT_LOOKUPS`` when each is looked up). None
    when those do not settle it (few hooks match among many, or the page is too deep): the caller
    aggregates the matching hooks."""
    conditions = _conditions(filters)
    scopes = _library_scopes(filters) or [ALL]
    kept_type = [HookLibrary.hook_type == filters["hook_type"]] if filters.get("hook_type") else []
    # each scope's rows counted up to one past the most a walk reads; the one with the fewest is walked,
    # (without the hook_type, which is no prefix of an index: a bound of the rows of that type)
    sizes = {s: await _kept_rows(session, [HookLibrary.scope == s], LIBRARY_WALK_MAX + 1) for s in scopes}
    # ties (more rows than a walk reads, in each) to the filter of the most values: the fewest hooks
    # met, likely (a language before a platform)
    scope = min(reversed(scopes), key=lambda s: sizes[s])
    kept, most = [HookLibrary.scope == scope, *kept_type], min(sizes[scope], LIBRARY_WALK_MAX)
    if filters.get("min_views") is not None:  # a row whose hooks all have fewer views has none matching
        kept.append(HookLibrary.max_views >= filters["min_views"])
    end = offset + limit
    wanted = min(max(LIBRARY_WALK_START * end, LIBRARY_WALK_LEAST), most)
    if most <= 2 * wanted:  # a small scope is read whole at once
        wanted = most
    while True:
        # the figures of the first ``wanted`` kept rows and, as a marker, the next kept row's own (an
        # upper bound of its figures within the filters), ordered together by the database, so words
        # are compared in its collation as every library list orders them
        ordered = (await session.execute(_walked_page(kept, conditions, sort, wanted, end + 1))).all()
        if not any(row.marker for row in ordered):  # the page, and a row past it if there is one, are final
            break
        if wanted >= most:
            return None
        wanted = min(4 * wanted, most)
    if len(ordered) <= end:  # no marker and no row past the page: every kept row read, all there is
        return ordered[offset:end], len(ordered)
    # with one filter of the scope's kind, min_views is the rest of them: the kept rows left are the
    # matching ones; with two, each kept row is looked up
    cap = library_total_cap(limit, offset)
    looked_up = conditions if len(scopes) > 1 else None
    counted = LIBRARY_WALK_MAX if looked_up is None else LIBRARY_COUNT_LOOKUPS
    total = await _matching_kept(session, kept, looked_up, cap, counted)
    if sizes[scope] <= counted or total >= cap:  # every matching row counted, or cap reached
        return ordered[offset:end], total
    # fewer than cap matching among the rows counted, more rows beyond them: a lower bound past the
    # page's end (the walk met a row past it), as §8.3 allows ("total can be too low")
    return ordered[offset:end], max(total, end + 1)


def _group_probe(conditions: Sequence[ColumnElement[bool]], text_key: Any, hook_type: Any) -> Any:
    return and_(Hook.text_key == text_key, Hook.hook_type == hook_type, *conditions)


async def _matching_kept(
    session: AsyncSession,
    kept: Sequence[ColumnElement[bool]],
    conditions: Sequence[ColumnElement[bool]] | None,
    cap: int,
    rows_read: int,
) -> int:
    """How many of the first ``rows_read`` kept rows meeting ``kept`` have a hook meeting ``conditions``
    (one seek of ``ix_hooks_library_group`` each; None: every row), counted up to ``cap``."""
    rows = select(HookLibrary.text_key, HookLibrary.hook_type).where(*kept).limit(rows_read).subquery()
    matching = select(literal(1)).select_from(rows)
    if conditions is not None:
        # a subquery run for each row: PostgreSQL's planner turned EXISTS into a hash join of every hook
        # of the filters
        probe = _group_probe(conditions, rows.c.text_key, rows.c.hook_type)
        matching = matching.where(select(Hook.seq).where(probe).limit(1).scalar_subquery().is_not(None))
    capped = matching.limit(cap).subquery()
    return int((await session.execute(select(func.count()).select_from(capped))).scalar_one())


def _walked_page(
    kept: Sequence[ColumnElement[bool]],
    conditions: Sequence[ColumnElement[bool]],
    sort: str,
    rows: int,
    limit: int,
) -> Select[Any]:
    """The first ``limit`` in the list's order of: the first ``rows`` kept rows meeting ``kept``, each with
    its figures within ``conditions`` (those with no hook meeting them left out), ``marker`` false; and
    the kept row after them with its own figures, ``marker`` true."""
    in_order = _library_order(sort, HookLibrary)
    first = select(HookLibrary.text_key, HookLibrary.hook_type).where(*kept).order_by(*in_order).limit(rows)
    walked = first.subquery("walked")
    best = func.max(Hook.weighted_score)
    figures = (
        select(
            literal(False).label("marker"),
            walked.c.text_key,
            walked.c.hook_type,
            func.min(Hook.text).label("text"),
            func.count().label("usage_count"),
            best.label("best_weighted_score"),
            func.coalesce(best, UNSCORED).label("best_rank"),
            func.max(Hook.views).label("max_views"),
            func.count(func.distinct(Hook.platform)).label("platform_count"),
        )
        .join(Hook, _group_probe(conditions, walked.c.text_key, walked.c.hook_type))
        .group_by(walked.c.text_key, walked.c.hook_type)
    )
    following = (
        select(
            literal(True).label("marker"),
            HookLibrary.text_key,
            HookLibrary.hook_type,
            HookLibrary.text,
            HookLibrary.usage_count,
            HookLibrary.best_weighted_score,
            HookLibrary.best_rank,
            HookLibrary.max_views,
            HookLibrary.platform_count,
        )
        .where(*kept)
        .order_by(*in_order)
        .offset(rows)
        .limit(1)
        .subquery("following")
    )
    both = union_all(figures, select(following)).subquery("both")
    return select(both).order_by(*_library_order(sort, both.c)).limit(limit)


async def library_from_hooks(
    session: AsyncSession,
    filters: dict[str, Any],
    sort: str,
    limit: int,
    offset: int,
    *,
    among: ColumnElement[bool] | None = None,
) -> tuple[Sequence[Any], int]:
    """The library aggregated from the hooks meeting ``filters``, and how many rows it has (exactly):
    what every other way of reading it must equal (tests/hook). ``among``: one of the filters, which few
    hooks meet, whose index the hooks are read through whatever else the filters name."""
    best = func.max(Hook.weighted_score)
    stmt = _filtered(
        select(
            Hook.text_key,
            Hook.hook_type,
            func.min(Hook.text).label("text"),
            func.count().label("usage_count"),
            best.label("best_weighted_score"),
            func.max(Hook.views).label("max_views"),
            func.count(func.distinct(Hook.platform)).label("platform_count"),
        ).group_by(Hook.text_key, Hook.hook_type),
        filters,
    )
    if among is not None and session.get_bind().dialect.name == "sqlite":
        # a list of rows for SQLite's planner, which would otherwise walk a whole index in the groups'
        # order (PostgreSQL's statistics lead it to that filter's index already; there the list would
        # read those hooks twice)
        stmt = stmt.where(Hook.seq.in_(select(Hook.seq).where(among)))
    if sort == "weighted_score":
        order: list[Any] = [best.is_(None), best.desc(), func.count().desc()]
    else:
        order = [func.count().desc(), best.is_(None), best.desc()]
    # the page and, in each of its rows, how many rows there are: the matching hooks grouped once
    paged = stmt.add_columns(func.count().over().label("total")).order_by(
        *order, Hook.text_key, Hook.hook_type
    )
    rows = (await session.execute(paged.limit(limit).offset(offset))).all()
    if rows:
        return rows, int(rows[0].total)
    total = (await session.execute(select(func.count()).select_from(stmt.subquery()))).scalar_one()
    return rows, int(total)

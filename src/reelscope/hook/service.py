"""The hook catalogue (spec §4.7; ADR 0021): the hook of each catalog video, typed by analysis/hooks.py,
scored against its creator's norm (analysis/outliers.py), and the lists over them.

The ``hooks`` table is derived from ``videos`` by ``refresh``: rows for videos that have none yet (the
backfill is the same call) and for videos whose views moved; then the creators' medians, so the weighted
scores, of those videos, and the ``usage_count`` of the texts touched. The same refresh keeps what the
lists read (ADR 0038): the library's rows of every text it touched (``hook_library``), and, when it
changed anything, the types' and categories' figures; so those lists lag the catalog by at most one
refresh. It runs after every catalog change (hook/tasks.py) and every 10 minutes. Search's table of
distinct texts (``hook_texts``) never lags: triggers on ``hooks`` keep it (ADR 0055).

* ``usage_count``: catalog videos whose hook has the same words (analysis/hooks.normalize).
* ``weighted_score``: ln(views / creator median) x ln(creator median) of the video (null when the
  creator is unknown, has fewer than ``outliers.MIN_NORM_VIDEOS`` catalog videos, or their median is
  0); ``strong_hit_rate`` of a type: the share of its scored hooks over 3x their creator's median
  (``outliers.is_outlier``, the test every outlier flag uses).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis import hooks as analysis
from reelscope.analysis import outliers
from reelscope.catalog.service import catalog_id
from reelscope.hook import repository
from reelscope.hook.schemas import (
    CategoryOut,
    HookMatch,
    HookOut,
    HookTypeOut,
    HookTypes,
    LibraryHook,
    LibraryQuery,
    SearchQuery,
    TrendingQuery,
    TypesQuery,
)
from reelscope.kit.db import Database
from reelscope.kit.errors import ServiceUnavailable, ValidationFailed
from reelscope.kit.logging import get_logger
from reelscope.kit.pagination import Page, PageQuery, Pagination
from reelscope.models.hooks import UNSCORED

log = get_logger(__name__)

BATCH = 500
# the library's first build writes it one range of about this many hooks per transaction: at 50,000 a
# range held SQLite's write lock 7-11 s at 1M hooks (db.write_long, a loaded box); at 5,000 about a
# tenth of that, every debit and job start waiting no longer than that behind it
LIBRARY_RANGE = 5_000
# a trending or search query that takes longer is stopped: 503, not charged (§4.7)
QUERY_TIME_LIMIT_MS = 3000
MATCH_TYPES = ("exact", "contains", "similar")


# --- keeping the table ----------------------------------------------------------------------------------


def hook_row(video: Any, now: datetime) -> dict[str, Any] | None:
    """The hooks row of a video (scores and usage filled later); None when it has no words to open with."""
    found = analysis.extract_hook(transcript=video.transcript, caption=video.description)
    if found is None:
        return None
    return {
        "id": catalog_id("hook", video.id),
        "video_id": video.id,
        "creator_id": video.creator_id,
        "platform": video.platform,
        "language": video.language,
        "category": analysis.categorize(video.description, video.hashtags or ()),
        "text": found.text,
        "text_key": analysis.normalize(found.text),
        "source": found.source,
        "hook_type": analysis.classify(found.text),
        "visual_hook_type": analysis.visual_type(
            video.description, video.hashtags or (), is_duet=video.is_duet, is_stitch=video.is_stitch
        ),
        "views": video.views,
        "published_at": video.published_at,
        "outlier_ratio": None,
        "weighted_score": None,
        "rank_score": UNSCORED,
        "usage_count": 1,
        "updated_at": now,
    }


@dataclass(frozen=True)
class _Batch:
    """What one refresh step writes, all of it read and computed before the write transaction."""

    last_video_id: str
    videos: int
    rows: list[dict[str, Any]]  # new and changed hooks, scored
    scores: list[dict[str, Any]]  # ``{"s": seq, "r": ratio, "w": weighted}`` of the creators' other hooks
    keys: set[str]  # texts whose usage counts and library rows the step changes
    skipped: int


async def _store_batch(session: AsyncSession, *, batch: _Batch, built: bool) -> None:
    # one refresh's batch at a time: two refreshes scoring the same creators' hooks deadlocked
    await repository.hold_hook_writes(session)
    # search's hook_texts follows the hooks in these same statements (triggers on hooks, ADR 0055), so
    # it is written under the same lock and retried with the batch
    await repository.upsert_hooks(session, batch.rows)
    await repository.set_scores(session, batch.scores)
    await repository.recount_usage(session, sorted(batch.keys))
    if built:  # else the whole library is built below
        await repository.rebuild_library(session, sorted(batch.keys))


async def _read_batch(session: AsyncSession, after: str | None, now: datetime) -> _Batch | None:
    """The next ``BATCH`` videos after ``after`` whose hook row is missing or stale, their rows, and every
    hook of their creators scored against the creators' current medians (§4.7: the weighted score)."""
    videos = await repository.videos_to_refresh(session, BATCH, after=after)
    if not videos:
        return None
    rows = [row for video in videos if (row := hook_row(video, now)) is not None]
    in_batch = {video.id for video in videos}
    creators = sorted({r["creator_id"] for r in rows if r["creator_id"] is not None})
    views: dict[str, list[int]] = defaultdict(list)
    others: list[Any] = []
    for start in range(0, len(creators), 500):
        chunk = creators[start : start + 500]
        for creator_id, count in await repository.creator_views(session, chunk):
            views[creator_id].append(count)
        others += [h for h in await repository.creator_hooks(session, chunk) if h.video_id not in in_batch]
    # a creator with fewer than MIN_NORM_VIDEOS catalog videos has no norm: their hooks stay unscored
    # rather than scored 0 against themselves (issue 32 item 5: every type's median was 0)
    medians = {c: outliers.creator_norm(v) for c, v in views.items()}

    def scored(creator_id: str | None, count: int | None) -> tuple[float | None, float | None]:
        median = medians.get(creator_id) if creator_id is not None else None
        found = outliers.score("", count, median) if median is not None and count is not None else None
        return (round(found.outlier_ratio, 6), round(found.weighted_score, 6)) if found else (None, None)

    for row in rows:
        row["outlier_ratio"], row["weighted_score"] = scored(row["creator_id"], row["views"])
        row["rank_score"] = UNSCORED if row["weighted_score"] is None else row["weighted_score"]
    scores = []
    for hook in others:
        ratio, weighted = scored(hook.creator_id, hook.views)
        scores.append({"s": hook.seq, "r": ratio, "w": weighted})
    keys = {r["text_key"] for r in rows} | {v.old_text_key for v in videos if v.old_text_key}
    keys |= {hook.text_key for hook in others}
    return _Batch(videos[-1].id, len(videos), rows, scores, keys, len(videos) - len(rows))


async def refresh(db: Database, now: datetime) -> dict[str, int]:
    """Bring the hooks table up to the catalog, one batch of videos at a time in video id order, with the
    library rows of the texts each batch touched; then, if anything changed, the types' and categories'
    figures. A database whose lists were never built gets them in full.

    Each batch is read and scored in a read transaction and written in a short write transaction of
    its own (issue 33 item 5: on SQLite every other writer, a debit or a job's start, waits for it). A
    video whose views move between the two is written with the views read and found stale next time."""
    async with db.transaction(write=False) as session:
        built = await repository.lists_built(session)
    made = skipped = 0
    after: str | None = None
    while True:
        async with db.transaction(write=False) as session:
            batch = await _read_batch(session, after, now)
        if batch is None:
            break
        await db.write_retrying(partial(_store_batch, batch=batch, built=built))
        made += len(batch.rows)
        skipped += batch.skipped
        after = batch.last_video_id
        if batch.videos < BATCH:
            break
    if made or not built:
        await _refresh_list_figures(db, now, full_library=not built)
    log.info("hooks.refreshed", hooks=made, without_hook=skipped)
    return {"hooks": made, "without_hook": skipped}


def _type_figures(scored: Sequence[Any]) -> list[dict[str, Any]]:
    """Each type's row of GET /v1/hooks/types from every hook's (type, weighted score, ratio)."""
    scores: dict[str, list[float]] = defaultdict(list)
    strong: dict[str, int] = defaultdict(int)
    counts: dict[str, int] = defaultdict(int)
    for hook_type, weighted, ratio in scored:
        counts[hook_type] += 1
        if weighted is not None:
            scores[hook_type].append(weighted)
            strong[hook_type] += outliers.is_outlier(ratio)
    return [
        {
            "hook_type": name,
            "hook_count": counts[name],
            "median_weighted_score": round(statistics.median(scores[name]), 4) if scores[name] else None,
            "strong_hit_rate": round(strong[name] / len(scores[name]), 4) if scores[name] else None,
        }
        for name in analysis.HOOK_TYPES
    ]


async def _build_library(db: Database) -> None:
    """The whole library, one range of about ``LIBRARY_RANGE`` hooks (by text) per transaction, so no
    write waits long behind it (the first build at 1M hooks takes minutes). Until it ends the library
    lists only the ranges built."""
    async with db.transaction() as session:
        await repository.clear_library(session)
    start: str | None = None
    while True:
        async with db.transaction() as session:
            end = await repository.library_range_end(session, start, LIBRARY_RANGE)
            await repository.build_library_range(session, start, end)
        if end is None:
            break
        start = end


async def _refresh_list_figures(db: Database, now: datetime, *, full_library: bool) -> None:
    """The types' and categories' figures from every hook (read first, written in a short transaction);
    with ``full_library``, the whole library first (its first build)."""
    if full_library:
        await _build_library(db)
    async with db.transaction(write=False) as session:
        types = _type_figures(await repository.type_scores(session))
        counts = await repository.category_counts(session)
    categories = [{"category": c, "hook_count": counts.get(c, 0)} for c in analysis.CATEGORIES]
    async with db.transaction() as session:
        await repository.write_list_figures(session, types, categories, now)


# --- reading --------------------------------------------------------------------------------------------


async def types(session: AsyncSession, query: TypesQuery) -> HookTypes:
    kept = await repository.type_rows(session)
    rows = [
        HookTypeOut(
            hook_type=name,
            description=analysis.DESCRIPTIONS[name],
            hook_count=kept[name].hook_count if name in kept else 0,
            median_weighted_score=kept[name].median_weighted_score if name in kept else None,
            strong_hit_rate=kept[name].strong_hit_rate if name in kept else None,
        )
        for name in analysis.HOOK_TYPES
    ]
    key = query.sort.value
    rows.sort(key=lambda r: (getattr(r, key) is None, -(getattr(r, key) or 0)))  # stable: vocabulary order
    return HookTypes(data=rows, visual_hook_types=list(analysis.VISUAL_HOOK_TYPES))


async def categories(session: AsyncSession) -> list[CategoryOut]:
    counts = await repository.category_rows(session)
    rows = [CategoryOut(category=c, hook_count=counts.get(c, 0)) for c in analysis.CATEGORIES]
    return sorted(rows, key=lambda r: -r.hook_count)


def _filters(query: TrendingQuery | LibraryQuery) -> dict[str, Any]:
    if query.category is not None and query.category not in analysis.CATEGORIES:
        # §4.7: validated against the corpus vocabulary; the message lists the valid ones
        raise ValidationFailed(f"category: unknown; valid categories: {', '.join(analysis.CATEGORIES)}")
    return {
        "platform": query.platform.value if query.platform else None,
        "category": query.category,
        "hook_type": query.hook_type,
        "visual_hook_type": query.visual_hook_type,
        "language": query.language.lower() if query.language else None,
        "min_views": query.min_views,
    }


def _within_top(query: PageQuery) -> None:
    if query.offset >= repository.TOP:
        # §4.7, §8.3: only the top 1,000 results are served; a page beyond is a 400 (not charged)
        raise ValidationFailed(f"page: only the top {repository.TOP} results are served")


def _out(row: Any) -> dict[str, Any]:
    return {
        "id": row.id,
        "video_id": row.video_id,
        "video_url": row.url,
        "hook_text": row.text,
        "hook_type": row.hook_type,
        "visual_hook_type": row.visual_hook_type,
        "platform": row.platform,
        "language": row.language,
        "category": row.category,
        "source": row.source,
        "usage_count": row.usage_count,
        "views": row.views,
        "outlier_ratio": None if row.outlier_ratio is None else round(row.outlier_ratio, 4),
        "weighted_score": None if row.weighted_score is None else round(row.weighted_score, 4),
        "publish_date": row.published_at.strftime("%Y-%m-%dT%H:%M:%S"),  # as §2.1 writes it
    }


async def trending(session: AsyncSession, query: TrendingQuery, now: datetime) -> Page[HookOut]:
    filters = _filters(query)
    _within_top(query)
    since = now - timedelta(days=int(query.window))
    try:
        async with repository.time_limit(session, QUERY_TIME_LIMIT_MS):
            rows, total = await repository.trending(session, since, filters, query.limit, query.offset)
    except repository.QueryTooLong as exc:
        raise ServiceUnavailable("The query took too long; narrow it or retry later") from exc
    return Page[HookOut](data=[HookOut(**_out(r)) for r in rows], pagination=Pagination.of(query, total))


async def search(session: AsyncSession, query: SearchQuery) -> Page[HookMatch]:
    _within_top(query)
    words = analysis.words(query.q)
    key = " ".join(words)
    needed = sorted({w for w in words if len(w) >= 3})
    try:
        async with repository.time_limit(session, QUERY_TIME_LIMIT_MS):
            rows, tiers, total = await repository.search(session, key, needed, query.limit, query.offset)
    except repository.QueryTooLong as exc:
        raise ServiceUnavailable("The search took too long; narrow it or retry later") from exc
    data = [HookMatch(**_out(r), match_type=MATCH_TYPES[t]) for r, t in zip(rows, tiers, strict=True)]
    return Page[HookMatch](data=data, pagination=Pagination.of(query, total))


async def library(session: AsyncSession, query: LibraryQuery) -> Page[LibraryHook]:
    filters = _filters(query)
    try:
        # kept rows answer at most one filter of platform/category/language/visual_hook_type (ADR 0038);
        # the rest walk one scope's kept rows, or, when a walk would read too many, aggregate the hooks
        # that match, which is stopped as trending and search are (ADR 0057)
        async with repository.time_limit(session, QUERY_TIME_LIMIT_MS):
            rows, total = await repository.library(
                session, filters, query.sort.value, query.limit, query.offset
            )
    except repository.QueryTooLong as exc:
        raise ServiceUnavailable("The query took too long; narrow it or retry later") from exc
    data = [
        LibraryHook(
            hook_text=r.text,
            hook_type=r.hook_type,
            usage_count=r.usage_count,
            best_weighted_score=None if r.best_weighted_score is None else round(r.best_weighted_score, 4),
            max_views=r.max_views,
            platform_count=r.platform_count,
        )
        for r in rows
    ]
    return Page[LibraryHook](data=data, pagination=Pagination.of(query, total))

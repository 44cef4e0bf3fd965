"""Hashtag statistics (spec §4.2, §2.3) from the daily rollup.

The rollup (``hashtag_daily``) holds, per UTC day, platform and tag, the counted videos and their
frozen views, likes and comments; it is rebuilt every 6 hours and at first start, and each rebuild
gets a new version. A request validates its dates, reads the version (one primary-key read) and serves
the body this process already built for (version, question); else the body the rollup built for the
common windows (the last 7, 30 and 90 days, ADR 0060); else it aggregates the rollup once (ADR 0012).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.hashtag import repository
from reelscope.hashtag.schemas import TopQuery
from reelscope.kit.caches import ReadCaches
from reelscope.kit.db import Database
from reelscope.kit.errors import InvalidDateRange, NotFound, ValidationFailed
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

FLOOR = date(2024, 6, 1)  # §2.3: stats start at 2024-06-01; earlier ranges return empty
MAX_SPAN = timedelta(days=90)  # §4.2, §8.3: end_date at most 90 days after start_date
ROLLUP_EVERY = timedelta(hours=6)  # §2.3: stats refresh every 6 hours
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


# --- dates -----------------------------------------------------------------------------------------


def parse_day(value: str, name: str) -> date:
    """A YYYY-MM-DD date; anything else, an impossible day included, is 400 invalid_date_range (§7)."""
    if not _DATE.fullmatch(value):
        raise InvalidDateRange(f"{name} must be a date in YYYY-MM-DD format")
    try:
        return date.fromisoformat(value)
    except ValueError:
        # §4.2 documents a 500 here as a defect of the original service; it is the caller's mistake
        raise InvalidDateRange(f"{name} is not a real date: {value}") from None


def _ordered(start: date, end: date) -> None:
    if start > end:
        raise InvalidDateRange("start_date must not be after end_date")
    if end - start > MAX_SPAN:
        raise InvalidDateRange("end_date must be at most 90 days after start_date")


def top_list_days(start_date: str | None, end_date: str | None) -> tuple[date, date]:
    """§4.2 top list: both dates required (the message names the missing one), at most 90 days."""
    missing = [name for name, value in (("start_date", start_date), ("end_date", end_date)) if value is None]
    if missing:
        raise InvalidDateRange(" and ".join(missing) + (" is" if len(missing) == 1 else " are") + " required")
    assert start_date is not None and end_date is not None
    start, end = parse_day(start_date, "start_date"), parse_day(end_date, "end_date")
    _ordered(start, end)
    return start, end


def performance_days(start_date: str | None, end_date: str | None, today: date) -> tuple[date, date]:
    """§4.2 performance: only start → that day to today; only end → everything up to that day;
    neither → all time; both → at most 90 days apart."""
    start = parse_day(start_date, "start_date") if start_date is not None else None
    end = parse_day(end_date, "end_date") if end_date is not None else None
    if start is not None and end is not None:
        _ordered(start, end)
        return start, end
    return start or FLOOR, end or today


def normalize_tag(raw: str) -> str:
    """Case-insensitive, without a leading ``#`` (sent as ``%23``)."""
    key = raw.strip().lstrip("#").strip().lower()
    if not key:
        raise ValidationFailed("hashtag must not be empty")
    return key


# --- the rollup ------------------------------------------------------------------------------------


RollupResult = dict[str, int | str | None]


async def rollup(db: Database, now: datetime, *, full: bool = False) -> RollupResult:
    """Bring the daily rollup up to date with the catalog, in one transaction, and give it a new version.

    Only the posting days from the earliest one the catalog marked as written since the last rollup are
    rebuilt (ADR 0016): collection and stats refreshes touch the last 8 days, so a rollup rewrites those
    rather than all history. ``full``, or no rollup yet, rebuilds everything from 2024-06-01. When nothing
    was written, the rows and their version stay (cached answers stay valid) and only the time moves."""
    async with db.transaction() as session:
        changed = await repository.take_changed_from(session, FLOOR.isoformat(), now)
        previous = await repository.updated_at(session, repository.ROLLUP)
        if full or previous is None:
            from_day: date | None = FLOOR
        elif changed is None:
            from_day = None
        else:
            from_day = max(FLOOR, date.fromisoformat(changed))
        if from_day is None:
            await repository.touch_version(session, repository.ROLLUP, now)
            rows = 0
            version = await repository.rollup_version(session, repository.ROLLUP)
        else:
            everything = from_day == FLOOR
            rows = await repository.rebuild_rollup(session, from_day.isoformat(), everything=everything)
            version = new_id()
            await repository.set_version(session, repository.ROLLUP, version, now)
        today = now.date()
        lists = 0
        # unchanged rows keep their version and its lists, but a new day needs the windows ending on it
        if version is not None and (
            from_day is not None or not await repository.has_top_lists(session, version, today.isoformat())
        ):
            lists = await _keep_top_lists(session, version, today)
    since = from_day.isoformat() if from_day is not None else None
    log.info("hashtag.rolled_up", rows=rows, from_day=since, top_lists=lists)
    return {"rows": rows, "from_day": since, "top_lists": lists}


# --- top lists answered ahead of the question (ADR 0060) ------------------------------------------

TOP_WINDOW_DAYS = (7, 30, 90)  # the windows clients ask most: the last 7, 30 and 90 days, today included
TOP_LIMIT = 100  # §4.2: the largest limit; a smaller one is a prefix, as the order is total (ties by key)
ALL_PLATFORMS = "all"
ORDERS = [(order_by, descending) for order_by in ("count", "views") for descending in (True, False)]


def top_windows(today: date) -> list[tuple[date, date]]:
    """The kept windows ending ``today`` (UTC), as ``top_body`` sees them: clamped to the stats floor."""
    firsts = sorted({max(today - timedelta(days=days - 1), FLOOR) for days in TOP_WINDOW_DAYS})
    return [(first, today) for first in firsts if first <= today]


def _sort_name(descending: bool) -> str:
    return "desc" if descending else "asc"


def ranked(
    tags: list[tuple[str, int, int]], order_by: str, descending: bool, limit: int
) -> list[tuple[str, int, int]]:
    """The first ``limit`` (display, count, total_views) as ``repository.top`` orders them: by count or
    views, then the other, then the tag key. ``tags`` come in key order and ``nsmallest`` is stable
    (``sorted(...)[:limit]``), so equal rows keep it."""
    primary, secondary = (1, 2) if order_by == "count" else (2, 1)
    sign = -1 if descending else 1
    return heapq.nsmallest(limit, tags, key=lambda tag: (sign * tag[primary], sign * tag[secondary]))


def render_top(tags: Sequence[tuple[str, int, int]]) -> bytes:
    data = [{"hashtag": display, "count": count, "total_views": views} for display, count, views in tags]
    return orjson.dumps({"data": data})


async def _keep_top_lists(session: AsyncSession, version: str, today: date) -> int:
    """Build the top list of every kept window, scope and order at ``TOP_LIMIT`` from one pass over the
    rollup (per tag and platform, a count and views per window), and store them under ``version``."""
    windows = top_windows(today)
    if not windows:
        return 0
    rows = await repository.window_totals(
        session, [first.isoformat() for first, _ in windows], today.isoformat()
    )
    scopes = [ALL_PLATFORMS, *(platform.value for platform in Platform)]
    # per window and scope, per tag in key order: [display, count, total_views]
    totals: list[dict[str, dict[str, list[Any]]]] = [{scope: {} for scope in scopes} for _ in windows]
    for row in rows:
        hashtag_id, display, platform = row[0], row[1], row[2]
        for n, per_scope in enumerate(totals):
            count, views = row[3 + 2 * n], row[4 + 2 * n]
            if count is None:
                continue
            for scope in (ALL_PLATFORMS, platform):
                tag = per_scope.setdefault(scope, {}).setdefault(hashtag_id, [display, 0, 0])
                tag[1] += int(count)
                tag[2] += int(views)
    lists = []
    for (first, last), per_scope in zip(windows, totals, strict=True):
        for scope, tags in per_scope.items():
            as_tuples = [(display, count, views) for display, count, views in tags.values()]
            for order_by, descending in ORDERS:
                top = ranked(as_tuples, order_by, descending, TOP_LIMIT)
                lists.append(
                    {
                        "first_day": first.isoformat(),
                        "last_day": last.isoformat(),
                        "scope": scope,
                        "order_by": order_by,
                        "sort": _sort_name(descending),
                        "body": render_top(top).decode(),
                    }
                )
    await repository.keep_top_lists(session, version, lists)
    return len(lists)


async def rollup_if_stale(db: Database, now: datetime) -> RollupResult | None:
    """At start: roll up unless a rollup younger than 6 hours exists."""
    async with db.transaction(write=False) as session:
        updated = await repository.updated_at(session, repository.ROLLUP)
    if updated is not None and now - updated < ROLLUP_EVERY:
        return None
    return await rollup(db, now)


# --- reads -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TopQuestion:
    first: date
    last: date
    platform: str | None
    order_by: str
    descending: bool
    limit: int


def question(query: TopQuery, platform: str | None) -> TopQuestion:
    first, last = top_list_days(query.start_date, query.end_date)
    # §4.2: `page` is accepted and ignored, so page 2 repeats page 1 (and is charged)
    return TopQuestion(
        first=first,
        last=last,
        platform=platform,
        order_by=query.order_by,
        descending=query.sort == "desc",
        limit=query.limit,  # 1 to 100: the query type clamps (§4.2)
    )


async def top_body(db: Database, caches: ReadCaches, q: TopQuestion) -> bytes:
    """``{"data": [{hashtag, count, total_views}]}``; empty when the dates end before 2024-06-01."""
    first = max(q.first, FLOOR)
    if first > q.last:
        return b'{"data":[]}'
    version = await repository.current_version(db.fast, repository.ROLLUP)
    if version is None:  # never rolled up: nothing is counted yet
        return b'{"data":[]}'
    key = ("hashtag.top", first, q.last, q.platform, q.order_by, q.descending, q.limit)
    hit, body = caches.lookup(key, version)
    if hit:
        return body  # type: ignore[no-any-return]
    # a question this process has not answered for this rollup: a window the rollup answered ahead
    kept = await repository.kept_top_list(
        db.fast,
        version,
        first.isoformat(),
        q.last.isoformat(),
        q.platform or ALL_PLATFORMS,
        q.order_by,
        _sort_name(q.descending),
    )
    if kept is not None:
        body = (
            kept.encode()
            if q.limit >= TOP_LIMIT
            else orjson.dumps({"data": orjson.loads(kept)["data"][: q.limit]})
        )
    else:  # or any other range: aggregated once, off the event loop
        async with db.transaction(write=False, off_loop=True) as session:
            rows = await repository.top(
                session, first.isoformat(), q.last.isoformat(), q.platform, q.order_by, q.descending, q.limit
            )
        body = render_top([(r.display, int(r.count), int(r.total_views)) for r in rows])
    caches.keep(key, version, body)
    return body


def _average(total: int, count: int) -> float:
    return round(total / count, 2)


async def performance_body(db: Database, caches: ReadCaches, tag: str, first: date, last: date) -> bytes:
    """``{"data": <performance object>}`` of §2.3, all platforms combined; 404 when no counted video
    used the tag in the dates."""
    key_text = normalize_tag(tag)
    first = max(first, FLOOR)
    version = await repository.current_version(db.fast, repository.ROLLUP)
    if version is None:  # never rolled up: nothing is counted yet
        raise NotFound(f"No counted video used #{key_text} in these dates")
    key = ("hashtag.performance", key_text, first, last)
    hit, body = caches.lookup(key, version)
    if not hit:
        row = None
        if first <= last:
            async with db.transaction(write=False, off_loop=True) as session:
                row = await repository.performance(session, key_text, first.isoformat(), last.isoformat())
        if row is not None and row.videos:
            count = int(row.videos)
            views, likes, comments = int(row.views), int(row.likes), int(row.comments)
            body = orjson.dumps(
                {
                    "data": {
                        "hashtag": row.display,
                        "video_count": count,
                        "total_views": views,
                        "avg_views": _average(views, count),
                        "total_likes": likes,
                        "avg_likes": _average(likes, count),
                        "total_comments": comments,
                        "avg_comments": _average(comments, count),
                    }
                }
            )
        else:
            body = None
        caches.keep(key, version, body)
    if body is None:
        raise NotFound(f"No counted video used #{key_text} in these dates")
    return bytes(body)

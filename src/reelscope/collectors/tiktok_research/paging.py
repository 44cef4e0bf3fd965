"""Walking the video query's pages (connectors reference §2.3, §10 "endless paging").

``walk`` asks a query over its windows, newest first: the first page of a window with ``cursor`` 0 and no
``search_id``, then the same query and dates with the ``cursor`` and ``search_id`` the answer gave. A window
ends at ``has_more: false``, at a page with no videos (``has_more: true`` with none is the end), at a page
that brings no new id, or when its ``search_id`` expires (``invalid_params`` on a later page: what was read
is kept, a restart would buy the same pages again); the walk ends at ``limit`` videos or ``pages`` calls in
all (logged). Every page is a counted call (``client.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from reelscope.collectors.tiktok_research import mapper
from reelscope.collectors.tiktok_research.client import InvalidParams, Session
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

PAGE_SIZE = 100  # max_count's maximum (§2.2)


async def walk(
    api: Session, query: dict[str, Any], spans: Sequence[tuple[date, date]], *, limit: int, pages: int
) -> list[dict[str, Any]]:
    """The video query's items over ``spans`` (newest first), at most ``pages`` calls in all, until
    ``limit`` distinct videos were read (see the module's doc for where a walk stops)."""
    found: dict[str, dict[str, Any]] = {}
    left = pages
    for start, end in spans:
        cursor, search_id = 0, None
        while left > 0 and len(found) < limit:
            body: dict[str, Any] = {
                "query": query,
                "start_date": mapper.day(start),
                "end_date": mapper.day(end),
                "max_count": PAGE_SIZE,
                "cursor": cursor,
            }
            if search_id is not None:
                body["search_id"] = search_id
            try:
                data = await api.post("video/query", mapper.VIDEO_FIELDS, body)
            except InvalidParams:
                if search_id is None:
                    raise
                log.info("tiktok_research.search_expired", start=mapper.day(start), cursor=cursor)
                break
            left -= 1
            items = mapper.videos_of(data)
            fresh = 0
            for item in items:
                item_id = mapper.id_or_none(item)
                if item_id is not None and item_id not in found:
                    found[item_id] = item
                    fresh += 1
            following = next_cursor(data, cursor)
            if not fresh or following is None:
                break
            cursor, search_id = following, search_id_of(data.get("search_id")) or search_id
            if left == 0:
                log.info("tiktok_research.page_cap", pages=pages, videos=len(found))
        if left <= 0 or len(found) >= limit:
            break
    return list(found.values())


def next_cursor(data: dict[str, Any], cursor: int) -> int | None:
    """The next page's cursor when ``has_more`` says there is one and it moves forward, else None."""
    if data.get("has_more") is not True:
        return None
    following = data.get("cursor")
    if isinstance(following, bool) or not isinstance(following, int | str):
        return None
    number = int(following) if isinstance(following, int) or following.strip().isdigit() else None
    return number if number is not None and number > cursor else None


def search_id_of(value: Any) -> str | int | None:
    """``search_id`` as sent (a string, or a JSON integer kept exact)."""
    if isinstance(value, str) and value.strip():
        return value.strip()
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def chunks(ids: Sequence[str], size: int) -> list[list[str]]:
    return [list(ids[start : start + size]) for start in range(0, len(ids), size)]

"""Walking YouTube's paged lists (connectors reference §1.3, §10 "endless paging").

``pages`` follows ``nextPageToken`` and yields each page's entries not seen before; it stops at the end of
the list, at a repeated token, at a page that brings nothing new (a vendor handing out the same page
forever), or at the caller's page cap, which is logged. Every page is a counted call (``client.py``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Iterable
from typing import Any, TypeVar

from reelscope.collectors.youtube import mapper
from reelscope.collectors.youtube.client import Session
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

T = TypeVar("T")


async def pages(
    api: Session,
    resource: str,
    params: dict[str, str | int],
    cap: int,
    new_of: Callable[[dict[str, Any], set[str]], list[T]],
) -> AsyncGenerator[list[T]]:
    """Each page's new entries (``new_of(body, seen)`` picks them and adds them to ``seen``), following
    ``nextPageToken`` until it is absent or repeats, a page brings nothing new, or ``cap`` pages were
    read (logged: a vendor may page forever, §10)."""
    seen: set[str] = set()
    tokens: set[str] = set()
    token: str | None = None
    for page in range(1, cap + 1):
        body = await api.get(resource, params if token is None else {**params, "pageToken": token})
        fresh = new_of(body, seen)
        if not fresh:
            return
        yield fresh
        next_token = body.get("nextPageToken")
        if not isinstance(next_token, str) or not next_token or next_token in tokens:
            return
        tokens.add(next_token)
        token = next_token
        if page == cap:
            log.info("youtube.page_cap", resource=resource, pages=cap)


def search_ids(body: dict[str, Any], seen: set[str]) -> list[str]:
    return _fresh((id_or_none(item) for item in items(body)), seen)


def playlist_ids(body: dict[str, Any], seen: set[str]) -> list[str]:
    found: list[str | None] = []
    for item in items(body):
        details = item.get("contentDetails")
        snippet = item.get("snippet")
        raw = details.get("videoId") if isinstance(details, dict) else None
        if raw is None and isinstance(snippet, dict) and isinstance(snippet.get("resourceId"), dict):
            raw = snippet["resourceId"].get("videoId")
        found.append(raw.strip() if isinstance(raw, str) and raw.strip() else None)
    return _fresh(found, seen)


def items_with_ids(body: dict[str, Any], seen: set[str]) -> list[dict[str, Any]]:
    fresh: list[dict[str, Any]] = []
    for item in items(body):
        found = id_or_none(item)
        if found is not None and found not in seen:
            seen.add(found)
            fresh.append(item)
    return fresh


def _fresh(ids: Iterable[str | None], seen: set[str]) -> list[str]:
    fresh: list[str] = []
    for found in ids:
        if found is not None and found not in seen:
            seen.add(found)
            fresh.append(found)
    return fresh


def id_or_none(item: dict[str, Any]) -> str | None:
    try:
        return mapper.video_id(item)
    except mapper.UnmappableItem:
        return None


def items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """``items`` of a list answer (absent when empty), only its objects."""
    found = body.get("items")
    return [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []

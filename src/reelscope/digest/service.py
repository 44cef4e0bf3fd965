"""Digest lists (spec §4.1, §2.1, §2.2): built when collection lands data, served from memory.

``refresh`` renders each platform's top videos of the last 48 hours (and the mixed list, ranked by
views alone) into ``digest_lists``; a list's ``version`` changes only when its content does. A request
reads the version (one primary-key read), and serves the rows this process already serialized for
that version, dropping any that aged out of the 48 hours since the last refresh (ADR 0011).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import orjson

from reelscope.digest import repository
from reelscope.kit.db import Database
from reelscope.kit.fast_reads import FastReads
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

ALL = "all"
WINDOW = timedelta(hours=48)  # §4.1: videos posted in the last 48 hours
MAX_ITEMS = 100  # §4.1: at most 100 items; each platform list is its own top 100
# kept per list beyond 100, so videos ageing out between refreshes still leave 100 to serve
STORED_ITEMS = 128
_YOUTUBE = Platform.YOUTUBE.value


def _publish_date(moment: datetime) -> str:
    """§2.1: UTC ``YYYY-MM-DDTHH:MM:SS`` with no ``Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _sound(row: Any) -> dict[str, Any] | None:
    """The §2.2 object (10 fields), or None when the video has no sound."""
    if row.sound_id is None:
        return None
    youtube = row.sound_platform == _YOUTUBE
    return {
        "id": row.sound_id,
        "title": row.sound_title,
        "duration": None if youtube else row.sound_duration,  # §2.2: null on YouTube
        "platform": row.sound_platform,
        "cover_url": row.sound_cover_url,
        "is_original": row.sound_is_original,
        "usage_count": None if youtube else row.sound_usage_count,  # §2.2: null on YouTube
        "owner_handle": row.sound_owner_handle,
        "owner_nickname": row.sound_owner_nickname,
        "is_commerce_music": row.sound_is_commerce_music,
    }


def render(row: Any) -> dict[str, Any]:
    """A catalog row as the 24 fields of §2.1."""
    return {
        "id": row.id,
        "external_id": row.external_id,
        "url": row.url,
        "type": row.platform,
        "description": row.description,
        "publish_date": _publish_date(row.published_at),
        "views": row.views,
        "number_of_likes": row.likes,
        "number_of_comments": row.comments,
        "number_of_shares": row.shares,
        "bookmarks": row.bookmarks,
        "hashtags": row.hashtags,
        "thumbnail_url": row.thumbnail_url,
        "duration": row.duration,
        "transcript_raw": row.transcript,
        "sound": _sound(row),
        "upload_region": row.upload_region,
        "upload_region_source": row.upload_region_source,
        "is_duet": row.is_duet,
        "is_stitch": row.is_stitch,
        "is_eligible_for_commission": row.is_eligible_for_commission,
        "author_id": row.creator_id,
        "region": None if row.platform == _YOUTUBE else row.region,  # §2.1: always null on YouTube
        "niche": "unknown",  # §2.1: legacy, always "unknown"
    }


async def build_lists(db: Database, now: datetime) -> dict[str, list[dict[str, Any]]]:
    """Every scope's rows as they should be now: each platform's top, and the mixed top by views."""
    since = now - WINDOW
    lists: dict[str, list[dict[str, Any]]] = {}
    ranked: list[tuple[int, str, dict[str, Any]]] = []
    async with db.transaction(write=False) as session:
        for platform in Platform:
            rows = await repository.top_videos(session, platform.value, since, now, STORED_ITEMS)
            rendered = [render(r) for r in rows]
            lists[platform.value] = rendered
            ranked.extend((-item["views"], item["id"], item) for item in rendered)
    # the mixed list ranks by views alone (§4.1): its top is within the union of the platform tops
    ranked.sort(key=lambda t: (t[0], t[1]))
    lists[ALL] = [item for _, _, item in ranked[:STORED_ITEMS]]
    return lists


async def refresh(db: Database, now: datetime) -> dict[str, int]:
    """Rebuild the stored lists; a list whose content is unchanged keeps its version."""
    lists = await build_lists(db, now)
    changed = 0
    async with db.transaction() as session:
        for scope, items in lists.items():
            encoded = orjson.dumps(items).decode()
            stored = await repository.get_list(session, scope)
            if stored is not None and stored.rows == encoded:
                continue
            await repository.save_list(session, scope, new_id(), encoded, now)
            changed += 1
    log.info("digest.refreshed", changed=changed, items={k: len(v) for k, v in lists.items()})
    return {"changed": changed}


@dataclass(frozen=True)
class _Serialized:
    version: str
    # (publish time as a Unix timestamp, the item's JSON) by views descending
    items: list[tuple[float, bytes]]
    # every item's publish time, ascending
    stamps: list[float]
    # bodies by (count, items posted before the window, items posted up to its end): the items inside
    # the 48 hours change only when the window passes a publish time, so each body is built once
    bodies: dict[tuple[int, int, int], bytes] = field(default_factory=dict)
    MAX_BODIES = 256

    def body(self, now: datetime, limit: int) -> bytes:
        count = min(limit, MAX_ITEMS)
        latest = now.timestamp()
        oldest = latest - WINDOW.total_seconds()
        key = (count, bisect_left(self.stamps, oldest), bisect_right(self.stamps, latest))
        body = self.bodies.get(key)
        if body is None:
            if len(self.bodies) >= self.MAX_BODIES:
                self.bodies.clear()  # windows long past; the next requests rebuild what they use
            inside = [item for at, item in self.items if oldest <= at <= latest]
            body = self.bodies[key] = _envelope(inside[:count])
        return body


def _envelope(items: list[bytes]) -> bytes:
    return b'{"data":[' + b",".join(items) + b"]}"


_cache: dict[str, _Serialized] = {}


async def _serialized(reads: FastReads, scope: str) -> _Serialized | None:
    version = await repository.list_version(reads, scope)
    if version is None:
        return None
    cached = _cache.get(scope)
    if cached is not None and cached.version == version:
        return cached
    stored = await repository.stored_list(reads, scope)
    if stored is None:
        return None
    stored_version, rows = stored
    items = [
        (datetime.fromisoformat(item["publish_date"] + "+00:00").timestamp(), orjson.dumps(item))
        for item in orjson.loads(rows)
    ]
    fresh = _Serialized(version=stored_version, items=items, stamps=sorted(at for at, _ in items))
    _cache[scope] = fresh
    return fresh


async def digest_body(db: Database, scope: str, now: datetime, limit: int) -> bytes:
    """``{"data": [...]}`` of at most ``limit`` items posted in the 48 hours before ``now``."""
    serialized = await _serialized(db.fast, scope)
    if serialized is None:
        return b'{"data":[]}'
    return serialized.body(now, limit)

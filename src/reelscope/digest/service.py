"""Digest lists (spec §4.1, §2.1, §2.2): built when collection lands data, served from memory.

``refresh`` renders each platform's top videos of the last 48 hours (and the mixed list, ranked by
views alone) into ``digest_lists``; a list's ``version`` changes only when its content does. A request
reads the version (one primary-key read), and serves the rows this process already serialized for
that version, dropping any that aged out of the 48 hours since the last refresh (ADR 0011), from the
runtime's read caches (kit/caches.py).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import orjson

from reelscope.catalog import reads as catalog_reads
from reelscope.digest import repository
from reelscope.digest.schemas import SoundOut as SoundOut
from reelscope.digest.schemas import VideoOut as VideoOut
from reelscope.kit.caches import ReadCaches
from reelscope.kit.db import Database
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.kit.platforms import Platform

log = get_logger(__name__)

ALL = "all"
WINDOW = timedelta(hours=48)  # §4.1: videos posted in the last 48 hours
# kept per list beyond 100, so videos ageing out between refreshes still leave 100 to serve
STORED_ITEMS = 128
_YOUTUBE = Platform.YOUTUBE.value


def _publish_date(moment: datetime) -> str:
    """§2.1: UTC ``YYYY-MM-DDTHH:MM:SS`` with no ``Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _sound(row: Any) -> dict[str, Any] | None:
    """The §2.2 object (10 fields), or None when the video has no sound."""
    return None if row.sound_id is None else catalog_reads.sound_object(row, prefix="sound_")


def render(row: Any) -> dict[str, Any]:
    """A catalog row as the 24 fields of §2.1 (the shape of ``VideoOut``, which families listing videos
    take from here: a family reaches another through its service module)."""
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
    """A stored list as this process serves it: each item's JSON with its publish time."""

    # (publish time as a Unix timestamp, the item's JSON) by views descending
    items: list[tuple[float, bytes]]
    # every item's publish time, ascending
    stamps: list[float]

    def window(self, now: datetime) -> tuple[int, int]:
        """Where the 48 hours before ``now`` fall among the publish times: the items inside change only
        when the window passes one, so a body is built once per position (and count)."""
        latest = now.timestamp()
        oldest = latest - WINDOW.total_seconds()
        return bisect_left(self.stamps, oldest), bisect_right(self.stamps, latest)

    def body(self, now: datetime, count: int) -> bytes:
        latest = now.timestamp()
        oldest = latest - WINDOW.total_seconds()
        inside = [item for at, item in self.items if oldest <= at <= latest]
        return b'{"data":[' + b",".join(inside[:count]) + b"]}"


async def _serialized(
    db: Database, caches: ReadCaches, scope: str, version: str
) -> tuple[str, _Serialized] | None:
    """The list at ``version`` or, when it was refreshed since that was read, at its newer version."""
    found, kept = caches.lookup(("digest.items", scope), version)
    if found:
        return version, kept
    stored = await repository.stored_list(db.fast, scope)
    if stored is None:
        return None
    version = stored[0]
    items = [
        (datetime.fromisoformat(item["publish_date"] + "+00:00").timestamp(), orjson.dumps(item))
        for item in orjson.loads(stored[1])
    ]
    fresh = _Serialized(items=items, stamps=sorted(at for at, _ in items))
    caches.keep(("digest.items", scope), version, fresh, nbytes=sum(len(item) + 64 for _, item in items))
    return version, fresh


async def digest_body(db: Database, caches: ReadCaches, scope: str, now: datetime, limit: int) -> bytes:
    """``{"data": [...]}`` of at most ``limit`` items posted in the 48 hours before ``now``."""
    version = await repository.list_version(db.fast, scope)
    found = None if version is None else await _serialized(db, caches, scope, version)
    if found is None:
        return b'{"data":[]}'
    version, serialized = found
    # at most 100 items (§4.1): the query type clamps ``limit``
    key = ("digest.body", scope, limit, *serialized.window(now))
    kept, body = caches.lookup(key, version)
    if not kept:
        body = serialized.body(now, limit)
        caches.keep(key, version, body)
    return body  # type: ignore[no-any-return]

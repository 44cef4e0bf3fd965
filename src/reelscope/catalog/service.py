"""Catalog rules: idempotent ingest of normalized records (ARCHITECTURE §7).

Ingest upserts by the source's identity, so feeding the same records twice leaves the same rows:
counters move only forward in observation time, ``found_at`` is the first sighting and never moves,
and each observation appends at most one view snapshot. Continuous collection is ``collection.py``.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.catalog import repository as repo
from reelscope.collectors.base import (
    AdRecord,
    CommentRecord,
    CreatorRecord,
    SlideshowRecord,
    SoundRecord,
    VideoRecord,
)
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

BATCH = 5_000
views_frozen_after = timedelta(days=7)  # §2.3

Record = VideoRecord | CreatorRecord | SoundRecord | SlideshowRecord | AdRecord | CommentRecord


COUNTED = ("videos", "creators", "sounds", "slideshows", "ads", "comments")


@dataclass
class IngestResult:
    """What one ``ingest`` stored: upserts per kind, plus which videos were new to the catalog and how
    many view snapshots were added, so a caller can count distinct videos over many batches."""

    videos: int = 0
    creators: int = 0
    sounds: int = 0
    slideshows: int = 0
    ads: int = 0
    comments: int = 0
    snapshots: int = 0
    video_keys: set[tuple[str, str]] = field(default_factory=set)
    new_video_keys: set[tuple[str, str]] = field(default_factory=set)

    def add(self, other: IngestResult) -> None:
        for name in (*COUNTED, "snapshots"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.video_keys |= other.video_keys
        self.new_video_keys |= other.new_video_keys


_NAMESPACE = uuid.UUID("7d0f3c1e-5b2a-4c61-9a53-2f1e8b6d4c90").bytes


def catalog_id(kind: str, *identity: str) -> str:
    """The service UUID of a collected thing: a UUIDv5 of its source identity, so every ingest of the
    same video (creator, sound, hashtag) names it the same without a lookup (ADR 0008).

    Equal to ``str(uuid.uuid5(namespace, name))``, computed directly: it runs for every ingested row.
    """
    digest = bytearray(hashlib.sha1(_NAMESPACE + "\x1f".join((kind, *identity)).encode()).digest()[:16])  # noqa: S324
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    h = digest.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def hashtag_key(tag: str) -> str:
    """Hashtags match case-insensitively and without ``#`` (§4.2)."""
    return tag.strip().lstrip("#").strip().lower()


def handle_key(handle: str) -> str:
    return handle.strip().lstrip("@").lower()


def _creator_row(c: CreatorRecord, at: datetime) -> dict[str, Any]:
    return {
        "id": catalog_id("creator", c.platform.value, handle_key(c.handle)),
        "platform": c.platform.value,
        "handle": c.handle.lstrip("@"),
        "handle_key": handle_key(c.handle),
        "display_name": c.display_name,
        "platform_user_id": c.platform_user_id,
        "followers": c.followers,
        "following": c.following,
        "total_likes": c.total_likes,
        "total_views": c.total_views,
        "video_count": c.video_count,
        "verified": c.verified,
        "avatar_url": c.avatar_url,
        "bio": c.bio,
        "country": c.country,
        "first_seen_at": at,
        "updated_at": c.fetched_at or at,
    }


def _sound_row(s: SoundRecord, at: datetime) -> dict[str, Any]:
    return {
        "id": catalog_id("sound", s.platform.value, s.external_id),
        "platform": s.platform.value,
        "external_id": s.external_id,
        "title": s.title,
        "duration": s.duration,
        "cover_url": s.cover_url,
        "is_original": s.is_original,
        "usage_count": s.usage_count,
        "owner_handle": s.owner_handle,
        "owner_nickname": s.owner_nickname,
        "is_commerce_music": s.is_commerce_music,
        "first_seen_at": at,
        "updated_at": s.fetched_at or at,
    }


async def _creators_and_sounds(
    session: AsyncSession,
    creators: Sequence[CreatorRecord | None],
    sounds: Sequence[SoundRecord | None],
    at: datetime,
) -> tuple[dict[tuple[str, str], str], dict[tuple[str, str], str]]:
    latest_creators: dict[tuple[str, str], CreatorRecord] = {}
    for c in creators:
        if c is not None:
            latest_creators[(c.platform.value, handle_key(c.handle))] = c
    latest_sounds: dict[tuple[str, str], SoundRecord] = {}
    for s in sounds:
        if s is not None:
            latest_sounds[(s.platform.value, s.external_id)] = s
    creator_rows = {key: _creator_row(c, at) for key, c in latest_creators.items()}
    sound_rows = {key: _sound_row(s, at) for key, s in latest_sounds.items()}
    await repo.upsert_creators(session, list(creator_rows.values()))
    await repo.upsert_sounds(session, list(sound_rows.values()))
    return {k: row["id"] for k, row in creator_rows.items()}, {k: row["id"] for k, row in sound_rows.items()}


def _creator_id(ids: dict[tuple[str, str], str], c: CreatorRecord | None) -> str | None:
    return None if c is None else ids.get((c.platform.value, handle_key(c.handle)))


def _sound_id(ids: dict[tuple[str, str], str], s: SoundRecord | None) -> str | None:
    return None if s is None else ids.get((s.platform.value, s.external_id))


# the columns of the videos row each field of a VideoRecord fills (the others: a column of its name)
_COLUMNS_OF_FIELD = {"sound": ("sound_id", "sound_external_id"), "creator": ("creator_id",)}
# always written, or kept by rules of their own (repository.upsert_videos)
_IDENTITY = frozenset({"platform", "external_id", "url", "published_at", "fetched_at"})
_UPDATABLE_FIELDS = frozenset(
    name for name in VideoRecord.__dataclass_fields__ if name not in _IDENTITY | {"sent"}
)


def unsent_columns(record: VideoRecord) -> frozenset[str]:
    """The videos columns a re-ingest of ``record`` leaves as stored: those of the fields its source did
    not send (issue 31: a line with only views set the description to null, the hashtags to [] and
    the comments to 0). A whole record, as connectors make, keeps none."""
    if record.sent is None:
        return frozenset()
    unsent = _UPDATABLE_FIELDS - record.sent
    if "sound" in record.sent or "sound_external_id" in record.sent:
        unsent -= {"sound", "sound_external_id"}  # either one names the sound
    columns = (_COLUMNS_OF_FIELD.get(name, (name,)) for name in unsent)
    kept = {column for names in columns for column in names}
    if "views" not in record.sent:
        kept.add("views_at_7d")
    return frozenset(kept)


async def ingest_videos(
    session: AsyncSession, records: Sequence[VideoRecord], *, found_at: datetime | None = None
) -> int:
    """Upsert videos with their creators, sounds, hashtags and one view snapshot per observation.

    ``found_at`` is when the service first saw these videos (continuous collection gives its run time);
    it is stored only for videos new to the catalog. Without it the records carry their own observation
    times (``reelscope ingest`` replaying a file, issue 17): a video's first sighting is its earliest
    observation and its §2.3 7-day views the first observed a week after posting, whatever the order
    the observations arrive in. Returns the distinct videos of each batch.
    """
    total = 0
    earliest: datetime | None = None  # the earliest posting day written, old or new (ADR 0016)
    for start in range(0, len(records), BATCH):
        latest: dict[tuple[str, str], VideoRecord] = {}
        first_seen: dict[tuple[str, str], datetime] = {}
        first_frozen: dict[tuple[str, str], VideoRecord] = {}
        # every observation of the batch is a snapshot; the same moment twice is one
        observations: dict[tuple[str, str, datetime], VideoRecord] = {}
        for r in records[start : start + BATCH]:
            key = (r.platform.value, r.external_id)
            if key not in latest or latest[key].fetched_at <= r.fetched_at:
                latest[key] = r
            if key not in first_seen or r.fetched_at < first_seen[key]:
                first_seen[key] = r.fetched_at
            if r.fetched_at - r.published_at >= views_frozen_after and (
                key not in first_frozen or r.fetched_at < first_frozen[key].fetched_at
            ):
                first_frozen[key] = r
            observations[(*key, r.fetched_at)] = r
        batch = list(latest.values())
        at = max(r.fetched_at for r in batch)
        creator_ids, sound_ids = await _creators_and_sounds(
            session, [r.creator for r in batch], [r.sound for r in batch], at
        )
        rows = []
        id_of = {key: catalog_id("video", *key) for key in latest}
        ids = list(id_of.values())
        for key, r in latest.items():
            frozen = first_frozen.get(key)
            rows.append(
                {
                    "id": id_of[key],
                    "platform": r.platform.value,
                    "external_id": r.external_id,
                    "url": r.url,
                    "description": r.description,
                    "published_at": r.published_at,
                    "found_at": max(found_at or first_seen[key], r.published_at),
                    "fetched_at": r.fetched_at,
                    "views": r.views,
                    "likes": r.likes,
                    "comments": r.comments,
                    "shares": r.shares,
                    "bookmarks": r.bookmarks,
                    "views_at_7d": frozen.views if frozen is not None else None,
                    "hashtags": list(r.hashtags),
                    "tags": list(r.tags),
                    "thumbnail_url": r.thumbnail_url,
                    "duration": r.duration,
                    "transcript": r.transcript,
                    "sound_id": _sound_id(sound_ids, r.sound),
                    "sound_external_id": r.sound.external_id if r.sound else r.sound_external_id,
                    "upload_region": r.upload_region,
                    "upload_region_source": r.upload_region_source,
                    "is_duet": r.is_duet,
                    "is_stitch": r.is_stitch,
                    "is_eligible_for_commission": r.is_eligible_for_commission,
                    "creator_id": _creator_id(creator_ids, r.creator),
                    "region": r.region,
                    "language": r.language,
                    "feed_region": r.feed_region,
                }
            )
        # a re-ingest may move a video's posting day: the day it leaves changes too
        stored = await repo.earliest_published(session, ids)
        for moment in (stored, min(r.published_at for r in batch)):
            if moment is not None and (earliest is None or moment < earliest):
                earliest = moment
        # a record that sent only some fields updates only those: rows grouped by what they keep
        by_kept: dict[frozenset[str], list[dict[str, Any]]] = {}
        for row, r in zip(rows, latest.values(), strict=True):
            by_kept.setdefault(unsent_columns(r), []).append(row)
        for kept, group in by_kept.items():
            await repo.upsert_videos(session, group, keep=kept)
        partial = {id_of[key]: r.sent for key, r in latest.items() if r.sent is not None}
        counters = await repo.video_counters(session, list(partial)) if partial else {}
        displays: dict[str, str] = {}
        links: dict[tuple[str, str], None] = {}
        for key, r in latest.items():
            for tag in r.hashtags:
                tag_key = hashtag_key(tag)
                if tag_key:
                    displays.setdefault(tag_key, tag.strip().lstrip("#"))
                    links[(id_of[key], tag_key)] = None
        snapshots = []
        for (platform, external_id, moment), r in observations.items():
            video_id = id_of[(platform, external_id)]
            snapshot = {
                "video_id": video_id,
                "at": moment,
                "views": r.views,
                "likes": r.likes,
                "comments": r.comments,
                "shares": r.shares,
                "bookmarks": r.bookmarks,
            }
            if r.sent is not None:
                if "views" not in r.sent:
                    continue  # an observation without views is no point of the views' history
                # a counter not sent is as stored, not the record's default of 0
                stored_counters = counters.get(video_id, {})
                snapshot |= {k: v for k, v in stored_counters.items() if k not in r.sent}
            snapshots.append(snapshot)
        tag_ids = {key: catalog_id("hashtag", key) for key in displays}
        await repo.add_hashtags(
            session, [{"id": tag_ids[k], "key": k, "display": d} for k, d in displays.items()]
        )
        await repo.link_hashtags(session, [{"video_id": v, "hashtag_id": tag_ids[k]} for v, k in links])
        await repo.add_snapshots(session, snapshots)
        if found_at is None:
            # observations may arrive in any order: settle first sighting and the week's views on
            # everything stored now (an older observation does not update the row's counters)
            await repo.settle_observations(
                session,
                [
                    {
                        "id": id_of[key],
                        "found_at": max(first_seen[key], r.published_at),
                        "frozen_from": r.published_at + views_frozen_after if key in first_frozen else None,
                    }
                    for key, r in latest.items()
                ],
            )
        # each observed usage count of a sound is a point of its usage history (§4.7 usage-history)
        usage = {
            (sound_ids[(r.sound.platform.value, r.sound.external_id)], r.fetched_at): r.sound.usage_count
            for r in observations.values()
            if r.sound is not None
            and r.sound.usage_count is not None
            and (r.sound.platform.value, r.sound.external_id) in sound_ids
        }
        await repo.add_sound_usage(
            session,
            [{"sound_id": sid, "at": at_, "usage_count": count} for (sid, at_), count in usage.items()],
        )
        total += len(batch)
    if earliest is not None:
        # the hashtag rollup rebuilds the posting days written here (ADR 0016)
        await repo.note_videos_changed(session, earliest, max(r.fetched_at for r in records))
    return total


async def ingest_creators(session: AsyncSession, records: Sequence[CreatorRecord], at: datetime) -> int:
    ids, _ = await _creators_and_sounds(session, records, [], at)
    return len(ids)


async def ingest_sounds(session: AsyncSession, records: Sequence[SoundRecord], at: datetime) -> int:
    """Upsert sounds and store their usage history points."""
    _, ids = await _creators_and_sounds(session, [], records, at)
    usage = [
        {"sound_id": ids[(s.platform.value, s.external_id)], "at": p.at, "usage_count": p.usage_count}
        for s in records
        for p in s.usage
    ]
    await repo.add_sound_usage(session, usage)
    return len(ids)


async def ingest_slideshows(session: AsyncSession, records: Sequence[SlideshowRecord], at: datetime) -> int:
    latest = {(r.platform.value, r.external_id): r for r in records}
    creator_ids, sound_ids = await _creators_and_sounds(
        session, [r.creator for r in latest.values()], [r.sound for r in latest.values()], at
    )
    rows = [
        {
            "id": catalog_id("slideshow", r.platform.value, r.external_id),
            "platform": r.platform.value,
            "external_id": r.external_id,
            "url": r.url,
            "description": r.description,
            "panels": list(r.panels),
            "image_count": r.image_count,
            "published_at": r.published_at,
            "found_at": max(r.fetched_at, r.published_at),
            "fetched_at": r.fetched_at,
            "views": r.views,
            "likes": r.likes,
            "comments": r.comments,
            "shares": r.shares,
            "bookmarks": r.bookmarks,
            "hashtags": list(r.hashtags),
            "thumbnail_url": r.thumbnail_url,
            "sound_id": _sound_id(sound_ids, r.sound),
            "creator_id": _creator_id(creator_ids, r.creator),
            "language": r.language,
        }
        for r in latest.values()
    ]
    await repo.upsert_slideshows(session, rows)
    return len(rows)


async def ingest_ads(session: AsyncSession, records: Sequence[AdRecord]) -> int:
    rows = {
        r.external_id: {
            "id": catalog_id("ad", r.external_id),
            "external_id": r.external_id,
            "page_id": r.page_id,
            "page_name": r.page_name,
            "bodies": list(r.bodies),
            "start_date": r.start_date,
            "stop_date": r.stop_date,
            "publisher_platforms": list(r.publisher_platforms),
            "snapshot_url": r.snapshot_url,
            "page_likes": r.page_likes,
            "keyword": r.keyword,
            "languages": list(r.languages),
            "first_seen_at": r.fetched_at,
            "fetched_at": r.fetched_at,
        }
        for r in records
    }
    await repo.upsert_ads(session, list(rows.values()))
    return len(rows)


async def ingest_comments(session: AsyncSession, records: Sequence[CommentRecord]) -> int:
    """Upsert comments, linked to their video when the catalog has it."""
    video_ids = await repo.video_ids(session, [(r.platform.value, r.video_external_id) for r in records])
    rows = {
        (r.platform.value, r.external_id): {
            "id": catalog_id("comment", r.platform.value, r.external_id),
            "platform": r.platform.value,
            "external_id": r.external_id,
            "video_external_id": r.video_external_id,
            "video_id": video_ids.get((r.platform.value, r.video_external_id)),
            "author_handle": r.author_handle,
            "text": r.text,
            "language": r.language,
            "country": r.country,
            "likes": r.likes,
            "author_age_bracket": r.author_age_bracket,
            "author_gender": r.author_gender,
            "posted_at": r.posted_at,
            "fetched_at": r.fetched_at,
        }
        for r in records
    }
    await repo.upsert_comments(session, list(rows.values()))
    return len(rows)


async def ingest(session: AsyncSession, records: Sequence[Record], at: datetime) -> IngestResult:
    """Any mix of records, each kind through its own upsert."""
    result = IngestResult()
    videos = [r for r in records if isinstance(r, VideoRecord)]
    result.video_keys = {(r.platform.value, r.external_id) for r in videos}
    ids = {key: catalog_id("video", *key) for key in result.video_keys}
    known = set(await repo.video_ids(session, list(result.video_keys)))
    result.new_video_keys = result.video_keys - known
    before = await repo.count_snapshots(session, list(ids.values()))
    result.videos = await ingest_videos(session, videos)
    result.snapshots = await repo.count_snapshots(session, list(ids.values())) - before
    result.creators = await ingest_creators(session, [r for r in records if isinstance(r, CreatorRecord)], at)
    result.sounds = await ingest_sounds(session, [r for r in records if isinstance(r, SoundRecord)], at)
    result.slideshows = await ingest_slideshows(
        session, [r for r in records if isinstance(r, SlideshowRecord)], at
    )
    result.ads = await ingest_ads(session, [r for r in records if isinstance(r, AdRecord)])
    result.comments = await ingest_comments(session, [r for r in records if isinstance(r, CommentRecord)])
    return result


async def is_empty(session: AsyncSession) -> bool:
    return await repo.is_empty(session)

"""What other families read from the catalog: detection input for trends, exemplar snapshots, and the
columns of a video's sound under the names the §2.1 video object is rendered from.

``from reelscope.catalog import reads as catalog_reads`` (ARCHITECTURE §2: a family reaches another
through its service modules).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.analysis.text import normalize_hashtag
from reelscope.analysis.trends import Post
from reelscope.catalog import repository
from reelscope.kit.platforms import Platform
from reelscope.models import Sound

# the ten fields of the §2.2 sound object, named as the sounds table names its columns
SOUND_FIELDS = (
    "id",
    "title",
    "duration",
    "platform",
    "cover_url",
    "is_original",
    "usage_count",
    "owner_handle",
    "owner_nickname",
    "is_commerce_music",
)
# a video's sound, as columns labelled ``sound_<field>`` to select beside the video's own (the digest and
# sound families render the §2.1 object from them through digest_service.render)
VIDEO_SOUND_COLUMNS = tuple(getattr(Sound, name).label(f"sound_{name}") for name in SOUND_FIELDS)


def sound_object(row: Any, prefix: str = "") -> dict[str, Any]:
    """The §2.2 object from a row holding the fields under ``prefix``: ``duration`` and ``usage_count``
    are null on YouTube (§2.2)."""
    fields = {name: getattr(row, prefix + name) for name in SOUND_FIELDS}
    if fields["platform"] == Platform.YOUTUBE.value:
        fields["duration"] = fields["usage_count"] = None
    return fields


@dataclass(frozen=True)
class CountryPost:
    country: str | None  # lower-case ISO code of the creator (or the upload region), if known
    post: Post


async def posts_for_detection(session: AsyncSession, since: datetime, until: datetime) -> list[CountryPost]:
    """Every video posted in (since, until] as trend detection sees it, with its country."""
    found: list[CountryPost] = []
    for row in await repository.posts_between(session, since, until):
        video_id, platform, published, views, hashtags, caption, sound_id, title, original, country = row[:10]
        tags, creator_id = row[10], row[11]
        labels = tuple(str(t).lstrip("#") for t in (hashtags or []) if str(t).strip("#"))
        found.append(
            CountryPost(
                country=country,
                post=Post(
                    video_id=video_id,
                    platform=platform,
                    posted_at=published,
                    views=int(views or 0),
                    hashtags=tuple(normalize_hashtag(t) for t in labels),
                    hashtag_labels=labels,
                    sound_id=sound_id,
                    sound_title=title,
                    sound_is_original=bool(original),
                    caption=caption or "",
                    tags=tuple(str(t) for t in (tags or []) if str(t).strip()),
                    creator_id=creator_id,
                ),
            )
        )
    return found


def publish_date(moment: datetime) -> str:
    """§2.1: UTC, ``YYYY-MM-DDTHH:MM:SS`` without ``Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


async def views_as_of(
    session: AsyncSession, video_ids: Sequence[str], at: datetime
) -> dict[str, tuple[int, int]]:
    """(views, likes) of videos as the catalog had observed them by ``at`` (their last snapshot then;
    for a video first observed later, its first snapshot, the nearest truth); videos never observed are
    left out."""
    return await repository.snapshot_views_as_of(session, video_ids, at)


async def exemplar_snapshots(
    session: AsyncSession, video_ids: Sequence[str], *, as_of: datetime | None = None
) -> dict[str, dict[str, Any]]:
    """What a client sees of an exemplar video (§6.3 trend payloads), keyed by catalog video id; with
    ``as_of``, views and likes as observed by then (where a snapshot that old exists)."""
    snapshots: dict[str, dict[str, Any]] = {}
    then = await views_as_of(session, video_ids, as_of) if as_of is not None else {}
    for row in await repository.exemplar_rows(session, video_ids):
        video_id, platform, external_id, url, views, likes, thumb, published, handle, avatar, verified = row
        views, likes = then.get(video_id, (views, likes))
        snapshots[video_id] = {
            "video_id": video_id,
            "external_id": external_id,
            "url": url,
            "platform": platform,
            "views": int(views or 0),
            "likes": int(likes or 0),
            "thumbnail_url": thumb,
            "publish_date": publish_date(published),
            "author": {"username": handle or "", "avatar_url": avatar, "verified": bool(verified)},
        }
    return snapshots

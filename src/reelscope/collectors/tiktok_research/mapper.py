"""TikTok Research API JSON → normalized records (connectors reference §2.7), and the queries it takes.

What a payload may get wrong is absorbed here (§10 "type drift", "gaps are normal"):

- the video id comes as ``id`` or, in the docs' own example, ``video_id``; ids, ``create_time`` and counts
  as JSON integers or strings; ids stay strings end to end (beyond 2^53, never through a float);
- ``video_tag`` is one ``{type, number}`` object or a list of them [unverified]: Branded 7 (the creator
  earns commission) sets ``is_eligible_for_commission``; it is always requested, so its absence is False;
- ``voice_to_text`` may be ``""`` (no transcript: null); ``hashtag_names`` may be absent (then the
  description's ``#tags``);
- the API gives no cover, no video URL, no music title and no upload place: ``thumbnail_url`` and
  ``sound`` are null (the ``music_id`` is kept for enrichment), ``upload_region`` is the account's
  registration country (``platform_account_region``).

Comments carry no author at all (the Research API removes commenters' identity): each comment is its own
commenter, named by the comment id, so an audience sample counts comments, an upper bound of people.

An item that lacks what a record needs (an id, a creation time) raises ``UnmappableItem``; the connector
skips it and keeps the rest of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

from reelscope.collectors import coerce
from reelscope.collectors.base import CommentRecord, CreatorRecord, VideoRecord, VideoStats
from reelscope.collectors.ytdlp.mapper import parse_hashtags
from reelscope.kit.clock import as_utc
from reelscope.kit.platforms import Platform

# §2.2: what a video query asks for (everything the mapping uses, nothing more)
VIDEO_FIELDS = (
    "id,video_description,create_time,region_code,share_count,view_count,like_count,comment_count,"
    "music_id,hashtag_names,username,favorites_count,video_duration,voice_to_text,video_tag"
)
USER_FIELDS = (
    "display_name,bio_description,avatar_url,is_verified,follower_count,following_count,likes_count,"
    "video_count,bio_url"
)
COMMENT_FIELDS = "id,video_id,text,like_count,reply_count,parent_comment_id,create_time"
# §2.2: start and end date at most 30 days apart; a window covers 30 calendar days (end = start + 29)
WINDOW_DAYS = 30
# TikTok ids carry their creation second in their top 32 bits [unverified]: how a stats refresh of
# bare ids finds the dates its query needs; a value outside these years is not believed
ID_EPOCH_RANGE = (datetime(2016, 9, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))
COMMISSION_TAG = ("branded", 7)


class UnmappableItem(ValueError):
    """An item lacks what a record needs (an id, a creation time)."""


# --- queries --------------------------------------------------------------------------------------


def condition(field: str, operation: str, *values: str) -> dict[str, Any]:
    return {"field_name": field, "operation": operation, "field_values": list(values)}


def day(moment: date) -> str:
    return moment.strftime("%Y%m%d")


def windows(since: datetime, until: datetime) -> list[tuple[date, date]]:
    """The UTC days of [since, until) as query windows of at most ``WINDOW_DAYS`` days, newest first
    (the default order of results is newest first too); [] when the range is empty."""
    start, end = as_utc(since), as_utc(until)
    if end <= start:
        return []
    first, last = start.date(), (end - timedelta(microseconds=1)).date()
    found: list[tuple[date, date]] = []
    while last >= first:
        begin = max(first, last - timedelta(days=WINDOW_DAYS - 1))
        found.append((begin, last))
        last = begin - timedelta(days=1)
    return found


def created_at_of_id(external_id: str) -> datetime | None:
    """The creation time a TikTok id carries in its top 32 bits [unverified]; None when not plausible."""
    if not external_id.isdigit():
        return None
    moment = datetime.fromtimestamp(int(external_id) >> 32, UTC)
    low, high = ID_EPOCH_RANGE
    return moment if low <= moment < high else None


# --- records --------------------------------------------------------------------------------------


def video_id(item: dict[str, Any]) -> str:
    """``id`` or ``video_id`` (§2.2: the docs' example names it so), as a string of digits."""
    for key in ("id", "video_id"):
        found = coerce.digits(item.get(key))
        if found is not None:
            return found
    raise UnmappableItem("video without an id")


def id_or_none(item: dict[str, Any]) -> str | None:
    try:
        return video_id(item)
    except UnmappableItem:
        return None


def _tags(value: Any) -> list[dict[str, Any]]:
    """``video_tag`` as one object or a list of them."""
    if isinstance(value, dict):
        return [value]
    return coerce.items(value)


def earns_commission(item: dict[str, Any]) -> bool:
    """§2.7: Branded 7 in ``video_tag`` (requested always, so absent means False)."""
    for tag in _tags(item.get("video_tag")):
        kind = coerce.text(tag.get("type"))
        if kind is not None and (kind.lower(), coerce.count(tag.get("number"))) == COMMISSION_TAG:
            return True
    return False


def hashtags(item: dict[str, Any], description: str | None) -> tuple[str, ...]:
    """``hashtag_names`` without ``#``, deduplicated case-insensitively (§0.2); the description's tags
    when the list is absent."""
    names = item.get("hashtag_names")
    if not isinstance(names, list):
        return parse_hashtags(description, keep_hash=False)
    seen: dict[str, str] = {}
    for name in coerce.strings(names):
        tag = name.lstrip("#").strip()
        if tag:
            seen.setdefault(tag.lower(), tag)
    return tuple(seen.values())


def region(value: Any) -> str | None:
    found = coerce.text(value)
    return found.upper() if found is not None and len(found) == 2 and found.isalpha() else None


def handle(item: dict[str, Any]) -> str | None:
    found = coerce.text(item.get("username"))
    return found.lstrip("@") or None if found is not None else None


def to_video(item: dict[str, Any], fetched_at: datetime, *, feed_region: str | None = None) -> VideoRecord:
    """A video query item → video (§2.7)."""
    external_id = video_id(item)
    published = coerce.epoch(item.get("create_time"))
    if published is None:
        raise UnmappableItem(f"video {external_id} without a creation time")
    username = handle(item)
    country = region(item.get("region_code"))
    description = coerce.text(item.get("video_description"))
    creator = CreatorRecord(Platform.TIKTOK, username, country=country) if username else None
    return VideoRecord(
        platform=Platform.TIKTOK,
        external_id=external_id,
        url=f"https://www.tiktok.com/@{username or ''}/video/{external_id}",
        published_at=published,
        fetched_at=fetched_at,
        description=description,
        views=coerce.count(item.get("view_count")) or 0,
        likes=coerce.count(item.get("like_count")) or 0,
        comments=coerce.count(item.get("comment_count")) or 0,
        shares=coerce.count(item.get("share_count")),
        bookmarks=coerce.count(item.get("favorites_count")),
        hashtags=hashtags(item, description),
        duration=coerce.count(item.get("video_duration")),
        transcript=coerce.text(item.get("voice_to_text")),
        sound_external_id=coerce.digits(item.get("music_id")),
        upload_region=country,
        upload_region_source="platform_account_region" if country else None,
        is_eligible_for_commission=earns_commission(item),
        creator=creator,
        feed_region=feed_region.lower() if feed_region else None,
    )


def to_stats(item: dict[str, Any], fetched_at: datetime) -> VideoStats:
    return VideoStats(
        platform=Platform.TIKTOK,
        external_id=video_id(item),
        fetched_at=fetched_at,
        views=coerce.count(item.get("view_count")) or 0,
        likes=coerce.count(item.get("like_count")) or 0,
        comments=coerce.count(item.get("comment_count")) or 0,
        shares=coerce.count(item.get("share_count")),
        bookmarks=coerce.count(item.get("favorites_count")),
    )


def to_creator(data: dict[str, Any], username: str, fetched_at: datetime) -> CreatorRecord:
    """A user/info answer → creator (§2.7); the handle is the one asked for (the answer has none)."""
    verified = data.get("is_verified")
    return CreatorRecord(
        platform=Platform.TIKTOK,
        handle=username,
        display_name=coerce.text(data.get("display_name")),
        followers=coerce.count(data.get("follower_count")),
        following=coerce.count(data.get("following_count")),
        total_likes=coerce.count(data.get("likes_count")),
        video_count=coerce.count(data.get("video_count")),
        verified=verified if isinstance(verified, bool) else None,
        avatar_url=coerce.text(data.get("avatar_url")),
        bio=coerce.text(data.get("bio_description")),
        fetched_at=fetched_at,
    )


def to_comment(item: dict[str, Any], video_external_id: str, fetched_at: datetime) -> CommentRecord:
    comment_id = coerce.digits(item.get("id"))
    posted = coerce.epoch(item.get("create_time"))
    if comment_id is None or posted is None:
        raise UnmappableItem("comment without an id or a creation time")
    return CommentRecord(
        platform=Platform.TIKTOK,
        external_id=comment_id,
        video_external_id=coerce.digits(item.get("video_id")) or video_external_id,
        # the Research API gives no commenter: the comment stands for one (see the module's doc)
        author_handle=f"comment-{comment_id}",
        text=coerce.text(item.get("text")) or "",
        posted_at=posted,
        fetched_at=fetched_at,
        likes=coerce.count(item.get("like_count")) or 0,
    )


def videos_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    return coerce.items(data.get("videos"))


def comments_of(data: dict[str, Any]) -> list[dict[str, Any]]:
    return coerce.items(data.get("comments"))


def ids_window(external_ids: Sequence[str], now: datetime) -> list[tuple[date, date, list[str]]]:
    """Ids grouped into query windows by the day their id says they were created; ids whose day cannot
    be read are asked in the window of the last 30 days."""
    by_window: dict[tuple[date, date], list[str]] = {}
    latest = as_utc(now).date()
    fallback = (latest - timedelta(days=WINDOW_DAYS - 1), latest)
    for external_id in external_ids:
        created = created_at_of_id(external_id)
        if created is None or created.date() > latest:
            key = fallback
        else:
            # windows aligned on whole 30-day blocks back from today: ids of nearby days share one
            blocks = (latest - created.date()).days // WINDOW_DAYS
            end = latest - timedelta(days=blocks * WINDOW_DAYS)
            key = (end - timedelta(days=WINDOW_DAYS - 1), end)
        by_window.setdefault(key, []).append(external_id)
    return [(start, end, ids) for (start, end), ids in by_window.items()]

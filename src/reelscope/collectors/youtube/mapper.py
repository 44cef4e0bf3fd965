"""YouTube Data API v3 JSON → normalized records (connectors reference §1.7), and the Shorts rule (§8).

Everything a vendor payload may get wrong is absorbed here (§10 "type drift", "gaps are normal"):

- counts arrive as JSON strings (uint64), sometimes as numbers; a missing ``likeCount`` (likes hidden)
  or ``commentCount`` (comments off) is 0, the spec's "not reported" (§0.2); creator counts stay
  ``None`` when absent (``subscriberCount`` when ``hiddenSubscriberCount``);
- ``publishedAt`` is RFC 3339 with ``Z``, with or without fractional seconds **[unverified]**;
- ``contentDetails.duration`` is ISO 8601 (``PT2M55S``); ``P0D`` marks an upcoming live;
- thumbnails come under names that grow over time (``fhd``/``qhd``/``uhd`` from 2026-09-11): the largest
  one with a URL wins, whatever its name.

An item that lacks what a record needs (an id, a publication time) raises ``UnmappableItem``; the
connector skips it and keeps the rest of the page.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from reelscope.collectors.base import CreatorRecord, VideoRecord, VideoStats
from reelscope.collectors.ytdlp.mapper import clean_tags, parse_hashtags
from reelscope.kit.platforms import Platform

# §8 rule 3: from this day YouTube counts up to 3 minutes as a Short, before it up to 60 s. Whether the
# cutoff is a UTC day is [unverified]; a day's difference moves only videos of 61-180 s posted that day
SHORTS_3_MINUTES_FROM = datetime(2024, 10, 15, tzinfo=UTC)
SHORT_SECONDS_BEFORE, SHORT_SECONDS_FROM = 60, 180

# ISO 8601 durations as YouTube writes them: P[nW][nD][T[nH][nM][n[.f]S]]
_DURATION = re.compile(
    r"^P(?:(?P<w>\d+)W)?(?:(?P<d>\d+)D)?(?:T(?:(?P<h>\d+)H)?(?:(?P<m>\d+)M)?(?:(?P<s>\d+(?:\.\d+)?)S)?)?$"
)
# when no size is given, the documented names, worst to best (an unknown name ranks below them all)
_THUMBNAIL_NAMES = ("default", "medium", "high", "standard", "maxres", "fhd", "qhd", "uhd")
# BCP-47 tags that name no language (no linguistic content, undetermined, several)
_NO_LANGUAGE = frozenset({"zxx", "und", "mul", "mis"})


class UnmappableItem(ValueError):
    """A resource lacks what a record needs (an id, a publication time)."""


# --- coercion -------------------------------------------------------------------------------------


def count(value: Any) -> int | None:
    """A counter as the API sends it (``"88412"``, sometimes ``88412``) → int; ``None`` when absent or not
    a number (a negative one too: no counter goes below zero)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, float):
        return round(value) if value >= 0 else None
    if isinstance(value, str):
        text = value.strip()
        if text.isdigit():
            return int(text)
        try:
            number = float(text)
        except ValueError:
            return None
        return round(number) if number >= 0 and number == number else None  # NaN != NaN
    return None


def moment(value: Any) -> datetime:
    """``publishedAt`` (``2026-10-04T16:20:05Z``, ``…05.123Z``, ``…05+00:00``) → UTC, whole seconds
    (publish dates are rendered without a fraction, §0.2)."""
    if not isinstance(value, str) or not value:
        raise UnmappableItem(f"publishedAt: expected an RFC 3339 time, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value.strip())
    except ValueError:
        raise UnmappableItem(f"publishedAt: not an RFC 3339 time: {value!r}") from None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=UTC)
    return parsed.astimezone(UTC).replace(microsecond=0)


def duration_seconds(value: Any) -> int | None:
    """``contentDetails.duration`` → seconds: ``PT41S`` 41, ``PT1M`` 60, ``PT1H2M3S`` 3723, ``P0D`` 0
    (an upcoming live); ``None`` when absent or not ISO 8601."""
    if not isinstance(value, str):
        return None
    found = _DURATION.match(value.strip())
    if found is None or value.strip() in ("P", "PT"):
        return None
    parts = {name: float(number) if number else 0.0 for name, number in found.groupdict().items()}
    total = parts["w"] * 604_800 + parts["d"] * 86_400 + parts["h"] * 3_600 + parts["m"] * 60 + parts["s"]
    return round(total)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def best_thumbnail(thumbnails: Any) -> str | None:
    """The largest thumbnail with a URL (by width × height, else by its documented name), any key."""
    best: tuple[int, int, str] | None = None
    for name, entry in _dict(thumbnails).items():
        url = _text(_dict(entry).get("url"))
        if url is None:
            continue
        width, height = count(entry.get("width")) or 0, count(entry.get("height")) or 0
        rank = _THUMBNAIL_NAMES.index(name) if name in _THUMBNAIL_NAMES else -1
        candidate = (width * height, rank, url)
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return None if best is None else best[2]


def language(snippet: dict[str, Any]) -> str | None:
    """The primary subtag of ``defaultAudioLanguage`` (else ``defaultLanguage``): ``en-US`` → ``en``."""
    for key in ("defaultAudioLanguage", "defaultLanguage"):
        tag = _text(snippet.get(key))
        if tag is None:
            continue
        primary = tag.replace("_", "-").split("-")[0].lower()
        if primary.isalpha() and 2 <= len(primary) <= 3 and primary not in _NO_LANGUAGE:
            return primary
    return None


# --- Shorts (§8) ----------------------------------------------------------------------------------


def within_shorts_length(published_at: datetime, seconds: int | None) -> bool:
    """§8 rule 3: a Short candidate is at most 180 s when published on or after 2024-10-15, else at most
    60 s. Unknown or zero length (``P0D``) is never one. Landscape clips under the limit pass (the API
    shows no aspect ratio)."""
    if not seconds:
        return False
    limit = SHORT_SECONDS_FROM if published_at >= SHORTS_3_MINUTES_FROM else SHORT_SECONDS_BEFORE
    return seconds <= limit


def is_short(item: dict[str, Any]) -> bool:
    """A ``videos.list`` item that spec §2.1 keeps: not live or upcoming, and within the Shorts length."""
    snippet = _dict(item.get("snippet"))
    if snippet.get("liveBroadcastContent", "none") != "none":
        return False
    try:
        published = moment(snippet.get("publishedAt"))
    except UnmappableItem:
        return False
    seconds = duration_seconds(_dict(item.get("contentDetails")).get("duration"))
    return within_shorts_length(published, seconds)


# --- records --------------------------------------------------------------------------------------


def video_id(item: dict[str, Any]) -> str:
    """The id of a ``videos.list`` item (a string) or a ``search.list`` result (``id.videoId``)."""
    raw = item.get("id")
    if isinstance(raw, dict):
        raw = raw.get("videoId")
    if isinstance(raw, str) and raw.strip():
        return raw.strip()
    raise UnmappableItem("item without a video id")


def channel_id(item: dict[str, Any]) -> str | None:
    return _text(_dict(item.get("snippet")).get("channelId"))


def to_creator(item: dict[str, Any], fetched_at: datetime) -> CreatorRecord:
    """A ``channels.list`` item → creator (§1.7). The handle is ``customUrl`` without its ``@``, as every
    source stores handles; a channel without one is known by its ``UC…`` id."""
    raw_id = item.get("id")
    if not isinstance(raw_id, str) or not raw_id.strip():
        raise UnmappableItem("channel without an id")
    snippet, statistics = _dict(item.get("snippet")), _dict(item.get("statistics"))
    handle = (_text(snippet.get("customUrl")) or raw_id.strip()).lstrip("@")
    hidden = statistics.get("hiddenSubscriberCount") in (True, "true")
    return CreatorRecord(
        platform=Platform.YOUTUBE,
        handle=handle,
        display_name=_text(snippet.get("title")),
        platform_user_id=raw_id.strip(),
        followers=None if hidden else count(statistics.get("subscriberCount")),
        total_views=count(statistics.get("viewCount")),
        video_count=count(statistics.get("videoCount")),
        avatar_url=_text(_dict(_dict(snippet.get("thumbnails")).get("default")).get("url"))
        or best_thumbnail(snippet.get("thumbnails")),
        bio=_text(snippet.get("description")),
        country=_country(snippet.get("country")),
        fetched_at=fetched_at,
    )


def uploads_playlist(item: dict[str, Any]) -> str | None:
    """The channel's uploads playlist (``contentDetails.relatedPlaylists.uploads`` **[unverified]**),
    else the long-standing convention: the channel id with ``UC`` turned into ``UU``."""
    related = _dict(_dict(item.get("contentDetails")).get("relatedPlaylists"))
    uploads = _text(related.get("uploads"))
    if uploads is not None:
        return uploads
    raw_id = item.get("id")
    if isinstance(raw_id, str) and raw_id.startswith("UC"):
        return "UU" + raw_id[2:]
    return None


def _country(value: Any) -> str | None:
    text = _text(value)
    return text.upper() if text is not None and len(text) == 2 and text.isalpha() else None


def to_video(
    item: dict[str, Any],
    fetched_at: datetime,
    *,
    creator: CreatorRecord | None = None,
    feed_region: str | None = None,
) -> VideoRecord:
    """A ``videos.list`` item (parts snippet, statistics, contentDetails) → video (§1.7)."""
    external_id = video_id(item)
    snippet, statistics = _dict(item.get("snippet")), _dict(item.get("statistics"))
    title, body = _text(snippet.get("title")), _text(snippet.get("description"))
    description = "\n".join(part for part in (title, body) if part) or None
    seconds = duration_seconds(_dict(item.get("contentDetails")).get("duration"))
    country = creator.country if creator is not None else None
    return VideoRecord(
        platform=Platform.YOUTUBE,
        external_id=external_id,
        url=f"https://www.youtube.com/shorts/{external_id}",
        published_at=moment(snippet.get("publishedAt")),
        fetched_at=fetched_at,
        description=description,
        views=count(statistics.get("viewCount")) or 0,
        likes=count(statistics.get("likeCount")) or 0,
        comments=count(statistics.get("commentCount")) or 0,
        hashtags=parse_hashtags(description, keep_hash=True),
        thumbnail_url=best_thumbnail(snippet.get("thumbnails")),
        duration=seconds or None,  # P0D (an upcoming live) is no length
        creator=creator,
        # the API has no upload location; the channel's country is an estimate (§0.2 "inferred")
        upload_region=country,
        upload_region_source="inferred_channel_country" if country else None,
        language=language(snippet),
        tags=clean_tags(snippet.get("tags") if isinstance(snippet.get("tags"), list) else None),
        feed_region=feed_region.lower() if feed_region else None,
    )


def to_stats(item: dict[str, Any], fetched_at: datetime) -> VideoStats:
    """A ``videos.list`` item's counters (part statistics); hidden likes and comments are 0 (§0.2)."""
    statistics = _dict(item.get("statistics"))
    return VideoStats(
        platform=Platform.YOUTUBE,
        external_id=video_id(item),
        fetched_at=fetched_at,
        views=count(statistics.get("viewCount")) or 0,
        likes=count(statistics.get("likeCount")) or 0,
        comments=count(statistics.get("commentCount")) or 0,
    )

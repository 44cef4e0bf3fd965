"""yt-dlp info dict → VideoRecord (connectors reference §5.4).

The mapping lives here: ``reelscope ingest`` feeds it saved info dicts, the connector (``connector.py``)
the dicts its child process fetched, and the flat entries of listings (a search, a creator's tab) too,
which name their extractor in ``ie_key`` and their page in ``url``. Transcripts and sounds need extra
fetches and stay null.

What the info dict says is kept (issue 17, ADR 0026): ``epoch`` (when yt-dlp took the dict) is the
observation time, ``tags`` are the uploader's keyword tags (kept apart from the ``#`` hashtags of the
text), and a ``region`` key, which feed dumps add to say which country's feed listed the video, is the
feed region. Values are checked in ``collectors/checks.py``.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from reelscope.collectors.base import CreatorRecord, VideoRecord
from reelscope.kit.platforms import Platform
from reelscope.kit.video_links import SHORTCODE_ALPHABET, media_id_of

EXTRACTORS = {"youtube": Platform.YOUTUBE, "tiktok": Platform.TIKTOK, "instagram": Platform.INSTAGRAM}
_HASHTAG = re.compile(r"#(\w+)", re.UNICODE)
MAX_TAGS = 60  # YouTube allows 500 characters of tags in all; more than this is not a person's list
MAX_TAG_LENGTH = 100


class UnmappableInfo(ValueError):
    """The info dict lacks what a video record needs."""


def shortcode_to_media_id(code: str) -> str:
    """Instagram link code → numeric media id (§3.7; kit/video_links.py)."""
    try:
        return media_id_of(code)
    except ValueError:
        raise UnmappableInfo(f"bad Instagram shortcode {code!r}") from None


def media_id_to_shortcode(media_id: str) -> str:
    """Numeric Instagram media id → the link code (the inverse of ``shortcode_to_media_id``)."""
    if not media_id.isdigit():
        raise UnmappableInfo(f"bad Instagram media id {media_id!r}")
    value, code = int(media_id), ""
    while True:
        value, index = divmod(value, 64)
        code = SHORTCODE_ALPHABET[index] + code
        if value == 0:
            return code


def is_short(info: dict[str, Any]) -> bool | None:
    """Whether a YouTube info dict is a Short (connectors reference §8 rule 1): yt-dlp's ``media_type``
    (from the page's ``isShortsEligible``), else a ``/shorts/`` link of a flat entry; None when neither
    says. The full dict's ``webpage_url`` is always a watch link, so only ``url`` is read."""
    media_type = info.get("media_type")
    if isinstance(media_type, str) and media_type:
        return media_type == "short"
    url = info.get("url")
    if isinstance(url, str) and "/shorts/" in url:
        return True
    return None


def parse_hashtags(text: str | None, *, keep_hash: bool) -> tuple[str, ...]:
    """Hashtags of a caption, deduplicated case-insensitively, first spelling kept (§0.2).

    A ``#`` followed by digits only (``#66``, an episode number) is not a hashtag: the platforms do
    not link those (ADR 0026)."""
    seen: dict[str, str] = {}
    for tag in _HASHTAG.findall(text or ""):
        if tag.isdigit():
            continue
        seen.setdefault(tag.lower(), f"#{tag}" if keep_hash else tag)
    return tuple(seen.values())


def clean_tags(value: Any) -> tuple[str, ...]:
    """yt-dlp ``tags``: trimmed, without a leading ``#``, deduplicated case-insensitively (first
    spelling kept), empty and over-long ones dropped."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise UnmappableInfo(f"tags: expected a list, got {type(value).__name__}")
    seen: dict[str, str] = {}
    for raw in value:
        if not isinstance(raw, str):
            continue
        tag = " ".join(raw.strip().lstrip("#").split())
        if tag and len(tag) <= MAX_TAG_LENGTH and not tag.isdigit():
            seen.setdefault(tag.lower(), tag)
    return tuple(seen.values())[:MAX_TAGS]


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return round(value)
    raise UnmappableInfo(f"expected a number, got {value!r}")


def _moment(value: Any, name: str) -> datetime:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise UnmappableInfo(f"{name}: expected seconds since 1970, got {value!r}")
    try:
        return datetime.fromtimestamp(float(value), UTC)
    except (OverflowError, OSError, ValueError):
        raise UnmappableInfo(f"{name} out of range: {value!r}") from None


def _published(info: dict[str, Any]) -> datetime:
    if info.get("timestamp") is not None:
        return _moment(info["timestamp"], "timestamp")
    upload_date = info.get("upload_date")
    if isinstance(upload_date, str) and len(upload_date) == 8:
        return datetime.strptime(upload_date, "%Y%m%d").replace(tzinfo=UTC)
    raise UnmappableInfo("no timestamp or upload_date")


def _creator(platform: Platform, info: dict[str, Any], at: datetime) -> CreatorRecord | None:
    if platform is Platform.YOUTUBE:
        handle, name, user_id = (
            info.get("uploader_id") or info.get("channel"),
            info.get("channel"),
            info.get("channel_id"),
        )
    elif platform is Platform.TIKTOK:
        handle, name, user_id = info.get("uploader"), info.get("channel"), info.get("uploader_id")
    else:
        handle, name, user_id = info.get("channel"), info.get("uploader"), info.get("uploader_id")
    if not handle:
        return None
    return CreatorRecord(
        platform=platform,
        handle=str(handle).lstrip("@"),
        display_name=name,
        platform_user_id=None if user_id is None else str(user_id),
        followers=_int(info.get("channel_follower_count")),
        verified=info.get("channel_is_verified"),
        fetched_at=at,
    )


def info_to_video(info: dict[str, Any], fetched_at: datetime) -> VideoRecord:
    """``fetched_at`` is used only when the dict has no ``epoch`` of its own."""
    if info.get("epoch") is not None:
        fetched_at = _moment(info["epoch"], "epoch")
    key = str(info.get("extractor_key") or info.get("extractor") or info.get("ie_key") or "").lower()
    platform = EXTRACTORS.get(key.split(":")[0])
    if platform is None:
        raise UnmappableInfo(f"unsupported extractor {key!r} (youtube, tiktok or instagram)")
    raw_id = info.get("id")
    if raw_id in (None, ""):
        raise UnmappableInfo("no id")
    external_id = shortcode_to_media_id(str(raw_id)) if platform is Platform.INSTAGRAM else str(raw_id)
    if platform is Platform.YOUTUBE:
        url = f"https://www.youtube.com/shorts/{raw_id}"
        parts = [p for p in (info.get("title"), info.get("description")) if p]
        description = "\n".join(dict.fromkeys(parts)) or None
    else:
        url = info.get("webpage_url") or info.get("url") or ""
        description = info.get("description") or (info.get("title") if platform is Platform.TIKTOK else None)
    if not url:
        raise UnmappableInfo("no webpage_url")
    thumbnail = info.get("thumbnail")
    if not thumbnail and isinstance(info.get("thumbnails"), list) and info["thumbnails"]:
        thumbnail = info["thumbnails"][0].get("url")
    tiktok = platform is Platform.TIKTOK
    return VideoRecord(
        platform=platform,
        external_id=external_id,
        url=url,
        published_at=_published(info),
        fetched_at=fetched_at,
        description=description,
        views=_int(info.get("view_count")) or 0,
        likes=_int(info.get("like_count")) or 0,
        comments=_int(info.get("comment_count")) or 0,
        shares=_int(info.get("repost_count")) if tiktok else None,
        bookmarks=_int(info.get("save_count")) if tiktok else None,
        hashtags=parse_hashtags(description, keep_hash=platform is Platform.YOUTUBE),
        thumbnail_url=thumbnail,
        duration=_int(info.get("duration")),
        creator=_creator(platform, info, fetched_at),
        tags=clean_tags(info.get("tags")),
        feed_region=str(info["region"]).lower() if info.get("region") else None,
    )

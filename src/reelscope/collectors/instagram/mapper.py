"""Instagram Graph API JSON → normalized records (connectors reference §3.7), and the field lists asked.

- Only Reels are Videos: ``media_type`` VIDEO with ``media_product_type`` REELS (a VIDEO without a product
  type is taken as one: every feed video has been a Reel since 2022 [unverified]); images and carousels
  are dropped.
- ``external_id`` is the media id decoded from the permalink's shortcode (``/reel/{code}/``,
  ``/p/{code}/``), not the Graph ``id``: the two are different numberings [unverified], and the decoded
  one is what yt-dlp, instaloader and clients' links give (spec §2.1, kit/video_links.py), so one reel
  reached through two sources is one catalog row. A media without a permalink cannot be keyed: skipped.
- Gaps are normal (§10): ``like_count`` is absent when the owner hides likes (0, "not reported");
  hashtag media have no author, no views and no thumbnail (``views`` 0, ``creator`` and
  ``thumbnail_url`` null); only Business Discovery gives ``view_count`` and ``thumbnail_url``.
- Hashtags come from the caption, without ``#``. ``timestamp`` is ``2026-10-04T16:20:05+0000``.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from reelscope.collectors import coerce
from reelscope.collectors.base import CreatorRecord, VideoRecord
from reelscope.collectors.ytdlp.mapper import parse_hashtags
from reelscope.kit.platforms import Platform
from reelscope.kit.video_links import media_id_of

# §3.2: what hashtag edges and Business Discovery media give
HASHTAG_MEDIA_FIELDS = (
    "id,caption,comments_count,like_count,media_type,media_product_type,permalink,timestamp"
)
PROFILE_FIELDS = "id,username,name,biography,followers_count,follows_count,media_count,profile_picture_url"
CREATOR_MEDIA_FIELDS = (
    "id,caption,like_count,comments_count,media_type,media_product_type,permalink,timestamp,"
    "thumbnail_url,view_count"
)
# an Instagram username: letters, digits, periods and underscores, at most 30 [doc]
USERNAME = re.compile(r"[A-Za-z0-9._]{1,30}")
_SHORTCODE = re.compile(r"[A-Za-z0-9_-]{1,60}")
_MEDIA_PAGES = frozenset({"reel", "reels", "p", "tv"})


class UnmappableItem(ValueError):
    """A media lacks what a record needs (a permalink, a timestamp)."""


def hashtag_name(text: str) -> str | None:
    """A keyword or tag as Instagram's hashtag search takes it: lower case, no ``#``, letters, digits and
    underscores only, words run together (``"Sourdough bread"`` → ``sourdoughbread``); None when
    nothing is left."""
    name = re.sub(r"[^\w]", "", text.lower(), flags=re.UNICODE)
    return name or None


def is_reel(item: dict[str, Any]) -> bool:
    product = coerce.text(item.get("media_product_type"))
    return coerce.text(item.get("media_type")) == "VIDEO" and product in (None, "REELS")


def media_id(item: dict[str, Any]) -> str:
    """The media id of the permalink's shortcode (see the module's doc)."""
    link = coerce.text(item.get("permalink"))
    if link is None:
        raise UnmappableItem(f"media {item.get('id')!r} without a permalink")
    segments = [segment for segment in urlsplit(link).path.split("/") if segment]
    code = segments[-1] if len(segments) >= 2 and segments[-2] in _MEDIA_PAGES else ""
    if _SHORTCODE.fullmatch(code):
        try:
            return media_id_of(code)
        except ValueError:
            pass
    raise UnmappableItem(f"media {item.get('id')!r}: a permalink without a shortcode")


def id_or_none(item: dict[str, Any]) -> str | None:
    """The Graph id, for telling pages apart (repeats)."""
    return coerce.digits(item.get("id")) or coerce.text(item.get("id"))


def to_video(
    item: dict[str, Any], fetched_at: datetime, *, creator: CreatorRecord | None = None
) -> VideoRecord:
    external_id = media_id(item)
    published = coerce.moment(item.get("timestamp"))
    if published is None:
        raise UnmappableItem(f"media {item.get('id')!r} without a timestamp")
    caption = coerce.text(item.get("caption"))
    return VideoRecord(
        platform=Platform.INSTAGRAM,
        external_id=external_id,
        url=coerce.text(item.get("permalink")) or f"https://www.instagram.com/reel/{external_id}/",
        published_at=published,
        fetched_at=fetched_at,
        description=caption,
        views=coerce.count(item.get("view_count")) or 0,
        likes=coerce.count(item.get("like_count")) or 0,
        comments=coerce.count(item.get("comments_count")) or 0,
        hashtags=parse_hashtags(caption, keep_hash=False),
        thumbnail_url=coerce.text(item.get("thumbnail_url")),
        creator=creator,
    )


def to_creator(profile: dict[str, Any], fetched_at: datetime) -> CreatorRecord:
    """A ``business_discovery`` object → creator (§3.7): ``video_count`` counts all media, not only
    Reels; verified, likes, views and country are not given."""
    username = coerce.text(profile.get("username"))
    if username is None:
        raise UnmappableItem("business discovery without a username")
    return CreatorRecord(
        platform=Platform.INSTAGRAM,
        handle=username,
        display_name=coerce.text(profile.get("name")),
        platform_user_id=coerce.digits(profile.get("id")) or coerce.text(profile.get("id")),
        followers=coerce.count(profile.get("followers_count")),
        following=coerce.count(profile.get("follows_count")),
        video_count=coerce.count(profile.get("media_count")),
        avatar_url=coerce.text(profile.get("profile_picture_url")),
        bio=coerce.text(profile.get("biography")),
        fetched_at=fetched_at,
    )

"""Links to the three platforms' videos and creators, and the shapes of their own ids (spec §2.1, §4.7).

Clients name a video by the platform's id (``video_id``) or by the link they copied (``url``), and a
creator by handle or profile link (issue 28, ADR 0043). A link is read, never fetched: only the forms
below are understood, so a short link that needs a redirect (``vm.tiktok.com/…``) is refused rather than
resolved over the network.

- YouTube Shorts: ``youtube.com/shorts/ID``, ``youtube.com/watch?v=ID``, ``youtu.be/ID`` (11 characters)
- TikTok: ``tiktok.com/@user/video/ID`` (digits)
- Instagram: ``instagram.com/reel/CODE``, ``instagram.com/p/CODE``; the code is turned into the numeric
  media id, which is the platform's id here (§2.1)

A host may carry ``www.`` or ``m.``; a link without ``https://`` is read as if it had one; the query
string (but ``v`` on YouTube) and the fragment are ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from pydantic_core import PydanticCustomError

from reelscope.kit.errors import InvalidParameter
from reelscope.kit.platforms import Platform

# the platform's own id shapes: YouTube's 11-character video id, TikTok's numeric id (beyond 2^53, so a
# string), Instagram's numeric media id (§2.1: not the code in the link)
ID_SHAPES = {
    Platform.YOUTUBE: re.compile(r"[A-Za-z0-9_-]{11}"),
    Platform.TIKTOK: re.compile(r"[0-9]{1,20}"),
    Platform.INSTAGRAM: re.compile(r"[0-9]{1,25}"),
}
VIDEO_URL_FORMS = (
    "youtube.com/shorts/ID, youtube.com/watch?v=ID, youtu.be/ID, tiktok.com/@user/video/ID, "
    "instagram.com/reel/CODE or instagram.com/p/CODE"
)
PROFILE_URL_FORMS = "youtube.com/@handle, tiktok.com/@handle or instagram.com/handle"

SHORTCODE_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_SHORTCODE = re.compile(r"[A-Za-z0-9_-]{1,60}")
_HANDLE = re.compile(r"[A-Za-z0-9._-]{1,100}")
# first path segments of instagram.com that are pages, not profiles
_INSTAGRAM_PAGES = frozenset({"p", "reel", "reels", "tv", "stories", "explore", "accounts", "direct"})


@dataclass(frozen=True)
class VideoLink:
    platform: Platform
    video_id: str


@dataclass(frozen=True)
class ProfileLink:
    platform: Platform
    handle: str


def is_video_id(platform: Platform, value: str) -> bool:
    return ID_SHAPES[platform].fullmatch(value) is not None


def media_id_of(shortcode: str) -> str:
    """Instagram link code → numeric media id (§2.1); private-account links carry 28 extra characters.
    ``ValueError`` for a character outside the code's alphabet."""
    if len(shortcode) > 11:
        shortcode = shortcode[:-28] if len(shortcode) > 28 else shortcode[:11]
    value = 0
    for char in shortcode:
        index = SHORTCODE_ALPHABET.find(char)
        if index < 0:
            raise ValueError(f"bad Instagram shortcode {shortcode!r}")
        value = value * 64 + index
    return str(value)


def _split(url: str) -> tuple[str, list[str], dict[str, list[str]]] | None:
    """(host without www./m., path segments, query) of a web link, or None when it is not one."""
    text = url.strip()
    if "://" not in text:
        text = "https://" + text
    try:
        parts = urlsplit(text)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    host = parts.hostname.lower().removeprefix("www.").removeprefix("m.")
    segments = [segment for segment in parts.path.split("/") if segment]
    return host, segments, parse_qs(parts.query)


def parse_video_url(url: str) -> VideoLink | None:
    """The video a link names, in one of the forms of this module's docstring; None for any other."""
    split = _split(url)
    if split is None:
        return None
    host, path, query = split
    found: VideoLink | None = None
    if host == "youtube.com" and len(path) == 2 and path[0] == "shorts":
        found = VideoLink(Platform.YOUTUBE, path[1])
    elif host == "youtube.com" and path == ["watch"] and len(query.get("v", [])) == 1:
        found = VideoLink(Platform.YOUTUBE, query["v"][0])
    elif host == "youtu.be" and len(path) == 1:
        found = VideoLink(Platform.YOUTUBE, path[0])
    elif host == "tiktok.com" and len(path) == 3 and path[0].startswith("@") and path[1] == "video":
        found = VideoLink(Platform.TIKTOK, path[2])
    elif host == "instagram.com" and len(path) == 2 and path[0] in ("reel", "p"):
        found = VideoLink(Platform.INSTAGRAM, media_id_of(path[1])) if _SHORTCODE.fullmatch(path[1]) else None
    if found is None or not is_video_id(found.platform, found.video_id):
        return None
    return found


def parse_profile_url(url: str) -> ProfileLink | None:
    """The creator a profile link names (``PROFILE_URL_FORMS``), or None."""
    split = _split(url)
    if split is None:
        return None
    host, path, _query = split
    if len(path) != 1:
        return None
    segment = path[0]
    if host in ("youtube.com", "tiktok.com") and segment.startswith("@"):
        handle, platform = segment[1:], Platform.YOUTUBE if host == "youtube.com" else Platform.TIKTOK
    elif host == "instagram.com" and segment.lower() not in _INSTAGRAM_PAGES:
        handle, platform = segment.removeprefix("@"), Platform.INSTAGRAM
    else:
        return None
    return ProfileLink(platform, handle) if _HANDLE.fullmatch(handle) else None


# --- request fields: a video or a creator named either way ----------------------------------------


def invalid(field: str, text: str) -> PydanticCustomError:
    """A value of the wrong kind for ``field``: 400 ``invalid_parameter`` naming it (kit/validation.py)."""
    return PydanticCustomError(InvalidParameter.code, "{message}", {"message": f"{field}: {text}"})


def resolve_video(platform: Platform | None, video_id: str | None, url: str | None) -> VideoLink:
    """The video a request names by ``video_id`` (with ``platform``) or by ``url`` (``platform`` then
    optional). Both may be given when they agree. A ``video_id`` that cannot be an id of the platform,
    a link above all, is ``invalid_parameter``: refused before it is charged (issue 28). On Instagram
    the code of a link is taken as ``video_id`` too, and turned into the media id."""
    if url is not None:
        link = parse_video_url(url)
        if link is None:
            raise invalid("url", f"{url!r} is not a link to a video ({VIDEO_URL_FORMS})")
        if platform is not None and platform is not link.platform:
            raise ValueError(f"url is a {link.platform.value} link but platform is {platform.value}")
        if video_id is not None and resolve_video(link.platform, video_id, None) != link:
            raise ValueError("video_id and url name different videos: send one of them")
        return link
    if video_id is None:
        raise ValueError("video_id (with platform) or url is required")
    if platform is None:
        raise ValueError("platform is required with video_id")
    value = video_id.strip()
    if platform is Platform.INSTAGRAM and not value.isdigit() and _SHORTCODE.fullmatch(value):
        value = media_id_of(value)
    if not is_video_id(platform, value):
        hint = "; a link goes in url" if "/" in value or "." in value else ""
        raise invalid("video_id", f"{video_id!r} is not a {platform.value} video id{hint}")
    return VideoLink(platform, value)


def resolve_creator(platform: Platform | None, handle: str | None, url: str | None) -> ProfileLink:
    """The creator a request names by ``handle`` (with ``platform``, ``@`` optional) or by a profile
    ``url`` (``platform`` then optional); both when they agree."""
    if url is not None:
        link = parse_profile_url(url)
        if link is None:
            raise invalid("url", f"{url!r} is not a link to a creator's profile ({PROFILE_URL_FORMS})")
        if platform is not None and platform is not link.platform:
            raise ValueError(f"url is a {link.platform.value} link but platform is {platform.value}")
        if handle is not None and handle.strip().lstrip("@").lower() != link.handle.lower():
            raise ValueError("handle and url name different creators: send one of them")
        return link
    if handle is None:
        raise ValueError("handle (with platform) or url is required")
    if platform is None:
        raise ValueError("platform is required with handle")
    value = handle.strip().lstrip("@").strip()
    if not value:
        raise ValueError("handle must name someone besides '@' and spaces")
    if "/" in value:
        raise invalid("handle", f"{handle!r} is not a handle; a profile link goes in url")
    return ProfileLink(platform, value)

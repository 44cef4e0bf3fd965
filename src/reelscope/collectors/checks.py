"""What a record from outside must satisfy before it reaches the catalog (issue 17, ADR 0026).

``reelscope ingest`` rejects a line whose record breaks one of these rules, with the reason, and
ingests the rest of the file: a wrong value stored once (a negative count, an id that merges different
videos into one row) spoils every answer built on it.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from reelscope.collectors.base import CreatorRecord, VideoRecord
from reelscope.kit.platforms import Platform
from reelscope.kit.video_links import is_video_id

# the first of the three platforms opened in 2005; nothing was posted on any of them before
EARLIEST = datetime(2005, 1, 1, tzinfo=UTC)
# clocks differ: an observation this far ahead of the ingesting machine's clock is still believed
CLOCK_SKEW = timedelta(days=1)
# a feed region is a country's trend region: an ISO 3166-1 alpha-2 code, lower case (§2.4)
FEED_REGION = re.compile(r"[a-z]{2}")

_VIDEO_COUNTS = ("views", "likes", "comments", "shares", "bookmarks", "duration")
_CREATOR_COUNTS = ("followers", "following", "total_likes", "total_views", "video_count")


class InvalidRecord(ValueError):
    """A record whose values cannot be true; the message names the field and the value."""


def check_external_id(platform: Platform, external_id: str) -> None:
    # the platform's own id shapes (kit/video_links.py; Instagram shortcodes are converted by the mapper)
    if not is_video_id(platform, external_id):
        raise InvalidRecord(f"external_id {external_id!r} is not a {platform.value} video id")


def check_moment(name: str, value: datetime, now: datetime) -> None:
    if value < EARLIEST or value > now + CLOCK_SKEW:
        raise InvalidRecord(f"{name} {value.isoformat()} is out of range ({EARLIEST.year} to now)")


def _check_counts(owner: object, names: tuple[str, ...], prefix: str = "") -> None:
    for name in names:
        value = getattr(owner, name)
        if value is not None and value < 0:
            raise InvalidRecord(f"{prefix}{name} is negative ({value})")


def check_creator(creator: CreatorRecord) -> None:
    _check_counts(creator, _CREATOR_COUNTS, "creator.")


def check_video(video: VideoRecord, now: datetime) -> None:
    """Raise ``InvalidRecord`` when the video cannot be true: an id not of its platform's shape,
    negative counts, times before the platforms existed or after now, an observation before posting."""
    check_external_id(video.platform, video.external_id)
    _check_counts(video, _VIDEO_COUNTS)
    if video.creator is not None:
        check_creator(video.creator)
    check_moment("published_at", video.published_at, now)
    check_moment("observed at", video.fetched_at, now)
    if video.fetched_at < video.published_at:
        raise InvalidRecord(
            f"observed at {video.fetched_at.isoformat()}, before it was posted "
            f"({video.published_at.isoformat()})"
        )
    if video.feed_region is not None and not FEED_REGION.fullmatch(video.feed_region):
        raise InvalidRecord(f"region {video.feed_region!r} is not a two-letter country code")

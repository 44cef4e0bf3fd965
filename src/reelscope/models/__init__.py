"""Every SQLAlchemy model, imported here so Alembic and create_all see the whole schema."""

from reelscope.models.account import ApiKey, RateLimitOverride, Team, User
from reelscope.models.billing import LedgerEntry
from reelscope.models.catalog import (
    Ad,
    Comment,
    Creator,
    Hashtag,
    Slideshow,
    Sound,
    SoundUsage,
    Video,
    VideoHashtag,
    ViewSnapshot,
)

__all__ = ["ApiKey", "LedgerEntry", "RateLimitOverride", "Team", "User"]
__all__ += [
    "Ad",
    "Comment",
    "Creator",
    "Hashtag",
    "Slideshow",
    "Sound",
    "SoundUsage",
    "Video",
    "VideoHashtag",
    "ViewSnapshot",
]

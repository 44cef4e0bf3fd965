"""The catalog: the shared corpus of collected videos and what hangs off them (ARCHITECTURE §7).

Every collected row is keyed by its source's identity (``platform`` + ``external_id``, a creator's
lower-cased handle, a hashtag's lower-cased text without ``#``) so ingest is an idempotent upsert; the
service UUID ``id`` is assigned on first sight and never changes. Counters are the last observation;
``view_snapshots`` keeps each observation over time.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime


class Creator(Base):
    __tablename__ = "creators"
    __table_args__ = (UniqueConstraint("platform", "handle_key"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    handle: Mapped[str] = mapped_column(String(200))
    # lower case, no leading "@": how handles are matched
    handle_key: Mapped[str] = mapped_column(String(200))
    display_name: Mapped[str | None] = mapped_column(String(300))
    platform_user_id: Mapped[str | None] = mapped_column(String(100))
    followers: Mapped[int | None] = mapped_column(BigInteger)
    following: Mapped[int | None] = mapped_column(BigInteger)
    total_likes: Mapped[int | None] = mapped_column(BigInteger)
    total_views: Mapped[int | None] = mapped_column(BigInteger)
    video_count: Mapped[int | None] = mapped_column(Integer)
    verified: Mapped[bool | None] = mapped_column(Boolean)
    avatar_url: Mapped[str | None] = mapped_column(Text)
    bio: Mapped[str | None] = mapped_column(Text)
    country: Mapped[str | None] = mapped_column(String(8))
    first_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Sound(Base):
    """A sound (§2.2); ``id`` is what the sound endpoints take, never the platform's id."""

    __tablename__ = "sounds"
    __table_args__ = (UniqueConstraint("platform", "external_id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(100))
    title: Mapped[str] = mapped_column(String(500))
    duration: Mapped[int | None] = mapped_column(Integer)
    cover_url: Mapped[str] = mapped_column(Text)
    is_original: Mapped[bool] = mapped_column(Boolean)
    usage_count: Mapped[int | None] = mapped_column(BigInteger)
    owner_handle: Mapped[str | None] = mapped_column(String(200))
    owner_nickname: Mapped[str | None] = mapped_column(String(300))
    is_commerce_music: Mapped[bool | None] = mapped_column(Boolean)
    first_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class SoundUsage(Base):
    """A sound's usage count at one moment (its usage history)."""

    __tablename__ = "sound_usage"
    __table_args__ = {"sqlite_with_rowid": False}

    sound_id: Mapped[str] = mapped_column(ForeignKey("sounds.id", ondelete="CASCADE"), primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
    usage_count: Mapped[int] = mapped_column(BigInteger)


class Video(Base):
    """One video with the §2.1 digest fields (``type`` is ``platform``, ``publish_date`` is
    ``published_at``, ``author_id`` is ``creator_id``; ``region`` and ``niche`` are legacy)."""

    __tablename__ = "videos"
    __table_args__ = (
        UniqueConstraint("platform", "external_id"),
        Index("ix_videos_platform_published_at", "platform", "published_at"),
        Index("ix_videos_published_at", "published_at"),
        # a creator's sounds from the index alone (sound by-creator, ADR 0038)
        Index("ix_videos_creator_sound", "creator_id", "sound_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(100))
    url: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text)
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # when the service first saw the video; re-ingest never moves it (§2.3 counts a video only if
    # found_at - published_at <= 7 days)
    found_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # when the counters below were observed
    fetched_at: Mapped[datetime] = mapped_column(UtcDateTime)
    views: Mapped[int] = mapped_column(BigInteger)
    likes: Mapped[int] = mapped_column(BigInteger)
    comments: Mapped[int] = mapped_column(BigInteger)
    shares: Mapped[int | None] = mapped_column(BigInteger)
    bookmarks: Mapped[int | None] = mapped_column(BigInteger)
    # the first views observed at least 7 days after posting: views freeze about then (§2.3)
    views_at_7d: Mapped[int | None] = mapped_column(BigInteger)
    # as the platform shows them (YouTube with "#"); matching goes through video_hashtags
    hashtags: Mapped[list[str]] = mapped_column(JSON)
    # the uploader's keyword tags (yt-dlp ``tags``), never shown as hashtags (ADR 0026)
    tags: Mapped[list[str]] = mapped_column(JSON, server_default=text("'[]'"))
    thumbnail_url: Mapped[str | None] = mapped_column(Text)
    duration: Mapped[int | None] = mapped_column(Integer)
    transcript: Mapped[str | None] = mapped_column(Text)
    sound_id: Mapped[str | None] = mapped_column(ForeignKey("sounds.id", ondelete="SET NULL"))
    sound_external_id: Mapped[str | None] = mapped_column(String(100))
    upload_region: Mapped[str | None] = mapped_column(String(8))
    upload_region_source: Mapped[str | None] = mapped_column(String(64))
    is_duet: Mapped[bool | None] = mapped_column(Boolean)
    is_stitch: Mapped[bool | None] = mapped_column(Boolean)
    is_eligible_for_commission: Mapped[bool | None] = mapped_column(Boolean)
    creator_id: Mapped[str | None] = mapped_column(ForeignKey("creators.id", ondelete="SET NULL"))
    region: Mapped[str | None] = mapped_column(String(8))
    language: Mapped[str | None] = mapped_column(String(8))
    # the trend region whose feed carried the video (``reelscope ingest --region``, or the record's own);
    # trend runs of that region read it first (ADR 0026)
    feed_region: Mapped[str | None] = mapped_column(String(16))


# a sound's videos most viewed first (ties by id), and its counts by posting time, from the index alone
# (GET /v1/sounds/{id}/videos; sound.refresh): ADR 0038
Index("ix_videos_sound_views", Video.sound_id, Video.views.desc(), Video.id, Video.published_at)


class Hashtag(Base):
    __tablename__ = "hashtags"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    # lower case without "#": hashtags match case-insensitively (§4.2)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    # the first spelling seen, without "#"
    display: Mapped[str] = mapped_column(String(200))


class VideoHashtag(Base):
    __tablename__ = "video_hashtags"
    # WITHOUT ROWID on SQLite: the primary key is the table, one B-tree less per row (ADR 0008)
    __table_args__ = (Index("ix_video_hashtags_hashtag_id", "hashtag_id"), {"sqlite_with_rowid": False})

    video_id: Mapped[str] = mapped_column(ForeignKey("videos.id", ondelete="CASCADE"), primary_key=True)
    hashtag_id: Mapped[str] = mapped_column(ForeignKey("hashtags.id", ondelete="CASCADE"), primary_key=True)


class ViewSnapshot(Base):
    """A video's counters at one observation."""

    __tablename__ = "view_snapshots"
    __table_args__ = {"sqlite_with_rowid": False}

    video_id: Mapped[str] = mapped_column(ForeignKey("videos.id", ondelete="CASCADE"), primary_key=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime, primary_key=True)
    views: Mapped[int] = mapped_column(BigInteger)
    likes: Mapped[int] = mapped_column(BigInteger)
    comments: Mapped[int] = mapped_column(BigInteger)
    shares: Mapped[int | None] = mapped_column(BigInteger)
    bookmarks: Mapped[int | None] = mapped_column(BigInteger)


class Slideshow(Base):
    __tablename__ = "slideshows"
    __table_args__ = (
        UniqueConstraint("platform", "external_id"),
        Index("ix_slideshows_published_at", "published_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(100))
    url: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text)
    panels: Mapped[list[str]] = mapped_column(JSON)
    image_count: Mapped[int] = mapped_column(Integer)
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)
    found_at: Mapped[datetime] = mapped_column(UtcDateTime)
    fetched_at: Mapped[datetime] = mapped_column(UtcDateTime)
    views: Mapped[int] = mapped_column(BigInteger)
    likes: Mapped[int] = mapped_column(BigInteger)
    comments: Mapped[int] = mapped_column(BigInteger)
    shares: Mapped[int | None] = mapped_column(BigInteger)
    bookmarks: Mapped[int | None] = mapped_column(BigInteger)
    hashtags: Mapped[list[str]] = mapped_column(JSON)
    thumbnail_url: Mapped[str | None] = mapped_column(Text)
    sound_id: Mapped[str | None] = mapped_column(ForeignKey("sounds.id", ondelete="SET NULL"))
    creator_id: Mapped[str | None] = mapped_column(ForeignKey("creators.id", ondelete="SET NULL"))
    language: Mapped[str | None] = mapped_column(String(8))


class Ad(Base):
    """An ad of the Meta ad library."""

    __tablename__ = "ads"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    external_id: Mapped[str] = mapped_column(String(100), unique=True)
    page_id: Mapped[str] = mapped_column(String(100))
    page_name: Mapped[str] = mapped_column(String(300))
    bodies: Mapped[list[str]] = mapped_column(JSON)
    start_date: Mapped[datetime] = mapped_column(UtcDateTime)
    stop_date: Mapped[datetime | None] = mapped_column(UtcDateTime)
    publisher_platforms: Mapped[list[str]] = mapped_column(JSON)
    snapshot_url: Mapped[str | None] = mapped_column(Text)
    page_likes: Mapped[int | None] = mapped_column(BigInteger)
    keyword: Mapped[str | None] = mapped_column(String(200))
    languages: Mapped[list[str]] = mapped_column(JSON)
    first_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)
    fetched_at: Mapped[datetime] = mapped_column(UtcDateTime)


class Comment(Base):
    __tablename__ = "comments"
    __table_args__ = (
        UniqueConstraint("platform", "external_id"),
        Index("ix_comments_platform_video_external_id", "platform", "video_external_id"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str] = mapped_column(String(200))
    video_external_id: Mapped[str] = mapped_column(String(100))
    video_id: Mapped[str | None] = mapped_column(ForeignKey("videos.id", ondelete="CASCADE"))
    author_handle: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(Text)
    language: Mapped[str | None] = mapped_column(String(8))
    country: Mapped[str | None] = mapped_column(String(8))
    likes: Mapped[int] = mapped_column(BigInteger)
    author_age_bracket: Mapped[str | None] = mapped_column(String(16))
    author_gender: Mapped[str | None] = mapped_column(String(16))
    posted_at: Mapped[datetime] = mapped_column(UtcDateTime)
    fetched_at: Mapped[datetime] = mapped_column(UtcDateTime)

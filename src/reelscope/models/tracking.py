"""Tracked creators and videos, their snapshots and the posts seen (spec §3, §4.7, §6.3; ADR 0023).

Cycles run as jobs from a ``schedules`` row per tracked item (``interval:<seconds>``); audience snapshots
and deep post collections are ``jobs`` rows whose result is the answer, so neither needs a table here.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime
from reelscope.kit.ids import new_id


class TrackedItem(Base):
    """A creator (``kind`` creator, ``handle``) or a video (``kind`` video, ``video_id``) a team tracks."""

    __tablename__ = "tracked_items"
    __table_args__ = (
        UniqueConstraint("team_id", "kind", "platform", "target", name="uq_tracked_items_target"),
        Index("ix_tracked_items_team_kind", "team_id", "kind", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(16))  # creator | video
    platform: Mapped[str] = mapped_column(String(16))
    # the lower-cased handle of a creator, the platform's id of a video: one tracking per team and target
    target: Mapped[str] = mapped_column(String(200))
    handle: Mapped[str | None] = mapped_column(String(200), nullable=True)
    video_id: Mapped[str | None] = mapped_column(String(100), nullable=True)
    video_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    # the creator's display name, or the video's title (what `search` matches besides the handle)
    title: Mapped[str | None] = mapped_column(Text, nullable=True)
    status: Mapped[str] = mapped_column(String(16))  # active | paused (§3)
    pause_reason: Mapped[str | None] = mapped_column(String(32), nullable=True)
    cadence: Mapped[str] = mapped_column(String(32))
    consecutive_failures: Mapped[int] = mapped_column(Integer, default=0)
    cycles_completed: Mapped[int] = mapped_column(Integer, default=0)
    last_checked_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_error: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # the latest snapshot's numbers with their delta_ fields (what lists show without a join)
    latest_snapshot: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class TrackingSnapshotRow(Base):
    """One completed cycle: the numbers read, their change since the previous snapshot, the report."""

    __tablename__ = "tracking_snapshots"
    __table_args__ = (
        # a due time is checked once (§3; "never run twice for one due time")
        UniqueConstraint("item_id", "scheduled_for", name="uq_tracking_snapshots_due"),
        Index("ix_tracking_snapshots_item_taken", "item_id", "taken_at"),
        # the retention purge's oldest-first scan (retention.repository)
        Index("ix_tracking_snapshots_taken", "taken_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    item_id: Mapped[str] = mapped_column(ForeignKey("tracked_items.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    scheduled_for: Mapped[datetime] = mapped_column(UtcDateTime)
    taken_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # the §6.3 snapshot numbers (followers, total_views, … or views, likes, …) and their delta_ fields
    metrics: Mapped[dict[str, Any]] = mapped_column(JSON)
    new_posts_count: Mapped[int] = mapped_column(Integer, default=0)
    credits_charged: Mapped[int] = mapped_column(Integer, default=0)
    report: Mapped[dict[str, Any]] = mapped_column(JSON)


class TrackedPost(Base):
    """A post of a tracked creator, with its latest counters and whether it was announced as an outlier."""

    __tablename__ = "tracked_posts"
    __table_args__ = (
        UniqueConstraint("item_id", "external_id", name="uq_tracked_posts_item_external"),
        Index("ix_tracked_posts_item_published", "item_id", "published_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    item_id: Mapped[str] = mapped_column(ForeignKey("tracked_items.id", ondelete="CASCADE"))
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    external_id: Mapped[str] = mapped_column(String(100))
    url: Mapped[str] = mapped_column(String(500))
    title: Mapped[str | None] = mapped_column(Text, nullable=True)
    thumbnail_url: Mapped[str | None] = mapped_column(String(500), nullable=True)
    duration: Mapped[int | None] = mapped_column(Integer, nullable=True)
    hashtags: Mapped[list[str]] = mapped_column(JSON, default=list)
    published_at: Mapped[datetime] = mapped_column(UtcDateTime)
    views: Mapped[int] = mapped_column(BigInteger, default=0)
    likes: Mapped[int] = mapped_column(BigInteger, default=0)
    comments: Mapped[int] = mapped_column(BigInteger, default=0)
    shares: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    bookmarks: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # posts published after tracking began (the first cycle's posts are the baseline)
    is_new: Mapped[bool] = mapped_column(default=False)
    outlier_ratio: Mapped[float | None] = mapped_column(Float, nullable=True)
    outlier_announced_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    first_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class DashboardPage(Base):
    """A tracked item's dashboard page, drawn ahead by the ``dashboard.draw`` job when a cycle, a post
    collection or an audience snapshot changes what it shows (ADR 0061). ``drawn_from`` is the hash of
    the inputs it was drawn from (``dashboard.service.drawn_from``): a request whose inputs hash
    otherwise draws the page itself. ``body`` holds the link's expiry as ``page.EXPIRES_AT``."""

    __tablename__ = "dashboard_pages"

    item_id: Mapped[str] = mapped_column(ForeignKey("tracked_items.id", ondelete="CASCADE"), primary_key=True)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    drawn_from: Mapped[str] = mapped_column(String(64))
    body: Mapped[str] = mapped_column(Text)
    drawn_at: Mapped[datetime] = mapped_column(UtcDateTime)

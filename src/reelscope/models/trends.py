"""Trend regions, daily trend groups, trends and their per-day rows (spec §2.4, §2.5, §4.3)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime
from reelscope.kit.ids import new_id


class TrendRegion(Base):
    """Held as data so regions are added without code (§2.4: clients discover them at runtime)."""

    __tablename__ = "trend_regions"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(100))
    timezone: Mapped[str] = mapped_column(String(64))
    # countries feed promotion into `global`; `global` has its own native detection over all videos
    is_country: Mapped[bool] = mapped_column(Boolean, default=True)
    position: Mapped[int] = mapped_column(Integer, default=0)


class Trend(Base):
    """A trend's identity within a region; re-detections keep it (§4.3 dedupe)."""

    __tablename__ = "trends"
    __table_args__ = (Index("ix_trends_region_last_seen", "region", "last_seen_at"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    region: Mapped[str] = mapped_column(String(16))
    key: Mapped[str] = mapped_column(String(300))
    feature_keys: Mapped[list[str]] = mapped_column(JSON)
    name: Mapped[str] = mapped_column(String(300))
    description: Mapped[str] = mapped_column(Text)
    trend_type: Mapped[str] = mapped_column(String(32))
    first_detected_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)


class TrendGroup(Base):
    """One container per region per region-local day; all runs of the day merge into it (§4.3)."""

    __tablename__ = "trend_groups"
    __table_args__ = (UniqueConstraint("region", "local_date"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    region: Mapped[str] = mapped_column(String(16))
    local_date: Mapped[date] = mapped_column(Date)
    title: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)
    # a fresh id whenever what the group shows changes: its rows (a run, the momentum loop, a replay) or
    # the description of a trend one of them shows (a later run); a process keeps the group's rendered
    # JSON under it (trend/service.py, ADR 0062)
    version: Mapped[str] = mapped_column(String(36), default=new_id)


class TrendRanking(Base):
    """A trend row of a day group (§2.5): ranking, timestamps, promotion, momentum, exemplars."""

    __tablename__ = "trend_rankings"
    __table_args__ = (
        UniqueConstraint("group_id", "trend_id"),
        Index("ix_trend_rankings_region_status", "region", "momentum_status"),
        # a group's top rows, by ranking (GET /v1/trends reads ranking <= limit, ADR 0038)
        Index("ix_trend_rankings_group_ranking", "group_id", "ranking"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    group_id: Mapped[str] = mapped_column(ForeignKey("trend_groups.id", ondelete="CASCADE"))
    trend_id: Mapped[str] = mapped_column(ForeignKey("trends.id", ondelete="CASCADE"), index=True)
    region: Mapped[str] = mapped_column(String(16))
    ranking: Mapped[int] = mapped_column(Integer)
    score: Mapped[float] = mapped_column(Float)
    burst_ratio: Mapped[float] = mapped_column(Float)
    detected_at: Mapped[datetime] = mapped_column(UtcDateTime)
    last_seen_at: Mapped[datetime] = mapped_column(UtcDateTime)
    origin_region_codes: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    global_confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    count_recent: Mapped[int] = mapped_column(Integer)
    median_views: Mapped[int] = mapped_column(BigInteger)
    per_platform: Mapped[dict[str, int]] = mapped_column(JSON)
    velocity_band: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # exemplar snapshots (catalog video ids with what a client sees), views descending
    exemplars: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    momentum_status: Mapped[str | None] = mapped_column(String(16), nullable=True)
    momentum_score: Mapped[float | None] = mapped_column(Float, nullable=True)
    momentum_views_per_hour: Mapped[float | None] = mapped_column(Float, nullable=True)
    momentum_updated_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    seeded_status: Mapped[str] = mapped_column(String(16))
    seeded_score: Mapped[float] = mapped_column(Float)
    seeded_views_per_hour: Mapped[float] = mapped_column(Float)


class TrendReading(Base):
    """Exemplar views read by the momentum loop (§4.3: ~every 2 hours, views and likes only)."""

    __tablename__ = "trend_readings"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    ranking_id: Mapped[str] = mapped_column(ForeignKey("trend_rankings.id", ondelete="CASCADE"), index=True)
    at: Mapped[datetime] = mapped_column(UtcDateTime)
    # real videos pass 2^31 views (a few billion): 64-bit, as the catalog's counts
    views: Mapped[int] = mapped_column(BigInteger)
    likes: Mapped[int] = mapped_column(BigInteger)


class TrendRun(Base):
    """One scheduled detection run of a region (07:00, 13:00, 19:00 local)."""

    __tablename__ = "trend_runs"
    __table_args__ = (UniqueConstraint("region", "scheduled_for"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    region: Mapped[str] = mapped_column(String(16))
    scheduled_for: Mapped[datetime] = mapped_column(UtcDateTime)
    status: Mapped[str] = mapped_column(String(16))  # completed | failed
    trends_found: Mapped[int] = mapped_column(Integer, default=0)
    error_code: Mapped[str | None] = mapped_column(String(64), nullable=True)
    error_message: Mapped[str | None] = mapped_column(Text, nullable=True)
    completed_at: Mapped[datetime] = mapped_column(UtcDateTime)

"""Teams, users, API keys and per-team custom rate limits (spec §5, §8.1)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, BigInt, UtcDateTime
from reelscope.kit.ids import new_id


class Team(Base):
    __tablename__ = "teams"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    # cached balance; always equal to the sum of the team's ledger rows (billing)
    credits: Mapped[int] = mapped_column(BigInt, default=0)
    auto_topup_below: Mapped[int | None] = mapped_column(BigInt, nullable=True)
    auto_topup_amount: Mapped[int | None] = mapped_column(BigInt, nullable=True)
    auto_topup_last_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class User(Base):
    __tablename__ = "users"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class ApiKey(Base):
    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    user_id: Mapped[str] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"))
    # SHA-256 of the whole key; the key itself is shown once and never stored (ADR 0002)
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    display_prefix: Mapped[str] = mapped_column(String(32))
    # "full" may do anything the team may; "read" only safe methods (403 forbidden otherwise, §5.4)
    scope: Mapped[str] = mapped_column(String(16), default="full")
    is_active: Mapped[bool] = mapped_column(Boolean, default=True)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # beyond the spec (issue 30, ADR 0047): the most credits the key's requests may be charged in one UTC
    # day (None: no cap), and what they were charged on ``spent_day`` ("YYYY-MM-DD"; text, so the caller's
    # fast read needs no type conversion). Counted only while the key has a cap.
    daily_cap_credits: Mapped[int | None] = mapped_column(BigInt, nullable=True)
    spent_day: Mapped[str | None] = mapped_column(String(10), nullable=True)
    spent_credits: Mapped[int] = mapped_column(BigInt, default=0, server_default="0")


class RateLimitOverride(Base):
    """Custom limits of one team for one feature group; set values replace the table's (§8.1)."""

    __tablename__ = "rate_limit_overrides"
    __table_args__ = (UniqueConstraint("team_id", "feature"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    feature: Mapped[str] = mapped_column(String(64))
    per_minute: Mapped[int | None] = mapped_column(Integer, nullable=True)
    per_hour: Mapped[int | None] = mapped_column(Integer, nullable=True)
    per_day: Mapped[int | None] = mapped_column(Integer, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)

"""Satellite lookups (spec §4.7, §3, §8.4): durable run rows and the batches that group them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime
from reelscope.kit.ids import new_id


class LookupRun(Base):
    """One creator, sound or hashtag lookup. Never expires (§8.4); a repeat of the same lookup within
    6 hours returns this row again, uncharged (§4.7). Video outliers are not persisted: their result
    lives only on their jobs row, for the 24-hour poll cache."""

    __tablename__ = "lookup_runs"
    __table_args__ = (
        Index("ix_lookup_runs_team_created", "team_id", "created_at"),
        Index("ix_lookup_runs_team_cache_key", "team_id", "cache_key", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    user_id: Mapped[str] = mapped_column(String(36))
    # creator_lookup | sound_lookup | hashtag_lookup (§6.3 ``type``)
    type: Mapped[str] = mapped_column(String(32))
    platform: Mapped[str] = mapped_column(String(16))
    # the handle, music id or hashtag looked up, as the client sent it
    target: Mapped[str] = mapped_column(String(300))
    # type, platform, normalized target and options: what makes two lookups "the same" (§4.7 cache)
    cache_key: Mapped[str] = mapped_column(String(1000))
    # the echo of the options (§6.3 ``request``)
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    # processing | completed | failed (§3 lookup job)
    status: Mapped[str] = mapped_column(String(16))
    job_id: Mapped[str] = mapped_column(String(36), index=True)
    batch_id: Mapped[str | None] = mapped_column(String(36), nullable=True, index=True)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    error: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    video_count: Mapped[int] = mapped_column(Integer, default=0)
    charged_credits: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class LookupBatch(Base):
    """A batch creator lookup (§4.7): the runs it started or found cached, in the order asked."""

    __tablename__ = "lookup_batches"

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"), index=True)
    # the creators' platform; null when they are on several (``creators`` of mixed platforms, ADR 0043)
    platform: Mapped[str | None] = mapped_column(String(16))
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    # [{"handle": ..., "run_id": ..., "cached": bool}] in the order of the request
    entries: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)

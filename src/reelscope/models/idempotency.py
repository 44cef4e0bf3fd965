"""Stored responses of requests sent with an ``Idempotency-Key`` (beyond the spec; ADR 0004)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, ForeignKey, Integer, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime
from reelscope.kit.ids import new_id


class IdempotencyRecord(Base):
    """The first 2xx response to one team's key, written in that request's own transaction."""

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("team_id", "key"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    # SHA-256 of method, path, query and body: the same key with another request is a conflict
    fingerprint: Mapped[str] = mapped_column(String(64))
    status_code: Mapped[int] = mapped_column(Integer)
    body: Mapped[bytes] = mapped_column(LargeBinary)
    # the response's own headers as [name, value] pairs (not the contract's billing and rate headers)
    headers: Mapped[list[list[str]]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime, index=True)

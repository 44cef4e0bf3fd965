"""The event outbox: each event is written in the transaction of the change that caused it (ARCH §6)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, BigInt, UtcDateTime
from reelscope.kit.ids import new_id


class OutboxEvent(Base):
    __tablename__ = "events"

    # the order of creation; the delivery worker reads "after sequence N" (events.service.events_after)
    sequence: Mapped[int] = mapped_column(BigInt, primary_key=True, autoincrement=True)
    id: Mapped[str] = mapped_column(String(36), unique=True, default=new_id)
    name: Mapped[str] = mapped_column(String(100))
    # null for public events (trend events, §6.1)
    team_id: Mapped[str | None] = mapped_column(
        ForeignKey("teams.id", ondelete="CASCADE"), nullable=True, index=True
    )
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class OutboxCursor(Base):
    """How far a consumer of the outbox has read (the webhook fan-out), advanced in the same transaction
    as the work it did, so no event is consumed twice or skipped."""

    __tablename__ = "outbox_cursors"

    consumer: Mapped[str] = mapped_column(String(64), primary_key=True)
    sequence: Mapped[int] = mapped_column(BigInt, default=0)

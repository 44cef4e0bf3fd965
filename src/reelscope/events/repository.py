"""SQL for the event outbox."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import select, text
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.ids import new_id
from reelscope.models import OutboxCursor, OutboxEvent

# any constant: the key of the PostgreSQL advisory lock that orders outbox writes
_OUTBOX_LOCK = 5_271_049_312


async def insert(
    session: AsyncSession, *, name: str, team_id: str | None, payload: dict[str, Any], at: datetime
) -> OutboxEvent:
    if session.get_bind().dialect.name == "postgresql":
        # Sequence numbers are handed out at insert but become visible at commit, so without this a reader
        # could pass number 8 (committed) while 7 (still open) is yet to appear, and never see 7. The lock
        # is held to the end of the transaction, so outbox writers commit in sequence order. SQLite writers
        # are serialized already.
        await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _OUTBOX_LOCK})
    row = OutboxEvent(id=new_id(), name=name, team_id=team_id, payload=payload, created_at=at)
    session.add(row)
    await session.flush()
    return row


async def after(session: AsyncSession, sequence: int, limit: int) -> Sequence[OutboxEvent]:
    stmt = (
        select(OutboxEvent).where(OutboxEvent.sequence > sequence).order_by(OutboxEvent.sequence).limit(limit)
    )
    return (await session.execute(stmt)).scalars().all()


async def lock_cursor(session: AsyncSession, consumer: str) -> OutboxCursor:
    """The consumer's cursor row, created at 0 if new, locked to the end of the transaction
    (PostgreSQL ``FOR UPDATE``; SQLite write transactions are serialized already)."""
    stmt = select(OutboxCursor).where(OutboxCursor.consumer == consumer).with_for_update()
    cursor = (await session.execute(stmt)).scalar_one_or_none()
    if cursor is None:
        session.add(OutboxCursor(consumer=consumer, sequence=0))
        await session.flush()
        cursor = (await session.execute(stmt)).scalar_one()
    return cursor

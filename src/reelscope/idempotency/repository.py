"""SQL for stored idempotent responses and the in-flight lock."""

from __future__ import annotations

import hashlib
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import IdempotencyRecord


async def try_lock(session: AsyncSession, team_id: str, key: str) -> bool:
    """Hold the (team, key) lock until the transaction ends; False when another transaction holds it.

    PostgreSQL: a transaction-level advisory lock, so a second request with the key fails fast instead
    of waiting. SQLite: a request that can carry a key began ``BEGIN IMMEDIATE`` and already holds the
    database's only write lock, so no other transaction with the key can be in flight.
    """
    if session.get_bind().dialect.name != "postgresql":
        return True
    digest = hashlib.sha256(f"idempotency:{team_id}:{key}".encode()).digest()
    lock_id = int.from_bytes(digest[:8], "big", signed=True)
    return bool((await session.execute(select(func.pg_try_advisory_xact_lock(lock_id)))).scalar_one())


async def get(session: AsyncSession, team_id: str, key: str) -> IdempotencyRecord | None:
    stmt = (
        select(IdempotencyRecord)
        .where(IdempotencyRecord.team_id == team_id, IdempotencyRecord.key == key)
        .execution_options(populate_existing=True)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def remove(session: AsyncSession, record_id: str) -> None:
    # a statement, not session.delete(): it must run before a new record with the same key is inserted
    await session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id == record_id))


def add(session: AsyncSession, record: IdempotencyRecord) -> None:
    session.add(record)


async def delete_expired(session: AsyncSession, now: datetime, limit: int) -> int:
    """Remove up to ``limit`` records whose 24 hours are over; how many were removed."""
    ids = (
        (
            await session.execute(
                select(IdempotencyRecord.id).where(IdempotencyRecord.expires_at <= now).limit(limit)
            )
        )
        .scalars()
        .all()
    )
    if ids:
        await session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.id.in_(ids)))
    return len(ids)

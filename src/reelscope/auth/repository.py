"""SQL for teams, users and keys."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.fast_reads import FastReads, Row
from reelscope.models import ApiKey, RateLimitOverride, Team, User

# every column is text or an integer, so the fast read needs no type conversion (kit/fast_reads.py),
# but the last auto top-up's time: text on SQLite, a datetime on PostgreSQL (auth/service.py reads both)
CALLER_SQL = """
SELECT k.id, k.team_id, k.user_id, k.scope, t.credits, t.auto_topup_below,
       o.per_minute, o.per_hour, o.per_day, k.daily_cap_credits, k.spent_day, k.spent_credits,
       t.auto_topup_amount, t.auto_topup_last_at
FROM api_keys AS k
JOIN teams AS t ON t.id = k.team_id
LEFT JOIN rate_limit_overrides AS o ON o.team_id = k.team_id AND o.feature = :feature
WHERE k.key_hash = :key_hash AND k.is_active
"""


async def get_caller(reads: FastReads, key_hash: str, feature: str) -> Row | None:
    """Everything the request contract needs about a key in one point read: the key, its team's
    balance and auto top-up (all that ``GET /v1/account/balance`` answers), the team's custom limits
    for ``feature`` (if any), and the key's daily spending cap with what it spent on its last day of
    spending (ADR 0047)."""
    return await reads.one(CALLER_SQL, {"key_hash": key_hash, "feature": feature})


async def get_team_by_name(session: AsyncSession, name: str) -> Team | None:
    return (await session.execute(select(Team).where(Team.name == name))).scalar_one_or_none()


async def list_teams(session: AsyncSession) -> Sequence[Team]:
    return (await session.execute(select(Team).order_by(Team.created_at, Team.name))).scalars().all()


async def count_teams(session: AsyncSession) -> int:
    return len((await session.execute(select(Team.id).limit(1))).all())


async def first_user(session: AsyncSession, team_id: str) -> User | None:
    stmt = select(User).where(User.team_id == team_id).order_by(User.created_at).limit(1)
    return (await session.execute(stmt)).scalar_one_or_none()


async def list_keys(session: AsyncSession, team_id: str) -> Sequence[ApiKey]:
    stmt = select(ApiKey).where(ApiKey.team_id == team_id).order_by(ApiKey.created_at)
    return (await session.execute(stmt)).scalars().all()


async def revoke_key(session: AsyncSession, key_id: str, at: datetime) -> bool:
    stmt = (
        update(ApiKey)
        .where(ApiKey.id == key_id, ApiKey.is_active.is_(True))
        .values(is_active=False, revoked_at=at)
    )
    result: CursorResult[Any] = await session.execute(stmt)  # type: ignore[assignment]
    return result.rowcount > 0


async def get_key(session: AsyncSession, key_id: str) -> ApiKey | None:
    return await session.get(ApiKey, key_id)


async def get_limit_override(session: AsyncSession, team_id: str, feature: str) -> RateLimitOverride | None:
    stmt = select(RateLimitOverride).where(
        RateLimitOverride.team_id == team_id, RateLimitOverride.feature == feature
    )
    return (await session.execute(stmt)).scalar_one_or_none()

"""SQL for teams, users and keys."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import CursorResult, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import ApiKey, RateLimitOverride, Team, User


async def get_caller(session: AsyncSession, key_hash: str, feature: str) -> Any | None:
    """Everything the request contract needs about a key in one round trip: the key, its team's
    balance and auto top-up threshold, and the team's custom limits for ``feature`` (if any)."""
    stmt = (
        select(
            ApiKey.id,
            ApiKey.team_id,
            ApiKey.user_id,
            ApiKey.scope,
            Team.credits,
            Team.auto_topup_below,
            RateLimitOverride.per_minute,
            RateLimitOverride.per_hour,
            RateLimitOverride.per_day,
        )
        .join(Team, Team.id == ApiKey.team_id)
        .outerjoin(
            RateLimitOverride,
            (RateLimitOverride.team_id == ApiKey.team_id) & (RateLimitOverride.feature == feature),
        )
        .where(ApiKey.key_hash == key_hash, ApiKey.is_active.is_(True))
    )
    return (await session.execute(stmt)).first()


async def get_team(session: AsyncSession, team_id: str) -> Team | None:
    return await session.get(Team, team_id)


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

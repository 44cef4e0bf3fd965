"""Who is calling: API key authentication (spec §5) and the operator's team and key management."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.auth import keys, repository
from reelscope.billing import service as billing_service
from reelscope.kit.errors import Conflict, InvalidApiKey, NotFound
from reelscope.kit.fast_reads import FastReads
from reelscope.models import ApiKey, RateLimitOverride, Team, User

SCOPES = ("full", "read")


@dataclass(frozen=True)
class Principal:
    team_id: str
    user_id: str
    key_id: str
    scope: str


@dataclass(frozen=True)
class Caller:
    """The principal plus what the contract needs next, read with it in one query."""

    principal: Principal
    # as read at the start of the request: it may say "enough" before work, and the conditional debit
    # decides (contract/route.py)
    balance: int
    auto_top_up_below: int | None
    limit_override: tuple[int | None, int | None, int | None] | None
    # the key's daily spending cap, if it has one (ADR 0047)
    daily_cap: billing_service.DailyCap | None = None
    # the rest of the team's auto top-up: the balance read answers from the caller (issue 33 item 7)
    auto_top_up_amount: int | None = None
    auto_top_up_last_at: datetime | None = None


@dataclass(frozen=True)
class IssuedKey:
    api_key: str
    key: ApiKey


def bearer_token(authorization: str | None) -> str | None:
    """The key from ``Authorization: Bearer <key>``; None when the header is absent or empty. Any other
    form, a bare key included, gives "" (§5.1: the header is ``Bearer <API_KEY>``; else 401
    ``invalid_api_key``). The scheme name is case-insensitive (RFC 9110 §11.1)."""
    if authorization is None or not authorization.strip():
        return None
    scheme, _, token = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return ""
    return token.strip()


async def identify(reads: FastReads, token: str, feature: str) -> Caller:
    """The principal of a prefixed key (401 invalid_api_key if malformed, revoked or inactive), read with
    what the request contract needs next: its team's balance, auto top-up threshold and limits."""
    if not keys.is_well_formed(token):
        raise InvalidApiKey()
    row = await repository.get_caller(reads, keys.hash_key(token), feature)
    if row is None:
        raise InvalidApiKey()
    key_id, team_id, user_id, scope, credits, below, per_minute, per_hour, per_day, cap, day, spent = row[:12]
    amount, last_at = row[12:]
    has_override = any(v is not None for v in (per_minute, per_hour, per_day))
    return Caller(
        principal=Principal(team_id=team_id, user_id=user_id, key_id=key_id, scope=scope),
        balance=credits,
        auto_top_up_below=below,
        limit_override=(per_minute, per_hour, per_day) if has_override else None,
        daily_cap=None if cap is None else billing_service.DailyCap(key_id, int(cap), day, int(spent)),
        auto_top_up_amount=amount,
        auto_top_up_last_at=_utc(last_at),
    )


def _utc(value: datetime | str | None) -> datetime | None:
    """A stored UTC time as read without the ORM: SQLite's naive text, or PostgreSQL's aware datetime."""
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


async def create_team(session: AsyncSession, name: str, credits: int, at: datetime) -> Team:
    name = name.strip()
    if not name:
        raise ValueError("team name must not be empty")
    if credits < 0:
        raise ValueError("credits must not be negative")
    if await repository.get_team_by_name(session, name) is not None:
        raise Conflict(f"a team named {name!r} already exists")
    team = Team(name=name, credits=0, created_at=at)
    session.add(team)
    await session.flush()
    session.add(User(team_id=team.id, name=f"{name} owner", created_at=at))
    await session.flush()
    if credits:
        await billing_service.add_credits(session, team.id, credits, reference="team created", at=at)
    await session.refresh(team)
    return team


async def team_by_name(session: AsyncSession, name: str) -> Team:
    team = await repository.get_team_by_name(session, name)
    if team is None:
        raise NotFound(f"no team named {name!r}")
    return team


async def list_teams(session: AsyncSession) -> Sequence[Team]:
    return await repository.list_teams(session)


async def has_any_team(session: AsyncSession) -> bool:
    return await repository.count_teams(session) > 0


async def issue_key(
    session: AsyncSession, team: Team, at: datetime, scope: str = "full", *, daily_cap: int | None = None
) -> IssuedKey:
    """A new key of the team; ``daily_cap``: the most credits its requests may be charged in one UTC day
    (None: no cap; ADR 0047)."""
    if scope not in SCOPES:
        raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
    _check_cap(daily_cap)
    user = await repository.first_user(session, team.id)
    if user is None:
        user = User(team_id=team.id, name=f"{team.name} owner", created_at=at)
        session.add(user)
        await session.flush()
    token = keys.generate_key()
    key = ApiKey(
        team_id=team.id,
        user_id=user.id,
        key_hash=keys.hash_key(token),
        display_prefix=keys.display_prefix(token),
        scope=scope,
        is_active=True,
        created_at=at,
        daily_cap_credits=daily_cap,
        spent_credits=0,
    )
    session.add(key)
    await session.flush()
    return IssuedKey(api_key=token, key=key)


async def list_keys(session: AsyncSession, team: Team) -> Sequence[ApiKey]:
    return await repository.list_keys(session, team.id)


async def revoke_key(session: AsyncSession, key_id: str, at: datetime) -> ApiKey:
    key = await repository.get_key(session, key_id)
    if key is None:
        raise NotFound(f"no API key with id {key_id!r}")
    await repository.revoke_key(session, key_id, at)
    await session.refresh(key)
    return key


async def set_daily_cap(session: AsyncSession, key_id: str, daily_cap: int | None) -> ApiKey:
    """Set or remove (None) a key's daily spending cap; it holds from the key's next request, also on a
    running server. What the key spent today while capped still counts (ADR 0047)."""
    _check_cap(daily_cap)
    key = await repository.get_key(session, key_id)
    if key is None:
        raise NotFound(f"no API key with id {key_id!r}")
    key.daily_cap_credits = daily_cap
    await session.flush()
    return key


def _check_cap(daily_cap: int | None) -> None:
    if daily_cap is not None and daily_cap < 0:
        raise ValueError("a daily cap must not be negative")


async def limit_override(
    session: AsyncSession, team: Team, feature: str
) -> tuple[int | None, int | None, int | None] | None:
    """The team's custom (per minute, per hour, per day) limits of ``feature``; None: the table's."""
    override = await repository.get_limit_override(session, team.id, feature)
    return None if override is None else (override.per_minute, override.per_hour, override.per_day)


async def set_limits(
    session: AsyncSession,
    team: Team,
    feature: str,
    *,
    per_minute: int | None,
    per_hour: int | None,
    per_day: int | None,
    at: datetime,
) -> RateLimitOverride:
    override = await repository.get_limit_override(session, team.id, feature)
    if override is None:
        override = RateLimitOverride(team_id=team.id, feature=feature, updated_at=at)
        session.add(override)
    if per_minute is not None:
        override.per_minute = per_minute
    if per_hour is not None:
        override.per_hour = per_hour
    if per_day is not None:
        override.per_day = per_day
    override.updated_at = at
    await session.flush()
    return override

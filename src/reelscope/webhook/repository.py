"""SQL for webhook endpoints, deliveries and attempts. Every query on team data filters by team."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import Team, WebhookAttempt, WebhookDelivery, WebhookEndpoint

SWITCHED_ON = ("active", "disabled_by_system")


# ---- endpoints -------------------------------------------------------------------------------


async def lock_team(session: AsyncSession, team_id: str) -> None:
    """Serialize slot checks of one team (PostgreSQL row lock; SQLite writers are serialized already)."""
    await session.execute(select(Team.id).where(Team.id == team_id).with_for_update())


async def count_switched_on(session: AsyncSession, team_id: str) -> int:
    query = select(func.count()).where(
        WebhookEndpoint.team_id == team_id, WebhookEndpoint.status.in_(SWITCHED_ON)
    )
    return int((await session.execute(query)).scalar_one())


async def get_endpoint(session: AsyncSession, team_id: str, endpoint_id: str) -> WebhookEndpoint | None:
    query = select(WebhookEndpoint).where(
        WebhookEndpoint.id == endpoint_id, WebhookEndpoint.team_id == team_id
    )
    return (await session.execute(query)).scalar_one_or_none()


async def list_endpoints(session: AsyncSession, team_id: str) -> Sequence[WebhookEndpoint]:
    query = (
        select(WebhookEndpoint)
        .where(WebhookEndpoint.team_id == team_id)
        .order_by(WebhookEndpoint.created_at.desc(), WebhookEndpoint.id.desc())
    )
    return (await session.execute(query)).scalars().all()


async def active_endpoints(session: AsyncSession, team_id: str | None) -> Sequence[WebhookEndpoint]:
    """Active endpoints of one team, or of every team when ``team_id`` is None."""
    query = select(WebhookEndpoint).where(WebhookEndpoint.status == "active")
    if team_id is not None:
        query = query.where(WebhookEndpoint.team_id == team_id)
    return (await session.execute(query.order_by(WebhookEndpoint.id))).scalars().all()


async def endpoint_status(session: AsyncSession, endpoint_id: str) -> str | None:
    query = select(WebhookEndpoint.status).where(WebhookEndpoint.id == endpoint_id)
    return (await session.execute(query)).scalar_one_or_none()


async def add_failure(session: AsyncSession, endpoint_id: str, at: datetime) -> int:
    """+1 consecutive failure, atomically; returns the new count."""
    statement = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id)
        .values(consecutive_failures=WebhookEndpoint.consecutive_failures + 1, last_failure_at=at)
        .returning(WebhookEndpoint.consecutive_failures)
    )
    return int((await session.execute(statement)).scalar_one())


async def add_success(session: AsyncSession, endpoint_id: str, at: datetime) -> None:
    statement = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id)
        .values(consecutive_failures=0, last_success_at=at)
    )
    await session.execute(statement)


async def disable_by_system(session: AsyncSession, endpoint_id: str, at: datetime) -> bool:
    """active → disabled_by_system; False if it was no longer active."""
    statement = (
        update(WebhookEndpoint)
        .where(WebhookEndpoint.id == endpoint_id, WebhookEndpoint.status == "active")
        .values(status="disabled_by_system", updated_at=at)
        .returning(WebhookEndpoint.id)
    )
    return (await session.execute(statement)).scalar_one_or_none() is not None


# ---- deliveries ------------------------------------------------------------------------------


async def endpoints_already_reached(session: AsyncSession, event_id: str) -> set[str]:
    query = select(WebhookDelivery.endpoint_id).where(WebhookDelivery.event_id == event_id)
    return set((await session.execute(query)).scalars().all())


async def fail_waiting(session: AsyncSession, endpoint_id: str, at: datetime, reason: str) -> int:
    """Waiting deliveries of an endpoint that stopped being active end as ``failed`` (§3)."""
    statement = (
        update(WebhookDelivery)
        .where(WebhookDelivery.endpoint_id == endpoint_id, WebhookDelivery.status == "pending")
        .values(
            status="failed",
            next_attempt_at=None,
            lease_token=None,
            lease_until=None,
            last_error=reason,
            updated_at=at,
        )
    )
    result = await session.execute(statement)
    return int(getattr(result, "rowcount", 0) or 0)


def _due(now: datetime) -> tuple[ColumnElement[bool], ...]:
    """A delivery a pump may lease now: pending, its attempt due, not leased, its endpoint active."""
    return (
        WebhookDelivery.status == "pending",
        WebhookDelivery.next_attempt_at <= now,
        or_(WebhookDelivery.lease_until.is_(None), WebhookDelivery.lease_until <= now),
        WebhookEndpoint.status == "active",
    )


async def due_backlog(session: AsyncSession, now: datetime) -> tuple[int, datetime | None]:
    """How many deliveries are due now and the earliest due time among them, over every team (metrics,
    read at scrape time; nothing of a team is returned)."""
    query = (
        select(func.count(), func.min(WebhookDelivery.next_attempt_at))
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(*_due(now))
    )
    count, oldest = (await session.execute(query)).one()
    return int(count), oldest


async def claim_due(
    session: AsyncSession, now: datetime, limit: int, token: str, lease_until: datetime
) -> list[tuple[WebhookDelivery, WebhookEndpoint]]:
    """Lease up to ``limit`` due deliveries of active endpoints to the caller (token)."""
    due = (
        select(WebhookDelivery.id)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(*_due(now))
        .order_by(WebhookDelivery.next_attempt_at)
        .limit(limit)
        .with_for_update(of=WebhookDelivery, skip_locked=True)
    )
    ids = list((await session.execute(due)).scalars().all())
    if not ids:
        return []
    await session.execute(
        update(WebhookDelivery)
        .where(WebhookDelivery.id.in_(ids))
        .values(lease_token=token, lease_until=lease_until)
    )
    rows = await session.execute(
        select(WebhookDelivery, WebhookEndpoint)
        .join(WebhookEndpoint, WebhookEndpoint.id == WebhookDelivery.endpoint_id)
        .where(WebhookDelivery.id.in_(ids))
        .order_by(WebhookDelivery.next_attempt_at)
        .execution_options(populate_existing=True)
    )
    return [(delivery, endpoint) for delivery, endpoint in rows.all()]


async def finish_attempt(session: AsyncSession, delivery_id: str, token: str, values: dict[str, Any]) -> bool:
    """Write an attempt's outcome if the caller still holds the lease."""
    statement = (
        update(WebhookDelivery)
        .where(WebhookDelivery.id == delivery_id, WebhookDelivery.lease_token == token)
        .values(lease_token=None, lease_until=None, **values)
        .returning(WebhookDelivery.id)
    )
    return (await session.execute(statement)).scalar_one_or_none() is not None


async def add_attempts(session: AsyncSession, rows: list[dict[str, Any]]) -> None:
    if rows:
        await session.execute(insert(WebhookAttempt), rows)


async def get_delivery(
    session: AsyncSession, team_id: str, endpoint_id: str, delivery_id: str
) -> WebhookDelivery | None:
    query = select(WebhookDelivery).where(
        WebhookDelivery.id == delivery_id,
        WebhookDelivery.endpoint_id == endpoint_id,
        WebhookDelivery.team_id == team_id,
    )
    return (await session.execute(query)).scalar_one_or_none()


async def page_deliveries(
    session: AsyncSession, endpoint_id: str, after: tuple[datetime, str] | None, limit: int
) -> Sequence[WebhookDelivery]:
    """Newest first by (created_at, id); ``after`` is the last row of the previous page."""
    query = select(WebhookDelivery).where(WebhookDelivery.endpoint_id == endpoint_id)
    if after is not None:
        created_at, delivery_id = after
        query = query.where(
            or_(
                WebhookDelivery.created_at < created_at,
                and_(WebhookDelivery.created_at == created_at, WebhookDelivery.id < delivery_id),
            )
        )
    query = query.order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id.desc()).limit(limit)
    return (await session.execute(query)).scalars().all()

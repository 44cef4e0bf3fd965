"""The kept dashboard pages (``dashboard_pages``, ADR 0061)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import DashboardPage


async def kept_body(session: AsyncSession, team_id: str, item_id: str, drawn_from: str) -> str | None:
    """The page kept for ``team_id``'s ``item_id`` if it was drawn from inputs hashing to ``drawn_from``."""
    found = await session.execute(
        select(DashboardPage.body).where(
            DashboardPage.team_id == team_id,
            DashboardPage.item_id == item_id,
            DashboardPage.drawn_from == drawn_from,
        )
    )
    return found.scalar_one_or_none()


async def kept_hash(session: AsyncSession, team_id: str, item_id: str) -> str | None:
    """The hash of the inputs ``team_id``'s ``item_id``'s kept page was drawn from; None when none is."""
    found = await session.execute(
        select(DashboardPage.drawn_from).where(
            DashboardPage.team_id == team_id, DashboardPage.item_id == item_id
        )
    )
    return found.scalar_one_or_none()


async def keep(
    session: AsyncSession, *, item_id: str, team_id: str, drawn_from: str, body: str, now: datetime
) -> None:
    values = {"item_id": item_id, "team_id": team_id, "drawn_from": drawn_from, "body": body, "drawn_at": now}
    # one statement: the job and a request may keep the same item's page at once (on PostgreSQL a read
    # then an insert would fail the second on the primary key)
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    stmt = dialect.insert(DashboardPage).values(**values)
    await session.execute(
        stmt.on_conflict_do_update(
            index_elements=[DashboardPage.item_id],
            set_={name: stmt.excluded[name] for name in values if name not in ("item_id", "team_id")},
            # a drawing from older inputs (``now``: when they were read) never replaces a newer one: a
            # request that read before a cycle and finished after the job would leave every later open
            # drawing for itself until the next change (review, session 16)
            where=DashboardPage.drawn_at <= stmt.excluded.drawn_at,
        )
    )

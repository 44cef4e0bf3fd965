"""SQL for balances and the append-only ledger."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.models import LedgerEntry, Team


async def get_balance(session: AsyncSession, team_id: str) -> int | None:
    return (await session.execute(select(Team.credits).where(Team.id == team_id))).scalar_one_or_none()


async def debit_if_covered(session: AsyncSession, team_id: str, credits: int) -> int | None:
    """Take ``credits`` only if the balance covers them; the new balance, or None if it did not.

    A single conditional UPDATE: concurrent debits serialize on the row and none can overdraw.
    """
    stmt = (
        update(Team)
        .where(Team.id == team_id, Team.credits >= credits)
        .values(credits=Team.credits - credits)
        .returning(Team.credits)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def refill_if_due(
    session: AsyncSession, team_id: str, *, at: datetime, last_before: datetime
) -> int | None:
    """Add the team's auto top-up amount if its balance is below its threshold and its last refill was
    at or before ``last_before``; the amount added, or None.

    One conditional UPDATE, so two concurrent charges cannot both refill (the row lock makes the second
    re-check ``auto_topup_last_at``).
    """
    stmt = (
        update(Team)
        .where(
            Team.id == team_id,
            Team.auto_topup_below.is_not(None),
            Team.auto_topup_amount.is_not(None),
            Team.credits < Team.auto_topup_below,
            or_(Team.auto_topup_last_at.is_(None), Team.auto_topup_last_at <= last_before),
        )
        .values(credits=Team.credits + Team.auto_topup_amount, auto_topup_last_at=at)
        .returning(Team.auto_topup_amount)
    )
    return (await session.execute(stmt)).scalar_one_or_none()


async def set_auto_top_up(
    session: AsyncSession, team_id: str, *, below: int | None, amount: int | None
) -> None:
    """Switch auto top-up on (both values) or off (both None); the time of the last refill is kept."""
    await session.execute(
        update(Team).where(Team.id == team_id).values(auto_topup_below=below, auto_topup_amount=amount)
    )


async def credit(session: AsyncSession, team_id: str, credits: int) -> int:
    stmt = (
        update(Team).where(Team.id == team_id).values(credits=Team.credits + credits).returning(Team.credits)
    )
    return (await session.execute(stmt)).scalar_one()


async def add_entry(
    session: AsyncSession,
    *,
    team_id: str,
    kind: str,
    credits: int,
    balance_after: int,
    operation: str | None,
    reference: str | None,
    at: datetime,
) -> LedgerEntry:
    entry = LedgerEntry(
        team_id=team_id,
        kind=kind,
        credits=credits,
        balance_after=balance_after,
        operation=operation,
        reference=reference,
        created_at=at,
    )
    session.add(entry)
    return entry


async def ledger_sums(session: AsyncSession) -> Sequence[tuple[str, str, int, int]]:
    """(team_id, name, balance, ledger sum) for every team."""
    sums = (
        select(LedgerEntry.team_id, func.coalesce(func.sum(LedgerEntry.credits), 0).label("total"))
        .group_by(LedgerEntry.team_id)
        .subquery()
    )
    stmt = select(Team.id, Team.name, Team.credits, func.coalesce(sums.c.total, 0)).outerjoin(
        sums, sums.c.team_id == Team.id
    )
    return [(r[0], r[1], int(r[2]), int(r[3])) for r in (await session.execute(stmt)).all()]


async def count_entries(session: AsyncSession, team_id: str, kind: str) -> int:
    stmt = (
        select(func.count())
        .select_from(LedgerEntry)
        .where(LedgerEntry.team_id == team_id, LedgerEntry.kind == kind)
    )
    return int((await session.execute(stmt)).scalar_one())


async def has_entry(session: AsyncSession, team_id: str, kind: str, reference: str) -> bool:
    stmt = select(LedgerEntry.id).where(
        LedgerEntry.team_id == team_id, LedgerEntry.kind == kind, LedgerEntry.reference == reference
    )
    return (await session.execute(stmt.limit(1))).first() is not None

"""Credits: the price check before work and the debit after success (ARCHITECTURE §3, spec §8.2)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import repository
from reelscope.kit.errors import InsufficientCredits, NotFound

CHARGE = "charge"
TOP_UP = "top_up"
REFUND = "refund"
ADJUSTMENT = "adjustment"


@dataclass(frozen=True)
class LedgerMismatch:
    team_id: str
    name: str
    balance: int
    ledger_sum: int


async def balance(session: AsyncSession, team_id: str) -> int:
    value = await repository.get_balance(session, team_id)
    if value is None:
        raise NotFound("Team not found")
    return value


async def ensure_affordable(session: AsyncSession, team_id: str, price: int) -> None:
    """402 before any work when the balance is below the price (§7)."""
    if price <= 0:
        return
    remaining = await balance(session, team_id)
    if remaining < price:
        raise InsufficientCredits(required=price, remaining=remaining)


async def charge(
    session: AsyncSession, team_id: str, price: int, *, operation: str, reference: str | None, at: datetime
) -> int:
    """Debit ``price`` in the caller's transaction; the balance after. Raises 402 if it cannot be covered."""
    remaining = await repository.debit_if_covered(session, team_id, price)
    if remaining is None:
        raise InsufficientCredits(required=price, remaining=await balance(session, team_id))
    await repository.add_entry(
        session,
        team_id=team_id,
        kind=CHARGE,
        credits=-price,
        balance_after=remaining,
        operation=operation,
        reference=reference,
        at=at,
    )
    return remaining


async def add_credits(
    session: AsyncSession,
    team_id: str,
    credits: int,
    *,
    kind: str = TOP_UP,
    reference: str | None = None,
    operation: str | None = None,
    at: datetime,
) -> int:
    if credits <= 0:
        raise ValueError("credits to add must be positive")
    remaining = await repository.credit(session, team_id, credits)
    await repository.add_entry(
        session,
        team_id=team_id,
        kind=kind,
        credits=credits,
        balance_after=remaining,
        operation=operation,
        reference=reference,
        at=at,
    )
    return remaining


async def verify_ledger(session: AsyncSession) -> list[LedgerMismatch]:
    return [
        LedgerMismatch(team_id=t, name=n, balance=b, ledger_sum=s)
        for t, n, b, s in await repository.ledger_sums(session)
        if b != s
    ]


def credits_to_usd(credits: int) -> float:
    """1 credit = $0.01 (§1)."""
    return round(credits / 100, 2)


def usd_header(credits: int) -> str:
    """``X-Cost`` renders dollars with two decimals (§8.2)."""
    return f"{credits // 100}.{credits % 100:02d}"

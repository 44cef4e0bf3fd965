"""Credits: the price check before work and the debit after success (ARCHITECTURE §3, spec §8.2)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import repository
from reelscope.kit.errors import InsufficientCredits, NotFound
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

CHARGE = "charge"
TOP_UP = "top_up"
REFUND = "refund"
ADJUSTMENT = "adjustment"

# §8.2: auto top-up "can refill it at most once every 5 minutes per account"
AUTO_TOP_UP_INTERVAL = timedelta(minutes=5)
AUTO_TOP_UP_REFERENCE = "auto top-up"


class Unknown(Enum):
    """Marks an argument the caller did not look up (so the callee must)."""

    UNKNOWN = "unknown"


UNKNOWN = Unknown.UNKNOWN


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


async def ensure_affordable(
    session: AsyncSession, team_id: str, price: int, *, at: datetime, known_balance: int | None = None
) -> None:
    """402 before any work when the balance is below the price (§7), unless an auto top-up that is due
    refills it first (§8.2); that refill is part of the request's transaction. ``known_balance`` saves a
    query when the caller already knows a balance that covers the price."""
    if price <= 0:
        return
    remaining = known_balance if known_balance is not None else await balance(session, team_id)
    if remaining < price:
        remaining = await auto_top_up(session, team_id, at=at) or remaining
    if remaining < price:
        raise InsufficientCredits(required=price, remaining=remaining)


async def charge(
    session: AsyncSession,
    team_id: str,
    price: int,
    *,
    operation: str,
    reference: str | None,
    at: datetime,
    auto_top_up_below: int | Unknown | None = UNKNOWN,
) -> int:
    """Debit ``price`` in the caller's transaction; the balance after. Raises 402 if it cannot be covered.

    A charge that leaves the balance below the team's auto top-up threshold refills it in the same
    transaction, at most once every 5 minutes (§8.2); the balance returned includes the refill.
    """
    remaining = await repository.debit_if_covered(session, team_id, price)
    if remaining is None and await auto_top_up(session, team_id, at=at) is not None:
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
    if auto_top_up_below is None or (isinstance(auto_top_up_below, int) and remaining >= auto_top_up_below):
        return remaining  # no refill can be due: skip the conditional update
    return await auto_top_up(session, team_id, at=at) or remaining


async def auto_top_up(session: AsyncSession, team_id: str, *, at: datetime) -> int | None:
    """Refill a team whose balance is below its threshold, if its last refill is 5 minutes old (§8.2).

    The new balance, or None when nothing was added (not configured, not below, or refilled recently).
    """
    amount = await repository.refill_if_due(session, team_id, at=at, last_before=at - AUTO_TOP_UP_INTERVAL)
    if amount is None:
        return None
    remaining = await balance(session, team_id)
    await repository.add_entry(
        session,
        team_id=team_id,
        kind=TOP_UP,
        credits=amount,
        balance_after=remaining,
        operation=None,
        reference=AUTO_TOP_UP_REFERENCE,
        at=at,
    )
    log.info("billing.auto_top_up", team_id=team_id, credits=amount, balance=remaining)
    return remaining


async def configure_auto_top_up(
    session: AsyncSession, team_id: str, *, below: int | None, amount: int | None
) -> None:
    """Refill ``amount`` when a charge leaves the balance below ``below`` (operator setting; None = off)."""
    if (below is None) != (amount is None):
        raise ValueError("auto top-up needs both a threshold and an amount, or neither")
    if below is not None and amount is not None and (below < 1 or amount < 1):
        raise ValueError("auto top-up threshold and amount must be positive")
    await balance(session, team_id)  # 404 for an unknown team
    await repository.set_auto_top_up(session, team_id, below=below, amount=amount)


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

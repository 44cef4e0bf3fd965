"""Credits: the price check before work and the debit after success (ARCHITECTURE §3, spec §8.2).

Credits move in one place, ``take`` (debits) and ``_refill``/``_add`` (auto top-ups, top-ups, refunds):
synchronous functions over a SQLAlchemy ``Connection``. The request contract and jobs call them in
their session's transaction through ``run_sync``; the debit writer calls ``take`` on a connection of
its own on the loop's thread (billing/debits.py). Balance = the sum of the ledger, always.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from enum import Enum
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Session

from reelscope.billing import repository
from reelscope.kit.errors import ApiError, DailyCapReached, InsufficientCredits, NotFound
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


def day_of(at: datetime) -> str:
    """The UTC day a charge counts on for a key's daily cap (ADR 0047), as ``spent_day`` stores it."""
    return at.astimezone(UTC).date().isoformat()


def next_day_start(at: datetime) -> datetime:
    """When the UTC day of ``at`` ends: a key's daily cap starts again from zero (ADR 0047)."""
    return datetime.combine(at.astimezone(UTC).date() + timedelta(days=1), time(), tzinfo=UTC)


@dataclass(frozen=True)
class DailyCap:
    """An API key's daily spending cap and what it was charged on the day it last spent (beyond the
    spec, issue 30, ADR 0047)."""

    key_id: str
    cap: int
    spent_day: str | None
    spent: int

    def spent_on(self, at: datetime) -> int:
        return self.spent if self.spent_day == day_of(at) else 0

    def left_on(self, at: datetime) -> int:
        return max(0, self.cap - self.spent_on(at))

    def refusal(self, price: int, at: datetime) -> DailyCapReached | None:
        """The 402 a charge of ``price`` at ``at`` gets, or None when it fits under the cap."""
        spent = self.spent_on(at)
        if price <= 0 or spent + price <= self.cap:
            return None
        return cap_reached(price, self.cap, spent, at)


def cap_reached(price: int, cap: int, spent: int, at: datetime) -> DailyCapReached:
    reset = next_day_start(at)
    return DailyCapReached(
        required=price,
        cap=cap,
        spent=spent,
        reset_at=int(reset.timestamp()),
        reset_at_formatted=reset.isoformat().replace("+00:00", "Z"),
    )


@dataclass(frozen=True)
class Debit:
    """One charge: ``credits`` taken from ``team_id`` for ``operation`` (the request id as reference)."""

    team_id: str
    credits: int
    operation: str
    reference: str | None
    at: datetime
    # the team's auto top-up threshold if the caller knows it (None: not configured), so a debit that
    # cannot trigger a refill skips the refill's conditional update
    auto_top_up_below: int | Unknown | None = UNKNOWN
    # the calling key's daily cap, if it has one: the charge also counts against it, in the same
    # transaction, and is refused (402 daily_cap_reached) if it would pass it (ADR 0047)
    daily_cap: DailyCap | None = None


# a debit's outcome: the balance after it, or the error its request answers with (402, or 404 when the
# team is gone)
Outcome = int | ApiError


async def balance(session: AsyncSession, team_id: str) -> int:
    value = await session.run_sync(lambda s: repository.get_balance(s.connection(), team_id))
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


@dataclass(frozen=True)
class Preview:
    """What charging a price now would do, charging nothing (a dry run, issue 30 item 4)."""

    balance: int
    # the balance after the charge, a due auto top-up included; None when the balance cannot cover it
    balance_after: int | None


def _preview(connection: Connection, team_id: str, price: int, at: datetime) -> Preview:
    """``take``'s rules without its writes: a balance below the price is refilled first if a refill is
    due, and a charge that leaves it below the threshold refills it then (§8.2)."""
    state = repository.top_up_state(connection, team_id)
    if state is None:
        raise NotFound("Team not found")
    balance, below, amount, last_at = state
    due = (
        below is not None and amount is not None and (last_at is None or last_at <= at - AUTO_TOP_UP_INTERVAL)
    )
    after = balance
    if after < price and due and below is not None and amount is not None and after < below:
        after, due = after + amount, False
    if after < price:
        return Preview(balance=balance, balance_after=None)
    after -= price
    if price > 0 and due and below is not None and amount is not None and after < below:
        after += amount
    return Preview(balance=balance, balance_after=after)


async def preview(session: AsyncSession, team_id: str, price: int, *, at: datetime) -> Preview:
    """What a charge of ``price`` at ``at`` would leave, reading the team's balance now."""
    found: Preview = await session.run_sync(_on(_preview, team_id, price, at))
    return found


def take(connection: Connection, debits: Sequence[Debit]) -> list[Outcome]:
    """Every debit of a request or of a batch of requests, in the connection's transaction: the one
    debit implementation (the request contract and the group commit of billing/debits.py run it).

    Debits of one team that cannot trigger an auto top-up are taken with one conditional UPDATE for
    their total, each keeping its ledger row with the balance after it as if taken one after another;
    if the total does not fit, each is taken on its own in arrival order, so exactly those that fit
    succeed. A debit that may trigger an auto top-up is taken on its own inside a savepoint, so a
    refill that still leaves a 402 rolls back with it, and a charge that leaves the balance below the
    threshold refills it (§8.2); the balance it reports includes the refill."""
    outcomes: dict[int, Outcome] = {}
    entries: list[dict[str, Any]] = []

    def taken(index: int, balance_after: int) -> None:
        debit = debits[index]
        outcomes[index] = balance_after
        entries.append(_entry(debit.team_id, CHARGE, -debit.credits, balance_after, debit.operation,
                              debit.reference, debit.at))  # fmt: skip

    by_team: dict[str, list[int]] = {}
    alone: list[int] = []
    for index, debit in enumerate(debits):
        grouped = debit.auto_top_up_below is None and debit.daily_cap is None
        (by_team.setdefault(debit.team_id, []) if grouped else alone).append(index)
    for team_id, indexes in by_team.items():
        after = repository.debit_if_covered(connection, team_id, sum(debits[i].credits for i in indexes))
        if after is None:  # not all of them fit: each on its own, in arrival order
            alone.extend(indexes)
            continue
        for index, balance_after in zip(
            indexes, _balances_after([debits[i] for i in indexes], after), strict=True
        ):
            taken(index, balance_after)
    refills: list[int] = []
    for index in sorted(alone):
        debit = debits[index]
        needs_savepoint = debit.auto_top_up_below is not None or debit.daily_cap is not None
        savepoint = connection.begin_nested() if needs_savepoint else None
        after = repository.debit_if_covered(connection, debit.team_id, debit.credits)
        if after is None and _refill(connection, debit.team_id, debit.at) is not None:
            after = repository.debit_if_covered(connection, debit.team_id, debit.credits)
        # the key's cap after the team's balance: every path that moves credits locks the team's row
        # first, so two transactions never wait on each other's rows
        over_cap = None if after is None else _over_cap(connection, debit)
        if savepoint is not None:
            # a refill that still leaves a 402, or a charge past the key's cap, rolls back with it
            savepoint.rollback() if after is None or over_cap is not None else savepoint.commit()
        if over_cap is not None:
            outcomes[index] = over_cap
            continue
        if after is None:
            remaining = repository.get_balance(connection, debit.team_id)
            outcomes[index] = (
                NotFound("Team not found")
                if remaining is None
                else InsufficientCredits(required=debit.credits, remaining=remaining)
            )
            continue
        taken(index, after)
        below = debit.auto_top_up_below
        if not (below is None or (isinstance(below, int) and after >= below)):
            refills.append(index)
    repository.add_entries(connection, entries)
    for index in refills:  # after the charges' ledger rows, so each refill's row follows its charge
        outcomes[index] = _refill(connection, debits[index].team_id, debits[index].at) or outcomes[index]
    return [outcomes[index] for index in range(len(debits))]


def _over_cap(connection: Connection, debit: Debit) -> ApiError | None:
    """Count a debit against its key's daily cap; the 402 it gets when that would pass the cap."""
    cap = debit.daily_cap
    if cap is None or debit.credits <= 0:
        return None
    if repository.spend_within_cap(connection, cap.key_id, debit.credits, day_of(debit.at)) is not None:
        return None
    found = repository.key_spend(connection, cap.key_id)
    if found is None:
        return NotFound("API key not found")
    limit, spent_day, spent = found
    current = DailyCap(cap.key_id, limit if limit is not None else cap.cap, spent_day, spent)
    return cap_reached(debit.credits, current.cap, current.spent_on(debit.at), debit.at)


def _entry(
    team_id: str, kind: str, credits: int, balance_after: int, operation: str | None, reference: str | None,
    at: datetime,
) -> dict[str, Any]:  # fmt: skip
    return {
        "team_id": team_id,
        "kind": kind,
        "credits": credits,
        "balance_after": balance_after,
        "operation": operation,
        "reference": reference,
        "created_at": at,
    }


def _balances_after(debits: Sequence[Debit], final: int) -> list[int]:
    """The balance after each of ``debits``, as if they had been taken one after another."""
    balances: list[int] = []
    after = final
    for debit in reversed(debits):
        balances.append(after)
        after += debit.credits
    balances.reverse()
    return balances


def _refill(connection: Connection, team_id: str, at: datetime) -> int | None:
    """Refill a team whose balance is below its threshold, if its last refill is 5 minutes old (§8.2);
    the new balance, or None when nothing was added (not configured, not below, or refilled recently)."""
    refilled = repository.refill_if_due(connection, team_id, at=at, last_before=at - AUTO_TOP_UP_INTERVAL)
    if refilled is None:
        return None
    amount, remaining = refilled
    repository.add_entries(
        connection, [_entry(team_id, TOP_UP, amount, remaining, None, AUTO_TOP_UP_REFERENCE, at)]
    )
    log.info("billing.auto_top_up", team_id=team_id, credits=amount, balance=remaining)
    return remaining


def _add(
    connection: Connection, team_id: str, credits: int, kind: str, reference: str | None,
    operation: str | None, at: datetime,
) -> int:  # fmt: skip
    remaining = repository.credit(connection, team_id, credits)
    repository.add_entries(connection, [_entry(team_id, kind, credits, remaining, operation, reference, at)])
    return remaining


def _refund_once(
    connection: Connection, team_id: str, credits: int, reference: str, at: datetime
) -> int | None:
    """The refund's ledger row unless ``reference`` was refunded already, then the credits: the balance
    after, or None. The team's row is locked first, as every other credit path does, so a refund racing
    another never deadlocks; the second of two racing refunds finds the first's row and adds nothing."""
    repository.lock_team(connection, team_id)
    entry_id = repository.add_refund_once(
        connection, _entry(team_id, REFUND, credits, 0, None, reference, at)
    )
    if entry_id is None:
        return None
    remaining = repository.credit(connection, team_id, credits)
    repository.set_balance_after(connection, entry_id, remaining)
    return remaining


async def refund_once(
    session: AsyncSession, team_id: str, credits: int, *, reference: str, at: datetime
) -> int | None:
    """Give ``credits`` back once per ``reference`` (ARCHITECTURE §3); the balance after, or None."""
    if credits <= 0:
        raise ValueError("credits to refund must be positive")
    remaining: int | None = await session.run_sync(_on(_refund_once, team_id, credits, reference, at))
    return remaining


def _on(function: Any, *args: Any) -> Any:
    """``function(connection, *args)`` for ``AsyncSession.run_sync``, in the session's transaction."""

    def run(session: Session) -> Any:
        return function(session.connection(), *args)

    return run


async def charge(
    session: AsyncSession,
    team_id: str,
    price: int,
    *,
    operation: str,
    reference: str | None,
    at: datetime,
    auto_top_up_below: int | Unknown | None = UNKNOWN,
    daily_cap: DailyCap | None = None,
) -> int:
    """Debit ``price`` in the caller's transaction; the balance after. Raises 402 if it cannot be covered
    (or would pass ``daily_cap``, the calling key's)."""
    debit = Debit(team_id, price, operation, reference, at, auto_top_up_below, daily_cap)
    (outcome,) = await session.run_sync(_on(take, [debit]))
    if isinstance(outcome, ApiError):
        raise outcome
    return int(outcome)


async def auto_top_up(session: AsyncSession, team_id: str, *, at: datetime) -> int | None:
    """Refill now if due (§8.2); the new balance, or None when nothing was added."""
    remaining: int | None = await session.run_sync(_on(_refill, team_id, at))
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
    remaining: int = await session.run_sync(_on(_add, team_id, credits, kind, reference, operation, at))
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

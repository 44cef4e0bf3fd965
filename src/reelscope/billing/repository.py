"""SQL for balances and the append-only ledger."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    Connection,
    String,
    Table,
    bindparam,
    case,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.driver_sql import DriverStatement
from reelscope.kit.ids import new_ordered_id
from reelscope.models import ApiKey, LedgerEntry, Team

# Statements that move credits are synchronous Core over a ``Connection``, built once: the debit writer
# runs them on the loop's thread (billing/debits.py) and sessions through ``run_sync``, so one text
# serves both paths (ADR 0019). Reports and settings below are ordinary async session queries.
_teams: Table = Team.__table__  # type: ignore[assignment]
_BALANCE = select(_teams.c.credits).where(_teams.c.id == bindparam("team_id"))
_DEBIT = (
    update(_teams)
    .where(_teams.c.id == bindparam("team_id"), _teams.c.credits >= bindparam("credits"))
    .values(credits=_teams.c.credits - bindparam("credits"))
    .returning(_teams.c.credits)
)
_CREDIT = (
    update(_teams)
    .where(_teams.c.id == bindparam("team_id"))
    .values(credits=_teams.c.credits + bindparam("credits"))
    .returning(_teams.c.credits)
)
# one conditional UPDATE, so two concurrent charges cannot both refill (the row lock makes the second
# re-check ``auto_topup_last_at``)
_REFILL = (
    update(_teams)
    .where(
        _teams.c.id == bindparam("team_id"),
        _teams.c.auto_topup_below.is_not(None),
        _teams.c.auto_topup_amount.is_not(None),
        _teams.c.credits < _teams.c.auto_topup_below,
        or_(_teams.c.auto_topup_last_at.is_(None), _teams.c.auto_topup_last_at <= bindparam("last_before")),
    )
    .values(credits=_teams.c.credits + _teams.c.auto_topup_amount, auto_topup_last_at=bindparam("at"))
    .returning(_teams.c.auto_topup_amount, _teams.c.credits)
)
# a capped key's charge (ADR 0047): one conditional UPDATE, as the team's debit, so concurrent charges
# of one key serialize on its row and none passes the cap. What the key spent counts only on its day: the
# first charge of a new UTC day starts again from zero. (SET expressions read the row as it was.)
_keys: Table = ApiKey.__table__  # type: ignore[assignment]
_DAY = bindparam("day", type_=String())
_SPENT_TODAY = case((_keys.c.spent_day == _DAY, _keys.c.spent_credits), else_=0)
_SPEND = (
    update(_keys)
    .where(
        _keys.c.id == bindparam("key_id"),
        or_(
            _keys.c.daily_cap_credits.is_(None),
            _SPENT_TODAY + bindparam("credits", type_=BigInteger()) <= _keys.c.daily_cap_credits,
        ),
    )
    .values(spent_credits=_SPENT_TODAY + bindparam("credits", type_=BigInteger()), spent_day=_DAY)
    .returning(_keys.c.spent_credits)
)
_KEY_SPEND = select(_keys.c.daily_cap_credits, _keys.c.spent_day, _keys.c.spent_credits).where(
    _keys.c.id == bindparam("key_id")
)
# the two every charged request runs, on the driver's cursor (kit/driver_sql.py)
_DEBIT_NOW = DriverStatement(_DEBIT)
_LEDGER_NOW = DriverStatement(
    insert(LedgerEntry).values(
        {column: bindparam(column) for column in ("id", "team_id", "kind", "credits", "balance_after",
                                                   "operation", "reference", "created_at")}
    ),
    types={"created_at": LedgerEntry.__table__.c.created_at.type},
)  # fmt: skip


_TOP_UP_STATE = select(
    _teams.c.credits, _teams.c.auto_topup_below, _teams.c.auto_topup_amount, _teams.c.auto_topup_last_at
).where(_teams.c.id == bindparam("team_id"))


def top_up_state(
    connection: Connection, team_id: str
) -> tuple[int, int | None, int | None, datetime | None] | None:
    """The team's balance, auto top-up threshold and amount, and its last refill; None: no such team."""
    row = connection.execute(_TOP_UP_STATE, {"team_id": team_id}).first()
    return None if row is None else (int(row[0]), row[1], row[2], row[3])


def get_balance(connection: Connection, team_id: str) -> int | None:
    value: int | None = connection.execute(_BALANCE, {"team_id": team_id}).scalar_one_or_none()
    return value


def debit_if_covered(connection: Connection, team_id: str, credits: int) -> int | None:
    """Take ``credits`` only if the balance covers them; the new balance, or None if it did not.

    A single conditional UPDATE: concurrent debits serialize on the row and none can overdraw.
    """
    row = _DEBIT_NOW.first(connection, {"team_id": team_id, "credits": credits})
    return None if row is None else int(row[0])


def spend_within_cap(connection: Connection, key_id: str, credits: int, day: str) -> int | None:
    """Count ``credits`` as spent by the key on ``day`` if that keeps it within its daily cap (or it has
    none); what it spent that day after them, or None if they did not fit (or the key is gone)."""
    row = connection.execute(_SPEND, {"key_id": key_id, "credits": credits, "day": day}).first()
    return None if row is None else int(row[0])


def key_spend(connection: Connection, key_id: str) -> tuple[int | None, str | None, int] | None:
    """The key's daily cap, the day it last spent and what it spent then; None for an unknown key."""
    row = connection.execute(_KEY_SPEND, {"key_id": key_id}).first()
    return None if row is None else (row[0], row[1], int(row[2]))


def credit(connection: Connection, team_id: str, credits: int) -> int:
    value: int = connection.execute(_CREDIT, {"team_id": team_id, "credits": credits}).scalar_one()
    return value


def refill_if_due(
    connection: Connection, team_id: str, *, at: datetime, last_before: datetime
) -> tuple[int, int] | None:
    """Add the team's auto top-up amount if its balance is below its threshold and its last refill was
    at or before ``last_before``; (amount added, balance after), or None."""
    row = connection.execute(_REFILL, {"team_id": team_id, "at": at, "last_before": last_before}).first()
    return None if row is None else (int(row[0]), int(row[1]))


def lock_team(connection: Connection, team_id: str) -> None:
    """Hold the team's row for the rest of the transaction (PostgreSQL; SQLite has one writer anyway)."""
    connection.execute(select(_teams.c.id).where(_teams.c.id == team_id).with_for_update())


def add_refund_once(connection: Connection, entry: dict[str, Any]) -> str | None:
    """Insert a refund ledger row unless the team already has one with its reference (the partial unique
    index ``uq_credit_ledger_refund_reference``): its id, or None when nothing was inserted."""
    table: Table = LedgerEntry.__table__  # type: ignore[assignment]
    dialect_insert = postgresql_insert if connection.dialect.name == "postgresql" else sqlite_insert
    stmt = (
        dialect_insert(table)
        .values(id=new_ordered_id(), **entry)
        .on_conflict_do_nothing(index_elements=["team_id", "reference"], index_where=text("kind = 'refund'"))
        .returning(table.c.id)
    )
    inserted: str | None = connection.execute(stmt).scalar_one_or_none()
    return inserted


def set_balance_after(connection: Connection, entry_id: str, balance_after: int) -> None:
    table: Table = LedgerEntry.__table__  # type: ignore[assignment]
    connection.execute(update(table).where(table.c.id == entry_id).values(balance_after=balance_after))


def add_entries(connection: Connection, entries: list[dict[str, Any]]) -> None:
    """Ledger rows (team_id, kind, credits, balance_after, operation, reference, created_at) in one
    statement; ids are time-ordered (ADR 0015)."""
    if entries:
        _LEDGER_NOW.many(connection, [{"id": new_ordered_id(), **entry} for entry in entries])


async def set_auto_top_up(
    session: AsyncSession, team_id: str, *, below: int | None, amount: int | None
) -> None:
    """Switch auto top-up on (both values) or off (both None); the time of the last refill is kept."""
    await session.execute(
        update(Team).where(Team.id == team_id).values(auto_topup_below=below, auto_topup_amount=amount)
    )


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

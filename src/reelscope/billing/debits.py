"""Group commit of debits for charged read-only requests (ADR 0011).

A charged read whose handler wrote nothing still needs one write transaction for its debit, and on
SQLite write transactions run one at a time: one per request caps a process at about one request per
write round trip. ``DebitQueue`` lets the debits that arrive while a transaction is being written wait,
and writes them together in the next one: each its own conditional debit and ledger row, exactly as
``billing.service.charge`` does alone, with a savepoint around those whose auto top-up could refill (so
a refill that still leaves a 402 rolls back with it). Debits of one team without auto top-up are taken
with one conditional UPDATE for their total (each keeps its ledger row with the balance after it, as
if taken one after another); if the total does not fit, they are taken one by one, so exactly those
that fit succeed. Every request learns its own outcome only after its transaction committed.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import repository
from reelscope.billing import service as billing_service
from reelscope.kit.db import Database
from reelscope.kit.errors import InsufficientCredits


@dataclass(frozen=True)
class Debit:
    team_id: str
    credits: int
    operation: str
    reference: str
    at: datetime
    auto_top_up_below: int | None


class DebitQueue:
    """One per process and event loop; ``gate`` is the SQLite write gate the contract also takes."""

    def __init__(self, db: Database, gate: asyncio.Lock | None = None) -> None:
        self._db = db
        self._gate = gate
        self._pending: list[tuple[Debit, asyncio.Future[int]]] = []
        self._writer: asyncio.Task[None] | None = None

    async def debit(self, debit: Debit) -> int:
        """The balance after ``debit`` once it is committed; InsufficientCredits if it cannot be covered."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._pending.append((debit, future))
        if self._writer is None:
            self._writer = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                await self._write(batch)
        finally:
            self._writer = None

    async def _write(self, batch: list[tuple[Debit, asyncio.Future[int]]]) -> None:
        outcomes: dict[int, int | InsufficientCredits] = {}
        gate: AbstractAsyncContextManager[object] = self._gate or nullcontext()
        try:
            async with gate, self._db.write() as session:
                await session.begin()
                # debits without auto top-up: one conditional UPDATE per team for the batch's total
                plain: dict[str, list[int]] = {}
                for index, (debit, _) in enumerate(batch):
                    if debit.auto_top_up_below is None:
                        plain.setdefault(debit.team_id, []).append(index)
                one_by_one = [i for i, (d, _) in enumerate(batch) if d.auto_top_up_below is not None]
                for team_id, indexes in plain.items():
                    debits = [batch[i][0] for i in indexes]
                    after = await repository.debit_if_covered(
                        session, team_id, sum(d.credits for d in debits)
                    )
                    if after is None:  # not all of them fit: each on its own, in arrival order
                        one_by_one.extend(indexes)
                        continue
                    # the balance after each debit, as if they had been taken one after another
                    balances: list[int] = []
                    for debit in reversed(debits):
                        balances.append(after)
                        after += debit.credits
                    balances.reverse()
                    for index, debit, balance in zip(indexes, debits, balances, strict=True):
                        outcomes[index] = balance
                        await _ledger(session, debit, balance)
                for index in sorted(one_by_one):
                    outcomes[index] = await _charge_alone(session, batch[index][0])
                await session.commit()
        except BaseException as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for index, (_, future) in enumerate(batch):
            if future.done():  # the request was cancelled meanwhile; its debit stands, as after a commit
                continue
            outcome = outcomes[index]
            if isinstance(outcome, InsufficientCredits):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)


async def _ledger(session: AsyncSession, debit: Debit, balance_after: int) -> None:
    await repository.add_entry(
        session,
        team_id=debit.team_id,
        kind=billing_service.CHARGE,
        credits=-debit.credits,
        balance_after=balance_after,
        operation=debit.operation,
        reference=debit.reference,
        at=debit.at,
    )


async def _charge_alone(session: AsyncSession, debit: Debit) -> int | InsufficientCredits:
    """``billing.service.charge`` for one debit; inside a savepoint when an auto top-up could refill,
    so a refill that still leaves a 402 rolls back with it."""
    savepoint = session.begin_nested() if debit.auto_top_up_below is not None else None
    try:
        async with savepoint or nullcontext():
            return await billing_service.charge(
                session,
                debit.team_id,
                debit.credits,
                operation=debit.operation,
                reference=debit.reference,
                at=debit.at,
                auto_top_up_below=debit.auto_top_up_below,
            )
    except InsufficientCredits as refused:
        return refused

"""Group commit of debits for charged read-only requests (ADR 0011).

A charged read whose handler wrote nothing still needs one write transaction for its debit, and on
SQLite write transactions run one at a time: one per request caps a process at about one request per
write round trip. ``DebitQueue`` lets the debits that arrive while a transaction is being written wait,
and writes them together in the next one: each its own conditional debit and ledger row, exactly as
``billing.service.charge`` does alone, with a savepoint around those whose auto top-up could refill (so
a refill that still leaves a 402 rolls back with it). Every request learns its own outcome only after
its transaction committed.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import datetime

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
        outcomes: list[int | InsufficientCredits] = []
        gate: AbstractAsyncContextManager[object] = self._gate or nullcontext()
        try:
            async with gate, self._db.write() as session:
                await session.begin()
                for debit, _ in batch:
                    savepoint = session.begin_nested() if debit.auto_top_up_below is not None else None
                    try:
                        async with savepoint or nullcontext():
                            outcomes.append(
                                await billing_service.charge(
                                    session,
                                    debit.team_id,
                                    debit.credits,
                                    operation=debit.operation,
                                    reference=debit.reference,
                                    at=debit.at,
                                    auto_top_up_below=debit.auto_top_up_below,
                                )
                            )
                    except InsufficientCredits as refused:
                        outcomes.append(refused)
                await session.commit()
        except BaseException as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        for (_, future), outcome in zip(batch, outcomes, strict=True):
            if future.done():  # the request was cancelled meanwhile; its debit stands, as after a commit
                continue
            if isinstance(outcome, InsufficientCredits):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

"""Group commit of the debits of charged reads (ADR 0011, ADR 0019).

A charged GET writes nothing but its debit, and on SQLite write transactions run one at a time: one
per request caps a process at about one request per write round trip. ``DebitQueue`` lets the debits
that arrive while a batch is being written wait, and takes them together in the next transaction
with ``billing.service.take`` (the same code a write request's own debit runs). Every request learns
its own outcome only after its batch committed, so a debit that does not fit is still a 402.

On a SQLite file a batch is first tried on the loop's own thread (``Database.write_now``): a few
statements and a commit to the WAL, with nothing to wait for when the write lock is free. When it is
not (another process, or a write request of this one, holds it), the batch waits for the lock the
ordinary way, behind this process's write gate and on aiosqlite's thread, so the loop never waits.
"""

from __future__ import annotations

import asyncio
from contextlib import AbstractAsyncContextManager, nullcontext

from reelscope.billing import service as billing_service
from reelscope.billing.service import Debit, Outcome
from reelscope.kit.db import Database, LockBusy
from reelscope.kit.errors import ApiError
from reelscope.kit.logging import get_logger

log = get_logger(__name__)


class DebitQueue:
    """One per process and event loop; ``gate`` is the SQLite write gate the contract also takes."""

    def __init__(self, db: Database, gate: asyncio.Lock | None = None) -> None:
        self._db = db
        self._gate = gate
        self._pending: list[tuple[Debit, asyncio.Future[int]]] = []
        self._writer: asyncio.Task[None] | None = None
        self._closed = False

    async def aclose(self) -> None:
        """Take no more debits and let the batches already queued commit."""
        self._closed = True
        while self._writer is not None:
            await asyncio.shield(self._writer)

    async def debit(self, debit: Debit) -> int:
        """The balance after ``debit`` once it is committed; InsufficientCredits if it cannot be covered."""
        if self._closed:
            raise RuntimeError("the debit queue is closed; nothing was charged")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[int] = loop.create_future()
        self._pending.append((debit, future))
        if self._writer is None:
            self._writer = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        try:
            # one more turn of the loop first: the debits of requests resumed in it join this batch,
            # which halves the commits per request under load (a commit costs more than a debit)
            await asyncio.sleep(0)
            while self._pending:
                batch, self._pending = self._pending, []
                await self._write(batch)
        except BaseException:
            # cancelled (the loop is closing) with debits not yet taken: none was written, so none
            # charged; their requests are cancelled rather than left waiting
            pending, self._pending = self._pending, []
            for _, future in pending:
                future.cancel()
            raise
        finally:
            self._writer = None

    async def _write(self, batch: list[tuple[Debit, asyncio.Future[int]]]) -> None:
        try:
            outcomes = await self._take([debit for debit, _ in batch])
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
            if isinstance(outcome, ApiError):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    async def _take(self, debits: list[Debit]) -> list[Outcome]:
        write_now = self._db.write_now
        if write_now is not None and not (self._gate is not None and self._gate.locked()):
            try:
                with write_now.begin() as connection:
                    return billing_service.take(connection, debits)
            except LockBusy:
                log.debug("debits.lock_busy", debits=len(debits))  # nothing was written: wait below
        gate: AbstractAsyncContextManager[object] = self._gate or nullcontext()
        async with gate, self._db.write() as session, session.begin():
            outcomes: list[Outcome] = await session.run_sync(
                lambda sync: billing_service.take(sync.connection(), debits)
            )
            return outcomes

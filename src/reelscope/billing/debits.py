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

On a SQLite file, a batch without auto top-ups is written by ``SqliteDebitWriter``: the same
statements in plain SQL, on the loop's thread when SQLite's write lock is free at once and on a thread
of its own when another process holds it, so a batch costs a few statements instead of a session's
machinery per debit (ADR 0014).
"""

from __future__ import annotations

import asyncio
import sqlite3
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.billing import repository
from reelscope.billing import service as billing_service
from reelscope.kit.db import Database
from reelscope.kit.errors import ApiError, InsufficientCredits, NotFound
from reelscope.kit.fast_reads import LockBusy, SqliteFastReads, connect_wal
from reelscope.kit.ids import new_ordered_id
from reelscope.kit.logging import get_logger

log = get_logger(__name__)

# a debit's outcome: the balance after it, or the error its request answers with (402, or 404 when the
# team is gone, as billing.service.charge)
Outcome = int | ApiError


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
        self._closed = False
        self._sqlite = (
            SqliteDebitWriter(db.sqlite_file, db.fast)
            if db.sqlite_file is not None and isinstance(db.fast, SqliteFastReads)
            else None
        )

    async def aclose(self) -> None:
        """Take no more debits, let the batches already queued commit, then close the connections."""
        self._closed = True
        while self._writer is not None:
            await asyncio.shield(self._writer)
        if self._sqlite is not None:
            await self._sqlite.aclose()

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
        outcomes: dict[int, Outcome] = {}
        gate: AbstractAsyncContextManager[object] = self._gate or nullcontext()
        plain_sql = self._sqlite is not None and all(d.auto_top_up_below is None for d, _ in batch)
        try:
            if plain_sql and self._sqlite is not None:
                async with gate:
                    taken = await self._sqlite.write([debit for debit, _ in batch])
                outcomes = dict(enumerate(taken))
            else:
                outcomes = await self._write_session(batch, gate)
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
            if isinstance(outcome, ApiError):
                future.set_exception(outcome)
            else:
                future.set_result(outcome)

    async def _write_session(
        self, batch: list[tuple[Debit, asyncio.Future[int]]], gate: AbstractAsyncContextManager[object]
    ) -> dict[int, Outcome]:
        outcomes: dict[int, Outcome] = {}
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
                after = await repository.debit_if_covered(session, team_id, sum(d.credits for d in debits))
                if after is None:  # not all of them fit: each on its own, in arrival order
                    one_by_one.extend(indexes)
                    continue
                for index, debit, balance in zip(
                    indexes, debits, _balances_after(debits, after), strict=True
                ):
                    outcomes[index] = balance
                    await _ledger(session, debit, balance)
            for index in sorted(one_by_one):
                outcomes[index] = await _charge_alone(session, batch[index][0])
            await session.commit()
        return outcomes


def _balances_after(debits: list[Debit], final: int) -> list[int]:
    """The balance after each of ``debits``, as if they had been taken one after another."""
    balances: list[int] = []
    after = final
    for debit in reversed(debits):
        balances.append(after)
        after += debit.credits
    balances.reverse()
    return balances


class SqliteDebitWriter:
    """Batches of debits without auto top-up, written in plain SQL. The statements are those of
    ``repository.debit_if_covered`` and ``add_entry``; the rules are ``DebitQueue``'s: one conditional
    UPDATE per team for its total, else one per debit.

    A batch is written on the event loop's thread when SQLite's write lock is free at once (a batch is
    a few statements and a commit to the WAL, well under a millisecond per request), on the loop's
    fast-read connection (kit/fast_reads.py): its own commits leave the answers it keeps for the
    contract's point reads in place. When another process holds the lock, the batch waits on a thread
    of its own instead, so the loop never waits for a lock. The loop's connection does not checkpoint
    on commit (that copies pages back and fsyncs): the thread runs a PASSIVE checkpoint every
    ``CHECKPOINT_EVERY`` commits, alongside new commits.
    """

    DEBIT = "UPDATE teams SET credits = credits - ? WHERE id = ? AND credits >= ? RETURNING credits"
    BALANCE = "SELECT credits FROM teams WHERE id = ?"
    LEDGER = (
        "INSERT INTO credit_ledger (id, team_id, kind, credits, balance_after, operation, reference,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
    )
    CHECKPOINT_EVERY = 100  # commits of a few WAL pages each: about SQLite's default of 1,000 pages

    def __init__(self, path: str, loop_connection: SqliteFastReads) -> None:
        self._path = path
        self._loop_connection = loop_connection  # used on the loop's thread, never waits
        self._waiting: sqlite3.Connection | None = None  # used on the thread, waits for the lock
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="reelscope-debits")
        self._commits = 0
        self._checkpoint: Future[None] | None = None

    async def write(self, debits: list[Debit]) -> list[Outcome]:
        """Each debit's balance after it, or its error, once the batch is committed."""
        try:
            # changes balances and the ledger only; the balances it leaves are reported below, so the
            # caller's kept balance is lowered to them (fast_reads.py)
            outcomes = self._loop_connection.write(lambda connection: _take(connection, debits))
        except LockBusy:
            # another process writes: wait for the lock on the thread, not on the loop
            return await asyncio.get_running_loop().run_in_executor(self._thread, self._write_waiting, debits)
        for debit, outcome in zip(debits, outcomes, strict=True):
            if isinstance(outcome, int):  # in arrival order: the last of a team is its balance now
                self._loop_connection.debited(debit.team_id, outcome)
        self._commits += 1
        if self._commits % self.CHECKPOINT_EVERY == 0:
            self._start_checkpoint()
        return outcomes

    async def aclose(self) -> None:
        """Close the thread's connection on the thread that uses it; a checkpoint under way finishes.
        The loop's connection is the fast reads', closed with the database."""
        await asyncio.to_thread(self._thread.shutdown, wait=True)
        if self._waiting is not None:
            self._waiting.close()
            self._waiting = None

    def _connect_waiting(self) -> sqlite3.Connection:
        self._waiting = connect_wal(self._path, busy_timeout_s=30)
        return self._waiting

    def _write_waiting(self, debits: list[Debit]) -> list[Outcome]:
        connection = self._waiting or self._connect_waiting()
        try:
            connection.execute("BEGIN IMMEDIATE")
            outcomes = _take(connection, debits)
            connection.execute("COMMIT")
        except BaseException:
            connection.close()  # closing rolls back whatever it still held
            self._waiting = None
            raise
        return outcomes

    def _start_checkpoint(self) -> None:
        """Queue a checkpoint on the thread unless one is pending; never raises (the batch committed)."""
        if self._checkpoint is not None and not self._checkpoint.done():
            return
        try:
            self._checkpoint = self._thread.submit(self._run_checkpoint)
        except RuntimeError:  # the writer is closing
            return
        self._checkpoint.add_done_callback(_report_checkpoint)

    def _run_checkpoint(self) -> None:
        connection = self._waiting or self._connect_waiting()
        busy, frames, copied = connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if busy or copied < frames:
            # readers still use older frames: they are copied by a later checkpoint
            log.info("debits.checkpoint_partial", wal_frames=frames, copied=copied)


def _report_checkpoint(done: Future[None]) -> None:
    failure = done.exception()
    if failure is not None:
        # without checkpoints the WAL only grows; the next one is tried after CHECKPOINT_EVERY commits
        log.error("debits.checkpoint_failed", error_type=type(failure).__name__, error=str(failure))


def _take(connection: sqlite3.Connection, debits: list[Debit]) -> list[Outcome]:
    outcomes: dict[int, Outcome] = {}
    ledger: list[tuple[str, str, str, int, int, str, str, str]] = []

    def taken(index: int, balance: int) -> None:
        debit = debits[index]
        outcomes[index] = balance
        ledger.append(
            (new_ordered_id(), debit.team_id, billing_service.CHARGE, -debit.credits, balance,
             debit.operation, debit.reference, _sqlite_time(debit.at))
        )  # fmt: skip

    by_team: dict[str, list[int]] = {}
    for index, debit in enumerate(debits):
        by_team.setdefault(debit.team_id, []).append(index)
    for team_id, indexes in by_team.items():
        total = sum(debits[i].credits for i in indexes)
        row = connection.execute(SqliteDebitWriter.DEBIT, (total, team_id, total)).fetchone()
        if row is not None:
            team_debits = [debits[i] for i in indexes]
            for index, balance in zip(indexes, _balances_after(team_debits, row[0]), strict=True):
                taken(index, balance)
            continue
        for index in indexes:  # not all of them fit: each on its own, in arrival order
            price = debits[index].credits
            row = connection.execute(SqliteDebitWriter.DEBIT, (price, team_id, price)).fetchone()
            if row is not None:
                taken(index, row[0])
                continue
            balance = connection.execute(SqliteDebitWriter.BALANCE, (team_id,)).fetchone()
            outcomes[index] = (
                InsufficientCredits(required=price, remaining=balance[0])
                if balance is not None
                else NotFound("Team not found")
            )
    connection.executemany(SqliteDebitWriter.LEDGER, ledger)
    return [outcomes[index] for index in range(len(debits))]


def _sqlite_time(moment: datetime) -> str:
    """A UTC moment as SQLAlchemy stores ``UtcDateTime`` on SQLite (naive, microseconds)."""
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    return moment.replace(tzinfo=None).isoformat(" ", "microseconds")


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


async def _charge_alone(session: AsyncSession, debit: Debit) -> Outcome:
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
    except (InsufficientCredits, NotFound) as refused:
        return refused

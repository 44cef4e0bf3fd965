"""Point reads for the hot path, without the ORM (ADR 0014).

A charged read of a precomputed result needs a handful of primary-key or unique-index reads: the
caller's key, team and limits, and the version of the result. Through an ``AsyncSession`` each costs
far more CPU than the database spends answering it (statement compilation lookup, result machinery,
greenlet switches). ``FastReads.one(sql, params)`` runs a fixed SQL text written with ``:name``
parameters and returns the first row as a plain tuple:

* on a SQLite file, on one plain ``sqlite3`` connection in autocommit mode, on the event loop's own
  thread: every statement is its own WAL read, which never waits for a writer and sees the latest
  commit (``sqlite3`` keeps the prepared statement);
* elsewhere (PostgreSQL, in-memory SQLite), through the engine's pool with ``text()``, compiled once
  per SQL text.

Only for reads whose columns need no type conversion (text, integers, booleans stored as 0/1 are
read back with ``bool()`` by the caller). Anything richer goes through a session.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncEngine

Row = tuple[Any, ...]
T = TypeVar("T")


class FastReads(Protocol):
    async def one(self, sql: str, params: dict[str, Any]) -> Row | None: ...

    def balance(self, team_id: str, kept: int) -> int:
        """A team's balance as read through ``one``, made exact for debits kept answers do not show."""
        ...

    async def close(self) -> None: ...


def connect_wal(path: str, *, busy_timeout_s: float, autocheckpoint: bool = True) -> sqlite3.Connection:
    """A plain connection with the settings of every other connection (kit/db.py): WAL, synchronous
    NORMAL, foreign keys; transactions are begun explicitly. Closed again if any setting fails."""
    connection = sqlite3.connect(path, timeout=busy_timeout_s, isolation_level=None, check_same_thread=False)
    try:
        mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()
        if mode is None or str(mode[0]).lower() != "wal":
            raise RuntimeError(f"SQLite database {path} is not in WAL mode")
        connection.execute("PRAGMA synchronous=NORMAL")
        connection.execute("PRAGMA foreign_keys=ON")
        if not autocheckpoint:
            connection.execute("PRAGMA wal_autocheckpoint=0")
    except BaseException:
        connection.close()
        raise
    return connection


class LockBusy(Exception):
    """SQLite's write lock is held by another connection: the write was not attempted here."""


class SqliteFastReads:
    """One connection, used inline: a statement runs to completion before the loop moves on.

    Answers are kept until another connection changes the database. ``PRAGMA data_version`` on this
    connection changes whenever any other connection, in this process or another, commits. It is
    checked at the first read of each round of the event loop's callbacks (4–12 µs, about what a kept
    read saves), and every kept answer is dropped when it moved. A request's first step runs in the
    round after the one that received its bytes, so the check comes after the request arrived: a key
    revoked before a request was sent is refused, as with a check before every read. Within a round,
    every read answers as of that round's check.

    The same connection also writes the debits of charged reads (``write``, billing/debits.py), so that
    those commits, many per second under load, do not drop the kept answers: SQLite does not change a
    connection's ``data_version`` for its own commits. What ``write`` changes must not be read exactly
    through a kept answer. The debits change balances and the ledger; the one kept read of a balance
    is the caller's (auth/repository.py). The debit writer reports the balance each of its commits
    left (``debited``), and ``balance`` lowers a kept balance to it, so the caller's balance is exact for
    this process's own debits; it is only ever higher than the truth by debits another connection
    committed in the current round, and the conditional debit decides (billing/debits.py, contract.py).
    """

    # a WAL reader waits only while another connection recovers or resets the WAL index, and a writer
    # must not wait on the loop at all: neither waits here; a read that meets a lock is retried on a
    # thread, a write raises LockBusy for its caller to wait elsewhere
    WAITING_TIMEOUT_S = 30.0
    MAX_KEPT = 10_000
    _BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)

    def __init__(self, path: str) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = None
        self._kept: dict[tuple[str, tuple[tuple[str, Any], ...]], Row | None] = {}
        # each team's balance after this connection's last debit, since kept answers were last dropped
        self._debited: dict[str, int] = {}
        self._data_version: int | None = None
        # the loop whose current round of callbacks already checked data_version (None: not checked)
        self._checked_in: asyncio.AbstractEventLoop | None = None

    def _connect(self) -> sqlite3.Connection:
        # a commit here copies no pages back and never fsyncs: the debit writer checkpoints on a thread
        connection = connect_wal(self._path, busy_timeout_s=0, autocheckpoint=False)
        self._connection = connection
        self._forget()
        self._data_version = None
        return connection

    def _forget(self) -> None:
        self._kept.clear()
        self._debited.clear()
        self._checked_in = None

    def _drop(self) -> None:
        if self._connection is not None:
            self._connection.close()  # closing rolls back whatever it still held
            self._connection = None
        self._forget()

    async def one(self, sql: str, params: dict[str, Any]) -> Row | None:
        key = (sql, tuple(params.items()))
        try:
            connection = self._connection or self._connect()
            loop = asyncio.get_running_loop()
            if self._checked_in is not loop:
                (version,) = connection.execute("PRAGMA data_version").fetchone()
                if version != self._data_version:
                    self._forget()
                    self._data_version = version
                self._checked_in = loop
                loop.call_soon(self._next_round)
            if key in self._kept:
                return self._kept[key]
            row: Row | None = connection.execute(sql, params).fetchone()
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in self._BUSY:
                raise
            return await asyncio.to_thread(self._one_waiting, sql, params)
        if len(self._kept) >= self.MAX_KEPT:
            self._kept.clear()  # answers read afresh still include every debit noted since
        self._kept[key] = row
        return row

    def _next_round(self) -> None:
        self._checked_in = None

    def write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` in a write transaction on this connection, committed; LockBusy at once when another
        connection holds the write lock. Kept answers stay (see the class): ``work`` must change nothing
        they read exactly. On any failure the connection is closed, so it can never keep the lock."""
        try:
            connection = self._connection or self._connect()
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF in self._BUSY:  # the primary code: BUSY_RECOVERY is BUSY
                raise LockBusy() from exc
            self._drop()
            raise
        try:
            result = work(connection)
            connection.execute("COMMIT")
        except BaseException:
            self._drop()
            raise
        return result

    def debited(self, team_id: str, balance: int) -> None:
        """A debit written through ``write`` left ``team_id`` with ``balance`` (committed)."""
        self._debited[team_id] = balance

    def balance(self, team_id: str, kept: int) -> int:
        """A balance read through a kept answer, lowered to what this connection's debits left since."""
        return min(kept, self._debited.get(team_id, kept))

    def _one_waiting(self, sql: str, params: dict[str, Any]) -> Row | None:
        """The rare read that met a lock, on a connection of its own that may wait for it."""
        connection = sqlite3.connect(self._path, timeout=self.WAITING_TIMEOUT_S, isolation_level=None)
        try:
            row: Row | None = connection.execute(sql, params).fetchone()
            return row
        finally:
            connection.close()

    async def close(self) -> None:
        self._drop()


class EngineFastReads:
    """The same reads through the engine's pool (PostgreSQL, in-memory SQLite)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._statements: dict[str, TextClause] = {}

    async def one(self, sql: str, params: dict[str, Any]) -> Row | None:
        statement = self._statements.get(sql)
        if statement is None:
            statement = self._statements[sql] = text(sql)
        async with self._engine.connect() as connection:
            row = (await connection.execute(statement, params)).first()
        return None if row is None else tuple(row)

    def balance(self, team_id: str, kept: int) -> int:
        return kept  # nothing is kept: every read is fresh

    async def close(self) -> None:
        return None

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
from typing import Any, Protocol

from sqlalchemy import TextClause, text
from sqlalchemy.ext.asyncio import AsyncEngine

Row = tuple[Any, ...]


class FastReads(Protocol):
    async def one(self, sql: str, params: dict[str, Any]) -> Row | None: ...

    async def close(self) -> None: ...


class SqliteFastReads:
    """One connection, used inline: a statement runs to completion before the loop moves on.

    Answers are kept until the database changes. ``PRAGMA data_version`` on this connection (which never
    writes) changes whenever any other connection, in this process or another, commits; it is checked
    before every read (about 2 µs against 10–30 µs for a read that joins pages other writers just
    changed), and every kept answer is dropped when it moved. A kept answer is therefore exactly what the
    read would return at that moment: a revoked key is still refused on the next request. Under load,
    commits come once per debit batch, so the reads of a batch's requests are made about once.
    """

    # a WAL reader waits only while another connection recovers or resets the WAL index; inline, that
    # wait stops the loop, so it is kept short, and a read that meets it is retried on a thread
    BUSY_TIMEOUT_S = 0.05
    WAITING_TIMEOUT_S = 30.0
    MAX_KEPT = 10_000

    def __init__(self, path: str) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = None
        self._kept: dict[tuple[str, tuple[tuple[str, Any], ...]], Row | None] = {}
        self._data_version: int | None = None

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(
            self._path, timeout=self.BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        connection.execute("PRAGMA query_only=ON")
        self._connection = connection
        self._kept.clear()
        self._data_version = None
        return connection

    async def one(self, sql: str, params: dict[str, Any]) -> Row | None:
        connection = self._connection or self._connect()
        key = (sql, tuple(params.items()))
        try:
            (version,) = connection.execute("PRAGMA data_version").fetchone()
            if version != self._data_version or len(self._kept) >= self.MAX_KEPT:
                self._kept.clear()
                self._data_version = version
            elif key in self._kept:
                return self._kept[key]
            row: Row | None = connection.execute(sql, params).fetchone()
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise
            return await asyncio.to_thread(self._one_waiting, sql, params)
        self._kept[key] = row
        return row

    def _one_waiting(self, sql: str, params: dict[str, Any]) -> Row | None:
        """The rare read that met a lock, on a connection of its own that may wait for it."""
        connection = sqlite3.connect(self._path, timeout=self.WAITING_TIMEOUT_S, isolation_level=None)
        try:
            row: Row | None = connection.execute(sql, params).fetchone()
            return row
        finally:
            connection.close()

    async def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None
        self._kept.clear()


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

    async def close(self) -> None:
        return None

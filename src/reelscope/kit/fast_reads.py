"""Point reads for the request contract, without the ORM (ADR 0014, ADR 0019).

Every /v1 request reads its caller (key, team, limits) and a charged read of a precomputed result
reads that result's version: a handful of primary-key or unique-index reads. Through a session each
costs far more CPU than the database spends answering it. ``FastReads.one(sql, params)`` runs a fixed
SQL text written with ``:name`` parameters and returns the first row as a plain tuple:

* on a SQLite file, on one plain ``sqlite3`` connection in autocommit mode, on the event loop's own
  thread: every statement is its own WAL read, which never waits for a writer and sees the latest
  commit (``sqlite3`` keeps the prepared statement). Nothing is kept between reads: every answer is
  read afresh;
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
    """One connection, used inline: a statement runs to completion before the loop moves on."""

    # a WAL reader waits only while another connection recovers the WAL index after a crash: such a
    # read is retried on a thread, on a connection that may wait, so the loop never does
    WAITING_TIMEOUT_S = 30.0
    _BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)

    def __init__(self, path: str) -> None:
        self._path = path
        self._connection: sqlite3.Connection | None = None

    def _connect(self) -> sqlite3.Connection:
        connection = sqlite3.connect(self._path, timeout=0, isolation_level=None, check_same_thread=False)
        self._connection = connection
        return connection

    async def one(self, sql: str, params: dict[str, Any]) -> Row | None:
        try:
            connection = self._connection or self._connect()
            row: Row | None = connection.execute(sql, params).fetchone()
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode & 0xFF not in self._BUSY:
                raise
            return await asyncio.to_thread(self._one_waiting, sql, params)
        return row

    def _one_waiting(self, sql: str, params: dict[str, Any]) -> Row | None:
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

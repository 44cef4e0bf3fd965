"""Point reads for the request contract, without the ORM (ADR 0014, ADR 0019).

Every /v1 request reads its caller (key, team, limits) and a charged read of a precomputed result
reads that result's version: a handful of primary-key or unique-index reads. Through a session each
costs far more CPU than the database spends answering it. ``FastReads.one(sql, params)`` runs a fixed
SQL text written with ``:name`` parameters and returns the first row as a plain tuple:

* on a SQLite file, on one plain ``sqlite3`` connection in autocommit mode, on the event loop's own
  thread: every statement is its own WAL read, which never waits for a writer and sees the latest
  commit (``sqlite3`` keeps the prepared statement). Nothing is kept between reads: every answer is
  read afresh;
* on PostgreSQL through asyncpg, on a pool of its own (``AsyncpgFastReads``): one round trip a read,
  a prepared statement kept per connection, no transaction (each statement reads the latest commit,
  as READ COMMITTED does). Through the engine each read also sent a ping, ``BEGIN`` and ``ROLLBACK``
  (pre-ping and the dialect's implicit transaction): four round trips and most of the API's CPU on a
  charged read (issue 33 item 7, ADR 0052);
* elsewhere (in-memory SQLite, another driver), through the engine's pool with ``text()``, compiled
  once per SQL text.

Only for reads whose columns need no type conversion (text, integers, booleans stored as 0/1 are
read back with ``bool()`` by the caller), or whose caller converts what the two databases return
(the caller's last auto top-up: SQLite's text, PostgreSQL's datetime; auth/service.py). Anything
richer goes through a session.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import sqlite3
from typing import Any, Protocol

import asyncpg
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


_NAMED = re.compile(r"(?<!:):([A-Za-z_][A-Za-z0-9_]*)")


def numbered(sql: str) -> tuple[str, tuple[str, ...]]:
    """``:name`` parameters as asyncpg's ``$1, $2 …``, and the names in their order (a name used twice
    is one parameter). ``::`` casts are left alone."""
    names: list[str] = []

    def place(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in names:
            names.append(name)
        return f"${names.index(name) + 1}"

    return _NAMED.sub(place, sql), tuple(names)


class AsyncpgFastReads:
    """The reads on PostgreSQL: asyncpg's own pool, beside the engine's, kept small (a point read holds
    its connection for one round trip). Connections are not reset when given back, since nothing here
    changes a session's state. A connection the server closed (a restart, an idle timeout) fails its
    read once: every connection of the pool is replaced and the read runs once more. The pool belongs
    to the event loop that opened it; a read from another loop (a CLI command's second
    ``asyncio.run``) opens its own."""

    def __init__(self, connect: dict[str, Any], *, max_size: int = 8) -> None:
        self._connect = dict(connect)
        self._max_size = max_size
        self._pool: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._opening: asyncio.Lock | None = None
        self._statements: dict[str, tuple[str, tuple[str, ...]]] = {}

    @classmethod
    def for_engine(cls, engine: AsyncEngine, *, max_size: int = 8) -> AsyncpgFastReads:
        """The engine's own connection arguments (host, port, user, database, ssl …), less the options
        SQLAlchemy's asyncpg dialect keeps for itself."""
        _, params = engine.dialect.create_connect_args(engine.url)
        params.pop("async_creator_fn", None)
        params.pop("prepared_statement_name_func", None)
        if "prepared_statement_cache_size" in params:
            params["statement_cache_size"] = params.pop("prepared_statement_cache_size")
        return cls(dict(params), max_size=max_size)

    async def _open(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._pool is not None and self._loop is loop:
            return self._pool
        if self._opening is None or self._loop is not loop:
            _drop(self._pool)
            self._opening, self._pool, self._loop = asyncio.Lock(), None, loop
        async with self._opening:
            if self._pool is None:
                self._pool = await asyncpg.create_pool(
                    min_size=1, max_size=self._max_size, reset=_keep_session, **self._connect
                )
        return self._pool

    async def one(self, sql: str, params: dict[str, Any]) -> Row | None:
        found = self._statements.get(sql)
        if found is None:
            found = self._statements[sql] = numbered(sql)
        statement, names = found
        args = [params[name] for name in names]
        pool = self._pool if self._pool is not None and self._loop is asyncio.get_running_loop() else None
        pool = pool or await self._open()
        try:
            async with pool.acquire() as connection:
                try:
                    record = await connection.fetchrow(statement, *args)
                except _LOST:
                    # dropped, so that the pool opens a new one (the pool may have let it go already)
                    with contextlib.suppress(asyncpg.InterfaceError):
                        connection.terminate()
                    raise
        except _LOST:
            # the server closed it (a restart, an administrator, an idle timeout): after a restart so
            # are all the idle ones, so every connection is replaced before the read runs once more
            await pool.expire_connections()
            record = await pool.fetchrow(statement, *args)
        return None if record is None else tuple(record)

    async def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if self._loop is asyncio.get_running_loop():
            await pool.close()
        else:  # its loop is gone or elsewhere: its connections cannot be awaited from here
            _drop(pool)


# a read that failed because its connection is gone: closed by the server (a restart, an administrator,
# an idle timeout), or broken by the server's goodbye arriving while it was idle (asyncpg then reports a
# protocol state it cannot leave). Not a query cancelled, a bad argument or any other error: those are
# the read's own, and raised
_LOST = (
    OSError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.AdminShutdownError,
    asyncpg.exceptions.CannotConnectNowError,
    asyncpg.exceptions.InternalClientError,
)


def _drop(pool: Any) -> None:
    """Close a pool of another event loop without awaiting it; when that loop is closed already, its
    sockets go with the objects."""
    if pool is None:
        return
    with contextlib.suppress(RuntimeError):  # "Event loop is closed"
        pool.terminate()


async def _keep_session(_connection: Any) -> None:
    """Nothing to reset: these connections only ever run plain SELECTs (asyncpg's default reset sends
    a query on every release)."""

"""``sqlite+inline``: SQLAlchemy's asyncio API over the standard ``sqlite3`` module, on the loop's thread.

``aiosqlite`` runs every statement on a thread of its own and hands the result back through the
event loop: a read of one row becomes two thread switches and a loop wake-up per statement, and a
session's BEGIN, SELECT, ROLLBACK and pool reset make about nine of them. That, not SQLite, was most
of the CPU of a free ``GET /v1/account/balance`` (ADR 0019). A WAL reader never waits for a writer,
so a read transaction can run to completion on the loop's own thread; this dialect lets
``AsyncSession`` do exactly that: it is the stock ``pysqlite`` dialect declared async, whose cursor
runs each statement at once.

``InlineSession`` goes one step further for those sessions (ADR 0037): SQLAlchemy's ``AsyncSession``
runs each call of its synchronous ``Session`` in a new greenlet, so that the driver can hand control to
the loop when it waits; on this dialect nothing ever waits, so it calls the ``Session`` directly.

What must not run here: anything that can wait for SQLite's write lock on a busy timeout, which would
stop the loop. ``kit/db.py`` uses this dialect for read sessions only: their connections are
``query_only`` (SQLite refuses writes) and keep a short busy timeout for the rare WAL-index recovery.
Writes that may wait use ``aiosqlite``; the debit writer's fast path is a plain synchronous engine that
fails at once instead (``Database.write_now``).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import event, pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession
from sqlalchemy.util import greenlet_spawn, immutabledict

NAME = "sqlite+inline"
T = TypeVar("T")


class InlineCursor(sqlite3.Cursor):
    """A ``sqlite3`` cursor that also answers the one coroutine SQLAlchemy's asyncio results call."""

    async def _async_soft_close(self) -> None:
        # rows are fetched from this cursor as the result is read; nothing to buffer first
        return None


class InlineConnection(sqlite3.Connection):
    def cursor(self, factory: Any = InlineCursor) -> Any:
        return super().cursor(factory)


class InlineSQLiteDialect(SQLiteDialect_pysqlite):
    driver = "inline"
    is_async = True
    supports_statement_cache = True

    @classmethod
    def get_pool_class(cls, url: URL) -> type[pool.Pool]:
        return pool.AsyncAdaptedQueuePool

    def create_connect_args(self, url: URL) -> Any:
        args, kwargs = super().create_connect_args(url)
        kwargs.update(factory=InlineConnection, check_same_thread=False)
        return args, kwargs

    # ``AsyncConnection.execute`` (not the session) checks that its call awaited something: the engine
    # is used through sessions only (kit/db.py), so statements run with no await at all


registry.register("sqlite.inline", __name__, "InlineSQLiteDialect")


# what AsyncSession adds to every execution: results are fetched before the call returns
_BUFFERED = immutabledict({"prebuffer_rows": True})


def _buffered(options: Any) -> Any:
    """Execution options as ``AsyncSession`` passes them on: the caller's (if any) and ``_BUFFERED``."""
    return immutabledict(options).union(_BUFFERED) if options else _BUFFERED


class FirstConnect:
    """Whether the engine's current pool has completed a connection. Until a connection's ``connect``
    listeners (the dialect's set-up, the PRAGMAs of kit/db.py) have all run once without failing,
    SQLAlchemy runs each new connection's listeners under an asyncio lock, which needs the greenlet;
    after that no ``InlineSession`` call does. Registered after those listeners, so it runs last and
    counts only a connection whose listeners all succeeded; tied to the pool, because a disposed
    engine's new pool starts over."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine.sync_engine
        self._pool: object | None = None
        event.listen(self._engine, "connect", self._connected)

    def _connected(self, *_args: Any) -> None:
        self._pool = self._engine.pool

    @property
    def done(self) -> bool:
        return self._pool is self._engine.pool


class InlineSession(AsyncSession):
    """An ``AsyncSession`` whose statements run on the ``Session`` at once, with no greenlet (ADR 0037).

    Only for engines of this dialect whose pool never waits for a connection (``max_overflow=-1``): then
    nothing under these calls awaits once the engine has connected (``FirstConnect``), and awaiting is
    all the greenlet is for. The calls a read makes are overridden (``scalars`` goes through
    ``execute``); any other keeps ``AsyncSession``'s greenlet, which works the same here, only slower."""

    def __init__(self, *args: Any, first_connect: FirstConnect, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._first_connect = first_connect

    async def _run(self, call: Callable[..., T], *args: Any, **kw: Any) -> T:
        if self._first_connect.done:
            return call(*args, **kw)
        return await greenlet_spawn(call, *args, **kw)

    async def execute(self, statement: Any, params: Any = None, **kw: Any) -> Any:
        kw["execution_options"] = _buffered(kw.get("execution_options"))
        return await self._run(self.sync_session.execute, statement, params, **kw)

    async def scalar(self, statement: Any, params: Any = None, **kw: Any) -> Any:
        kw["execution_options"] = _buffered(kw.get("execution_options"))
        return await self._run(self.sync_session.scalar, statement, params, **kw)

    async def get(self, entity: Any, ident: Any, **kw: Any) -> Any:
        return await self._run(self.sync_session.get, entity, ident, **kw)

    async def close(self) -> None:
        await self._run(self.sync_session.close)

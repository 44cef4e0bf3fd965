"""``sqlite+inline``: SQLAlchemy's asyncio API over the standard ``sqlite3`` module, on the loop's thread.

``aiosqlite`` runs every statement on a thread of its own and hands the result back through the
event loop: a read of one row becomes two thread switches and a loop wake-up per statement, and a
session's BEGIN, SELECT, ROLLBACK and pool reset make about nine of them. That, not SQLite, was most
of the CPU of a free ``GET /v1/account/balance`` (ADR 0019). A WAL reader never waits for a writer,
so a read transaction can run to completion on the loop's own thread; this dialect lets
``AsyncSession`` do exactly that: it is the stock ``pysqlite`` dialect declared async, whose cursor
runs each statement at once.

What must not run here: anything that can wait for SQLite's write lock (``BEGIN IMMEDIATE``) on a
busy-timeout, which would stop the loop. ``kit/db.py`` uses this dialect for read sessions (busy
timeout kept for the rare WAL-index recovery) and for the debit writer's ``write_now`` sessions (busy
timeout 0: it fails at once and the caller waits elsewhere); writes that may wait use ``aiosqlite``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL
from sqlalchemy.util.concurrency import await_

NAME = "sqlite+inline"


async def _ready() -> None:
    return None


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

    # ``AsyncConnection.execute`` checks that its call awaited something; an already finished
    # coroutine satisfies it without giving the loop a turn
    def do_execute(self, cursor: Any, statement: str, parameters: Any, context: Any = None) -> None:
        await_(_ready())
        cursor.execute(statement, parameters)

    def do_execute_no_params(self, cursor: Any, statement: str, context: Any = None) -> None:
        await_(_ready())
        cursor.execute(statement)

    def do_executemany(self, cursor: Any, statement: str, parameters: Any, context: Any = None) -> None:
        await_(_ready())
        cursor.executemany(statement, parameters)


registry.register("sqlite.inline", __name__, "InlineSQLiteDialect")

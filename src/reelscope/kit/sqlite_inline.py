"""``sqlite+inline``: SQLAlchemy's asyncio API over the standard ``sqlite3`` module, on the loop's thread.

``aiosqlite`` runs every statement on a thread of its own and hands the result back through the
event loop: a read of one row becomes two thread switches and a loop wake-up per statement, and a
session's BEGIN, SELECT, ROLLBACK and pool reset make about nine of them. That, not SQLite, was most
of the CPU of a free ``GET /v1/account/balance`` (ADR 0019). A WAL reader never waits for a writer,
so a read transaction can run to completion on the loop's own thread; this dialect lets
``AsyncSession`` do exactly that: it is the stock ``pysqlite`` dialect declared async, whose cursor
runs each statement at once.

What must not run here: anything that can wait for SQLite's write lock on a busy timeout, which would
stop the loop. ``kit/db.py`` uses this dialect for read sessions only: their connections are
``query_only`` (SQLite refuses writes) and keep a short busy timeout for the rare WAL-index recovery.
Writes that may wait use ``aiosqlite``; the debit writer's fast path is a plain synchronous engine that
fails at once instead (``Database.write_now``).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import pool
from sqlalchemy.dialects import registry
from sqlalchemy.dialects.sqlite.pysqlite import SQLiteDialect_pysqlite
from sqlalchemy.engine import URL

NAME = "sqlite+inline"


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

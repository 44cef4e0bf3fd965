"""SQLite reads on the event loop's own thread, for the hot read path (ADR 0011).

SQLAlchemy's aiosqlite adapter sends every statement to the driver's thread four times (cursor,
execute, fetchall, close); each round trip costs more CPU than the point reads of a charged read do
in SQLite itself. A read transaction in WAL mode never waits for a writer, so running it inline
blocks the loop only for as long as SQLite works. ``InlineConnection`` offers the part of aiosqlite's
``Connection`` interface SQLAlchemy's adapter uses, with every call done at once.

Use it only for read sessions (``Database.inline_read``): a writer can wait up to the busy timeout for
SQLite's lock, and inline that wait would stop the whole loop.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from typing import Any


class _InlineCursor:
    __slots__ = ("_cursor",)

    def __init__(self, cursor: sqlite3.Cursor) -> None:
        self._cursor = cursor

    async def __aenter__(self) -> _InlineCursor:
        return self

    async def __aexit__(self, *_exc: object) -> None:
        self._cursor.close()

    async def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> _InlineCursor:
        self._cursor.execute(sql, parameters)
        return self

    async def executemany(self, sql: str, parameters: Iterable[Any]) -> _InlineCursor:
        self._cursor.executemany(sql, parameters)
        return self

    async def fetchall(self) -> list[Any]:
        return self._cursor.fetchall()

    async def fetchone(self) -> Any:
        return self._cursor.fetchone()

    async def fetchmany(self, size: int | None = None) -> list[Any]:
        return self._cursor.fetchmany(size if size is not None else self._cursor.arraysize)

    async def close(self) -> None:
        self._cursor.close()

    @property
    def description(self) -> Any:
        return self._cursor.description

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount

    @property
    def lastrowid(self) -> int | None:
        return self._cursor.lastrowid

    @property
    def arraysize(self) -> int:
        return self._cursor.arraysize

    @arraysize.setter
    def arraysize(self, value: int) -> None:
        self._cursor.arraysize = value


class _Ready:
    """Stands in for aiosqlite's ``Result``: awaitable and an async context manager, already done."""

    __slots__ = ("_cursor",)

    def __init__(self, cursor: _InlineCursor) -> None:
        self._cursor = cursor

    def __await__(self) -> Any:
        async def value() -> _InlineCursor:
            return self._cursor

        return value().__await__()

    async def __aenter__(self) -> _InlineCursor:
        return self._cursor

    async def __aexit__(self, *_exc: object) -> None:
        await self._cursor.close()


class _InlineQueue:
    """aiosqlite's request queue, as SQLAlchemy's isolation-level setter uses it: run at once."""

    def put_nowait(self, item: tuple[asyncio.Future[Any] | None, Callable[[], Any]]) -> None:
        future, function = item
        try:
            result = function()
        except BaseException as exc:
            if future is not None:
                future.set_exception(exc)
            return
        if future is not None:
            future.set_result(result)


class InlineConnection:
    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection: sqlite3.Connection | None = connection
        self._tx = _InlineQueue()

    @property
    def _conn(self) -> sqlite3.Connection:
        if self._connection is None:
            raise ValueError("no active connection")
        return self._connection

    def cursor(self) -> _Ready:
        return _Ready(_InlineCursor(self._conn.cursor()))

    async def execute(self, sql: str, parameters: Sequence[Any] | dict[str, Any] = ()) -> _InlineCursor:
        return _InlineCursor(self._conn.execute(sql, parameters))

    async def commit(self) -> None:
        self._conn.commit()

    async def rollback(self) -> None:
        self._conn.rollback()

    async def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def stop(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def create_function(self, *args: Any, **kwargs: Any) -> None:
        self._conn.create_function(*args, **kwargs)

    @property
    def in_transaction(self) -> bool:
        return self._conn.in_transaction

    @property
    def isolation_level(self) -> str | None:
        return self._conn.isolation_level

    @isolation_level.setter
    def isolation_level(self, value: str | None) -> None:
        self._conn.isolation_level = value  # type: ignore[assignment]


def inline_creator(path: str, timeout: float) -> Callable[[], Any]:
    """An ``async_creator`` for ``create_async_engine``: inline connections to the file at ``path``."""

    async def create() -> InlineConnection:
        return InlineConnection(sqlite3.connect(path, timeout=timeout, check_same_thread=False))

    return create

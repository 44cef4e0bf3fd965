"""Database plumbing: declarative base, UTC timestamps, engines and sessions (ARCHITECTURE §9).

One request or one job is one transaction; services never commit. On SQLite, a transaction that may
write begins with ``BEGIN IMMEDIATE`` so that a read-then-write (every charged request ends with a
debit) waits for the write lock instead of failing with ``SQLITE_BUSY_SNAPSHOT``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import DateTime, MetaData, event
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

from reelscope.kit.fast_reads import EngineFastReads, FastReads, SqliteFastReads

NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out, on SQLite (stored naive) and PostgreSQL (timestamptz)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


@dataclass(frozen=True)
class Database:
    """The engine plus two session factories: ``read`` (deferred) and ``write`` (immediate on SQLite)."""

    engine: AsyncEngine
    read: async_sessionmaker[AsyncSession]
    write: async_sessionmaker[AsyncSession]
    # point reads of the hot path without the ORM (kit/fast_reads.py, ADR 0014)
    fast: FastReads
    # SQLite files only: the file (the debit writer opens its own connections to it)
    sqlite_file: str | None = None

    @asynccontextmanager
    async def transaction(self, *, write: bool = True) -> AsyncIterator[AsyncSession]:
        """One unit of work: commit on success, roll back on any exception."""
        factory = self.write if write else self.read
        async with factory() as session, session.begin():
            yield session

    async def dispose(self) -> None:
        await self.fast.close()
        await self.engine.dispose()


def create_database(url: str, *, echo: bool = False) -> Database:
    is_sqlite = url.startswith("sqlite")
    kwargs: dict[str, Any] = {"echo": echo}
    file = _sqlite_file(url)
    if is_sqlite:
        if file is not None:
            Path(file).parent.mkdir(parents=True, exist_ok=True)
        # the busy timeout is how long a writer waits for the lock held by another process or request
        kwargs["connect_args"] = {"timeout": 30}
        # connections are kept rather than closed beyond a small pool: under a few dozen concurrent
        # requests a smaller pool reopened connections (and re-ran the PRAGMAs) all the time
        kwargs.update(pool_size=32, max_overflow=32, pool_timeout=60)
    else:
        kwargs.update(pool_size=20, max_overflow=20, pool_timeout=60, pool_pre_ping=True)
    engine = create_async_engine(url, **kwargs)
    if is_sqlite:
        _configure_sqlite(engine)
    write_engine = engine.execution_options(sqlite_begin="IMMEDIATE") if is_sqlite else engine
    return Database(
        engine=engine,
        read=async_sessionmaker(engine, expire_on_commit=False),
        write=async_sessionmaker(write_engine, expire_on_commit=False),
        fast=SqliteFastReads(file) if file is not None else EngineFastReads(engine),
        sqlite_file=file,
    )


def _sqlite_file(url: str) -> str | None:
    """The database file of a SQLite URL (query options left out); None for other databases and memory."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return parsed.database


def _configure_sqlite(engine: AsyncEngine) -> None:
    sync_engine = engine.sync_engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # take transaction control from the driver so BEGIN is ours to emit (SQLAlchemy's SQLite recipe)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.close()

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

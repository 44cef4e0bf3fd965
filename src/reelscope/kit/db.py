"""Database plumbing: declarative base, UTC timestamps, engines and sessions (ARCHITECTURE §9).

One request or one job is one transaction; services never commit. On SQLite, a transaction that may
write begins with ``BEGIN IMMEDIATE`` so that a read-then-write (every charged request ends with a
debit) waits for the write lock instead of failing with ``SQLITE_BUSY_SNAPSHOT``.
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import BigInteger, DateTime, Engine, Integer, MetaData, create_engine, event
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import DBAPIError, DisconnectionError
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

from reelscope.kit import metrics, sqlite_inline
from reelscope.kit.fast_reads import AsyncpgFastReads, EngineFastReads, FastReads, SqliteFastReads

T = TypeVar("T")

# PostgreSQL ended a transaction to break a deadlock, or for a serialization conflict: nothing of it was
# written, and the same work run again is right (SQLSTATE 40P01, 40001)
CONFLICT_STATES = frozenset({"40P01", "40001"})
CONFLICT_ATTEMPTS = 4

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


# a 64-bit integer on both databases: PostgreSQL's BIGINT; SQLite's INTEGER, which already is 64-bit and
# is the type its autoincrement row keys must have (credits and balances, event sequence numbers)
BigInt = BigInteger().with_variant(Integer(), "sqlite")


class ReadOnlySession(Exception):
    """A statement that writes was sent through a read session (a GET handler, or ``write=False``)."""


# statements a read session may send; anything else is refused before it reaches the database, so
# "a GET handler writes nothing", which the contract relies on (contract/route.py), is checked by code
_READ_VERBS = ("SELECT", "WITH", "PRAGMA", "EXPLAIN", "SHOW", "BEGIN", "SAVEPOINT", "RELEASE", "ROLLBACK")
READ_ONLY_OPTION = "reelscope_read_only"


# a SQLite write transaction longer than this is logged: every other writer (a debit, a job's start)
# waits for it (issue 33 item 5)
WRITE_WARNING_SECONDS = 1.0


def _warn_if_long(seconds: float, *, waited: float) -> None:
    """Log a write transaction that held SQLite's write lock for ``seconds`` (from its BEGIN IMMEDIATE
    to its commit: what every other writer waits for) with the code that ran it, the first frame
    outside this module and contextlib, and apart the time from the transaction's start to its lock
    (its wait for the lock, and whatever its code did before its first statement): a writer that
    waited is not the cause, though it was logged as one before."""
    if seconds < WRITE_WARNING_SECONDS:
        return
    from reelscope.kit.logging import get_logger

    frame = sys._getframe(1)
    while frame.f_back is not None and frame.f_code.co_filename.endswith(("kit/db.py", "contextlib.py")):
        frame = frame.f_back
    where = f"{frame.f_globals.get('__name__', '?')}:{frame.f_lineno} {frame.f_code.co_name}"
    get_logger(__name__).warning(
        "db.write_long", seconds=round(seconds, 2), waited_seconds=round(waited, 2), at=where
    )


@dataclass(frozen=True)
class Database:
    """The engine plus its session factories (ADR 0019):

    * ``read``: read sessions. On a SQLite file they run on the event loop's own thread
      (kit/sqlite_inline.py): a WAL reader never waits; each statement reads the latest commit, as
      under PostgreSQL's READ COMMITTED. Statements that write are refused.
    * ``write``: write transactions that may wait for the write lock (``BEGIN IMMEDIATE`` on SQLite,
      through aiosqlite's thread, so the waiting never stops the loop).
    * ``write_now`` (SQLite files only): a plain synchronous engine whose write transactions run on the
      loop's thread and fail at once with ``LockBusy`` when another connection holds the lock; the
      debit writer's fast path (billing/debits.py).
    """

    engine: AsyncEngine
    read: async_sessionmaker[AsyncSession]
    write: async_sessionmaker[AsyncSession]
    # point reads of the request contract without the ORM (kit/fast_reads.py, ADR 0014)
    fast: FastReads
    write_now: Engine | None = None
    # read transactions that may take long (an aggregation over months): on SQLite they run on
    # aiosqlite's thread, so the loop serves other requests meanwhile; elsewhere the same as ``read``
    read_off_loop: async_sessionmaker[AsyncSession] | None = None
    # SQLite files only: the file
    sqlite_file: str | None = None
    others: tuple[AsyncEngine, ...] = ()

    @asynccontextmanager
    async def transaction(self, *, write: bool = True, off_loop: bool = False) -> AsyncIterator[AsyncSession]:
        """One unit of work: commit on success, roll back on any exception. ``off_loop`` for a long read."""
        factory = self.write if write else (self.read_off_loop or self.read) if off_loop else self.read
        if not write or self.sqlite_file is None:
            async with factory() as session, session.begin():
                yield session
            return
        started = time.monotonic()
        locked: list[float] = []  # when SQLite's write lock was taken: BEGIN IMMEDIATE returned
        async with factory() as session, session.begin():
            event.listen(session.sync_session, "after_begin", lambda *_: locked.append(time.monotonic()))
            yield session
        if locked:
            ended = time.monotonic()
            _warn_if_long(ended - locked[0], waited=locked[0] - started)

    async def write_retrying(
        self, work: Callable[[AsyncSession], Awaitable[T]], *, attempts: int = CONFLICT_ATTEMPTS
    ) -> T:
        """``work`` in a write transaction, run again (after a short random pause) when PostgreSQL ends
        it to break a deadlock or a serialization conflict; any other failure, or the last attempt's, is
        raised. ``work`` must only write through its session, so that a rolled-back attempt leaves
        nothing behind. For background writers whose rows other writers touch in another order (the
        catalog's collection, the hook refresh; the soak of issue 31 saw them deadlock)."""
        for attempt in range(1, attempts + 1):
            try:
                async with self.transaction() as session:
                    return await work(session)
            except DBAPIError as error:
                if attempt == attempts or not is_conflict(error):
                    raise
                from reelscope.kit.logging import get_logger

                get_logger(__name__).warning(
                    "db.conflict_retried", sqlstate=_sqlstate(error), attempt=attempt, of=attempts
                )
                await asyncio.sleep(random.uniform(0.02, 0.1) * attempt)  # noqa: S311  # jitter
        raise AssertionError("unreachable")  # the loop returns or raises

    async def dispose(self) -> None:
        await self.fast.close()
        for engine in (self.engine, *self.others):
            await engine.dispose()
        if self.write_now is not None:
            self.write_now.dispose()


class LockBusy(Exception):
    """SQLite's write lock is held by another connection: nothing was written."""


def is_lock_busy(error: BaseException) -> bool:
    """Whether a failure is SQLite's "database is locked" (the primary code: BUSY_RECOVERY is BUSY)."""
    original = getattr(error, "orig", error)
    return isinstance(original, sqlite3.OperationalError) and (
        getattr(original, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
    )


def _sqlstate(error: BaseException) -> str | None:
    return getattr(getattr(error, "orig", None), "sqlstate", None)


def is_conflict(error: BaseException) -> bool:
    """Whether PostgreSQL rolled a transaction back to break a deadlock or a serialization conflict."""
    return _sqlstate(error) in CONFLICT_STATES


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
        kwargs.update(pool_size=20, max_overflow=20, pool_timeout=60)
    engine = create_async_engine(url, **kwargs)
    count_checkouts(engine.sync_engine, "primary")
    if not is_sqlite:
        ping_when_idle(engine.sync_engine)
    if is_sqlite:
        _configure_sqlite(engine, begin=_begin_through_sqlalchemy)
    _refuse_writes(engine)
    read_on_engine = async_sessionmaker(
        engine.execution_options(**{READ_ONLY_OPTION: True}), expire_on_commit=False
    )
    write = async_sessionmaker(
        engine.execution_options(sqlite_begin="IMMEDIATE") if is_sqlite else engine, expire_on_commit=False
    )
    if file is None:  # PostgreSQL, or SQLite in memory (one connection): one engine for everything
        asyncpg = engine.dialect.driver == "asyncpg"
        fast: FastReads = AsyncpgFastReads.for_engine(engine) if asyncpg else EngineFastReads(engine)
        return Database(engine=engine, read=read_on_engine, write=write, fast=fast)
    inline_url = f"{sqlite_inline.NAME}:///{file}"
    # readers keep a busy timeout only for WAL-index recovery after a crash, the one time they wait
    # a pool that never waits for a connection (beyond 32 idle ones it opens more, closed when given
    # back): nothing under an inline read awaits, so its sessions need no greenlet (InlineSession)
    reader = create_async_engine(
        inline_url, echo=echo, connect_args={"timeout": 5}, pool_size=32, max_overflow=-1
    )
    # no BEGIN: each statement reads its own snapshot of the latest commit, as under PostgreSQL's
    # default READ COMMITTED, and nothing holds a WAL snapshot between a request's statements; SQLite
    # itself refuses writes on these connections (query_only), at no cost per statement
    _configure_sqlite(reader, begin=None, query_only=True)
    count_checkouts(reader.sync_engine, "reader")
    # fails at once when the lock is taken: the loop must never wait for it
    now_writer = create_engine(
        f"sqlite:///{file}", echo=echo, connect_args={"timeout": 0, "check_same_thread": False}, pool_size=2
    )
    _configure_sqlite(now_writer, begin=_begin_on_driver)
    count_checkouts(now_writer, "writer")
    return Database(
        engine=engine,
        read=async_sessionmaker(
            reader,
            expire_on_commit=False,
            class_=sqlite_inline.InlineSession,
            first_connect=sqlite_inline.FirstConnect(reader),
        ),
        write=write,
        fast=SqliteFastReads(file),
        read_off_loop=read_on_engine,
        write_now=now_writer.execution_options(sqlite_begin="IMMEDIATE"),
        sqlite_file=file,
        others=(reader,),
    )


def count_checkouts(engine: Engine, pool: str) -> None:
    """Keep ``reelscope_db_connections_in_use{pool}`` (kit/metrics.py) as connections leave and return."""
    in_use = metrics.DB_CONNECTIONS_IN_USE

    def checked_out(*_: Any) -> None:
        in_use.labels(pool).inc()

    def checked_in(*_: Any) -> None:
        in_use.labels(pool).dec()

    event.listen(engine, "checkout", checked_out)
    event.listen(engine, "checkin", checked_in)


# a pooled PostgreSQL connection back in use after resting this long is pinged first (ADR 0063)
IDLE_PING_S = 1.0


def ping_when_idle(engine: Engine) -> None:
    """Ping a pooled connection before use only when it rested in the pool ``IDLE_PING_S`` or longer
    (ADR 0063). SQLAlchemy's ``pool_pre_ping`` pings at every checkout, and on asyncpg a ping is three
    round trips (``BEGIN``, ``;``, ``ROLLBACK``): more than a point read's session costs itself, on
    every session of every request and job. What it guards against, a connection the server closed
    while it rested (a restart, an idle timeout, an administrator), happens to connections that rested;
    one given back a moment ago was working a moment ago. A failed ping discards the connection and
    the pool connects afresh, as with ``pool_pre_ping``; a connection that dies between its last use
    and a reuse within ``IDLE_PING_S`` fails its statement once, and SQLAlchemy then replaces every
    connection of the pool older than the failure."""
    dialect = engine.dialect

    def returned(_dbapi_connection: Any, record: Any) -> None:
        record.info["returned_at"] = time.monotonic()

    def taken(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        returned_at = record.info.get("returned_at")
        if returned_at is None or time.monotonic() - returned_at < IDLE_PING_S:
            return  # a new connection, or one in use a moment ago
        try:
            dialect.do_ping(dbapi_connection)
        except dialect.loaded_dbapi.Error as error:
            if dialect.is_disconnect(error, dbapi_connection, None):
                # the pool drops it and checks out another (a new connection if none is left)
                raise DisconnectionError("the connection was closed while it rested") from error
            raise

    event.listen(engine, "checkin", returned)
    event.listen(engine, "checkout", taken)


def _sqlite_file(url: str) -> str | None:
    """The database file of a SQLite URL (query options left out); None for other databases and memory."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return None
    return parsed.database


def _refuse_writes(engine: AsyncEngine) -> None:
    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _check(connection: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if not connection.get_execution_options().get(READ_ONLY_OPTION):
            return
        if not statement.lstrip().upper().startswith(_READ_VERBS):
            raise ReadOnlySession(f"a read session may not write: {statement.split(None, 1)[0]}")


def _begin_through_sqlalchemy(connection: Any, mode: str) -> None:
    connection.exec_driver_sql(f"BEGIN {mode}")


def _begin_on_driver(connection: Any, mode: str) -> None:
    # the inline driver runs statements at once, so BEGIN skips SQLAlchemy's execution machinery
    try:
        connection.connection.dbapi_connection.execute(f"BEGIN {mode}")
    except sqlite3.OperationalError as exc:
        if is_lock_busy(exc):
            raise LockBusy() from exc
        raise


def _configure_sqlite(
    engine: AsyncEngine | Engine, *, begin: Callable[[Any, str], None] | None, query_only: bool = False
) -> None:
    """The settings of every SQLite connection; ``begin`` emits BEGIN (None: statements autocommit);
    ``query_only`` makes SQLite itself refuse any write on the connection."""
    sync_engine = engine.sync_engine if isinstance(engine, AsyncEngine) else engine

    @event.listens_for(sync_engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # take transaction control from the driver so BEGIN is ours to emit (SQLAlchemy's SQLite recipe)
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        # when a checkpoint resets the WAL, cut its file back to 64 MiB: a first start writes gigabytes
        # through it, and without a limit the file keeps its largest size for good
        cursor.execute("PRAGMA journal_size_limit=67108864")
        cursor.execute("PRAGMA foreign_keys=ON")
        if query_only:
            cursor.execute("PRAGMA query_only=ON")
        cursor.close()

    if begin is None:
        return

    @event.listens_for(sync_engine, "begin")
    def _on_begin(connection: Any) -> None:
        begin(connection, connection.get_execution_options().get("sqlite_begin", "DEFERRED"))

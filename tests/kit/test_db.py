"""The session factories of kit/db.py (ADR 0019): read sessions on the loop refuse writes, and the
debit writer's ``write_now`` fails at once rather than wait for another writer."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import structlog
from sqlalchemy import event, text
from sqlalchemy.exc import StatementError

from reelscope.kit import db as db_module
from reelscope.kit.db import Database, LockBusy, ReadOnlySession, create_database

pytestmark = pytest.mark.both_databases


@pytest.fixture
async def db(database_url: str) -> AsyncIterator[Database]:
    database = create_database(database_url)
    async with database.transaction() as session:
        await session.execute(text("CREATE TABLE things (name VARCHAR(10) PRIMARY KEY, value INTEGER)"))
        await session.execute(text("INSERT INTO things VALUES ('a', 1)"))
    yield database
    await database.dispose()


class TestReadSessions:
    async def test_a_read_session_reads(self, db: Database) -> None:
        async with db.transaction(write=False) as session:
            assert (await session.execute(text("SELECT value FROM things"))).scalar_one() == 1

    @pytest.mark.parametrize(
        "statement",
        ["UPDATE things SET value = 2", "INSERT INTO things VALUES ('b', 2)", "DELETE FROM things"],
    )
    async def test_a_read_session_refuses_to_write(self, db: Database, statement: str) -> None:
        with pytest.raises((ReadOnlySession, StatementError)):
            async with db.transaction(write=False) as session:
                await session.execute(text(statement))
        async with db.transaction() as session:
            assert (await session.execute(text("SELECT count(*), max(value) FROM things"))).one() == (1, 1)

    async def test_a_read_session_sees_a_commit_made_meanwhile(self, db: Database) -> None:
        async with db.transaction() as session:
            await session.execute(text("UPDATE things SET value = 5"))
        async with db.transaction(write=False) as session:
            assert (await session.execute(text("SELECT value FROM things"))).scalar_one() == 5

    async def test_the_first_read_of_a_new_database_runs_outside_a_transaction(self, db: Database) -> None:
        # a request's read session is used without begin(); on a SQLite file the engine's first connection
        # is made by it (kit/sqlite_inline.FirstConnect), later ones are not
        for _ in range(2):
            session = db.read()
            try:
                assert (await session.execute(text("SELECT value FROM things"))).scalar_one() == 1
                assert await session.scalar(text("SELECT count(*) FROM things")) == 1
            finally:
                await session.close()


class TestWriteNow:
    async def test_meeting_another_writer_raises_at_once_and_writes_nothing(
        self, db: Database, backend: str
    ) -> None:
        if backend != "sqlite":
            assert db.write_now is None  # PostgreSQL: every writer waits on its row locks
            return
        assert db.write_now is not None and db.sqlite_file is not None
        other = sqlite3.connect(db.sqlite_file, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")
            with pytest.raises(LockBusy), db.write_now.begin() as connection:
                connection.execute(text("UPDATE things SET value = 9"))
            other.execute("COMMIT")
            assert other.execute("SELECT value FROM things").fetchone() == (1,)
            # the engine is still usable, and free of any transaction
            with db.write_now.begin() as connection:
                connection.execute(text("UPDATE things SET value = 9"))
            assert other.execute("SELECT value FROM things").fetchone() == (9,)
        finally:
            other.close()

    async def test_a_write_that_fails_rolls_back_and_leaves_no_lock(self, db: Database, backend: str) -> None:
        if backend != "sqlite":
            return
        assert db.write_now is not None
        with pytest.raises(RuntimeError, match="boom"), db.write_now.begin() as connection:
            connection.execute(text("UPDATE things SET value = 100"))
            raise RuntimeError("boom")
        async with db.transaction() as session:  # the lock is free
            await session.execute(text("UPDATE things SET value = 3"))
        async with db.transaction(write=False) as session:
            assert (await session.execute(text("SELECT value FROM things"))).scalar_one() == 3


def test_sqlite_file_databases_get_every_factory(tmp_path: Path) -> None:
    db = create_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    assert db.write_now is not None and db.read_off_loop is not None and db.sqlite_file is not None


async def test_a_hundred_read_sessions_open_at_once_never_wait_for_a_connection(tmp_path: Path) -> None:
    # on a SQLite file a read runs on the loop's thread (ADR 0037): one that waited for a connection would
    # stop the loop, so the readers' pool opens more than it keeps rather than wait
    db = create_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        async with db.transaction() as session:
            await session.execute(text("CREATE TABLE things (value INTEGER)"))
            await session.execute(text("INSERT INTO things VALUES (1)"))
        sessions = [db.read() for _ in range(100)]
        try:
            values = [(await s.execute(text("SELECT value FROM things"))).scalar_one() for s in sessions]
        finally:
            for session in sessions:
                await session.close()
        assert values == [1] * 100
    finally:
        await db.dispose()


async def test_reads_go_on_after_a_failed_first_connection_and_after_dispose(tmp_path: Path) -> None:
    # a read's first connection goes through SQLAlchemy's greenlet until one connection's set-up has
    # succeeded on the current pool (kit/sqlite_inline.FirstConnect): neither a set-up that fails once
    # (a locked file during WAL recovery) nor a disposed engine may leave every later read failing
    db = create_database(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    reader = db.others[0].sync_engine
    failures = iter([RuntimeError("the file is busy")])

    def fail_once(*_args: object) -> None:
        if (error := next(failures, None)) is not None:
            raise error

    event.listen(reader, "connect", fail_once, insert=True)  # before the others, as a PRAGMA would

    async def read() -> int:
        session = db.read()
        try:
            return int((await session.execute(text("SELECT 1"))).scalar_one())
        finally:
            await session.close()

    try:
        with pytest.raises(RuntimeError, match="busy"):
            await read()
        assert await read() == 1
        await db.others[0].dispose()
        assert await read() == 1
    finally:
        await db.dispose()


class TestLongWrites:
    async def test_a_long_sqlite_write_is_logged_with_the_code_that_ran_it(
        self, db: Database, backend: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # every other writer waits for a SQLite write transaction: an operator sees which code held it
        monkeypatch.setattr(db_module, "WRITE_WARNING_SECONDS", 0.0)
        with structlog.testing.capture_logs() as captured:
            async with db.transaction() as session:
                await session.execute(text("UPDATE things SET value = 3"))
            async with db.transaction(write=False) as session:
                await session.execute(text("SELECT value FROM things"))
        logged = [entry for entry in captured if entry["event"] == "db.write_long"]
        if backend != "sqlite":  # PostgreSQL writers do not wait for one another's whole transaction
            assert logged == []
            return
        assert len(logged) == 1, captured  # the write, not the read
        assert logged[0]["at"].startswith("tests.kit.test_db:")
        assert logged[0]["at"].endswith("test_a_long_sqlite_write_is_logged_with_the_code_that_ran_it")

    async def test_the_time_spent_waiting_for_sqlites_lock_is_not_counted_as_holding_it(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # the writer that waited is not the one that stalled the others: it is logged with its own (short)
        # hold and, apart, how long it waited (SQLite only: PostgreSQL writers wait for rows, not the file)
        monkeypatch.setattr(db_module, "WRITE_WARNING_SECONDS", 0.0)
        file = tmp_path / "lock.db"
        db = create_database(f"sqlite+aiosqlite:///{file}")
        holder = sqlite3.connect(file, isolation_level=None)
        try:
            async with db.transaction() as session:
                await session.execute(text("CREATE TABLE things (value INTEGER)"))
            holder.execute("BEGIN IMMEDIATE")

            async def write() -> None:
                async with db.transaction() as session:
                    await session.execute(text("INSERT INTO things VALUES (4)"))

            with structlog.testing.capture_logs() as captured:
                waiting = asyncio.create_task(write())
                await asyncio.sleep(0.5)  # the writer is at its BEGIN IMMEDIATE, waiting for the holder
                holder.execute("COMMIT")
                await waiting
            (logged,) = [entry for entry in captured if entry["event"] == "db.write_long"]
            assert logged["waited_seconds"] >= 0.4
            assert logged["seconds"] < logged["waited_seconds"]
        finally:
            holder.close()
            await db.dispose()

"""Point reads on a SQLite file keep their answers only while the database is unchanged (ADR 0014)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from reelscope.kit.fast_reads import LockBusy, SqliteFastReads

READ = "SELECT value FROM things WHERE name = :name"


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    connection = sqlite3.connect(tmp_path / "fast.db", isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("CREATE TABLE things (name TEXT PRIMARY KEY, value INTEGER)")
    connection.execute("INSERT INTO things VALUES ('a', 1), ('b', 2)")
    yield connection
    connection.close()


@pytest.fixture
async def reads(tmp_path: Path, writer: sqlite3.Connection) -> AsyncIterator[SqliteFastReads]:
    fast = SqliteFastReads(str(tmp_path / "fast.db"))
    yield fast
    await fast.close()


def count_statements(reads: SqliteFastReads) -> list[str]:
    seen: list[str] = []
    assert reads._connection is not None
    reads._connection.set_trace_callback(seen.append)
    return seen


async def test_a_commit_by_another_connection_is_seen_by_the_next_read(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    assert await reads.one(READ, {"name": "a"}) == (1,)
    writer.execute("UPDATE things SET value = 10 WHERE name = 'a'")
    assert await reads.one(READ, {"name": "a"}) == (10,)
    writer.execute("DELETE FROM things WHERE name = 'a'")
    assert await reads.one(READ, {"name": "a"}) is None


async def test_a_commit_by_another_process_is_seen_too(
    reads: SqliteFastReads, tmp_path: Path, writer: sqlite3.Connection
) -> None:
    assert await reads.one(READ, {"name": "b"}) == (2,)
    script = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None);"
        " c.execute(\"UPDATE things SET value = 20 WHERE name = 'b'\")"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "fast.db")], check=True)
    assert await reads.one(READ, {"name": "b"}) == (20,)


async def test_while_nothing_changes_an_answer_is_read_once(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    assert await reads.one(READ, {"name": "a"}) == (1,)
    statements = count_statements(reads)
    for _ in range(5):
        assert await reads.one(READ, {"name": "a"}) == (1,)
    assert [s for s in statements if s.startswith("SELECT")] == []  # only the data_version checks
    assert await reads.one(READ, {"name": "b"}) == (2,)  # other parameters are another answer
    assert len([s for s in statements if s.startswith("SELECT")]) == 1


async def test_its_own_writes_keep_the_answers_and_a_foreign_commit_drops_them(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    # the debit writer writes on this connection (billing/debits.py): many commits a second must not
    # drop the kept answers; SQLite leaves a connection's data_version alone for its own commits
    assert await reads.one(READ, {"name": "a"}) == (1,)
    reads.write(lambda c: c.execute("UPDATE things SET value = 5 WHERE name = 'a'"))
    assert writer.execute("SELECT value FROM things WHERE name = 'a'").fetchone() == (5,)  # committed
    assert await reads.one(READ, {"name": "a"}) == (1,)  # kept: what write changes must be a hint only
    writer.execute("UPDATE things SET value = 7 WHERE name = 'b'")
    assert await reads.one(READ, {"name": "a"}) == (5,)  # another connection committed: read afresh


async def test_a_write_meeting_another_writer_raises_at_once_and_writes_nothing(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    writer.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(LockBusy):
            reads.write(lambda c: c.execute("UPDATE things SET value = 9 WHERE name = 'a'"))
    finally:
        writer.execute("COMMIT")
    assert writer.execute("SELECT value FROM things WHERE name = 'a'").fetchone() == (1,)
    # the connection is still usable, and free of any transaction
    reads.write(lambda c: c.execute("UPDATE things SET value = 9 WHERE name = 'a'"))
    assert writer.execute("SELECT value FROM things WHERE name = 'a'").fetchone() == (9,)


async def test_a_write_that_fails_rolls_back_and_leaves_no_lock(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    def half_then_fail(connection: sqlite3.Connection) -> None:
        connection.execute("UPDATE things SET value = 100 WHERE name = 'a'")
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        reads.write(half_then_fail)
    assert writer.execute("SELECT value FROM things WHERE name = 'a'").fetchone() == (1,)
    writer.execute("UPDATE things SET value = 3 WHERE name = 'b'")  # the lock is free
    assert await reads.one(READ, {"name": "b"}) == (3,)

"""Point reads on a SQLite file keep their answers only while the database is unchanged (ADR 0014)."""

from __future__ import annotations

import asyncio
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


async def next_round() -> None:
    """Let the event loop run its next round of callbacks (a request's first step runs in one)."""
    await asyncio.sleep(0)


async def test_a_commit_by_another_connection_is_seen_in_the_next_round(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    assert await reads.one(READ, {"name": "a"}) == (1,)
    writer.execute("UPDATE things SET value = 10 WHERE name = 'a'")
    await next_round()
    assert await reads.one(READ, {"name": "a"}) == (10,)
    writer.execute("DELETE FROM things WHERE name = 'a'")
    await next_round()
    assert await reads.one(READ, {"name": "a"}) is None


async def test_within_a_round_reads_answer_as_of_its_check(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    # data_version is checked once per round of callbacks: a commit made during the round (here by
    # code that never yields) is seen from the next one
    assert await reads.one(READ, {"name": "a"}) == (1,)
    writer.execute("UPDATE things SET value = 10 WHERE name = 'a'")
    assert await reads.one(READ, {"name": "a"}) == (1,)
    await next_round()
    assert await reads.one(READ, {"name": "a"}) == (10,)


async def test_a_request_sent_after_a_commit_sees_it(tmp_path: Path, writer: sqlite3.Connection) -> None:
    # the property the contract relies on: a key revoked before a request was sent is refused. Over a
    # real socket: the server reads the key's row for each request it receives
    fast = SqliteFastReads(str(tmp_path / "fast.db"))

    async def serve(reader: asyncio.StreamReader, writer_: asyncio.StreamWriter) -> None:
        while name := (await reader.readline()).strip().decode():
            row = await fast.one(READ, {"name": name})
            writer_.write(f"{row[0] if row else None}\n".encode())
            await writer_.drain()
        writer_.close()

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        reader, client = await asyncio.open_connection("127.0.0.1", port)
        for value in (1, 2, 3, 4, 5):
            writer.execute("UPDATE things SET value = ? WHERE name = 'a'", (value,))
            client.write(b"a\n")  # sent after the commit
            assert (await reader.readline()).strip() == str(value).encode()
        client.close()
    finally:
        server.close()
        await server.wait_closed()
        await fast.close()


async def test_a_commit_by_another_process_is_seen_too(
    reads: SqliteFastReads, tmp_path: Path, writer: sqlite3.Connection
) -> None:
    assert await reads.one(READ, {"name": "b"}) == (2,)
    script = (
        "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None);"
        " c.execute(\"UPDATE things SET value = 20 WHERE name = 'b'\")"
    )
    subprocess.run([sys.executable, "-c", script, str(tmp_path / "fast.db")], check=True)
    await next_round()
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
    await next_round()
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
    await next_round()
    assert await reads.one(READ, {"name": "b"}) == (3,)


async def test_a_kept_balance_is_lowered_to_what_its_own_debits_left(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    # the debit writer reports each balance it leaves (billing/debits.py); a kept caller row still
    # shows the balance before, and balance() makes it exact until another connection commits
    assert await reads.one(READ, {"name": "a"}) == (1,)
    reads.write(lambda c: c.execute("UPDATE things SET value = 0 WHERE name = 'a'"))
    reads.debited("a", 0)
    (kept,) = await reads.one(READ, {"name": "a"}) or (None,)
    assert kept == 1 and reads.balance("a", kept) == 0
    assert reads.balance("b", 2) == 2  # nothing noted for another team
    writer.execute("UPDATE things SET value = 50 WHERE name = 'a'")  # credits land elsewhere
    await next_round()
    (fresh,) = await reads.one(READ, {"name": "a"}) or (None,)
    assert fresh == 50 and reads.balance("a", fresh) == 50  # the note went with the kept answers

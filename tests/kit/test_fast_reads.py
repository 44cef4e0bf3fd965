"""Point reads on a SQLite file see every commit, of any connection or process (ADR 0014, 0019)."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from reelscope.kit.fast_reads import SqliteFastReads

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


async def test_a_commit_by_another_connection_is_seen_at_once(
    reads: SqliteFastReads, writer: sqlite3.Connection
) -> None:
    assert await reads.one(READ, {"name": "a"}) == (1,)
    writer.execute("UPDATE things SET value = 10 WHERE name = 'a'")
    assert await reads.one(READ, {"name": "a"}) == (10,)
    writer.execute("DELETE FROM things WHERE name = 'a'")
    assert await reads.one(READ, {"name": "a"}) is None


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
    assert await reads.one(READ, {"name": "b"}) == (20,)


async def test_every_read_is_read_afresh(reads: SqliteFastReads, writer: sqlite3.Connection) -> None:
    # nothing is kept between reads (ADR 0019): each call runs its statement
    assert await reads.one(READ, {"name": "a"}) == (1,)
    statements = count_statements(reads)
    for _ in range(3):
        assert await reads.one(READ, {"name": "a"}) == (1,)
    assert len([s for s in statements if s.startswith("SELECT")]) == 3

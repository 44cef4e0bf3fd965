"""Point reads on PostgreSQL through asyncpg's own pool (kit/fast_reads.py, ADR 0052): the request
contract's caller lookup and version reads, one round trip each."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy.ext.asyncio import create_async_engine

from reelscope.kit.db import create_database
from reelscope.kit.fast_reads import AsyncpgFastReads, numbered
from tests.fixtures.databases import PostgresDatabase, _plain
from tests.fixtures.services import require_postgres

READ = "SELECT value FROM things WHERE name = :name"


def test_named_parameters_become_numbered_ones() -> None:
    sql, names = numbered("SELECT a::text FROM t WHERE b = :b AND c = :c OR d = :b")
    assert sql == "SELECT a::text FROM t WHERE b = $1 AND c = $2 OR d = $1"
    assert names == ("b", "c")


@pytest.fixture
async def url(postgres_database: PostgresDatabase) -> AsyncIterator[str]:
    require_postgres()
    found = await postgres_database.fresh()
    connection = await asyncpg.connect(_plain(found))
    try:
        await connection.execute("CREATE TABLE things (name TEXT PRIMARY KEY, value INTEGER)")
        await connection.execute("INSERT INTO things VALUES ('a', 1), ('b', 2)")
        yield found
        await connection.execute("DROP TABLE things")
    finally:
        await connection.close()


async def set_value(url: str, name: str, value: int) -> None:
    connection = await asyncpg.connect(_plain(url))
    try:
        await connection.execute("UPDATE things SET value = $1 WHERE name = $2", value, name)
    finally:
        await connection.close()


@pytest.mark.postgres
class TestAsyncpgFastReads:
    async def test_a_postgresql_database_reads_through_asyncpg(self, url: str) -> None:
        db = create_database(url)
        try:
            assert isinstance(db.fast, AsyncpgFastReads)
            assert await db.fast.one(READ, {"name": "a"}) == (1,)
            assert await db.fast.one(READ, {"name": "missing"}) is None
        finally:
            await db.dispose()

    async def test_every_read_sees_the_latest_commit(self, url: str) -> None:
        reads = AsyncpgFastReads.for_engine(create_async_engine(url))
        try:
            assert await reads.one(READ, {"name": "b"}) == (2,)
            await set_value(url, "b", 20)  # another connection commits: the next read sees it
            assert await reads.one(READ, {"name": "b"}) == (20,)
        finally:
            await reads.close()

    async def test_a_connection_the_server_closed_is_replaced(self, url: str) -> None:
        # a restart of the server, or an idle timeout, closes the pool's connections under it
        reads = AsyncpgFastReads.for_engine(create_async_engine(url), max_size=1)
        try:
            assert await reads.one(READ, {"name": "a"}) == (1,)
            pid = (await reads.one("SELECT pg_backend_pid()", {}) or (0,))[0]
            admin = await asyncpg.connect(_plain(url))
            try:
                assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid) is True
            finally:
                await admin.close()
            assert await reads.one(READ, {"name": "a"}) == (1,)
            assert (await reads.one("SELECT pg_backend_pid()", {}) or (0,))[0] != pid
        finally:
            await reads.close()

    def test_a_second_event_loop_opens_its_own_pool(self, url: str) -> None:
        # a CLI command may run asyncio.run twice on one Database: a pool belongs to one loop
        reads = AsyncpgFastReads.for_engine(create_async_engine(url))
        assert asyncio.run(reads.one(READ, {"name": "a"})) == (1,)
        assert asyncio.run(reads.one(READ, {"name": "b"})) == (2,)
        asyncio.run(reads.close())

"""``Database.write_retrying`` on PostgreSQL: a transaction the server ends to break a real deadlock is run
again and lands once; any other failure is raised at once (kit/db.py; issue 31: the soak saw the
catalog's collection and the hook refresh deadlock with other writers)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.kit.db import Database, create_database, is_conflict
from tests.fixtures.databases import PostgresDatabase, _plain
from tests.fixtures.services import require_postgres

pytestmark = pytest.mark.postgres

Work = Callable[[AsyncSession], Awaitable[None]]


@pytest.fixture
async def db(postgres_database: PostgresDatabase) -> AsyncIterator[Database]:
    require_postgres()
    url = await postgres_database.fresh()
    connection = await asyncpg.connect(_plain(url))
    try:
        await connection.execute("CREATE TABLE things (name TEXT PRIMARY KEY, value INTEGER)")
        await connection.execute("INSERT INTO things VALUES ('a', 0), ('b', 0)")
        await connection.execute("CREATE TABLE effects (id SERIAL PRIMARY KEY, writer TEXT)")
    finally:
        await connection.close()
    database = create_database(url)
    yield database
    await database.dispose()


async def deadlock(db: Database) -> dict[str, int]:
    """Two writers take rows a and b in opposite orders, each waiting for the other's second row once
    both hold their first: PostgreSQL ends one of them with "deadlock detected" (40P01)."""
    both_hold_one = asyncio.Barrier(2)
    attempts = {"ab": 0, "ba": 0}

    def writer(first: str, second: str) -> Work:
        async def work(session: AsyncSession) -> None:
            attempts[first + second] += 1
            await session.execute(text("UPDATE things SET value = value + 1 WHERE name = :n"), {"n": first})
            await session.execute(text("INSERT INTO effects (writer) VALUES (:w)"), {"w": first + second})
            if attempts[first + second] == 1:  # only the first attempts meet; a retry runs alone
                await both_hold_one.wait()
            await session.execute(text("UPDATE things SET value = value + 1 WHERE name = :n"), {"n": second})

        return work

    await asyncio.gather(db.write_retrying(writer("a", "b")), db.write_retrying(writer("b", "a")))
    return attempts


class TestWriteRetrying:
    async def test_the_writer_ended_by_a_deadlock_is_run_again_and_both_land_once(self, db: Database) -> None:
        attempts = await deadlock(db)
        assert sorted(attempts.values()) == [1, 2]  # one of them was ended and ran a second time
        async with db.transaction(write=False) as session:
            rows = (await session.execute(text("SELECT name, value FROM things"))).all()
            values = {name: value for name, value in rows}
            effects = sorted((await session.execute(text("SELECT writer FROM effects"))).scalars())
        # the ended attempt left nothing: each writer's effect is there once, each row moved twice
        assert values == {"a": 2, "b": 2}
        assert effects == ["ab", "ba"]

    async def test_without_retries_the_deadlock_reaches_the_caller(self, db: Database) -> None:
        barrier = asyncio.Barrier(2)

        def writer(first: str, second: str) -> Work:
            async def work(session: AsyncSession) -> None:
                await session.execute(text("UPDATE things SET value = 1 WHERE name = :n"), {"n": first})
                await barrier.wait()
                await session.execute(text("UPDATE things SET value = 1 WHERE name = :n"), {"n": second})

            return work

        results = await asyncio.gather(
            db.write_retrying(writer("a", "b"), attempts=1),
            db.write_retrying(writer("b", "a"), attempts=1),
            return_exceptions=True,
        )
        failures = [r for r in results if isinstance(r, BaseException)]
        assert len(failures) == 1 and isinstance(failures[0], DBAPIError) and is_conflict(failures[0])

    async def test_any_other_failure_is_raised_at_the_first_attempt(self, db: Database) -> None:
        calls = 0

        async def work(session: AsyncSession) -> None:
            nonlocal calls
            calls += 1
            await session.execute(text("INSERT INTO things VALUES ('a', 9)"))

        with pytest.raises(IntegrityError):
            await db.write_retrying(work)
        assert calls == 1

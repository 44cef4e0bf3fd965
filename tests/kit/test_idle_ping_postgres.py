"""Pooled PostgreSQL connections pinged only after resting (kit/db.py ``ping_when_idle``, ADR 0063):
a connection reused at once costs no round trip beyond its own statements, and one the server closed
while it rested is replaced before a request sees it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import asyncpg
import pytest
from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine

from reelscope.kit import db as kit_db
from reelscope.kit.db import create_database
from tests.fixtures.databases import PostgresDatabase, _plain
from tests.fixtures.services import require_postgres


@pytest.fixture
async def url(postgres_database: PostgresDatabase) -> AsyncIterator[str]:
    require_postgres()
    yield await postgres_database.fresh()


def count_statements(engine: AsyncEngine) -> list[str]:
    """Every statement the engine's connections are sent, the pool's own pings included (asyncpg's
    ``Connection._execute`` is what the dialect's ping and every cursor go through)."""
    sent: list[str] = []
    dialect = engine.sync_engine.dialect
    original = dialect.do_ping

    def ping(dbapi_connection: Any) -> bool:
        sent.append("ping")
        return bool(original(dbapi_connection))

    dialect.do_ping = ping  # type: ignore[method-assign]

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def statement(_c: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        sent.append(sql)

    return sent


async def backend_pid(engine: AsyncEngine) -> int:
    async with engine.connect() as connection:
        return int((await connection.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def terminate(url: str, pid: int) -> None:
    admin = await asyncpg.connect(_plain(url))
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid) is True
        # the backend is gone once it no longer shows: the pooled connection's socket is closed
        for _ in range(200):
            if not await admin.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
                break
    finally:
        await admin.close()


@pytest.mark.postgres
class TestPingWhenIdle:
    async def test_a_connection_reused_at_once_is_not_pinged(self, url: str) -> None:
        db = create_database(url)
        try:
            sent = count_statements(db.engine)
            for _ in range(5):
                async with db.transaction(write=False) as session:
                    assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
            # pool_pre_ping sent a ping (three round trips on asyncpg) before each of them
            assert sent == ["SELECT 1"] * 5
        finally:
            await db.dispose()

    async def test_a_rested_connection_is_pinged_once_before_use(
        self, url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        db = create_database(url)
        try:
            sent = count_statements(db.engine)
            async with db.transaction(write=False) as session:
                await session.execute(text("SELECT 1"))
            # as if it had rested: any time back in the pool is past the threshold
            monkeypatch.setattr(kit_db, "IDLE_PING_S", 0.0)
            async with db.transaction(write=False) as session:
                await session.execute(text("SELECT 2"))
            assert sent == ["SELECT 1", "ping", "SELECT 2"]
        finally:
            await db.dispose()

    async def test_a_connection_closed_while_it_rested_is_replaced_unseen(
        self, url: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        # a restart, an idle timeout or an administrator closes a resting connection: the request that
        # takes it next must not fail (pool_pre_ping's guarantee, kept for connections that rested)
        db = create_database(url)
        try:
            first = await backend_pid(db.engine)
            await terminate(url, first)
            monkeypatch.setattr(kit_db, "IDLE_PING_S", 0.0)  # as if it had rested
            async with db.transaction() as session:
                assert (await session.execute(text("SELECT 1"))).scalar_one() == 1
            assert await backend_pid(db.engine) != first
        finally:
            await db.dispose()

"""On PostgreSQL a hook refresh writes each batch under the hook writers' lock (hook/repository.py
``hold_hook_writes``): two refreshes at once (the periodic one, one after a catalog change) scored the
same creators' hooks in different orders and deadlocked, again on every retry (the soak of issue 31)."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest
from sqlalchemy import text

from reelscope.hook import repository as hook_repository
from reelscope.hook import service as hook_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from tests.fixtures.databases import _plain
from tests.hook.test_endpoints import catalog  # noqa: F401  # the fixture

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_a_refresh_batch_waits_for_the_hook_writers_lock(
    runtime: Runtime,
    catalog: None,  # noqa: F811
    clock: ManualClock,
) -> None:
    async with runtime.db.transaction() as session:  # a video whose views moved: its hook is rewritten
        found = await session.execute(text("SELECT video_id FROM hooks ORDER BY video_id LIMIT 1"))
        video_id = found.scalar_one()
        await session.execute(text("UPDATE videos SET views = views + 1 WHERE id = :id"), {"id": video_id})
    holder = await asyncpg.connect(_plain(runtime.settings.effective_database_url))
    try:
        await holder.execute("SELECT pg_advisory_lock($1)", hook_repository._LIBRARY_LOCK)
        refreshing = asyncio.ensure_future(hook_service.refresh(runtime.db, clock.now()))
        waiting = 0
        for _ in range(400):  # a bound: the refresh reaches its batch's write and waits there
            query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            waiting = await holder.fetchval(query)
            if waiting or refreshing.done():
                break
            await asyncio.sleep(0.05)
        assert waiting == 1 and not refreshing.done()
        # it waits before writing anything: the hook it is to rewrite is not locked by it yet, nor its
        # text's row of hook_texts, which the triggers on hooks write in the same statements (ADR 0055)
        async with holder.transaction():
            locked = "SELECT seq FROM hooks WHERE video_id = $1 FOR UPDATE NOWAIT"
            assert await holder.fetchval(locked, video_id) is not None
            text_row = (
                "SELECT t.seq FROM hook_texts t JOIN hooks h ON h.text_key = t.text_key"
                " WHERE h.video_id = $1 FOR UPDATE OF t NOWAIT"
            )
            assert await holder.fetchval(text_row, video_id) is not None
        await holder.execute("SELECT pg_advisory_unlock($1)", hook_repository._LIBRARY_LOCK)
        assert (await refreshing)["hooks"] == 1
    finally:
        await holder.close()

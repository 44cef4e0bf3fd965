"""Two jobs upserting the same catalog rows at once wait for each other instead of deadlocking (PostgreSQL).

Found by benchmarks/soak.py (issue 31 item 2): two agent runs collected overlapping sounds in different
orders, each upsert locked a row the other then waited for, and PostgreSQL ended one run's attempt with
"deadlock detected" (retried, but a failed attempt and a wasted collection). An upsert takes the locks of
the existing rows it updates in the order of its rows; ``catalog.repository`` now sends them in key order.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any

import pytest
from sqlalchemy import select, text, update

from reelscope.catalog import repository as catalog_repository
from reelscope.kit.clock import ManualClock
from reelscope.models import Sound
from reelscope.runtime import Runtime

pytestmark = [pytest.mark.postgres, pytest.mark.parametrize("backend", ["postgres"], indirect=True)]


def sound(n: int, at: datetime, title: str) -> dict[str, Any]:
    return {
        "id": f"00000000-0000-0000-0000-00000000000{n}",
        "platform": "tiktok",
        "external_id": f"sound-{n}",
        "title": title,
        "duration": 30,
        "cover_url": "https://example.com/c.jpg",
        "is_original": False,
        "usage_count": n,
        "owner_handle": None,
        "owner_nickname": None,
        "is_commerce_music": None,
        "first_seen_at": at,
        "updated_at": at,
    }


async def upsert(runtime: Runtime, rows: list[dict[str, Any]]) -> None:
    async with runtime.db.transaction() as session:
        await catalog_repository.upsert_sounds(session, rows)


async def wait_for_waiters(runtime: Runtime, count: int) -> None:
    """Until ``count`` transactions wait for a row lock (polled, with a deadline)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        async with runtime.db.transaction(write=False) as session:
            waiting = await session.scalar(text("SELECT count(*) FROM pg_locks WHERE NOT granted"))
        if waiting is not None and waiting >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{count} upserts never came to wait for a lock")


async def test_two_upserts_of_the_same_rows_in_opposite_orders_both_succeed(
    runtime: Runtime, clock: ManualClock
) -> None:
    now = clock.now()
    await upsert(runtime, [sound(n, now, "first") for n in range(3)])
    async with runtime.db.transaction() as holder:
        # a third transaction holds the middle row: both upserts get under way and stop at it
        await holder.execute(update(Sound).where(Sound.external_id == "sound-1").values(title="held"))
        forward = asyncio.create_task(upsert(runtime, [sound(n, now, "forward") for n in (0, 1, 2)]))
        backward = asyncio.create_task(upsert(runtime, [sound(n, now, "backward") for n in (2, 1, 0)]))
        await wait_for_waiters(runtime, 2)
    # in rows' order, each held an end row the other needed: one was ended with "deadlock detected"
    await asyncio.gather(forward, backward)
    async with runtime.db.transaction(write=False) as session:
        titles = set((await session.scalars(select(Sound.title))).all())
    assert len(titles) == 1 and titles <= {"forward", "backward"}  # one upsert after the other, whole

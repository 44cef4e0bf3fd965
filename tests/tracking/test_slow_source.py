"""Tracking creation reads its source outside the request's write transaction (issue 33, contract/calls.py
``outside_transaction``): while one team's creation waits on a slow source, every other writer of the
process goes on. Before, the creation held the process's SQLite write gate for as long as the source took
(up to its timeout), and every charged write of every team queued behind it."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import httpx
import pytest

from reelscope.collectors.base import Capability, CreatorRecord
from reelscope.collectors.routing import Sources
from reelscope.kit.platforms import Platform
from reelscope.tracking import endpoints
from tests.conftest import MakeTeam

TIKTOK = frozenset({Platform.TIKTOK})


class SlowSource:
    """Answers ``slow`` once the test lets it, every other handle at once."""

    name = "slow"
    platforms = TIKTOK
    capabilities = {Capability.CREATOR: TIKTOK}

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.release = asyncio.Event()

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        if handle == "slow":
            self.waiting.set()
            await self.release.wait()
        return CreatorRecord(platform=platform, handle=handle, display_name=handle.title(), followers=10)


@pytest.fixture
def source(monkeypatch: pytest.MonkeyPatch) -> SlowSource:
    slow = SlowSource()
    connectors: Sequence[SlowSource] = [slow]
    monkeypatch.setattr(endpoints, "build_sources", lambda *_: Sources(connectors, None))  # type: ignore[arg-type]
    return slow


async def test_a_creation_waiting_on_its_source_holds_no_other_writer(
    client: httpx.AsyncClient, make_team: MakeTeam, source: SlowSource
) -> None:
    first, second = await make_team(), await make_team()
    waiting = asyncio.create_task(
        client.post(
            "/v1/tracking/creators", json={"platform": "tiktok", "handle": "slow"}, headers=first.headers
        )
    )
    await asyncio.wait_for(source.waiting.wait(), 10)
    # a bound, not a pause: before the fix this never completed until the slow source answered
    other = await asyncio.wait_for(
        client.post(
            "/v1/tracking/creators", json={"platform": "tiktok", "handle": "fast"}, headers=second.headers
        ),
        10,
    )
    assert other.status_code == 201, other.text
    assert not waiting.done()
    source.release.set()
    slow = await waiting
    assert slow.status_code == 201, slow.text
    assert slow.headers["X-Cost"] == "0.25" and other.headers["X-Cost"] == "0.25"

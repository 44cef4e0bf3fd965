"""A callback holding the event loop is logged with its route (issue 33 item 2, ADR 0040)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
import structlog

from reelscope.kit.loop_watch import LoopWatch
from reelscope.main import create_app
from reelscope.runtime import Runtime

HOLD_PATH = "/test/hold/{name}"


@pytest.fixture
def logs() -> Iterator[list[dict[str, Any]]]:
    with structlog.testing.capture_logs() as captured:
        yield captured


def logged(logs: list[dict[str, Any]], event: str) -> list[dict[str, Any]]:
    return [entry for entry in logs if entry["event"] == event]


@pytest.fixture
async def holding_client(runtime: Runtime, logs: list[dict[str, Any]]) -> AsyncIterator[httpx.AsyncClient]:
    """The app plus a route that holds the loop, without awaiting, until the watch has said so."""
    app = create_app(runtime=runtime)

    @app.get(HOLD_PATH)
    async def hold(name: str) -> str:
        deadline = time.monotonic() + 10
        while not logged(logs, "loop.held") and time.monotonic() < deadline:
            time.sleep(0.005)  # on purpose: this is the callback that holds the loop
        return name

    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture
async def watch() -> AsyncIterator[LoopWatch]:
    watching = LoopWatch(asyncio.get_running_loop(), threshold_ms=100)
    watching.start()
    yield watching
    watching.stop()


class TestLoopWatch:
    async def test_a_callback_holding_the_loop_is_logged_with_its_route_and_how_long(
        self, holding_client: httpx.AsyncClient, watch: LoopWatch, logs: list[dict[str, Any]]
    ) -> None:
        response = await holding_client.get("/test/hold/long")
        assert response.status_code == 200
        [held] = logged(logs, "loop.held")
        assert held["log_level"] == "warning"
        assert held["route"] == f"GET {HOLD_PATH}"
        assert held["held_ms"] >= 100
        assert "hold" in held["where"]
        # once the loop comes round, the whole time
        deadline = time.monotonic() + 10
        while not logged(logs, "loop.held.ended") and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        [ended] = logged(logs, "loop.held.ended")
        assert ended["route"] == held["route"]
        assert ended["held_ms"] >= held["held_ms"]

    async def test_the_threshold_must_be_positive(self) -> None:
        with pytest.raises(ValueError):
            LoopWatch(asyncio.get_running_loop(), threshold_ms=0)

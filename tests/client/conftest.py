"""Client fixtures: ``reelscope.client`` against the real app in-process, no mock of the server.

The async client goes through httpx's ASGI transport. The sync client runs in a worker thread (the
test calls it through ``asyncio.to_thread``) and its transport hands each request to the test's event
loop, where the app and its database live. In front of the app sits ``Faults``, an ASGI wrapper that
answers chosen requests with a 429 or a 5xx, before the app sees them or after it has run (the answer
lost on the way back), and records every request's ``Idempotency-Key``.

Job messages wait in a SQLite queue until something drains them (``queue_backend`` ``sqlite``): the
waiters' injected ``sleep`` drains them, so a poll sees work advance exactly when the client sleeps.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from reelscope.client import AsyncReelscope, Reelscope
from reelscope.config import Settings
from reelscope.main import create_app
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import TeamKey

Message = dict[str, Any]


@dataclass
class Fault:
    status: int
    after_app: bool = False  # run the real app first, then lose its answer
    headers: dict[str, str] = field(default_factory=dict)


class Faults:
    """ASGI middleware: the next planned faults, one per request, then the app itself."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.plan: list[Fault] = []
        self.keys: list[str | None] = []  # Idempotency-Key of every /v1 request, in order

    async def __call__(self, scope: Message, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1"):
            await self.app(scope, receive, send)
            return
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        self.keys.append(headers.get("idempotency-key"))
        if not self.plan:
            await self.app(scope, receive, send)
            return
        fault = self.plan.pop(0)
        if fault.after_app:

            async def discard(message: Message) -> None:
                return None

            await self.app(scope, receive, discard)
        await _error(send, fault)


async def _error(send: Any, fault: Fault) -> None:
    code = {429: "rate_limit_exceeded", 408: "request_timeout", 503: "service_unavailable"}.get(
        fault.status, "internal_error"
    )
    body = json.dumps({"statusCode": fault.status, "code": code, "error": "Injected", "message": "injected"})
    headers = [(b"content-type", b"application/json"), (b"x-request-id", b"injected")]
    headers += [(k.encode(), v.encode()) for k, v in fault.headers.items()]
    await send({"type": "http.response.start", "status": fault.status, "headers": headers})
    await send({"type": "http.response.body", "body": body.encode()})


class LoopBridge(httpx.BaseTransport):
    """A sync transport for a client running in another thread: each request is served by the async
    transport on the test's loop, and the thread waits for the answer."""

    def __init__(self, inner: httpx.AsyncBaseTransport, loop: asyncio.AbstractEventLoop) -> None:
        self.inner = inner
        self.loop = loop

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        async def serve() -> httpx.Response:
            forwarded = httpx.Request(
                request.method, request.url, headers=request.headers, content=request.read()
            )
            response = await self.inner.handle_async_request(forwarded)
            content = await response.aread()
            return httpx.Response(response.status_code, headers=response.headers, content=content)

        return asyncio.run_coroutine_threadsafe(serve(), self.loop).result(timeout=60)


@dataclass
class Sleeps:
    """The client's injected sleep: records each wait and runs the queued jobs instead of sleeping."""

    jobs: JobEngine
    seconds: list[float] = field(default_factory=list)

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)
        await asyncio.to_thread(self.jobs.drain)


@pytest.fixture
def queue_backend() -> str:
    return "sqlite"


# webhook endpoints on the loopback are allowed, as an operator allows their own receivers (§4.6 rejects
# private hosts otherwise); nothing listens there, and no delivery is attempted unless a test drains jobs
HOOK_URL = "https://127.0.0.1:9/hook"


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None) -> Settings:
    return Settings(
        data_dir=data_dir,
        database_url=database_url,
        redis_url=redis_url,
        webhook_allowed_networks="127.0.0.0/8",
    )


@pytest.fixture
def faults(runtime: Runtime) -> Faults:
    return Faults(create_app(runtime=runtime))


@pytest.fixture
def transport(faults: Faults) -> httpx.ASGITransport:
    return httpx.ASGITransport(app=faults, client=("203.0.113.7", 50000))


@pytest.fixture
def sleeps(jobs: JobEngine) -> Sleeps:
    return Sleeps(jobs)


@pytest.fixture
async def api(transport: httpx.ASGITransport, team: TeamKey, sleeps: Sleeps) -> AsyncIterator[AsyncReelscope]:
    """The async client with the team's key."""
    async with AsyncReelscope("http://testserver", team.api_key, transport=transport, sleep=sleeps) as client:
        yield client


@pytest.fixture
async def sync_api(
    transport: httpx.ASGITransport, team: TeamKey, jobs: JobEngine
) -> AsyncIterator[Reelscope]:
    """The sync client with the team's key; call it from a thread (``asyncio.to_thread``). Its sleep
    drains the job queue, in that thread."""
    bridge = LoopBridge(transport, asyncio.get_running_loop())
    client = Reelscope("http://testserver", team.api_key, transport=bridge, sleep=lambda _s: jobs.drain())
    yield client
    await asyncio.to_thread(client.close)

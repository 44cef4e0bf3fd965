"""What the contract decided for one request, and the headers that report it on every response."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelscope.auth.service import Caller, Principal
from reelscope.billing import service as billing_service
from reelscope.kit.ids import new_id
from reelscope.rate_limit.service import RateStatus

# methods that change nothing (RFC 9110 §9.2.1): they read, and need no Idempotency-Key
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass
class CallState:
    """What the contract decided for one request (``request.state.call``)."""

    operation: str
    request_id: str
    principal: Principal | None = None
    # the caller as read at the start of the request (auth/service.py): key, team balance, top-up
    caller: Caller | None = None
    # the calling key's daily spending cap, read with the principal (ADR 0047); None: the key has none
    daily_cap: billing_service.DailyCap | None = None
    rate: RateStatus | None = None
    quoted: int = 0
    settled: int | None = None
    charged: int = 0
    remaining: int | None = None
    # the request's session: the write transaction of a non-safe request, opened by the contract; a
    # read session opened on first use by a safe request's handler (contract/dependencies.py)
    session: AsyncSession | None = None
    writes: bool = False
    # the process's SQLite write gate, held by the contract around a non-safe request's transaction, and
    # whether that transaction has sent a statement yet (contract/route.py)
    gate: asyncio.Lock | None = None
    began: bool = False

    @asynccontextmanager
    async def outside_transaction(self) -> AsyncIterator[None]:
        """Wait on the outside world (a data source) without holding the write transaction: a handler
        that must read a source before it writes (tracking creation's check) does it here. While the
        request's session has sent no statement, the process's write gate is given back meanwhile, so
        every other writer goes on; once it has (an Idempotency-Key held the key first), the request
        already holds SQLite's lock and keeps it. The session must not be used inside."""
        gate = self.gate if not self.began else None
        if gate is None or not gate.locked():
            yield
            return
        gate.release()
        try:
            yield
        finally:
            await gate.acquire()

    def settle(self, credits: int) -> None:
        """Let a handler charge less than quoted where the price depends on state (billing/prices.py)."""
        if not 0 <= credits <= self.quoted:
            raise ValueError("a settled price must be between 0 and the quote")
        self.settled = credits

    @property
    def final_price(self) -> int:
        return self.quoted if self.settled is None else self.settled


def contract_headers(call: CallState | None) -> list[tuple[bytes, bytes]]:
    """§8.2 billing headers on every response; §8.1 rate headers where a key was counted."""
    charged = call.charged if call else 0
    headers = {"X-Cost": billing_service.usd_header(charged), "X-Credits-Used": str(charged)}
    if call is not None and call.remaining is not None and charged > 0:
        headers["X-Credits-Remaining"] = str(call.remaining)
        headers["X-Balance-Remaining"] = billing_service.usd_header(call.remaining)
    if call is not None and call.rate is not None:
        headers.update(call.rate.headers())
    return [(k.lower().encode(), v.encode()) for k, v in headers.items()]


ErrorRenderer = Callable[[Exception, str], Awaitable[tuple[int, bytes]]]


class ContractHeadersMiddleware:
    """Adds the contract's headers to every response and turns unexpected exceptions into a 500 body.

    It sits outside Starlette's exception middleware, so it also sees responses rendered from errors.
    """

    def __init__(self, app: ASGIApp, render_unexpected: ErrorRenderer) -> None:
        self.app = app
        self.render_unexpected = render_unexpected

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        request_id = new_id()
        state["request_id"] = request_id
        started = False

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in contract_headers(state.get("call")) if k not in present]
                message["headers"] = [
                    *message.get("headers", []),
                    *extra,
                    (b"x-request-id", request_id.encode()),
                    # a body is what its Content-Type says, never sniffed into a script or a page
                    (b"x-content-type-options", b"nosniff"),
                ]
            await send(message)

        try:
            await self.app(scope, receive, send_with_headers)
        except Exception as exc:
            if started:
                raise
            status, body = await self.render_unexpected(exc, request_id)
            await send_with_headers(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [
                        (b"content-type", b"application/json"),
                        (b"content-length", str(len(body)).encode()),
                    ],
                }
            )
            await send({"type": "http.response.body", "body": body})

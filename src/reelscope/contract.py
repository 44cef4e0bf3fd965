"""The request contract every /v1 route passes (ARCHITECTURE §3; spec §5, §7, §8).

``ContractRoute`` wraps each /v1 handler: authenticate → rate limit → quote the price and refuse with
402 before any work → run the handler inside one transaction → on a 2xx debit in that same
transaction and commit; on anything else roll back and charge nothing. What happened is kept on
``request.state.call`` for ``ContractHeadersMiddleware`` to render as headers on every response,
error responses included.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Coroutine
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any, get_type_hints

import orjson
from fastapi import APIRouter, Depends, Request, Response
from fastapi.routing import APIRoute
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelscope.auth import keys
from reelscope.auth import service as auth_service
from reelscope.auth.service import Principal
from reelscope.billing import service as billing_service
from reelscope.billing.debits import Debit
from reelscope.billing.prices import price_of
from reelscope.idempotency import service as idempotency_service
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database
from reelscope.kit.errors import Forbidden, InsufficientCredits, InvalidApiKey, MissingApiKey
from reelscope.kit.ids import new_id
from reelscope.kit.logging import get_logger
from reelscope.rate_limit import service as rate_limit_service
from reelscope.rate_limit.features import feature_of
from reelscope.rate_limit.service import RateStatus
from reelscope.runtime import Runtime

log = get_logger(__name__)

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
V1_PREFIX = "/v1"


@dataclass
class CallState:
    """What the contract decided for one request."""

    operation: str
    request_id: str
    principal: Principal | None = None
    rate: RateStatus | None = None
    quoted: int = 0
    settled: int | None = None
    charged: int = 0
    remaining: int | None = None

    def settle(self, credits: int) -> None:
        """Let a handler charge less than quoted where the price depends on state (billing/prices.py)."""
        if not 0 <= credits <= self.quoted:
            raise ValueError("a settled price must be between 0 and the quote")
        self.settled = credits

    @property
    def final_price(self) -> int:
        return self.quoted if self.settled is None else self.settled


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


def database_of(request: Request) -> Database:
    """The database, for handlers of read-only routes. They take the ``Request`` rather than declaring
    dependencies: FastAPI solves each declared dependency on every request (ADR 0014)."""
    return runtime_of(request).db


def clock_of(request: Request) -> Clock:
    return runtime_of(request).clock


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _json_body(request: Request) -> dict[str, Any] | None:
    if request.method in SAFE_METHODS:
        return None
    raw = await request.body()
    if not raw:
        return None
    try:
        parsed = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None  # the handler's own validation reports it as a 400
    return parsed if isinstance(parsed, dict) else None


@dataclass(frozen=True)
class IdempotentRequest:
    key: str
    fingerprint: str


async def _idempotency_of(request: Request) -> IdempotentRequest | None:
    """A non-safe request's Idempotency-Key (ADR 0004); safe methods are idempotent already."""
    raw = request.headers.get(idempotency_service.HEADER)
    if raw is None or request.method in SAFE_METHODS:
        return None
    key = idempotency_service.parse_key(raw)
    return IdempotentRequest(
        key=key,
        fingerprint=idempotency_service.fingerprint(request.method, request.url, await request.body()),
    )


def _replayed(stored: idempotency_service.StoredResponse) -> Response:
    """The first response again, uncharged: X-Cost 0.00 and no X-Credits-Remaining (§8.2)."""
    response = Response(content=stored.body, status_code=stored.status_code)
    for name, value in stored.headers:
        response.headers.append(name, value)
    response.headers[idempotency_service.REPLAYED_HEADER] = "true"
    return response


def _remember(
    session: AsyncSession, team_id: str, idempotent: IdempotentRequest, response: Response, now: datetime
) -> None:
    body = getattr(response, "body", None)
    if not isinstance(body, bytes):
        # a streamed response cannot be stored; the request still succeeds, without replay protection
        log.warning("idempotency.not_stored", team_id=team_id, reason="streamed response")
        return
    idempotency_service.remember(
        session,
        team_id=team_id,
        key=idempotent.key,
        fingerprint=idempotent.fingerprint,
        status_code=response.status_code,
        body=body,
        headers=[(n.decode("latin-1"), v.decode("latin-1")) for n, v in response.raw_headers],
        now=now,
    )


class ContractRoute(APIRoute):
    # set by ReadOnlyContractRoute: the handler only reads, so a charged GET may run it outside the write
    # transaction that debits (ADR 0011)
    read_only = False

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        self._request_only = False
        super().__init__(path, endpoint, **kwargs)
        if self._request_only and kwargs.get("max_body_size") is None:
            # FastAPI's per-request exit stacks serve dependencies, and the route's own exception
            # wrapper repeats the app's (ExceptionMiddleware renders with the same handlers): a
            # request-only endpoint needs neither (ADR 0017)
            self.app = _plain_request_response(self._contract_handler)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        request_only = self._request_only_handler()
        self._request_only = request_only is not None
        inner = request_only or super().get_route_handler()
        operation = self.name
        price = price_of(operation)  # a /v1 route without a price fails at import, not at request time
        feature = feature_of(operation, self.path_format)
        # the limiter counts per path template without the version prefix, as its keys always have
        counted_path = self.path_format.removeprefix(V1_PREFIX)
        read_only = self.read_only and set(self.methods or ()) <= SAFE_METHODS

        async def handle(request: Request) -> Response:
            runtime = runtime_of(request)
            call = CallState(operation=operation, request_id=request.state.request_id)
            request.state.call = call
            now = runtime.clock.now()

            token = auth_service.bearer_token(request.headers.get("authorization"))
            if token is None or not keys.has_prefix(token):
                # §5.5: requests with no key or an unprefixed one are limited per IP first
                await runtime.limiter.check_ip(client_ip(request), now)
                raise MissingApiKey() if token is None else InvalidApiKey()

            call.quoted = price.base  # a fixed price needs neither the query string nor the body parsed
            if price.extra is not None:
                call.quoted = price.quote(request.query_params, await _json_body(request))
            # authentication and the rate limit need no transaction: point reads and the limiter's store
            caller = await auth_service.identify(runtime.db.fast, token, feature)
            principal = caller.principal
            call.principal = principal
            limits = rate_limit_service.apply_override(feature, caller.limit_override)
            endpoint = counted_path.replace("{platform}", str(request.path_params.get("platform", "")))
            ticket = await runtime.limiter.hit(
                key_id=principal.key_id, endpoint=endpoint, limits=limits, now=now
            )
            call.rate = ticket.status
            # after the count: §8.1 exempts only 401 and 402, and the 403 carries X-RateLimit-*
            if principal.scope == "read" and request.method not in SAFE_METHODS:
                raise Forbidden("This API key is read-only")
            try:
                if read_only and call.quoted > 0:
                    return await _read_then_debit(request, runtime, call, inner, caller, now)
                return await _in_one_transaction(request, runtime, call, inner, caller, now)
            except InsufficientCredits:
                # §8.1: a 402 does not count against the rate limit
                await runtime.limiter.release(ticket)
                call.rate = ticket.status.given_back()
                raise

        self._contract_handler = handle
        return handle

    def _request_only_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]] | None:
        """The endpoint itself, when it is a coroutine that takes only the ``Request`` and returns a
        ``Response``: FastAPI would solve an empty dependency graph, open exit stacks and inspect the
        result on every request, and pass the response through unchanged (ADR 0014). Any other
        endpoint (path parameters, dependencies, a body, a returned model) goes through FastAPI."""
        dependant = self.dependant
        name = dependant.request_param_name
        solved_by_fastapi = (
            dependant.path_params,
            dependant.query_params,
            dependant.header_params,
            dependant.cookie_params,
            dependant.body_params,
            dependant.dependencies,
            self.dependencies,
        )
        returns = get_type_hints(self.endpoint).get("return")
        if (
            name is None
            or any(solved_by_fastapi)
            or not inspect.iscoroutinefunction(self.endpoint)
            or len(inspect.signature(self.endpoint).parameters) != 1
            or not (isinstance(returns, type) and issubclass(returns, Response))
        ):
            return None
        endpoint = self.endpoint

        async def call(request: Request) -> Response:
            response: Response = await endpoint(request)
            return response

        return call


def _plain_request_response(handler: Callable[[Request], Coroutine[Any, Any, Response]]) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handler(Request(scope, receive, send))
        await response(scope, receive, send)

    return app


async def _in_one_transaction(
    request: Request,
    runtime: Runtime,
    call: CallState,
    inner: Callable[[Request], Coroutine[Any, Any, Response]],
    caller: auth_service.Caller,
    now: datetime,
) -> Response:
    """The handler and its debit in one transaction: commit on a 2xx, roll back (charging nothing) on
    anything else. A charged request or a write takes the write lock for all of it."""
    principal = caller.principal
    write = call.quoted > 0 or request.method not in SAFE_METHODS
    factory = runtime.db.write if write else runtime.db.read
    gate = runtime.sqlite_write_gate if write else None
    async with gate or nullcontext(), factory() as session:
        try:
            await session.begin()
            idempotent = await _idempotency_of(request)
            if idempotent is not None:
                replay = await idempotency_service.find_replay(
                    session,
                    team_id=principal.team_id,
                    key=idempotent.key,
                    fingerprint=idempotent.fingerprint,
                    now=now,
                )
                if replay is not None:
                    await session.rollback()
                    return _replayed(replay)
            # the balance was read before the write lock, through kept answers (kit/fast_reads.py):
            # it may only say "enough" (the conditional debit still decides); a balance too low is
            # read again here, as credits may have landed
            known = caller.balance if caller.balance >= call.quoted else None
            await billing_service.ensure_affordable(
                session, principal.team_id, call.quoted, at=now, known_balance=known
            )
            request.state.session = session
            response = await inner(request)
            if not 200 <= response.status_code < 300:
                await session.rollback()
                return response
            remaining = None
            if call.final_price > 0:
                remaining = await billing_service.charge(
                    session,
                    principal.team_id,
                    call.final_price,
                    operation=call.operation,
                    reference=call.request_id,
                    at=now,
                    auto_top_up_below=caller.auto_top_up_below,
                )
            if idempotent is not None:
                _remember(session, principal.team_id, idempotent, response, now)
            await session.commit()
        except BaseException:
            await session.rollback()
            raise
    if remaining is not None:
        call.charged, call.remaining = call.final_price, remaining
    return response


async def _read_then_debit(
    request: Request,
    runtime: Runtime,
    call: CallState,
    inner: Callable[[Request], Coroutine[Any, Any, Response]],
    caller: auth_service.Caller,
    now: datetime,
) -> Response:
    """The contract for a charged read of a read-only route (ADR 0011, 0014): the same steps and
    outcomes, but the handler runs outside any write transaction (it reads through ``database_of``),
    and only the debit takes the write lock, after a 2xx, group-committed with the debits of concurrent
    requests (billing/debits.py). The handler wrote nothing, so debiting after it is as atomic as
    debiting with it; a debit that loses its race is still a 402, and the response waits for the commit."""
    principal = caller.principal
    # 402 before any work, unless an auto top-up may cover it: the debit below refills if due. A
    # balance read through kept answers (kit/fast_reads.py) below the price is read again, as credits
    # may have landed since, and the 402 reports that balance
    if caller.balance < call.quoted and caller.auto_top_up_below is None:
        async with runtime.db.transaction(write=False) as session:
            remaining = await billing_service.balance(session, principal.team_id)
        if remaining < call.quoted:
            raise InsufficientCredits(required=call.quoted, remaining=remaining)
    response = await inner(request)
    if not 200 <= response.status_code < 300:
        return response
    if call.final_price > 0:
        remaining = await runtime.debits.debit(
            Debit(
                team_id=principal.team_id,
                credits=call.final_price,
                operation=call.operation,
                reference=call.request_id,
                at=now,
                auto_top_up_below=caller.auto_top_up_below,
            )
        )
        call.charged, call.remaining = call.final_price, remaining
    return response


async def get_session(request: Request) -> AsyncSession:
    session: AsyncSession | None = getattr(request.state, "session", None)
    if session is None:
        # a charged GET of a read-only route runs outside any transaction (ADR 0014)
        raise RuntimeError("handlers of read-only routes read through database_of(request), not SessionDep")
    return session


async def get_principal(request: Request) -> Principal:
    principal: Principal = request.state.call.principal
    return principal


async def get_clock(request: Request) -> Clock:
    return clock_of(request)


async def get_call(request: Request) -> CallState:
    call: CallState = request.state.call
    return call


# dependencies are coroutines: FastAPI runs a plain function dependency on a worker thread
SessionDep = Annotated[AsyncSession, Depends(get_session)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
ClockDep = Annotated[Clock, Depends(get_clock)]
CallDep = Annotated[CallState, Depends(get_call)]


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


class ReadOnlyContractRoute(ContractRoute):
    read_only = True


def v1_router(*, prefix: str = "", tags: list[str] | None = None, read_only: bool = False) -> APIRouter:
    """A family's router: every route on it passes the request contract. ``read_only=True`` promises
    that its GET handlers never write, so their charged requests take the write lock only to debit."""
    route_class = ReadOnlyContractRoute if read_only else ContractRoute
    return APIRouter(prefix=prefix, tags=list(tags or []), route_class=route_class)

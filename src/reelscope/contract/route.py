"""The request contract every /v1 route passes (ARCHITECTURE §3; spec §5, §7, §8; ADR 0019).

``ContractRoute`` wraps each /v1 endpoint: authenticate → rate limit → quote the price and refuse with
402 before any work (bad input first: a request so refused is validated, as a dry run is, and gets its
400 whatever the balance) → run the endpoint → debit only after a 2xx. One rule decides how:

* a **safe** request (GET, HEAD) reads: its endpoint gets a read session, which refuses statements
  that write (kit/db.py), and after a 2xx its debit is group-committed with the debits of concurrent
  requests (billing/debits.py). Nothing was written before the debit, so debiting after the read is
  as atomic as debiting with it; a debit that loses its race is still a 402, and the response waits
  for the commit;
* any other request runs its endpoint and its debit in one write transaction, with its
  ``Idempotency-Key`` (ADR 0004): commit on a 2xx, roll back (charging nothing) on anything else.
  So does a GET whose endpoint is marked ``@starts_work``: the spec makes some GETs start paid jobs
  (§4.7 satellite lookups), and a job row, its run and its events must commit with the debit.

What happened is kept on ``request.state.call`` for ``ContractHeadersMiddleware`` to render as headers
on every response, error responses included.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from contextlib import nullcontext
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from fastapi import APIRouter, Request, Response
from fastapi.routing import APIRoute
from sqlalchemy import event
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.types import ASGIApp, Receive, Scope, Send

from reelscope.auth import keys
from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.billing.prices import Price, price_of
from reelscope.billing.service import Debit
from reelscope.contract import dry_run, idempotency
from reelscope.contract.calls import SAFE_METHODS, CallState
from reelscope.contract.dependencies import runtime_of
from reelscope.contract.read_workers import ReadWorkers, read_call
from reelscope.kit.errors import Forbidden, InsufficientCredits, InvalidApiKey, MissingApiKey, PaymentRefused
from reelscope.kit.json_body import JsonBodyRequest, with_json_body
from reelscope.rate_limit import service as rate_limit_service
from reelscope.rate_limit.features import feature_of
from reelscope.runtime import Runtime

V1_PREFIX = "/v1"
# the status logged for a request whose client left before its answer (nginx's "client closed request")
CLIENT_GONE = 499

Handler = Callable[[Request], Coroutine[Any, Any, Response]]
F = TypeVar("F", bound=Callable[..., Any])


def terms_of(operation: str, path: str) -> tuple[Price, str]:
    """An operation's price (billing/prices.py) and rate-limit feature group (rate_limit/features.py).
    A route without a price fails when it is declared, never at request time."""
    try:
        price = price_of(operation)
    except KeyError:
        raise LookupError(f"/v1 operation {operation!r} needs an entry in billing/prices.py PRICES") from None
    return price, feature_of(operation, path)


def starts_work(endpoint: F) -> F:
    """Mark a GET endpoint that starts work (§4.7 lookups create a job, a run and events): the contract
    runs it like a non-safe request, in one write transaction with its debit and its Idempotency-Key.
    Read once, when the route is declared (``ContractRoute.get_route_handler``) and by the OpenAPI
    document (reference.py)."""
    endpoint.starts_work = True  # type: ignore[attr-defined]
    return endpoint


def writes_nothing(endpoint: F) -> F:
    """Mark a non-safe endpoint the spec says creates nothing (§4.4 suggest-keywords): the contract runs
    it like a safe request, with a read session that refuses writes, so it holds no write transaction
    (on SQLite, the one write lock) while it waits on something slow, such as the optional LLM (ADR
    0031). Read like ``starts_work``, when the route is declared and by the OpenAPI document."""
    endpoint.writes_nothing = True  # type: ignore[attr-defined]
    return endpoint


def prepared_by(step: Callable[[Request], Coroutine[Any, Any, None]]) -> Callable[[F], F]:
    """Mark a write endpoint with a step the contract awaits before the request's write transaction:
    a wait on the outside world whose answer the endpoint then finds on the request (a webhook URL's
    host, webhook/endpoints.py). Inside, once an Idempotency-Key's lookup began the transaction, the
    wait would hold SQLite's write lock (contract/calls.py ``outside_transaction``). The step must
    accept any request, bad input included: the endpoint validates it afterwards."""

    def mark(endpoint: F) -> F:
        endpoint.prepare = step  # type: ignore[attr-defined]
        return endpoint

    return mark


def small_read(endpoint: F) -> F:
    """Mark a safe endpoint whose reads stay small whatever the catalog's size: point reads by key, or
    one page of rows found through an index, and little Python over them. It runs on the API's event
    loop; every other read's endpoint runs in a read worker process (contract/read_workers.py, ADR
    0040), so that none holds the loop. A read marked here that turns out long is logged as holding the
    loop (kit/loop_watch.py). Read once, when the route is declared."""
    endpoint.small_read = True  # type: ignore[attr-defined]
    return endpoint


def runs_as_write(method: str, endpoint: Callable[..., Any]) -> bool:
    """Whether a request runs in one write transaction (with Idempotency-Key), or reads (ADR 0019)."""
    if getattr(endpoint, "writes_nothing", False) is True:
        return False
    return method not in SAFE_METHODS or getattr(endpoint, "starts_work", False) is True


def runs_on_loop(method: str, endpoint: Callable[..., Any]) -> bool:
    """Whether a request's endpoint runs on the API's event loop: writes (their transaction is this
    process's), reads marked ``@small_read`` and precomputed reads; the others run in a read worker
    when the process has any (ADR 0040)."""
    return (
        runs_as_write(method, endpoint)
        or getattr(endpoint, "small_read", False) is True
        or getattr(endpoint, "direct", None) is not None
    )


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


class ContractRoute(APIRoute):
    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        # a dry run validates the request through FastAPI, which then meets the guard, not the endpoint
        super().__init__(path, dry_run.guard(endpoint), **kwargs)
        if getattr(endpoint, "direct", None) is not None:
            # a precomputed read (contract/precomputed.py) takes the Request alone: FastAPI's dependency
            # solving, exit stacks and exception wrapper would do nothing for it (ADR 0014, 0017)
            self.app = _plain_request_response(self._contract_handler)

    def get_route_handler(self) -> Handler:
        direct: Handler | None = getattr(self.endpoint, "direct", None)
        check: Callable[[Request], Coroutine[Any, Any, None]] | None = getattr(self.endpoint, "check", None)
        prepare: Callable[[Request], Coroutine[Any, Any, None]] | None = getattr(
            self.endpoint, "prepare", None
        )
        inner = direct or super().get_route_handler()
        # the endpoint without the contract: what a read worker runs (contract/read_workers.py)
        self.endpoint_handler = inner
        operation = self.name
        price, feature = terms_of(operation, self.path_format)
        # the limiter counts per path template without the version prefix, as its keys always have
        counted_path = self.path_format.removeprefix(V1_PREFIX)
        # whether a safe (GET, HEAD) and another method's request of this route run as a write
        safe_writes, other_writes = runs_as_write("GET", self.endpoint), runs_as_write("POST", self.endpoint)
        # whether they run on the loop or in a read worker (ADR 0040)
        safe_on_loop, other_on_loop = runs_on_loop("GET", self.endpoint), runs_on_loop("POST", self.endpoint)

        async def handle(plain: Request) -> Response:
            request = with_json_body(plain)  # its body decoded strictly, by the endpoint and the quote
            runtime = runtime_of(request)
            call = CallState(operation=operation, request_id=request.state.request_id)
            request.state.call = call
            now = runtime.clock.now()

            # beyond the spec: ?dry_run=true quotes without work (contract/dry_run.py, ADR 0047)
            dry = dry_run.take(request)
            token = auth_service.bearer_token(request.headers.get("authorization"))
            if token is None or not keys.has_prefix(token):
                # §5.5: requests with no key or an unprefixed one are limited per IP first
                await runtime.limiter.check_ip(client_ip(request), now)
                raise MissingApiKey() if token is None else InvalidApiKey()

            call.quoted = price.base  # a fixed price needs neither the query string nor the body parsed
            if price.extra is not None:
                call.quoted = price.quote(request.query_params, await idempotency.json_body(request))
            # authentication and the rate limit need no transaction: point reads and the limiter's store
            caller = await auth_service.identify(runtime.db.fast, token, feature)
            principal = caller.principal
            call.principal, call.caller = principal, caller
            call.daily_cap = caller.daily_cap
            limits = rate_limit_service.apply_override(feature, caller.limit_override)
            endpoint = counted_path.replace("{platform}", str(request.path_params.get("platform", "")))
            if dry is not False:
                if dry is None:
                    raise dry_run.bad_value()
                await dry_run.count(runtime, call, principal.key_id, now)
                writes = safe_writes if request.method in SAFE_METHODS else other_writes
                if principal.scope == "read" and writes:
                    raise Forbidden("This API key is read-only")
                await dry_run.validate(request, call, inner, check)
                return await dry_run.answer(
                    runtime, call, caller, feature=feature, limits=limits, endpoint=endpoint, now=now
                )
            ticket = await runtime.limiter.hit(
                key_id=principal.key_id, endpoint=endpoint, limits=limits, now=now
            )
            call.rate = ticket.status
            safe = request.method in SAFE_METHODS
            writes = safe_writes if safe else other_writes
            # after the count: §8.1 exempts only 401 and 402, and the 403 carries X-RateLimit-*; a
            # read-only key reads, so it may not start work either (a lookup's GET writes a paid job)
            if principal.scope == "read" and writes:
                raise Forbidden("This API key is read-only")
            cap = runtime.settings.team_max_in_flight
            # beyond the spec: a key's daily spending cap refuses before any work, as a balance too low
            # does; the debit's conditional update still decides (billing/service.py, ADR 0047)
            over_cap = None if caller.daily_cap is None else caller.daily_cap.refusal(call.quoted, now)
            validated = over_cap is not None or caller.balance < call.quoted
            if validated:
                # §7, §8.1: bad input is a 400 whatever the balance, and counted (a 402 is not); so a
                # request its price may refuse is validated first, without work, as a dry run is. One
                # the balance covers (every fast path) is validated once, by its endpoint
                await dry_run.validate(request, call, inner, check)
            try:
                if over_cap is not None:
                    raise over_cap
                # beyond the spec, for operators hosting many teams: at most ``cap`` requests of a team
                # in flight at once, the next one refused at once (429, Retry-After: 1)
                async with (
                    nullcontext()
                    if cap is None
                    else runtime.limiter.in_flight(principal.team_id, call.request_id, cap, now)
                ):
                    if not writes:
                        on_loop = safe_on_loop if safe else other_on_loop
                        workers = None if on_loop else runtime.read_workers
                        return await _read_then_debit(request, runtime, call, inner, caller, now, workers)
                    if prepare is not None:
                        await prepare(request)
                    return await _in_one_transaction(request, runtime, call, inner, caller, now)
            except (PaymentRefused, rate_limit_service.TeamBusy) as refusal:
                if isinstance(refusal, rate_limit_service.TeamBusy) and not validated:
                    # §7: bad input is a 400 and free, whatever else would refuse it, the team's places
                    # in flight too. Validated only once refused (as a dry run is: a parse, no work, no
                    # place taken), so a request that gets a place is still validated once
                    await dry_run.validate(request, call, inner, check)
                # §8.1: a 402 does not count against the rate limit; nor does a request refused for
                # its team's requests in flight, which changes nothing
                if await runtime.limiter.release(ticket):
                    call.rate = ticket.status.given_back()
                raise

        self._contract_handler = handle
        return handle


def _plain_request_response(handler: Handler) -> ASGIApp:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        response = await handler(JsonBodyRequest(scope, receive, send))
        await response(scope, receive, send)

    return app


def _debit(call: CallState, caller: auth_service.Caller, now: datetime) -> Debit:
    return Debit(
        team_id=caller.principal.team_id,
        credits=call.final_price,
        operation=call.operation,
        reference=call.request_id,
        at=now,
        auto_top_up_below=caller.auto_top_up_below,
        daily_cap=caller.daily_cap,
    )


async def _read_then_debit(
    request: Request,
    runtime: Runtime,
    call: CallState,
    inner: Handler,
    caller: auth_service.Caller,
    now: datetime,
    workers: ReadWorkers | None,
) -> Response:
    """A safe request: the endpoint reads (a read session, opened on first use), on the loop or, given
    ``workers``, in a read worker (ADR 0040); then a 2xx is debited through the group commit
    (billing/debits.py)."""
    # 402 before any work, unless an auto top-up may cover it: the debit refills if one is due
    if caller.balance < call.quoted and caller.auto_top_up_below is None:
        raise InsufficientCredits(required=call.quoted, remaining=caller.balance)
    if workers is not None:
        body = await request.body()  # what the endpoint reads, if anything (a @writes_nothing POST)
        reply = await workers.run(
            caller.principal.team_id,
            lambda: read_call(request, body, call, runtime.clock.now()),
            request.is_disconnected,
        )
        if reply is None:  # the client left while its request waited for a worker: nothing ran
            return Response(status_code=CLIENT_GONE)
        response, call.settled = reply.response(), reply.settled
        if await request.is_disconnected():  # nor is an answer the client left before charged
            return response
    else:
        try:
            response = await inner(request)
        finally:
            if call.session is not None:
                await call.session.close()
                call.session = None
    if not 200 <= response.status_code < 300 or call.final_price == 0:
        return response
    remaining = await runtime.debits.debit(_debit(call, caller, now))
    call.charged, call.remaining = call.final_price, remaining
    return response


async def _in_one_transaction(
    request: Request,
    runtime: Runtime,
    call: CallState,
    inner: Handler,
    caller: auth_service.Caller,
    now: datetime,
) -> Response:
    """The endpoint and its debit in one write transaction: commit on a 2xx, roll back (charging
    nothing) on anything else."""
    team_id = caller.principal.team_id
    async with runtime.sqlite_write_gate or nullcontext(), runtime.db.write() as session:
        call.session, call.writes, call.gate = session, True, runtime.sqlite_write_gate
        event.listen(session.sync_session, "after_begin", partial(_began, call))
        try:
            await session.begin()
            idempotent = await idempotency.of(request)
            if idempotent is not None:
                replay = await idempotency.find_replay(session, team_id, idempotent, now)
                if replay is not None:
                    await session.rollback()
                    return replay
            # the balance was read with the caller: it may say "enough" (the conditional debit still
            # decides); a balance too low is read again here, where an auto top-up may refill it
            known = caller.balance if caller.balance >= call.quoted else None
            await billing_service.ensure_affordable(
                session, team_id, call.quoted, at=now, known_balance=known
            )
            response = await inner(request)
            if not 200 <= response.status_code < 300:
                await session.rollback()
                return response
            remaining = None
            if call.final_price > 0:
                remaining = await _charge(session, call, caller, now)
            if idempotent is not None:
                idempotency.remember(session, team_id, idempotent, response, now)
            await session.commit()
        except BaseException:
            await session.rollback()
            raise
        finally:
            call.session, call.gate = None, None
    if remaining is not None:
        call.charged, call.remaining = call.final_price, remaining
    return response


def _began(call: CallState, *_: object) -> None:
    """The request's transaction sent its first statement (SQLite: it holds the lock from here)."""
    call.began = True


async def _charge(session: AsyncSession, call: CallState, caller: auth_service.Caller, now: datetime) -> int:
    debit = _debit(call, caller, now)
    return await billing_service.charge(
        session,
        debit.team_id,
        debit.credits,
        operation=debit.operation,
        reference=debit.reference,
        at=debit.at,
        auto_top_up_below=debit.auto_top_up_below,
        daily_cap=debit.daily_cap,
    )


def v1_router(*, prefix: str = "", tags: list[str] | None = None) -> APIRouter:
    """A family's router: every route on it passes the request contract."""
    return APIRouter(prefix=prefix, tags=list(tags or []), route_class=ContractRoute)

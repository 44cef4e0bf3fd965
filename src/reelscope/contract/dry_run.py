"""``?dry_run=true`` on every /v1 operation (issue 30 item 4, ADR 0047; beyond the spec).

A dry run answers 200 with what the request would cost and whether it would be let through now,
charging nothing and doing nothing: no job, no row, no debit. It passes the contract as the request
would, up to the work: the key is authenticated (401), a read-only key may not dry-run what it may not
do (403), and the request's input is validated exactly as the endpoint would validate it (400, or 404
for an unknown platform or id) by FastAPI itself, whose call of the endpoint is then answered by
``guard`` instead of the endpoint. What the endpoint would only find out by doing the work (a source
that cannot answer, a cached repeat that settles lower) a dry run cannot say: it quotes the price the
contract quotes before any work (billing/prices.py).

Rate limits: a dry run counts as a free request of its own (the "everything else" group of §8.1, on a
counter of its own per key): it never uses up the operation's window, which it only reads, and cannot
be sent without limit either. Its ``X-RateLimit-*`` headers are that counter's; the body's
``rate_limit`` is the operation's, as the real request would find it.

The parameter belongs to the contract, not to the endpoint: it is taken out of the query string before
anything parses it, so ``dry_run=false`` reaches no endpoint that refuses parameters it does not know.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from datetime import datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import Request, Response
from fastapi.responses import JSONResponse

from reelscope.auth.service import Caller
from reelscope.billing import service as billing_service
from reelscope.contract.calls import CallState
from reelscope.kit.errors import ApiError, InsufficientCredits, RateLimitExceeded, ValidationFailed
from reelscope.rate_limit.features import FEATURE_LIMITS, Limits
from reelscope.runtime import Runtime

PARAMETER = "dry_run"
# the counter dry runs of a key share, under the default group's limits
COUNTED_AS = "dry_run"

_VALIDATING: ContextVar[bool] = ContextVar("dry_run_validating", default=False)


class _Validated(Response):
    """What a guarded endpoint answers during a dry run: its input was valid; nothing ran."""


def take(request: Request) -> bool | None:
    """Whether the request asks for a dry run, taking the parameter out of its query string; None for a
    value that is not a boolean (refused with 400 once the key is known)."""
    raw: bytes = request.scope.get("query_string", b"")
    if PARAMETER.encode() not in raw:
        return False
    pairs = parse_qsl(raw.decode("latin-1"), keep_blank_values=True)
    values = [value for name, value in pairs if name == PARAMETER]
    if not values:
        return False
    request.scope["query_string"] = urlencode(
        [(name, value) for name, value in pairs if name != PARAMETER]
    ).encode("latin-1")
    value = values[-1].strip().lower()  # the last of a repeated parameter, as FastAPI reads one
    if value in _FALSE:
        return False
    return True if value in _TRUE else None


# the values Pydantic takes as booleans, which every other flag of the API accepts
_TRUE = frozenset({"true", "1", "yes", "on", "t", "y"})
_FALSE = frozenset({"false", "0", "no", "off", "f", "n"})


F = Callable[..., Awaitable[Any]]


def guard(endpoint: F) -> F:
    """The endpoint, answering ``_Validated`` without running while a dry run validates its input."""
    if not inspect.iscoroutinefunction(endpoint):
        raise TypeError(f"/v1 endpoint {endpoint.__name__} must be async")

    @functools.wraps(endpoint)
    async def guarded(*args: Any, **kwargs: Any) -> Any:
        if _VALIDATING.get():
            return _Validated(status_code=204)
        return await endpoint(*args, **kwargs)

    return guarded


async def validate(
    request: Request,
    call: CallState,
    inner: Callable[[Request], Awaitable[Response]],
    check: Callable[[Request], Awaitable[None]] | None,
) -> None:
    """Validate the request as its endpoint would (its 400 or 404 raised), running nothing of it:
    FastAPI parses and validates, then calls the guarded endpoint, which answers at once. A precomputed
    read brings its own ``check`` (contract/precomputed.py)."""
    token = _VALIDATING.set(True)
    try:
        if check is not None:
            await check(request)
        else:
            await inner(request)
    finally:
        _VALIDATING.reset(token)
        if call.session is not None:  # a dependency may have opened a read session
            await call.session.close()
            call.session = None


async def answer(
    runtime: Runtime,
    call: CallState,
    caller: Caller,
    *,
    feature: str,
    limits: Limits,
    endpoint: str,
    now: datetime,
) -> Response:
    """The dry run's 200: the price, the balance before and after, and each refusal the request would
    get now (402 insufficient_credits or daily_cap_reached, 429 rate_limit_exceeded)."""
    price, key_id = call.quoted, caller.principal.key_id
    rate = await runtime.limiter.peek(key_id=key_id, endpoint=endpoint, limits=limits, now=now)
    async with runtime.db.transaction(write=False) as session:
        preview = await billing_service.preview(session, caller.principal.team_id, price, at=now)
    refusals: list[ApiError] = []
    if rate.remaining <= 0:
        refusals.append(RateLimitExceeded(f"The {feature} rate limit of {rate.limit} requests is used up"))
    cap = caller.daily_cap
    over_cap = cap.refusal(price, now) if cap is not None else None
    if over_cap is not None:
        refusals.append(over_cap)
    if preview.balance_after is None:
        refusals.append(InsufficientCredits(required=price, remaining=preview.balance))
    body = {
        "dry_run": True,
        "operation": call.operation,
        "price_credits": price,
        "price_usd": billing_service.credits_to_usd(price),
        "balance_credits": preview.balance,
        "balance_usd": billing_service.credits_to_usd(preview.balance),
        "balance_after_credits": preview.balance_after,
        "balance_after_usd": None
        if preview.balance_after is None
        else billing_service.credits_to_usd(preview.balance_after),
        "allowed": not refusals,
        "refusals": [{"status": e.status, "code": e.code, "message": e.message} for e in refusals],
        "rate_limit": {
            "feature": feature,
            "limit": rate.limit,
            "remaining": rate.remaining,
            "reset_at": rate.reset_at,
        },
        "key_daily_cap": None
        if cap is None
        else {
            "cap_credits": cap.cap,
            "spent_today_credits": cap.spent_on(now),
            "left_today_credits": cap.left_on(now),
        },
    }
    return JSONResponse({"data": body})


async def count(runtime: Runtime, call: CallState, key_id: str, now: datetime) -> None:
    """Count the dry run as a free request on its own counter (429 when that is used up)."""
    default = FEATURE_LIMITS["default"]
    ticket = await runtime.limiter.hit(key_id=key_id, endpoint=COUNTED_AS, limits=default, now=now)
    call.rate = ticket.status


def bad_value() -> ValidationFailed:
    return ValidationFailed([f"query.{PARAMETER}: Input should be a valid boolean"])

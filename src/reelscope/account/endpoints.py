from __future__ import annotations

from fastapi import Request, Response

from reelscope.account import service as account_service
from reelscope.account.schemas import Balance, Collector
from reelscope.collectors.registry import build_sources
from reelscope.contract import (
    CallState,
    ClockDep,
    PrincipalDep,
    RuntimeDep,
    direct_read,
    small_read,
    v1_router,
)
from reelscope.contract.dependencies import runtime_of
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/account", tags=["account"])


@router.get("/balance", response_model=Envelope[Balance], responses=errors(400))
@small_read
@direct_read
async def get_account_balance(request: Request) -> Response:
    """The team's prepaid balance in credits and dollars (free; 1 credit = $0.01), its auto top-up, and
    (beyond the spec) the calling API key's daily spending cap with what it was charged today (UTC), or
    null when the key has none."""
    # polled by clients: answered from the caller the contract read with the key at the start of this
    # request (the same point read of the team's row a second query would make), with no session and
    # nothing for FastAPI to solve (issue 33 item 7)
    call: CallState = request.state.call
    assert call.caller is not None  # read by the contract before any endpoint runs
    balance = account_service.balance_of(call.caller, runtime_of(request).clock.now())
    return Response(Envelope(data=balance).model_dump_json().encode(), media_type="application/json")


@router.get("/collectors", responses=errors(400))
async def get_account_collectors(
    principal: PrincipalDep, runtime: RuntimeDep, clock: ClockDep
) -> Envelope[list[Collector]]:
    """The data sources this server collects from (beyond the spec; free): for each, what it can do
    (capability → platforms), its state (`ok`, `rate_limited` until `state_until`, `circuit_open` until
    `state_until`, `unavailable` with the `reason`), each quota bucket's use in the current window (and
    the share background collection may spend), when each recurring pull is due, and its last success
    and error. The same as `reelscope collectors status`."""
    sources = build_sources(runtime.settings, clock, runtime.db)
    return Envelope(data=await account_service.collectors(sources, clock.now()))

from __future__ import annotations

from reelscope.account import service as account_service
from reelscope.account.schemas import Balance, Collector
from reelscope.collectors.registry import build_sources
from reelscope.contract import CallDep, ClockDep, PrincipalDep, RuntimeDep, SessionDep, small_read, v1_router
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/account", tags=["account"])


@router.get("/balance", responses=errors(400))
@small_read
async def get_account_balance(
    session: SessionDep, principal: PrincipalDep, call: CallDep, clock: ClockDep
) -> Envelope[Balance]:
    """The team's prepaid balance in credits and dollars (free; 1 credit = $0.01), its auto top-up, and
    (beyond the spec) the calling API key's daily spending cap with what it was charged today (UTC), or
    null when the key has none."""
    # the balance is polled: answered from the caller read with the key, as a second read would say
    # the same (the session is opened only where the contract did not read one: never, in practice)
    if call.caller is not None:
        return Envelope(data=account_service.balance_of(call.caller, clock.now()))
    balance = await account_service.balance(session, principal.team_id, call.daily_cap, clock.now())
    return Envelope(data=balance)


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

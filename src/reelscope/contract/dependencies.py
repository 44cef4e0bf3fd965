"""What an endpoint may declare: the session, the caller, the clock, the call, the runtime.

Dependencies are coroutines that take only the ``Request``: FastAPI runs a plain function dependency
on a worker thread, and a generator dependency costs an exit stack per request.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.auth.service import Principal
from reelscope.contract.calls import CallState
from reelscope.kit.clock import Clock
from reelscope.runtime import Runtime


def runtime_of(request: Request) -> Runtime:
    runtime: Runtime = request.app.state.runtime
    return runtime


async def get_session(request: Request) -> AsyncSession:
    """The request's session. A non-safe request's is the contract's write transaction (the debit
    commits with it); a safe request's is a read session, opened here on first use and closed by the
    contract after the handler. A read session refuses statements that write (kit/db.py)."""
    call: CallState = request.state.call
    if call.session is None:
        call.session = runtime_of(request).db.read()
    return call.session


async def get_principal(request: Request) -> Principal:
    principal = request.state.call.principal
    assert principal is not None  # set by the contract before any endpoint runs
    return principal  # type: ignore[no-any-return]


async def get_clock(request: Request) -> Clock:
    return runtime_of(request).clock


async def get_call(request: Request) -> CallState:
    call: CallState = request.state.call
    return call


async def get_runtime(request: Request) -> Runtime:
    return runtime_of(request)


SessionDep = Annotated[AsyncSession, Depends(get_session)]
PrincipalDep = Annotated[Principal, Depends(get_principal)]
ClockDep = Annotated[Clock, Depends(get_clock)]
CallDep = Annotated[CallState, Depends(get_call)]
RuntimeDep = Annotated[Runtime, Depends(get_runtime)]

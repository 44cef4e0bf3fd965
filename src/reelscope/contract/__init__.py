"""The request contract of ARCHITECTURE §3 (ADR 0019): what every /v1 route passes, and the two ways
an endpoint is written.

* A plain FastAPI endpoint on ``v1_router()``, declaring what it needs: ``SessionDep`` (a read session
  for GET, the request's write transaction otherwise), ``PrincipalDep``, ``ClockDep``, ``CallDep``
  (to ``settle`` a lower price). Parse, call one service function, return a schema.
* ``@precomputed(QueryModel)`` for a charged read of a body computed ahead (contract/precomputed.py).
* ``@small_read`` on a safe endpoint whose reads stay small at any catalog size (point reads, one page
  over an index): it runs on the event loop. Every other read runs in a read worker process
  (contract/read_workers.py, ADR 0040), so that no request holds the loop.
* ``@starts_work`` on a GET endpoint that starts a job (§4.7 lookups): it runs like a non-safe request,
  in one write transaction with its debit and its Idempotency-Key.
* ``@writes_nothing`` on a non-safe endpoint that creates nothing (§4.4 suggest-keywords): it runs like a
  safe request, with a read session, and holds no write transaction.

A route's price and rate-limit feature group come from ``billing/prices.py`` and
``rate_limit/features.py`` under its operation id (the endpoint's name); one missing from either fails
when the route is declared.
"""

from reelscope.contract.calls import SAFE_METHODS, CallState, ContractHeadersMiddleware
from reelscope.contract.dependencies import (
    CallDep,
    ClockDep,
    PrincipalDep,
    RuntimeDep,
    SessionDep,
    runtime_of,
)
from reelscope.contract.precomputed import Read, direct_read, precomputed
from reelscope.contract.route import (
    V1_PREFIX,
    ContractRoute,
    client_ip,
    prepared_by,
    runs_as_write,
    runs_on_loop,
    small_read,
    starts_work,
    terms_of,
    v1_router,
    writes_nothing,
)

__all__ = [
    "SAFE_METHODS",
    "V1_PREFIX",
    "CallDep",
    "CallState",
    "ClockDep",
    "ContractHeadersMiddleware",
    "ContractRoute",
    "PrincipalDep",
    "Read",
    "RuntimeDep",
    "SessionDep",
    "client_ip",
    "direct_read",
    "precomputed",
    "prepared_by",
    "runs_as_write",
    "runs_on_loop",
    "runtime_of",
    "small_read",
    "starts_work",
    "terms_of",
    "v1_router",
    "writes_nothing",
]

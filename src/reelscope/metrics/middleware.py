"""Every HTTP request counted once, in the process that serves it (issue 29 item 2).

``RequestMetrics`` is the app's outermost middleware: it sees every answer, the contract's refusals and
the edge's included, with its final status. It counts by method, route template and status and times
each request to its last byte. The route is the template the router matched (``/v1/agents/{agent_id}``),
never the path a client sent, so ids cannot grow the label set; a path no route matched is
``unmatched``, and a method no route serves is ``other``. A read that runs in a read worker process
(contract/read_workers.py) is counted here, in the API process, where its request arrived.

A charged request's credits are counted here too, once the contract has debited them
(``CallState.charged``), under the operation's rate-limit feature group (§8.1).
"""

from __future__ import annotations

import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from reelscope.contract.calls import CallState
from reelscope.kit import metrics
from reelscope.rate_limit.features import feature_of

UNMATCHED = "unmatched"
# methods any route serves; anything else a client sends is one label value, not one per spelling
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
# the answer of a request whose client left before it started (nginx's "client closed request")
CLIENT_GONE = "499"


def route_template(scope: Scope) -> str:
    """The template of the route the router matched for this request, or ``unmatched``."""
    route: Any = scope.get("route")
    template = getattr(route, "path_format", None) or getattr(route, "path", None)
    return template if isinstance(template, str) else UNMATCHED


class RequestMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # each label set's series, found once: ``labels()`` checks and locks on every call (~2 µs each)
        self._counted: dict[tuple[str, str, str], Any] = {}
        self._timed: dict[tuple[str, str], Any] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = CLIENT_GONE

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = str(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            method = scope["method"] if scope["method"] in METHODS else "other"
            route = route_template(scope)
            key = (method, route, status)
            counted = self._counted.get(key)
            if counted is None:
                counted = self._counted[key] = metrics.HTTP_REQUESTS.labels(*key)
            counted.inc()
            timed = self._timed.get((method, route))
            if timed is None:
                timed = self._timed[method, route] = metrics.HTTP_SECONDS.labels(method, route)
            timed.observe(time.perf_counter() - started)
            call: CallState | None = scope.get("state", {}).get("call")
            if call is not None and call.charged > 0:
                feature = feature_of(call.operation, route)
                metrics.CREDITS_CHARGED.labels(feature, call.operation).inc(call.charged)

"""A ``reelscope worker``'s own ``/metrics`` (issue 29 item 2): for workers that share no metrics
directory with an API process, such as one per container.

A worker serves no HTTP otherwise, so its counters (job outcomes, webhook attempts, collector calls, its
pooled connections) would be seen by no scrape. With ``REELSCOPE_WORKER_METRICS_PORT`` set it answers
``GET /metrics`` on that port, from a thread, with the same bearer token as the API's
(``REELSCOPE_METRICS_TOKEN``), and ``GET /livez`` (no token) for an orchestrator's liveness probe.
The state read from the database at scrape time (queue depth, deliveries due, quota left) is the API's
to report, not repeated here.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import make_wsgi_app

from reelscope.config import Settings
from reelscope.kit import metrics
from reelscope.metrics import service as metrics_service
from reelscope.metrics.endpoints import PATH, authorized, expected_token, refusal_body

StartResponse = Callable[..., Any]
LIVEZ = "/livez"


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every 15 s are not worth a log line each."""


def _guarded(settings: Settings) -> Callable[[dict[str, Any], StartResponse], Iterable[bytes]]:
    exposition = make_wsgi_app(metrics_service.registry_of([]))
    expected = expected_token(settings)

    def app(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == LIVEZ:  # the process answers: what an orchestrator probes
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b'{"status":"ok"}']
        if environ.get("PATH_INFO") != PATH:
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        if not authorized(expected, environ.get("HTTP_AUTHORIZATION")):
            start_response(
                "401 Unauthorized",
                [("Content-Type", "application/json"), ("WWW-Authenticate", 'Bearer realm="metrics"')],
            )
            return [refusal_body()]
        return exposition(environ, start_response)  # type: ignore[no-any-return]

    return app


def serve(settings: Settings) -> WSGIServer | None:
    """Start the worker's ``/metrics`` on ``REELSCOPE_WORKER_METRICS_PORT`` (at ``REELSCOPE_HOST``), if
    set and metrics are on; the server, to be shut down by the caller."""
    port = settings.worker_metrics_port
    if port is None or not settings.metrics:
        return None
    metrics.use_directory(settings.metrics_dir)
    server = make_server(settings.host, port, _guarded(settings), handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, name="reelscope-metrics", daemon=True).start()
    return server

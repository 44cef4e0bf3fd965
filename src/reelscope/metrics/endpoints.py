"""``GET /metrics`` (issue 29 item 2; beyond the spec): Prometheus's text format, outside the contract.

Like ``/livez`` and ``/readyz`` it needs no API key, is neither rate limited nor charged, and is not in
the OpenAPI document. With ``REELSCOPE_METRICS_TOKEN`` set it answers only a request bearing that token
(``Authorization: Bearer <token>``), else 401 in the §2.8 shape; the token is compared in constant time.
"""

from __future__ import annotations

import hmac

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST

from reelscope.config import Settings
from reelscope.kit import metrics
from reelscope.kit.errors import error_body
from reelscope.metrics import service as metrics_service
from reelscope.metrics.middleware import RequestMetrics
from reelscope.runtime import Runtime

PATH = "/metrics"


def expected_token(settings: Settings) -> bytes | None:
    """The token a scrape must bear, or None when none is set (an empty value sets none)."""
    secret = settings.metrics_token
    value = secret.get_secret_value() if secret is not None else ""
    return value.encode() if value else None


def authorized(expected: bytes | None, authorization: str | None) -> bool:
    """Whether a scrape may read: no token is set, or the request bears it."""
    if expected is None:
        return True
    scheme, _, given = (authorization or "").partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected)


def refusal_body() -> bytes:
    """The 401's body, in the §2.8 shape (the token is never echoed)."""
    message = "GET /metrics needs 'Authorization: Bearer <metrics token>'"
    return orjson.dumps(error_body(401, "invalid_metrics_token", message))


def _refused() -> Response:
    return Response(
        refusal_body(),
        status_code=401,
        media_type="application/json",
        headers={"WWW-Authenticate": 'Bearer realm="metrics"'},
    )


def add_metrics(app: FastAPI, settings: Settings) -> None:
    """Count every request (outermost middleware) and serve ``GET /metrics``, unless
    ``REELSCOPE_METRICS=false``. Values go to ``REELSCOPE_METRICS_DIR`` when it is set (kit/metrics.py)."""
    if not settings.metrics:
        return
    metrics.use_directory(settings.metrics_dir)
    app.add_middleware(RequestMetrics)
    expected = expected_token(settings)

    @app.get(PATH, include_in_schema=False)
    async def get_metrics(request: Request) -> Response:
        if not authorized(expected, request.headers.get("authorization")):
            return _refused()
        runtime: Runtime = request.app.state.runtime
        return Response(await metrics_service.exposition(runtime), media_type=CONTENT_TYPE_LATEST)

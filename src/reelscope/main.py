"""create_app(): lifespan, middleware, exception handlers, and the API map."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import orjson
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from reelscope import __version__
from reelscope.api import include_v1, operation_id
from reelscope.config import Settings, load_settings
from reelscope.contract import ContractHeadersMiddleware
from reelscope.dashboard.endpoints import add_dashboard_routes
from reelscope.kit import metrics
from reelscope.kit.clock import Clock
from reelscope.kit.db import is_lock_busy
from reelscope.kit.edge import BodyRefused, EdgeGuard
from reelscope.kit.errors import (
    ApiError,
    InternalError,
    MethodNotAllowed,
    NotFound,
    ServiceUnavailable,
    error_body,
)
from reelscope.kit.logging import get_logger
from reelscope.kit.loop_watch import LoopWatch
from reelscope.kit.validation import api_error_of
from reelscope.llms_txt import LLMS_FULL_URL, LLMS_URL, llms_full_txt, llms_txt
from reelscope.metrics.endpoints import add_metrics
from reelscope.probes import add_probe_routes
from reelscope.reference import add_docs_routes, build_document
from reelscope.runtime import Runtime, build_runtime

log = get_logger(__name__)

GREETING = "Reelscope short-form video intelligence API. Docs at /docs and /openapi.json"


def create_app(
    settings: Settings | None = None, *, clock: Clock | None = None, runtime: Runtime | None = None
) -> FastAPI:
    runtime = runtime or build_runtime(settings or load_settings(), clock)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        watch = None
        if runtime.settings.loop_held_warning_ms > 0:
            # a callback holding the loop is logged with its route (ADR 0040)
            watch = LoopWatch(asyncio.get_running_loop(), runtime.settings.loop_held_warning_ms)
            watch.start()
        if runtime.read_workers is not None:
            runtime.read_workers.start()
        try:
            yield
        finally:
            if watch is not None:
                watch.stop()
            await runtime.close()
            metrics.forget_this_process()

    app = FastAPI(
        title="Reelscope — Short-Form Social Video Intelligence API",
        version=__version__,
        lifespan=lifespan,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        generate_unique_id_function=operation_id,
        # a trailing slash is another path (404 in the §7 shape), never a redirect to http://
        redirect_slashes=False,
        # FastAPI's own OpenTelemetry hooks: metrics are Prometheus's (metrics/, ADR 0050), and with
        # them on, every request asked OpenTelemetry for its providers, reading the environment each
        # time (~9% of a charged read's CPU, issue 33 item 7)
        telemetry={"tracing": False, "metrics": False, "logs": False, "operation_spans": False},
    )
    app.state.runtime = runtime

    _install_exception_handlers(app)
    # added first, so it runs inside the contract's headers: its refusals carry them (kit/edge.py)
    app.add_middleware(
        EdgeGuard,
        max_body_bytes=runtime.settings.max_body_bytes,
        body_timeout_seconds=runtime.settings.body_timeout_seconds,
    )
    app.add_middleware(ContractHeadersMiddleware, render_unexpected=render_unexpected)

    @app.get("/", include_in_schema=True, tags=["health"], operation_id="get_health")
    async def get_health() -> str:
        """Health check: a short greeting, no authentication (§1)."""
        return GREETING

    # these read their app from the request, not from this function's scope: FastAPI keeps every endpoint
    # it has classified in a process-wide cache of 4,096 entries, and an endpoint holding its app there
    # held the whole app and its runtime after they were done with (a test process built one per test
    # and kept some 40 of them, over a million objects that every full collection walked)
    @app.get("/openapi.json", include_in_schema=False)
    async def get_openapi_document(request: Request) -> Response:
        return Response(openapi_body(request.app), media_type="application/json")

    @app.get(LLMS_URL, include_in_schema=False)
    async def get_llms_txt(request: Request) -> Response:
        body = _kept_text(request.app, "llms_txt", llms_txt)
        return Response(body, media_type="text/plain; charset=utf-8")

    @app.get(LLMS_FULL_URL, include_in_schema=False)
    async def get_llms_full_txt(request: Request) -> Response:
        body = _kept_text(request.app, "llms_full_txt", llms_full_txt)
        return Response(body, media_type="text/plain; charset=utf-8")

    # /livez and /readyz beside the greeting, outside the contract (probes.py; issue 29 item 3)
    add_probe_routes(app)
    # Prometheus /metrics and the request counting, outermost (metrics/; issue 29 item 2)
    add_metrics(app, runtime.settings)
    include_v1(app)
    # the interactive reference beside /openapi.json, registered after /v1 so that the hot routes are
    # still matched first (ADR 0014); plain routes, outside the contract, no key needed
    add_docs_routes(app)
    # tracked items' dashboard pages, opened by signed links (issue 20 item 6)
    add_dashboard_routes(app)
    return app


def openapi_document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI 3.0 description (§9), built once per app (reference.py, ADR 0018)."""
    cached: dict[str, Any] | None = getattr(app.state, "openapi_30", None)
    if cached is None:
        cached = build_document(app)
        app.state.openapi_30 = cached
    return cached


def openapi_body(app: FastAPI) -> bytes:
    """``GET /openapi.json``'s bytes, serialized once per app (the document is large: serializing it per
    request cost 40-60 ms)."""
    body: bytes | None = getattr(app.state, "openapi_30_body", None)
    if body is None:
        body = bytes(JSONResponse(openapi_document(app)).body)
        app.state.openapi_30_body = body
    return body


def prepare(app: FastAPI) -> None:
    """What a serving process would otherwise build on the first request for it, built before it serves:
    the OpenAPI document and its texts (~1 s of CPU at start; the first ``GET /openapi.json`` held the
    event loop that long, issue 33 item 2)."""
    openapi_body(app)
    _kept_text(app, "llms_txt", llms_txt)
    _kept_text(app, "llms_full_txt", llms_full_txt)


def _kept_text(app: FastAPI, name: str, render: Callable[[dict[str, Any]], str]) -> bytes:
    """A plain-text rendering of the OpenAPI document (llms_txt.py), made once per app like the
    document itself, so it always lists what this app serves."""
    body: bytes | None = getattr(app.state, name, None)
    if body is None:
        body = render(openapi_document(app)).encode()
        setattr(app.state, name, body)
    return body


def _json_error(error: ApiError) -> JSONResponse:
    return JSONResponse(error.body(), status_code=error.status, headers=error.headers or None)


# a request that met SQLite's write lock held past its busy timeout (30 s: a machine overloaded, or a
# writer holding the lock that long) is told to come back, as §7's 503 says, and charged nothing: it
# changed nothing (its transaction, or its debit's, rolled back). Seen in benchmarks/soak.py as a 500.
DATABASE_BUSY_RETRY_AFTER_S = 5


def _install_exception_handlers(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def on_api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return _json_error(exc)

    async def on_database_error(request: Request, exc: Exception) -> JSONResponse:
        if not is_lock_busy(exc):
            raise exc  # rendered as any unexpected failure (render_unexpected)
        log.warning("request.database_busy", path=request.url.path, error_type=type(exc).__name__)
        retry = str(DATABASE_BUSY_RETRY_AFTER_S)
        busy = ServiceUnavailable(
            f"The database is busy; retry in {retry} seconds", headers={"Retry-After": retry}
        )
        return _json_error(busy)

    app.add_exception_handler(DBAPIError, on_database_error)
    app.add_exception_handler(sqlite3.OperationalError, on_database_error)

    @app.exception_handler(RequestValidationError)
    async def on_validation_error(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return _json_error(api_error_of(list(exc.errors())))

    @app.exception_handler(StarletteHTTPException)
    async def on_http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if isinstance(exc, BodyRefused):
            return _json_error(exc.error)
        if exc.status_code == 404:
            return _json_error(NotFound(f"No route matches {request.method} {request.url.path}"))
        if exc.status_code == 405:
            error = MethodNotAllowed(f"{request.method} is not allowed on {request.url.path}")
            allow = _allowed_methods(request)
            if allow:
                error.headers["Allow"] = allow
            return _json_error(error)
        detail = exc.detail if isinstance(exc.detail, str) else "Request failed"
        return JSONResponse(error_body(exc.status_code, "http_error", detail), status_code=exc.status_code)


def _allowed_methods(request: Request) -> str:
    """Every method some route serves on this path (RFC 9110 §15.5.6). Starlette names only the first
    route whose path matched, and GET and POST on one path are two routes here."""
    methods: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, APIRoute) and route.path_regex.match(request.url.path):
            methods |= route.methods or set()
    return ", ".join(sorted(methods))


async def render_unexpected(exc: Exception, request_id: str) -> tuple[int, bytes]:
    log.error("request.unexpected_error", request_id=request_id, error_type=type(exc).__name__, exc_info=exc)
    error = InternalError(f"Unexpected failure; quote request id {request_id} when reporting it")
    return error.status, orjson.dumps(error.body())

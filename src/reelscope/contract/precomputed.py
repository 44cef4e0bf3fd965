"""The helpers beside plain FastAPI endpoints, for reads the contract calls with the ``Request`` alone:
charged reads of precomputed bodies (ADR 0019), and ``direct_read`` answers from what the contract read
already (the balance, ADR 0052).

A digest or a hashtag statistic is computed before anyone asks (a refresh, a rollup) and served as
JSON this process already rendered, under the version of the data it came from (kit/caches.py). Per
request such a read costs little more than the contract itself, so what FastAPI does around an
endpoint (dependency solving, per-field query parsing, response validation, exit stacks) would be
most of it. ``@precomputed(QueryModel)`` turns a typed function into an endpoint the contract calls
directly with the ``Request``:

    @router.get("/{platform}/videos/digest", response_model=Envelope[list[VideoOut]])
    @precomputed(DigestQuery)
    async def get_platform_videos_digest(read: Read[DigestQuery], platform: Platform) -> bytes:
        return await digest_service.digest_body(read.db, read.caches, platform, read.now, read.query.limit)

The function gets a ``Read`` (the validated query, the moment, the database and the caches) and its
path parameters, converted to their annotations (an enum value that is not a member is a 404, §0),
and returns the rendered JSON body. The query model must be frozen (its instances are kept per query
string). OpenAPI documents the path and query parameters exactly as FastAPI would for
``Annotated[Query, Query()]`` and the path parameters, because the endpoint's signature says so; the
route's ``response_model`` documents the body. Use it only for bodies computed ahead: anything that
reads per request belongs in a plain endpoint with ``SessionDep`` (or, answered from the caller row
alone, in a ``direct_read``).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Annotated, Any, Generic, TypeVar, get_type_hints

from fastapi import Query, Request
from pydantic import BaseModel
from starlette.responses import Response

from reelscope.contract.dependencies import runtime_of
from reelscope.kit.caches import ReadCaches
from reelscope.kit.db import Database
from reelscope.kit.errors import NotFound
from reelscope.kit.query import parse_query

Q = TypeVar("Q", bound=BaseModel)


@dataclass(frozen=True)
class Read(Generic[Q]):
    query: Q
    now: datetime
    db: Database
    caches: ReadCaches


Body = Callable[..., Awaitable[bytes]]


def precomputed(query: type[Q]) -> Callable[[Body], Callable[..., Awaitable[Response]]]:
    if not query.model_config.get("frozen"):
        raise TypeError(f"{query.__name__} must be frozen to be kept per query string")

    def wrap(body: Body) -> Callable[..., Awaitable[Response]]:
        hints = get_type_hints(body, include_extras=True)
        path_params = [name for name in inspect.signature(body).parameters if name != "read"]
        converters = {name: _converter(name, hints[name]) for name in path_params}

        def parsed(request: Request) -> tuple[Read[Q], dict[str, Any]]:
            """The validated query and path parameters: a 400 or 404 for bad input."""
            runtime = runtime_of(request)
            read = Read(
                query=parse_query(query, request, runtime.caches),
                now=runtime.clock.now(),
                db=runtime.db,
                caches=runtime.caches,
            )
            return read, {name: convert(request.path_params[name]) for name, convert in converters.items()}

        async def direct(request: Request) -> Response:
            read, values = parsed(request)
            return Response(content=await body(read, **values), media_type="application/json")

        async def check(request: Request) -> None:
            parsed(request)

        @functools.wraps(body)
        async def endpoint(request: Request) -> Response:
            return await direct(request)

        # what OpenAPI documents: the path parameters and the query model, as FastAPI would have
        # solved them; the contract calls ``direct`` instead (contract/route.py)
        endpoint.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
            [
                inspect.Parameter("request", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=Request),
                *(
                    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, annotation=hints[name])
                    for name in path_params
                ),
                inspect.Parameter(
                    "query", inspect.Parameter.KEYWORD_ONLY, annotation=Annotated[query, Query()]
                ),
            ],
            return_annotation=Response,
        )
        del endpoint.__wrapped__
        endpoint.__annotations__ = {}
        endpoint.direct = direct  # type: ignore[attr-defined]
        # what a dry run validates, without reading the body (contract/dry_run.py)
        endpoint.check = check  # type: ignore[attr-defined]
        return endpoint

    return wrap


def _converter(name: str, annotation: Any) -> Callable[[str], Any]:
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        enum = annotation

        def member(value: str) -> Any:
            try:
                return enum(value)
            except ValueError:
                raise NotFound(f"Unknown {name} {value!r}") from None

        return member
    if annotation is str:
        return str
    raise TypeError(f"path parameter {name!r}: a precomputed read takes str or enum path parameters")


Plain = Callable[[Request], Awaitable[Response]]


def direct_read(endpoint: Plain) -> Plain:
    """An endpoint the contract calls with the ``Request`` alone, as it calls a precomputed read: for a
    read answered from what the contract already read (``request.state.call``), which takes no query
    parameter and no path parameter, so FastAPI would solve and validate nothing of use around it.
    The route's ``response_model`` documents the body."""

    async def check(_request: Request) -> None:
        return None

    endpoint.direct = endpoint  # type: ignore[attr-defined]
    endpoint.check = check  # type: ignore[attr-defined]
    return endpoint

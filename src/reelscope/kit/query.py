"""Query strings validated in one pydantic call, for charged reads of precomputed bodies (ADR 0014).

FastAPI turns a query-parameter model (``Annotated[Model, Query()]``) into arguments field by field on
every request, inspecting each field's annotation as it goes; on the hashtag routes that cost more than
the rest of the handler. ``parse_query`` validates the whole query string with the model at once and
raises the ``RequestValidationError`` FastAPI would (each location under ``query``), so the 400 is the
same; ``query_parameters`` gives the route the OpenAPI parameters FastAPI would have generated.
"""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

from reelscope.kit.caches import ReadCaches

Model = TypeVar("Model", bound=BaseModel)


def parse_query(model: type[Model], request: Request, caches: ReadCaches) -> Model:
    """The query string as ``model``; a repeated parameter counts with its last value, as in FastAPI.

    ``model`` must be frozen: a query string already validated gives back the same instance (clients
    repeat the same URLs), so only a new query string is parsed and validated. Refusals are not kept."""
    raw: bytes = request.scope.get("query_string", b"")
    key = ("query", model, raw)
    found, kept = caches.lookup(key, None)
    if found:
        return kept  # type: ignore[no-any-return]
    try:
        parsed = model.model_validate(dict(request.query_params))
    except ValidationError as exc:
        errors = [{**error, "loc": ("query", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None
    if not model.model_config.get("frozen"):
        raise TypeError(f"{model.__name__} must be frozen to be kept by parse_query")
    caches.keep(key, None, parsed)
    return parsed


def query_parameters(model: type[BaseModel]) -> dict[str, Any]:
    """``openapi_extra`` documenting each field of ``model`` as an optional or required query parameter."""
    schema = model.model_json_schema()
    required = set(schema.get("required", ()))
    parameters = []
    for name, field in schema.get("properties", {}).items():
        parameter: dict[str, Any] = {
            "name": name,
            "in": "query",
            "required": name in required,
            "schema": field,
        }
        if "description" in field:
            parameter["description"] = field["description"]
        parameters.append(parameter)
    return {"parameters": parameters}

"""Query strings validated in one pydantic call, for the hottest routes (ADR 0014).

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

Model = TypeVar("Model", bound=BaseModel)


_parsed: dict[tuple[type[BaseModel], bytes], BaseModel] = {}
_MAX_PARSED = 4_096


def parse_query(model: type[Model], request: Request) -> Model:
    """The query string as ``model``; a repeated parameter counts with its last value, as in FastAPI.

    ``model`` must be frozen: a query string already validated gives back the same instance (clients
    repeat the same URLs), so only a new query string is parsed and validated. Refusals are not kept."""
    raw: bytes = request.scope.get("query_string", b"")
    kept = _parsed.get((model, raw))
    if kept is not None:
        return kept  # type: ignore[return-value]
    try:
        parsed = model.model_validate(dict(request.query_params))
    except ValidationError as exc:
        errors = [{**error, "loc": ("query", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None
    if not model.model_config.get("frozen"):
        raise TypeError(f"{model.__name__} must be frozen to be kept by parse_query")
    if len(_parsed) >= _MAX_PARSED:
        _parsed.clear()
    _parsed[(model, raw)] = parsed
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

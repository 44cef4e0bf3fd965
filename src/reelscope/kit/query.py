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


def parse_query(model: type[Model], request: Request) -> Model:
    """The query string as ``model``; a repeated parameter counts with its last value, as in FastAPI."""
    try:
        return model.model_validate(dict(request.query_params))
    except ValidationError as exc:
        errors = [{**error, "loc": ("query", *error["loc"])} for error in exc.errors()]
        raise RequestValidationError(errors) from None


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

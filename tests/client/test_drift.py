"""The client against the app's own ``/openapi.json``: every operation is there with its method and
path, each method takes exactly the operation's parameters, and each model has exactly the fields of
its schema. A change to the API fails here until ``python -m reelscope.client.codegen`` is run again."""

from __future__ import annotations

import inspect
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from reelscope.client import models
from reelscope.client.async_api import AsyncOperations
from reelscope.client.base import Pagination
from reelscope.client.codegen import NOT_SENT_PARAMETERS, Renderer
from reelscope.client.operations import OPERATIONS
from reelscope.client.sync_api import SyncOperations

Document = dict[str, Any]
MODELS: list[type[BaseModel]] = [
    model
    for model in (*vars(models).values(), Pagination)
    if isinstance(model, type) and issubclass(model, BaseModel) and "__schema_name__" in vars(model)
]


_SERVED: list[Document] = []  # fetched once per worker: building the document is most of a test's time


@pytest.fixture
async def document(client: httpx.AsyncClient) -> Document:
    if not _SERVED:
        response = await client.get("/openapi.json")
        assert response.status_code == 200
        _SERVED.append(response.json())
    return _SERVED[0]


def served_operations(document: Document) -> dict[str, tuple[str, str, Document]]:
    """operationId → (method, path, operation) of every /v1 operation but the legacy aliases (§4.5)."""
    found = {}
    for path, item in document["paths"].items():
        if not path.startswith("/v1/") or path.startswith(("/v1/orbit", "/v1/comet")):
            continue
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                found[operation["operationId"]] = (method.upper(), path, operation)
    return found


def wire_parameters(renderer: Renderer, operation: Document) -> dict[str, bool]:
    """name → required, of the path and query parameters and the JSON body's fields."""
    params = {
        p["name"]: bool(p.get("required"))
        for p in operation.get("parameters", [])
        if p["in"] in ("path", "query") and p["name"] not in NOT_SENT_PARAMETERS
    }
    body = operation.get("requestBody")
    if body:
        _name, schema = renderer.resolve(body["content"]["application/json"]["schema"])
        required = set(schema.get("required", [])) if body.get("required") else set()
        params |= {name: name in required for name in schema.get("properties", {})}
    return params


def method_parameters(method: Any) -> dict[str, bool]:
    signature = inspect.signature(method)
    return {
        name.rstrip("_"): parameter.default is inspect.Parameter.empty
        for name, parameter in signature.parameters.items()
        if name != "self"
    }


class TestOperations:
    async def test_every_operation_is_a_method_and_nothing_else_is(self, document: Document) -> None:
        served = served_operations(document)
        assert set(OPERATIONS) == set(served)
        for name, operation in OPERATIONS.items():
            method, path, _op = served[name]
            assert (operation.method, operation.path) == (method, path), name
            assert callable(getattr(SyncOperations, name)) and callable(getattr(AsyncOperations, name))

    async def test_each_method_takes_the_operations_parameters(self, document: Document) -> None:
        renderer = Renderer(document)
        for name, (_method, _path, operation) in served_operations(document).items():
            expected = wire_parameters(renderer, operation)
            assert method_parameters(getattr(SyncOperations, name)) == expected, name
            assert method_parameters(getattr(AsyncOperations, name)) == expected, name

    async def test_each_method_returns_the_operations_response_model(self, document: Document) -> None:
        renderer = Renderer(document)
        for endpoint in renderer.endpoints():
            name = endpoint.operation["operationId"]
            for cls in (SyncOperations, AsyncOperations):
                annotation = inspect.signature(getattr(cls, name)).return_annotation
                assert annotation == renderer.returns(endpoint), name

    async def test_prices_are_the_documents(self, document: Document) -> None:
        for name, (_method, _path, operation) in served_operations(document).items():
            assert OPERATIONS[name].price_usd == operation["x-cost"]["usd"], name
            assert OPERATIONS[name].price_varies == operation["x-cost"]["varies"], name


class TestModels:
    async def test_each_models_fields_are_its_schemas_properties(self, document: Document) -> None:
        schemas = document["components"]["schemas"]
        assert len(MODELS) > 50
        for model in MODELS:
            schema = schemas[vars(model)["__schema_name__"]]
            fields = {info.alias or name: info.is_required() for name, info in model.model_fields.items()}
            expected = {name: name in schema.get("required", []) for name in schema["properties"]}
            assert fields == expected, model.__name__

    async def test_every_schema_the_client_names_is_a_model(self, document: Document) -> None:
        renderer = Renderer(document)
        for endpoint in renderer.endpoints():
            renderer.returns(endpoint)
        named = {vars(model)["__schema_name__"] for model in MODELS}
        classes = {n for n in renderer.needed if "properties" in document["components"]["schemas"][n]}
        assert classes <= named

"""GET / and the OpenAPI 3.0 document (spec §1, §9)."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest
from openapi_spec_validator import validate

from reelscope.main import GREETING


class TestHealth:
    async def test_greeting_without_authentication(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("application/json")
        assert response.json() == GREETING
        assert response.headers["X-Cost"] == "0.00"
        assert response.headers["X-Credits-Used"] == "0"


class TestOpenApi:
    async def test_served_without_a_key_as_valid_openapi_30(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/openapi.json")
        assert response.status_code == 200
        document = response.json()
        assert document["openapi"].startswith("3.0.")
        validate(document)

    async def test_operation_ids_are_stable_verb_noun_names(self, client: httpx.AsyncClient) -> None:
        document = (await client.get("/openapi.json")).json()
        ids = [op["operationId"] for path in document["paths"].values() for op in path.values()]
        assert len(ids) == len(set(ids))
        for operation_id in ids:
            assert re.fullmatch(
                r"(get|list|create|update|delete|search|lookup|retry|enable|send|suggest|apply|"
                r"dismiss|revert|collect|set)_[a-z0-9_]+",
                operation_id,
            ), operation_id

    async def test_every_v1_route_declares_its_errors_in_the_error_shape(
        self, client: httpx.AsyncClient
    ) -> None:
        document = (await client.get("/openapi.json")).json()
        for path, operations in document["paths"].items():
            if not path.startswith("/v1"):
                continue
            for method, operation in operations.items():
                declared = set(operation["responses"])
                assert {"401", "429", "500"} <= declared, (method, path)
                error = operation["responses"]["401"]["content"]["application/json"]["schema"]
                assert error == {"$ref": "#/components/schemas/ErrorBody"}
                assert operation.get("security", document.get("security")), (method, path)

    async def test_health_needs_no_security(self, client: httpx.AsyncClient) -> None:
        document = (await client.get("/openapi.json")).json()
        assert document["paths"]["/"]["get"]["security"] == []


_DOCUMENT: dict[str, Any] = {}


class TestQueryParametersDocumented:
    """The hot read routes validate their query string themselves (kit/query.py, ADR 0014); their
    parameters must still be in the OpenAPI document, as FastAPI would have listed them."""

    @pytest.mark.parametrize(
        ("path", "names"),
        [
            ("/v1/videos/digest", ["limit"]),
            ("/v1/{platform}/videos/digest", ["platform", "limit"]),
            ("/v1/hashtags", ["start_date", "end_date", "limit", "page", "order_by", "sort"]),
            (
                "/v1/{platform}/hashtags",
                ["platform", "start_date", "end_date", "limit", "page", "order_by", "sort"],
            ),
            ("/v1/hashtags/{hashtag}/performance", ["hashtag", "start_date", "end_date"]),
        ],
    )
    async def test_parameters(self, client: httpx.AsyncClient, path: str, names: list[str]) -> None:
        # the served document is the same in every case: fetched once (building it is the case's time)
        if not _DOCUMENT:
            _DOCUMENT.update((await client.get("/openapi.json")).json())
        document = _DOCUMENT
        parameters = document["paths"][path]["get"]["parameters"]
        # and the contract's dry_run, last, as on every paid operation (ADR 0047)
        assert [p["name"] for p in parameters] == [*names, "dry_run"]
        limit = next((p for p in parameters if p["name"] == "limit"), None)
        if limit is not None:
            assert limit["in"] == "query" and limit["required"] is False
            assert limit["schema"]["minimum"] == 1 and limit["schema"]["default"] == 50

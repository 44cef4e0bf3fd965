"""The served OpenAPI document against the app's routes and the tables the contract reads (spec §7,
§8.1, §8.2, §9; ADR 0018), and the interactive reference at /docs.

Every rule is derived from the routes, ``PRICES`` and ``FEATURE_LIMITS``: an operation a family adds
later is checked here without a line of this file changing.
"""

from __future__ import annotations

import copy
import re
from collections.abc import AsyncIterator, Iterator
from html.parser import HTMLParser
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request, Response
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from openapi_spec_validator import validate
from pydantic import BaseModel

from reelscope.billing.prices import PRICES, Price, price_of
from reelscope.contract import ContractRoute, runs_as_write
from reelscope.main import create_app
from reelscope.rate_limit.features import FEATURE_LIMITS, feature_of
from reelscope.reference import REQUIRED_BY_SERVICE
from reelscope.runtime import Runtime
from tests.conftest import MakeTeam
from tests.kit.test_pages import assert_served_page

Document = dict[str, Any]
CONTRACT_HEADERS = {
    "x-cost",
    "x-credits-used",
    "x-credits-remaining",
    "x-balance-remaining",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "retry-after",
    "x-request-id",
}


@pytest.fixture(params=["served", "with_every_priced_operation"])
def app(request: pytest.FixtureRequest, runtime: Runtime) -> FastAPI:
    """The app as served, and the app with a stand-in route for every priced operation no family
    serves yet, so that the rules also meet the prices that depend on the request (§4.4, §4.7)."""
    built = create_app(runtime=runtime)
    if request.param == "with_every_priced_operation":
        served = {r.name for r in built.routes if isinstance(r, APIRoute)}

        async def stand_in(request: Request) -> Response:
            return Response(b"{}", media_type="application/json")

        for name in sorted(set(PRICES) - served):
            method = "POST" if name.startswith(("create_", "collect_")) else "GET"
            path = f"/v1/to-come/{name}"
            built.router.add_api_route(
                path, stand_in, methods=[method], name=name, route_class_override=ContractRoute
            )
    return built


@pytest.fixture
async def http(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        yield client


# the served document of each form of the app, fetched once per worker: building it is most of a test's
# time, and the app it describes is the same in every test (a fresh app per test would serve it alike)
_SERVED: dict[str, Document] = {}


@pytest.fixture
async def document(http: httpx.AsyncClient, request: pytest.FixtureRequest) -> Document:
    form = request.node.callspec.params["app"]
    if form not in _SERVED:
        response = await http.get("/openapi.json")
        assert response.status_code == 200
        _SERVED[form] = response.json()
    return copy.deepcopy(_SERVED[form])


def v1_routes(app: FastAPI) -> list[APIRoute]:
    routes = [r for r in app.routes if isinstance(r, APIRoute) and r.path_format.startswith("/v1/")]
    assert routes, "the app registers no /v1 route"
    return routes


def operations(app: FastAPI, document: Document) -> Iterator[tuple[APIRoute, str, dict[str, Any]]]:
    """(route, method, its operation in the served document) for every /v1 route."""
    for route in v1_routes(app):
        for method in sorted(route.methods):
            yield route, method, document["paths"][route.path_format][method.lower()]


def can_charge(price: Price) -> bool:
    """A price whose request-dependent part may add credits can exceed zero even at base 0."""
    return price.base > 0 or price.extra is not None


def resolve(document: Document, node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = document
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def error_properties(document: Document, schema: dict[str, Any]) -> set[str]:
    """The properties a response body schema declares, through its refs and allOf parts."""
    schema = resolve(document, schema)
    found = set(schema.get("properties", {}))
    for part in schema.get("allOf", []):
        found |= error_properties(document, part)
    return found


def route_parameters(route: APIRoute) -> dict[tuple[str, str], bool]:
    """(name, location) → required, from the route itself: its signature's path, query and header
    parameters (query models field by field) and those it documents for a query string it parses
    itself (``openapi_extra``, kit/query.py)."""
    found: dict[tuple[str, str], bool] = {}
    pending: list[Dependant] = [route.dependant]
    located: list[tuple[str, Any]] = []
    while pending:  # the route's own parameters and those of its dependencies
        dependant = pending.pop()
        located += [("path", f) for f in dependant.path_params]
        located += [("query", f) for f in dependant.query_params]
        located += [("header", f) for f in dependant.header_params]
        pending += dependant.dependencies
    for location, field in located:
        annotation = field.field_info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            for name, info in annotation.model_fields.items():
                # a field the service requires itself (to answer its own error code) is required too
                by_service = isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get(
                    REQUIRED_BY_SERVICE
                )
                found[(info.alias or name, location)] = info.is_required() or bool(by_service)
        else:
            found[(field.alias, location)] = location == "path" or field.field_info.is_required()
    for parameter in (route.openapi_extra or {}).get("parameters", []):
        found[(parameter["name"], parameter["in"])] = bool(parameter.get("required"))
    return found


def takes_input(route: APIRoute, method: str) -> bool:
    """Parameters, a body, or (on a request that writes) the Idempotency-Key header can all be refused."""
    writes = runs_as_write(method, route.endpoint)
    return bool(route_parameters(route)) or route.body_field is not None or writes


class TestCoverage:
    async def test_every_v1_route_is_an_operation_named_after_it(
        self, app: FastAPI, document: Document
    ) -> None:
        for route, method, operation in operations(app, document):
            assert operation["operationId"] == route.name, (method, route.path_format)

    async def test_no_operation_without_a_route(self, app: FastAPI, document: Document) -> None:
        served = {
            (method.upper(), path)
            for path, item in document["paths"].items()
            if path.startswith("/v1/")
            for method in item
        }
        assert served == {(m, r.path_format) for r in v1_routes(app) for m in r.methods}

    async def test_valid_openapi_30(self, document: Document) -> None:
        assert document["openapi"].startswith("3.0.")
        validate(document)


class TestPrices:
    """§8.2: the price of each operation, from billing/prices.py."""

    async def test_x_cost_is_the_table_price(self, app: FastAPI, document: Document) -> None:
        for route, method, operation in operations(app, document):
            price = price_of(route.name)
            expected: dict[str, Any] = {
                "credits": price.base,
                "usd": f"{price.base / 100:.2f}",
                "varies": price.extra is not None,
            }
            if price.extra is not None:
                # the pricing function's docstring says what adds what; without one, a generic note
                doc = " ".join((price.extra.__doc__ or "").split())
                extras = operation["x-cost"].get("extras")
                assert isinstance(extras, str) and extras, route.name
                expected["extras"] = doc or extras
            assert operation["x-cost"] == expected, (method, route.path_format)

    async def test_description_states_the_price(self, app: FastAPI, document: Document) -> None:
        for route, _method, operation in operations(app, document):
            price = price_of(route.name)
            description = operation["description"]
            if price.base == 0 and price.extra is None:
                assert "free (0 credits)" in description, route.name
            elif price.base:
                assert f"${price.base / 100:.2f} ({price.base} credits)" in description, route.name
            if price.extra is not None:
                assert operation["x-cost"]["extras"] in description, route.name

    async def test_402_declared_exactly_where_the_price_can_exceed_zero(
        self, app: FastAPI, document: Document
    ) -> None:
        charged = 0
        for route, method, operation in operations(app, document):
            responses = operation["responses"]
            assert ("402" in responses) == can_charge(price_of(route.name)), (method, route.path_format)
            if "402" in responses:
                charged += 1
                schema = responses["402"]["content"]["application/json"]["schema"]
                # §7: the 402 body adds required_credits and remaining_credits
                assert {"code", "required_credits", "remaining_credits"} <= error_properties(document, schema)
        assert charged, "no charged operation was checked"


class TestRateLimits:
    """§8.1: the feature group and its limits, from rate_limit/features.py."""

    async def test_x_rate_limit_is_the_routes_feature(self, app: FastAPI, document: Document) -> None:
        for route, _method, operation in operations(app, document):
            feature = feature_of(route.name, route.path_format)
            limits = FEATURE_LIMITS[feature]
            assert operation["x-rate-limit"] == {
                "feature": feature,
                "per_minute": limits.per_minute,
                "per_hour": limits.per_hour,
                "per_day": limits.per_day,
            }
            assert f"`{feature}`" in operation["description"]
            for value in (limits.per_minute, limits.per_hour, limits.per_day):
                if value is not None:
                    assert f"{value:,} per" in operation["description"], route.name


class TestErrors:
    """§2.8, §5, §7: which errors each operation declares, and in which shape."""

    async def test_no_422_anywhere(self, document: Document) -> None:
        # validation failures are 400 validation_error (§7), never FastAPI's 422
        for item in document["paths"].values():
            for operation in item.values():
                assert "422" not in operation["responses"], operation["operationId"]
        assert "HTTPValidationError" not in str(document)

    async def test_every_operation_declares_the_errors_it_can_return(
        self, app: FastAPI, document: Document
    ) -> None:
        for route, method, operation in operations(app, document):
            declared = set(operation["responses"])
            required = {"401", "403", "429", "500"}
            if takes_input(route, method):
                required.add("400")
            if "{" in route.path_format:
                required.add("404")  # an unknown platform or id, or another team's resource
            assert required <= declared, (method, route.path_format, required - declared)

    async def test_errors_have_the_error_body_shape(self, app: FastAPI, document: Document) -> None:
        for _route, _method, operation in operations(app, document):
            for status, response in operation["responses"].items():
                if int(status) < 400:
                    continue
                schema = response["content"]["application/json"]["schema"]
                assert {"statusCode", "code", "error", "message"} <= error_properties(document, schema)
            limited = operation["responses"]["429"]["content"]["application/json"]["schema"]
            assert {"limit", "remaining", "reset_at", "reset_at_formatted", "retry_after"} <= (
                error_properties(document, limited)
            )


class TestParameters:
    async def test_parameters_are_the_routes_with_their_required_flags(
        self, app: FastAPI, document: Document
    ) -> None:
        for route, method, operation in operations(app, document):
            expected = route_parameters(route)
            if runs_as_write(method, route.endpoint):  # a non-safe method, or a GET that starts work
                expected[("Idempotency-Key", "header")] = False  # ADR 0004
            if can_charge(price_of(route.name)):
                expected[("dry_run", "query")] = False  # the contract's, on every paid operation (ADR 0047)
            served = {(p["name"], p["in"]): p["required"] for p in operation.get("parameters", [])}
            assert served == expected, (method, route.path_format)

    async def test_a_required_body_is_marked_required(self, app: FastAPI, document: Document) -> None:
        for route, method, operation in operations(app, document):
            if route.body_field is None:
                assert "requestBody" not in operation, (method, route.path_format)
            else:
                required = route.body_field.field_info.is_required()
                assert operation["requestBody"].get("required", False) == required, route.name


class TestClientForms:
    """Issue 28: both forms of what the older clients send are documented, and every route of one agent
    has its legacy twins at the same price (§4.5)."""

    def body_fields(self, document: Document, path: str, method: str = "post") -> set[str]:
        content = document["paths"][path][method]["requestBody"]["content"]["application/json"]
        schema = content["schema"]
        schema = schema["allOf"][0] if "allOf" in schema else schema  # an optional body: nullable allOf
        return set(resolve(document, schema)["properties"])

    async def test_both_forms_are_documented(self, document: Document) -> None:
        creator = document["paths"]["/v1/satellite/creator/{platform}/{username}"]["get"]
        names = {p["name"] for p in creator["parameters"]}
        assert {
            "include",
            "cross_links",
            "include_videos",
            "include_outliers",
            "include_cross_platform",
        } <= names
        batch = self.body_fields(document, "/v1/satellite/creators/batch")
        assert {"handles", "platform", "creators", "include", "cross_links"} <= batch
        assert {"video_id", "url"} <= self.body_fields(document, "/v1/satellite/video-outlier")
        assert {"handle", "url", "cadence", "scrape_cadence", "collection_depth"} <= self.body_fields(
            document, "/v1/tracking/creators"
        )
        assert {"video_id", "url", "scrape_cadence", "tracking_account_id"} <= self.body_fields(
            document, "/v1/tracking/videos"
        )
        test = document["paths"]["/v1/webhooks/{webhook_id}/test"]["post"]
        assert {"event", "event_type"} <= self.body_fields(document, "/v1/webhooks/{webhook_id}/test")
        assert test["requestBody"].get("required", False) is False  # `{}` or nothing: the default event

    async def test_every_route_of_one_agent_has_its_legacy_twins(self, document: Document) -> None:
        paths = document["paths"]
        agent_routes = [path for path in paths if path.startswith("/v1/agents/{agent_id}")]
        assert len(agent_routes) >= 20
        for path in agent_routes:
            for prefix in ("/v1/orbit", "/v1/comet"):
                twin = paths.get(prefix + path.removeprefix("/v1/agents"), {})
                for method, operation in paths[path].items():
                    assert method in twin, f"{method} {prefix}{path}"
                    assert twin[method]["deprecated"] is True
                    assert twin[method]["x-cost"] == operation["x-cost"], f"{method} {prefix}{path}"


class TestHeaders:
    """§8.1 and §8.2 headers, declared where the contract sends them."""

    async def test_every_response_declares_the_billing_headers(self, document: Document) -> None:
        for item in document["paths"].values():
            for operation in item.values():
                for status, response in operation["responses"].items():
                    headers = response.get("headers", {})
                    for name in ("X-Cost", "X-Credits-Used", "X-Request-Id"):
                        assert name in headers, (operation["operationId"], status, name)
                        assert "schema" in resolve(document, headers[name])

    async def test_v1_responses_declare_the_contract_headers(self, app: FastAPI, document: Document) -> None:
        for route, _method, operation in operations(app, document):
            charged = can_charge(price_of(route.name))
            for status, response in operation["responses"].items():
                headers = set(response.get("headers", {}))
                rate = {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"}
                # the key is counted after authentication: a 401 carries no rate headers
                assert (rate <= headers) == (status != "401"), (route.name, status)
                balance = {"X-Credits-Remaining", "X-Balance-Remaining"}
                assert (balance <= headers) == (charged and status.startswith("2")), (route.name, status)
                assert ("Retry-After" in headers) == (status == "429"), (route.name, status)

    async def test_real_responses_carry_only_declared_statuses_and_headers(
        self, app: FastAPI, document: Document, http: httpx.AsyncClient, make_team: MakeTeam
    ) -> None:
        """Call every /v1 GET that needs no path parameter, with and without a key: the status and each
        contract header of the answer are in the document."""
        team = await make_team(credits=100_000)
        called = 0
        for route, method, operation in operations(app, document):
            if method != "GET" or "{" in route.path_format:
                continue
            for headers in ({}, team.headers):
                response = await http.get(route.path_format, headers=headers)
                called += 1
                status = str(response.status_code)
                assert status in operation["responses"], (route.name, status, response.text)
                declared = {h.lower() for h in operation["responses"][status].get("headers", {})}
                sent = {h for h in response.headers if h in CONTRACT_HEADERS}
                assert sent <= declared, (route.name, status, sent - declared)
        assert called >= 2


class LocalAssets(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.scripts: list[str] = []
        self.links: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.scripts.append(str(values["src"]))
        if tag == "link" and values.get("href"):
            self.links.append((str(values.get("rel")), str(values["href"])))


class TestDocsPage:
    """The interactive reference: no key, no CDN (ARCHITECTURE §1), pointed at /openapi.json."""

    async def test_served_without_a_key(self, client: httpx.AsyncClient) -> None:
        response = await client.get("/docs")
        assert_served_page(response)  # its scripts from Reelscope only (issue 31)
        assert "'/openapi.json'" in response.text
        # outside the /v1 contract: nothing counted, nothing charged
        assert "x-ratelimit-limit" not in response.headers
        assert response.headers["X-Credits-Used"] == "0"

    async def test_every_asset_is_local_and_served(self, client: httpx.AsyncClient) -> None:
        page = (await client.get("/docs")).text
        assert not re.search(r"(https?:)?//[a-z0-9]", page, re.IGNORECASE), "the page loads from another host"
        assets = LocalAssets()
        assets.feed(page)
        assert assets.scripts and assets.links
        expected_types = [(src, "javascript") for src in assets.scripts] + [
            (href, "css" if "stylesheet" in rel else "image/") for rel, href in assets.links
        ]
        for url, content_type in expected_types:
            assert url.startswith("/") and not url.startswith("//"), url
            response = await client.get(url)
            assert response.status_code == 200, url
            assert response.content, url
            assert content_type in response.headers["content-type"], (url, response.headers["content-type"])

    async def test_only_the_pages_own_assets_are_served(self, client: httpx.AsyncClient) -> None:
        for name in ("index.html", "swagger-initializer.js", "..%2F__init__.py", "nothing.js"):
            response = await client.get(f"/docs/static/{name}")
            assert response.status_code == 404, name
            assert response.json()["code"] == "not_found"

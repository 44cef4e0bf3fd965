"""The OpenAPI 3.0 document (§9) and the interactive reference that renders it at ``/docs``.

FastAPI describes each route from its signature: parameters, body, response model and the errors the
route declares. It cannot see what the request contract does around every /v1 route (ARCHITECTURE §3),
so ``build_document`` adds that from the tables the contract itself reads (ADR 0018):
- the price, from ``billing/prices.py``: in the description and as ``x-cost`` (§8.2);
- the rate-limit group and its limits, from ``rate_limit/features.py``: in the description and as
  ``x-rate-limit`` (§8.1);
- the errors every /v1 operation can return, in the §2.8 shape (§5, §7): 401, 403, 429 and 500 always,
  402 where the price can be above zero, 400 where the request carries input, 404 where the path has
  parameters;
- the headers of §8.1 and §8.2 and ``X-Request-Id``, and the ``Idempotency-Key`` of ADR 0004.
FastAPI's 422 goes: validation failures are 400 ``validation_error`` (§7).

The reference page loads Swagger UI from the ``swagger-ui-bundle`` package and serves its files itself:
operators often have no internet access (ARCHITECTURE §1), and a page that loads its script from a CDN
shows nothing there.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import FileResponse, HTMLResponse
from fastapi.routing import APIRoute
from swagger_ui_bundle import swagger_ui_path

from reelscope.billing.prices import Price, price_of
from reelscope.billing.service import usd_header
from reelscope.contract import ContractRoute, runs_as_write
from reelscope.idempotency import service as idempotency_service
from reelscope.kit.errors import NotFound
from reelscope.kit.openapi import drop_response, to_openapi_30
from reelscope.kit.pages import content_security_policy
from reelscope.kit.schemas import CONTRACT_ERRORS, ErrorBody, errors
from reelscope.rate_limit.features import FEATURE_LIMITS, Limits, feature_of

OPENAPI_URL = "/openapi.json"
DOCS_URL = "/docs"
DOCS_ASSETS_URL = "/docs/static"

_SCHEMAS = "#/components/schemas/"
_HEADERS = "#/components/headers/"

# §8.1, §8.2 and the request id, declared once under components/headers
HEADERS: dict[str, dict[str, Any]] = {
    "X-Request-Id": {
        "description": "This request's id; quote it when reporting a problem.",
        "schema": {"type": "string"},
    },
    "X-Cost": {
        "description": "Dollars charged for this request, two decimals (`0.25`; `0.00` when nothing "
        "was charged). Authoritative (§8.2).",
        "schema": {"type": "string", "pattern": r"^\d+\.\d{2}$", "example": "0.25"},
    },
    "X-Credits-Used": {
        "description": "Credits charged for this request (1 credit = $0.01; 0 when nothing was charged).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-Credits-Remaining": {
        "description": "The team's balance in credits after this charge; only on charged responses (§8.2).",
        "schema": {"type": "integer"},
    },
    "X-Balance-Remaining": {
        "description": "The team's balance in dollars after this charge; only on charged responses (§8.2).",
        "schema": {"type": "string", "pattern": r"^\d+\.\d{2}$"},
    },
    "X-RateLimit-Limit": {
        "description": "The limit of the window (minute, hour or UTC day) closest to being used up; "
        "accounts with custom limits see their own values (§8.1). Present once the key was counted.",
        "schema": {"type": "integer"},
    },
    "X-RateLimit-Remaining": {
        "description": "Requests left in that window (§8.1).",
        "schema": {"type": "integer", "minimum": 0},
    },
    "X-RateLimit-Reset": {
        "description": "When that window resets, in Unix seconds (§8.1).",
        "schema": {"type": "integer"},
    },
    "Retry-After": {
        "description": "Seconds to wait; only on a 429 `rate_limit_exceeded`, from the key's own limit "
        "(§8.1).",
        "schema": {"type": "integer", "minimum": 0},
    },
    idempotency_service.REPLAYED_HEADER: {
        "description": "`true` when this is the stored response to an earlier request with the same "
        "`Idempotency-Key`; a replay is not charged again.",
        "schema": {"type": "string", "enum": ["true"]},
    },
}
_EVERY_RESPONSE = ("X-Request-Id", "X-Cost", "X-Credits-Used")
_COUNTED = ("X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
_CHARGED = ("X-Credits-Remaining", "X-Balance-Remaining")

# §7: the 402 and 429 bodies add documented siblings to the §2.8 shape
_ERROR_EXTRAS: dict[str, dict[str, Any]] = {
    "InsufficientCreditsBody": {
        "description": "`insufficient_credits` adds `required_credits` and `remaining_credits` (§7). "
        "`daily_cap_reached` (beyond the spec: the API key's daily spending cap would be passed) adds "
        "`required_credits`, `daily_cap_credits`, `spent_today_credits`, `reset_at` and "
        "`reset_at_formatted` (the next midnight UTC, when the cap starts again).",
        "properties": {
            "required_credits": {"type": "integer", "description": "The price of the request"},
            "remaining_credits": {"type": "integer", "description": "The team's balance"},
            "daily_cap_credits": {"type": "integer", "description": "The key's daily cap"},
            "spent_today_credits": {"type": "integer", "description": "What the key was charged today"},
            "reset_at": {"type": "integer", "description": "Unix seconds"},
            "reset_at_formatted": {"type": "string", "description": "ISO 8601, UTC"},
        },
        "required": ["required_credits"],
    },
    "RateLimitBody": {
        "description": "`rate_limit_exceeded` adds the fields below; `too_many_requests` (no or "
        "unprefixed key, limited per IP, §5.5) does not.",
        "properties": {
            "limit": {"type": "integer"},
            "remaining": {"type": "integer"},
            "reset_at": {"type": "integer", "description": "Unix seconds"},
            "reset_at_formatted": {"type": "string", "description": "ISO 8601, UTC"},
            "retry_after": {"type": "integer", "description": "Seconds"},
        },
    },
}
_ERROR_SCHEMA_OF_STATUS = {"402": "InsufficientCreditsBody", "429": "RateLimitBody"}

DESCRIPTION = """\
Every request except `GET /` (and this reference) carries `Authorization: Bearer <API key>` (§5).

**Prices.** Each operation states its price, and carries it as `x-cost`: `credits` and `usd` are the base
price of a successful (2xx) call; where options add to it, `varies` is true and `extras` says what adds
what. Errors (4xx, 5xx) are never charged. Every response carries `X-Cost` (dollars) and `X-Credits-Used`;
charged ones also `X-Credits-Remaining` and `X-Balance-Remaining`. A balance below the price gives 402
`insufficient_credits` before any work (§8.2).

**Rate limits.** Per API key and per endpoint, on fixed UTC windows: the minute, the hour on the hour, the
UTC day. Each operation names its group and limits, and carries them as `x-rate-limit` (`null`: no cap in
that window). Responses carry `X-RateLimit-Limit`, `X-RateLimit-Remaining`, `X-RateLimit-Reset`, and a 429
from the key's limit `Retry-After` (§8.1).

**Dry runs** (beyond the spec). Every paid operation takes `?dry_run=true`: a 200 with the price it would
charge, the balance after and whether the key's limits, its daily spending cap and the balance would let
it through now, charging nothing and doing nothing; bad input is still 400.

**Plain text** for AI assistants and scripts: [/llms.txt](/llms.txt) (an index of every operation) and
[/llms-full.txt](/llms-full.txt) (everything here), generated from this document.

**Errors** are `{statusCode, code, error, message}`; branch on `code` (§7). Validation failures are 400
`validation_error` with an array of messages.
"""


def build_document(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI 3.0 description of ``app``: FastAPI's own, with the contract's prices, limits,
    errors and headers added from the tables the contract reads."""
    document = copy.deepcopy(app.openapi())
    document["info"]["description"] = DESCRIPTION
    components = document.setdefault("components", {})
    # every /v1 operation needs the bearer key; GET / does not (§5.1). Declared here rather than as a
    # security dependency, which FastAPI would solve on every request for nothing (ADR 0014).
    components.setdefault("securitySchemes", {})["HTTPBearer"] = {
        "type": "http",
        "scheme": "bearer",
        "description": "Authorization: Bearer reelscope_tkn_…",
    }
    document["security"] = [{"HTTPBearer": []}]
    # §7: validation failures are 400 validation_error (main.py's handler); FastAPI's 422 never happens
    drop_response(document, "422")
    components["headers"] = copy.deepcopy(HEADERS)
    _add_error_schemas(components.setdefault("schemas", {}))

    paths: dict[str, dict[str, Any]] = document.get("paths", {})
    for route in app.routes:
        if not isinstance(route, APIRoute) or not route.include_in_schema:
            continue
        for method in sorted(route.methods or ()):
            operation = paths[route.path_format][method.lower()]
            if isinstance(route, ContractRoute):
                _describe_contract(operation, route, method)
            else:
                operation["security"] = []
                _add_headers(operation, _EVERY_RESPONSE, statuses=None)
    return to_openapi_30(document)


def _add_dry_run_answer(responses: dict[str, Any]) -> None:
    """A paid operation's 200 may be a dry run's quote (``?dry_run=true``, ADR 0047): declared as the
    alternative of its answer, so a client generated from the document reads both."""
    quote = {"$ref": _SCHEMAS + "DryRunAnswer"}
    ok = responses.get("200")
    if ok is None:  # an operation that answers 202 (a job started) still answers a dry run with 200
        responses["200"] = {
            "description": "A dry run's quote (`?dry_run=true`)",
            "content": {"application/json": {"schema": quote}},
        }
        return
    content = ok.setdefault("content", {}).setdefault("application/json", {})
    answer = content.get("schema")
    content["schema"] = quote if answer is None else {"anyOf": [answer, quote]}


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_INTEGER, _NUMBER, _STRING = {"type": "integer"}, {"type": "number"}, {"type": "string"}
_DRY_RUN_QUOTE: dict[str, Any] = {
    "type": "object",
    "description": "What the request would cost and whether it would be allowed now; nothing charged "
    "or done (contract/dry_run.py, ADR 0047).",
    "required": [
        "dry_run",
        "operation",
        "price_credits",
        "price_usd",
        "balance_credits",
        "balance_usd",
        "balance_after_credits",
        "balance_after_usd",
        "allowed",
        "refusals",
        "rate_limit",
        "key_daily_cap",
    ],
    "properties": {
        "dry_run": {"type": "boolean", "enum": [True]},
        "operation": _STRING,
        "price_credits": _INTEGER,
        "price_usd": _NUMBER,
        "balance_credits": _INTEGER,
        "balance_usd": _NUMBER,
        "balance_after_credits": _nullable(_INTEGER),
        "balance_after_usd": _nullable(_NUMBER),
        "allowed": {"type": "boolean"},
        "refusals": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["status", "code", "message"],
                "properties": {"status": _INTEGER, "code": _STRING, "message": _STRING},
            },
        },
        "rate_limit": {
            "type": "object",
            "required": ["feature", "limit", "remaining", "reset_at"],
            "properties": {
                "feature": _STRING,
                "limit": _INTEGER,
                "remaining": _INTEGER,
                "reset_at": _INTEGER,
            },
        },
        "key_daily_cap": _nullable(
            {
                "type": "object",
                "required": ["cap_credits", "spent_today_credits", "left_today_credits"],
                "properties": {
                    "cap_credits": _INTEGER,
                    "spent_today_credits": _INTEGER,
                    "left_today_credits": _INTEGER,
                },
            }
        ),
    },
}


def _add_error_schemas(schemas: dict[str, Any]) -> None:
    schemas["DryRunAnswer"] = {
        "type": "object",
        "required": ["data"],
        "properties": {"data": _DRY_RUN_QUOTE},
    }
    if "ErrorBody" not in schemas:
        schemas["ErrorBody"] = ErrorBody.model_json_schema(ref_template=_SCHEMAS + "{model}")
    for name, extra in _ERROR_EXTRAS.items():
        schemas[name] = {"allOf": [{"$ref": _SCHEMAS + "ErrorBody"}, {"type": "object", **extra}]}


def can_charge(price: Price) -> bool:
    """A price with a request-dependent part may exceed zero even when its base is zero."""
    return price.base > 0 or price.extra is not None


def extras_of(price: Price) -> str | None:
    """What the request's options add, in the words of the pricing function's docstring."""
    if price.extra is None:
        return None
    doc = (price.extra.__doc__ or "").strip()
    return " ".join(doc.split()) or "The price depends on the request's options; see `X-Cost`."


def cost_extension(price: Price) -> dict[str, Any]:
    """``x-cost``: the base price in credits and dollars, and what the request's options add (§8.2)."""
    extension: dict[str, Any] = {
        "credits": price.base,
        "usd": usd_header(price.base),
        "varies": price.extra is not None,
    }
    extras = extras_of(price)
    if extras is not None:
        extension["extras"] = extras
    return extension


def rate_limit_extension(feature: str, limits: Limits) -> dict[str, Any]:
    """``x-rate-limit``: the §8.1 group and its per-key limits (``None``: no cap in that window)."""
    return {
        "feature": feature,
        "per_minute": limits.per_minute,
        "per_hour": limits.per_hour,
        "per_day": limits.per_day,
    }


def _price_sentence(price: Price) -> str:
    extras = extras_of(price)
    if extras is None:
        if price.base == 0:
            return "**Price:** free (0 credits)."
        return f"**Price:** ${usd_header(price.base)} ({price.base} credits) per successful call."
    if price.base == 0:
        return f"**Price:** set by the request. {extras}"
    return (
        f"**Price:** from ${usd_header(price.base)} ({price.base} credits) per successful call; "
        f"options add to it. {extras}"
    )


def _limits_sentence(feature: str, limits: Limits) -> str:
    windows = [
        f"{value:,} per {window}" if value is not None else f"no cap per {window}"
        for value, window in (
            (limits.per_minute, "minute"),
            (limits.per_hour, "hour"),
            (limits.per_day, "UTC day"),
        )
    ]
    return f"**Rate limit** (`{feature}`, per API key): {', '.join(windows)}."


REQUIRED_BY_SERVICE = "x-required"


def _describe_contract(operation: dict[str, Any], route: APIRoute, method: str) -> None:
    price = price_of(route.name)
    feature = feature_of(route.name, route.path_format)
    limits = FEATURE_LIMITS[feature]
    operation["x-cost"] = cost_extension(price)
    operation["x-rate-limit"] = rate_limit_extension(feature, limits)
    operation["description"] = "\n\n".join(
        part
        for part in (operation.get("description"), _price_sentence(price), _limits_sentence(feature, limits))
        if part
    )

    parameters: list[dict[str, Any]] = operation.setdefault("parameters", [])
    for parameter in parameters:
        if parameter.get("in") == "path":
            parameter["required"] = True  # OpenAPI: a path parameter is always required
        # a query field the service requires itself, to answer its own error code when it is missing
        # (e.g. §4.2's start_date/end_date → invalid_date_range), is still required (kit/schemas.py)
        if parameter.get("schema", {}).pop(REQUIRED_BY_SERVICE, False):
            parameter["required"] = True
    # a non-safe request, or a GET that starts work (contract ``starts_work``), honours Idempotency-Key
    writes = runs_as_write(method, route.endpoint)
    if writes:
        parameters.append(
            {
                "name": idempotency_service.HEADER,
                "in": "header",
                "required": False,
                "description": "Optional. A repeat with the same key and request within "
                f"{idempotency_service.RETENTION.total_seconds() / 3600:.0f} hours returns the first "
                "successful response again, uncharged; the same key for another request, or while its "
                "first request is still running, is 409 `conflict` (ADR 0004).",
                "schema": {"type": "string", "minLength": 1, "maxLength": idempotency_service.MAX_KEY_LENGTH},
            }
        )
    if can_charge(price):
        parameters.append(
            {
                "name": "dry_run",
                "in": "query",
                "required": False,
                "description": "Beyond the spec. `true`: charge nothing and do nothing; answer 200 with "
                "`{data: {dry_run, operation, price_credits, price_usd, balance_credits, balance_usd, "
                "balance_after_credits, balance_after_usd, allowed, refusals[{status, code, message}], "
                "rate_limit{feature, limit, remaining, reset_at}, key_daily_cap}}`: the price quoted before "
                "work, the balance after (null if it cannot cover it), and each refusal the request would "
                "get now (`insufficient_credits`, `daily_cap_reached`, `rate_limit_exceeded`). The input is "
                "validated as for the request (400); a dry run counts as a free request of its own, not "
                "against this operation's limits (ADR 0047).",
                "schema": {"type": "boolean", "default": False},
            }
        )
    if not parameters:
        del operation["parameters"]

    statuses = set(CONTRACT_ERRORS)
    if can_charge(price):
        statuses.add(402)
    if parameters or "requestBody" in operation:
        statuses.add(400)
    if writes:
        statuses.add(409)  # an Idempotency-Key reused for another request, or still in progress
    if any(p.get("in") == "path" for p in parameters):
        statuses.add(404)  # an unknown platform or id, or another team's resource (§0, §5.4)
    responses: dict[str, Any] = operation.setdefault("responses", {})
    for error_status in statuses:
        responses.setdefault(str(error_status), _error_response(error_status))
    if can_charge(price):
        _add_dry_run_answer(responses)
    responses = operation["responses"] = dict(sorted(responses.items()))
    for status, schema in _ERROR_SCHEMA_OF_STATUS.items():
        if status in responses:
            responses[status]["content"] = {"application/json": {"schema": {"$ref": _SCHEMAS + schema}}}

    _add_headers(operation, _EVERY_RESPONSE, statuses=None)
    # §8.1: the key is counted after authentication, so a 401 never carries the rate headers
    _add_headers(operation, _COUNTED, statuses=[s for s in responses if s != "401"])
    successes = [s for s in responses if s.startswith("2")]
    if can_charge(price):
        _add_headers(operation, _CHARGED, statuses=successes)
    if writes:
        _add_headers(operation, (idempotency_service.REPLAYED_HEADER,), statuses=successes)
    _add_headers(operation, ("Retry-After",), statuses=["429"])


def _error_response(status: int) -> dict[str, Any]:
    return {
        "description": errors(status)[status]["description"],
        "content": {"application/json": {"schema": {"$ref": _SCHEMAS + "ErrorBody"}}},
    }


def _add_headers(operation: dict[str, Any], names: tuple[str, ...], statuses: list[str] | None) -> None:
    responses: dict[str, Any] = operation.get("responses", {})
    for status in responses if statuses is None else statuses:
        headers = responses[status].setdefault("headers", {})
        for name in names:
            headers[name] = {"$ref": _HEADERS + name}


# the files of the Swagger UI distribution the page loads, served from the installed package
_ASSETS: dict[str, str] = {
    "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
    "swagger-ui.css": "text/css; charset=utf-8",
    "favicon-32x32.png": "image/png",
}
_ASSET_DIR = Path(str(swagger_ui_path))


def add_docs_routes(app: FastAPI) -> None:
    """``GET /docs`` and its assets: plain routes, outside the /v1 contract, needing no key."""

    async def get_docs() -> HTMLResponse:
        page = get_swagger_ui_html(
            openapi_url=OPENAPI_URL,
            title="Reelscope API reference",
            swagger_js_url=f"{DOCS_ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{DOCS_ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{DOCS_ASSETS_URL}/favicon-32x32.png",
            swagger_ui_parameters={"displayOperationId": True, "defaultModelsExpandDepth": 0},
        )
        page.headers["Content-Security-Policy"] = content_security_policy(bytes(page.body).decode())
        return page

    async def get_docs_asset(name: str) -> FileResponse:
        media_type = _ASSETS.get(name)
        if media_type is None:
            raise NotFound(f"No reference asset named {name}")
        return FileResponse(
            _ASSET_DIR / name, media_type=media_type, headers={"Cache-Control": "public, max-age=86400"}
        )

    app.add_api_route(DOCS_URL, get_docs, methods=["GET"], include_in_schema=False)
    app.add_api_route(DOCS_ASSETS_URL + "/{name}", get_docs_asset, methods=["GET"], include_in_schema=False)

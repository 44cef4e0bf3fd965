"""The API map: every family's router under /v1, nothing else."""

from __future__ import annotations

from functools import cache
from types import MappingProxyType

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute

from reelscope.account.endpoints import router as account_router
from reelscope.agent.autopilot.endpoints import proposals_router as agent_proposals_router
from reelscope.agent.autopilot.endpoints import router as agent_autopilot_router
from reelscope.agent.endpoints import router as agent_router
from reelscope.agent.legacy import ROUTERS as legacy_routers
from reelscope.audience.endpoints import router as audience_router
from reelscope.contract import V1_PREFIX
from reelscope.digest.endpoints import router as digest_router
from reelscope.hashtag.endpoints import router as hashtag_router
from reelscope.hook.endpoints import router as hook_router
from reelscope.kit.schemas import CONTRACT_ERRORS, errors
from reelscope.lookup.endpoints import router as lookup_router
from reelscope.sound.endpoints import router as sound_router
from reelscope.tracking.endpoints import router as tracking_router
from reelscope.trend.endpoints import router as trend_router
from reelscope.webhook.endpoints import router as webhook_router

PREFIX = V1_PREFIX

# Routes are matched in order, one template at a time, so the most called paid reads come first
# (ADR 0014). A template placed earlier must not match another route's paths: tests/test_routing.py
# resolves every route's own path and checks it lands on that route.
FAMILIES = (
    digest_router,
    hashtag_router,
    account_router,
    trend_router,
    webhook_router,
    sound_router,
    lookup_router,
    tracking_router,
    audience_router,
    agent_router,
    agent_autopilot_router,
    agent_proposals_router,
    *legacy_routers,
    hook_router,
)


def include_v1(app: FastAPI) -> None:
    """Every family's routes straight onto the app's own router under /v1, as routes of their own.

    ``include_router`` keeps an included router as one route that FastAPI walks on every request,
    matching each of its routes through a per-request context (ADR 0014); a route added to the app
    itself is matched directly. The routes are built once per process (``v1_routes``) and shared by
    every app it creates: building them analyses every endpoint's signature and response model, some
    0.5 s of CPU, which a test suite creating an app per test would otherwise pay two thousand times.

    A shared route belongs to no app, so FastAPI's ``dependency_overrides`` cannot reach it: the app's
    mapping is made read-only, and setting an override fails loudly instead of doing nothing. What a
    deployment or a test varies lives on the ``Runtime`` (the webhook resolver, the clock, the LLM)."""
    app.router.routes.extend(v1_routes())
    app.dependency_overrides = MappingProxyType({})  # type: ignore[assignment]


def operation_id(route: APIRoute) -> str:
    """An operation's id in the OpenAPI document is its route's name: ``get_videos_digest`` (§9)."""
    return route.name


@cache
def v1_routes() -> tuple[APIRoute, ...]:
    """Each family's routes declared again under /v1 with everything the family gave them (they are
    plain ``APIRoute`` subclasses), plus the contract's error responses."""
    v1 = APIRouter(generate_unique_id_function=operation_id)
    for family in FAMILIES:
        for route in family.routes:
            if not isinstance(route, APIRoute):
                raise TypeError(f"{route!r}: only API routes belong to a /v1 family")
            v1.add_api_route(
                PREFIX + route.path,
                route.endpoint,
                response_model=route.response_model,
                status_code=route.status_code,
                tags=route.tags,
                dependencies=route.dependencies,
                summary=route.summary,
                description=route.description,
                response_description=route.response_description,
                responses={**errors(*CONTRACT_ERRORS), **route.responses},
                deprecated=route.deprecated,
                methods=route.methods,
                operation_id=route.operation_id,
                response_model_include=route.response_model_include,
                response_model_exclude=route.response_model_exclude,
                response_model_by_alias=route.response_model_by_alias,
                response_model_exclude_unset=route.response_model_exclude_unset,
                response_model_exclude_defaults=route.response_model_exclude_defaults,
                response_model_exclude_none=route.response_model_exclude_none,
                include_in_schema=route.include_in_schema,
                response_class=route.response_class,
                name=route.name,
                route_class_override=type(route),
                callbacks=route.callbacks,
                openapi_extra=route.openapi_extra,
                generate_unique_id_function=route.generate_unique_id_function,
            )
    return tuple(route for route in v1.routes if isinstance(route, APIRoute))

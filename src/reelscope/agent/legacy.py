"""Legacy Orbit and Comet (spec §4.5, §9; deprecated, removed 2026-08-03): the same agents under the old
paths. Orbit is a one-shot agent, comet a recurring one with a cadence; their IDs are agent IDs.

Each prefix has its own create (202 with a queue response), list, status-and-results read and update;
every other route of one agent, ``/v1/agents/{agent_id}…``, is mirrored under ``/v1/orbit/{agent_id}…``
and ``/v1/comet/{agent_id}…`` from the agent routers themselves (``mirror``): the same endpoint, price
and validation, so a new agent read appears under the old prefixes without being written again
(issue 28, ADR 0043). Operation ids replace ``agent`` with the prefix (``billing.prices.legacy_operation``).

Every response here, errors included, carries ``Deprecation: true`` and ``Sunset`` (RFC 8594,
``agent/deprecated.py``). The tighter legacy rate limits come from the path
(``rate_limit.features.feature_of``); the legacy webhook names fire with every run
(``events.service.publish``). What the old clients send beside the agent fields is accepted: §9's
create-time ``min_views``, ``time_range`` and ``time_period`` (ignored, on updates too), ``enable_meta_ads``
(the same as ``meta_ads_enabled``), ``exclude_keywords_strict`` and ``include_inactive`` (what Reelscope
always does), ``is_active: true``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal, Self

from fastapi import APIRouter, Query
from fastapi.routing import APIRoute
from pydantic import Field, JsonValue, model_validator

from reelscope.agent import reads
from reelscope.agent import service as agent_service
from reelscope.agent.autopilot.endpoints import proposals_router
from reelscope.agent.autopilot.endpoints import router as autopilot_router
from reelscope.agent.deprecated import LegacyRoute
from reelscope.agent.endpoints import router as agent_router
from reelscope.agent.schemas import (
    AgentCreate,
    AgentList,
    AgentOut,
    AgentPageQuery,
    AgentUpdate,
    Sort,
    VideoPage,
)
from reelscope.billing.prices import legacy_operation
from reelscope.contract import CallDep, ClockDep, PrincipalDep, SessionDep
from reelscope.kit.schemas import Envelope, RequestBody, Schema, errors

Kind = Literal["orbit", "comet"]
ONE_AGENT = "/agents/{agent_id}"
# the agent routers whose routes of one agent the legacy prefixes mirror (api.FAMILIES order)
AGENT_ROUTERS = (agent_router, autopilot_router, proposals_router)


# --- what the old clients send ---------------------------------------------------------------------


class _LegacyScope(RequestBody):
    # §9: the collection scope the service sets is accepted on legacy writes, and ignored
    min_views: JsonValue = Field(default=None, description="Accepted and ignored (§9)")
    time_range: JsonValue = Field(default=None, description="Accepted and ignored (§9)")
    time_period: JsonValue = Field(default=None, description="Accepted and ignored (§9)")


class _LegacyCreate(_LegacyScope, AgentCreate):
    enable_meta_ads: bool | None = Field(default=None, description="The same as `meta_ads_enabled`")
    exclude_keywords_strict: bool | None = Field(
        default=None,
        description="Accepted: an exclude keyword found anywhere in the caption, hashtags or transcript "
        "always excludes the video",
    )
    is_active: bool | None = Field(
        default=None,
        description="Only true: a search starts its first run when it is created (pause it afterwards with "
        "`PUT` and `is_active: false`)",
    )

    @model_validator(mode="after")
    def _old_names(self) -> Self:
        if self.enable_meta_ads is not None:
            if "meta_ads_enabled" in self.model_fields_set and self.meta_ads_enabled != self.enable_meta_ads:
                raise ValueError("enable_meta_ads and meta_ads_enabled disagree: send one of them")
            self.meta_ads_enabled = self.enable_meta_ads
        if self.is_active is False:
            # created paused, it would still run (and bill) its first run now: refused, not ignored
            raise ValueError(
                "is_active: a search runs once when created; create it, then pause it with PUT and "
                "is_active false"
            )
        return self


class OrbitCreate(_LegacyCreate):
    """A one-shot keyword search."""

    @model_validator(mode="after")
    def _one_shot(self) -> Self:
        if self.is_recurring or self.cadence is not None:
            raise ValueError(
                "an orbit is one-shot: use POST /v1/comet (or /v1/agents) for a recurring search"
            )
        return self


class CometCreate(_LegacyCreate):
    """A recurring keyword search (default cadence daily)."""

    is_recurring: bool = Field(default=True, description="Always true for a comet")

    @model_validator(mode="after")
    def _recurring(self) -> Self:
        if not self.is_recurring:
            raise ValueError("a comet is recurring: use POST /v1/orbit for a one-shot search")
        return self


class LegacyUpdate(_LegacyScope, AgentUpdate):
    """The agent update; only the fields sent change (§4.4)."""


class LegacyListQuery(AgentPageQuery):
    include_inactive: bool | None = Field(
        default=None, description="Accepted: paused searches are always listed (`is_active` says which)"
    )


class Queued(Schema):
    """The queue response of a legacy create: the agent id (also the orbit/comet id) and its first run."""

    id: str
    job_id: str
    run_id: str
    status: Literal["queued"] = "queued"
    poll_url: str


class ResultsOrder(StrEnum):
    VIEWS = "views"
    LIKES = "likes"
    SHARES = "shares"
    COMMENTS = "comments"
    BOOKMARKS = "bookmarks"
    PUBLISH_DATE = "publish_date"
    AUTHOR_FOLLOWERS = "author.followers"


class ResultsQuery(AgentPageQuery):
    order_by: ResultsOrder = ResultsOrder.VIEWS
    sort: Sort = Sort.DESC


class OrbitResults(AgentOut):
    results: VideoPage


# --- each prefix's own routes ----------------------------------------------------------------------

orbit_router = APIRouter(prefix="/orbit", tags=["legacy orbit"], route_class=LegacyRoute)
comet_router = APIRouter(prefix="/comet", tags=["legacy comet"], route_class=LegacyRoute)
GET_ERRORS, WRITE_ERRORS = errors(400, 404), errors(400, 404)


async def _queue(
    kind: Kind,
    body: AgentCreate,
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    call: CallDep,
) -> Envelope[Queued]:
    created = await agent_service.create(session, principal, body, charged=call.final_price, now=clock.now())
    queued = Queued(
        id=created.id, job_id=created.job_id, run_id=created.run_id, poll_url=f"/v1/{kind}/{created.id}"
    )
    return Envelope(data=queued)


async def _results(
    agent_id: str, query: ResultsQuery, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[OrbitResults]:
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    rendered = await agent_service.render(session, agent, now=clock.now())
    results = await reads.videos(
        session, agent, query, order=query.order_by.value, descending=query.sort is Sort.DESC
    )
    return Envelope(data=OrbitResults(**rendered.model_dump(), results=results))


@orbit_router.post("", status_code=202, responses=errors(400, 402), deprecated=True)
async def create_orbit(
    body: OrbitCreate, session: SessionDep, principal: PrincipalDep, clock: ClockDep, call: CallDep
) -> Envelope[Queued]:
    """Deprecated: queue a one-shot search ($0.50, $1.50 with data_intelligence_enabled); 202 with the
    queue response. Use POST /v1/agents."""
    return await _queue("orbit", body, session, principal, clock, call)


@comet_router.post("", status_code=202, responses=errors(400), deprecated=True)
async def create_comet(
    body: CometCreate, session: SessionDep, principal: PrincipalDep, clock: ClockDep, call: CallDep
) -> Envelope[Queued]:
    """Deprecated: queue a recurring search (free to create; each run is debited $0.50); 202 with the
    queue response. Use POST /v1/agents with `is_recurring: true`."""
    return await _queue("comet", body, session, principal, clock, call)


@orbit_router.get("", responses=errors(400), deprecated=True)
async def list_orbits(
    query: Annotated[LegacyListQuery, Query()], session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentList]:
    """Deprecated: the team's one-shot searches, newest first. Use GET /v1/agents."""
    page = await agent_service.list_page(session, principal.team_id, query, now=clock.now(), recurring=False)
    return Envelope(data=page)


@orbit_router.get("/list", responses=errors(400), deprecated=True)
async def list_orbits_alias(
    query: Annotated[LegacyListQuery, Query()], session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentList]:
    """Deprecated: the same as GET /v1/orbit."""
    return await list_orbits(query, session, principal, clock)


@comet_router.get("", responses=errors(400), deprecated=True)
async def list_comets(
    query: Annotated[LegacyListQuery, Query()], session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentList]:
    """Deprecated: the team's recurring searches, newest first. Use GET /v1/agents."""
    page = await agent_service.list_page(session, principal.team_id, query, now=clock.now(), recurring=True)
    return Envelope(data=page)


@comet_router.get("/list", responses=errors(400), deprecated=True)
async def list_comets_alias(
    query: Annotated[LegacyListQuery, Query()], session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentList]:
    """Deprecated: the same as GET /v1/comet."""
    return await list_comets(query, session, principal, clock)


@orbit_router.get("/{agent_id}", responses=GET_ERRORS, deprecated=True)
async def get_orbit(
    agent_id: str,
    query: Annotated[ResultsQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
) -> Envelope[OrbitResults]:
    """Deprecated: status and results, videos ordered by `order_by`. Use GET /v1/agents/{id}."""
    return await _results(agent_id, query, session, principal, clock)


@comet_router.get("/{agent_id}", responses=GET_ERRORS, deprecated=True)
async def get_comet(
    agent_id: str,
    query: Annotated[ResultsQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
) -> Envelope[OrbitResults]:
    """Deprecated: status and results, videos ordered by `order_by`. Use GET /v1/agents/{id}."""
    return await _results(agent_id, query, session, principal, clock)


@orbit_router.put("/{agent_id}", responses=WRITE_ERRORS, deprecated=True)
async def update_orbit(
    agent_id: str, body: LegacyUpdate, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentOut]:
    """Deprecated: PUT /v1/agents/{id}; only the fields sent change. `min_views`, `time_range` and
    `time_period` are accepted and ignored (§9)."""
    return Envelope(
        data=await agent_service.update(session, principal.team_id, agent_id, body, now=clock.now())
    )


@comet_router.put("/{agent_id}", responses=WRITE_ERRORS, deprecated=True)
async def update_comet(
    agent_id: str, body: LegacyUpdate, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentOut]:
    """Deprecated: PUT /v1/agents/{id}; only the fields sent change (`is_active: false` pauses the
    schedule). `min_views`, `time_range` and `time_period` are accepted and ignored (§9)."""
    return Envelope(
        data=await agent_service.update(session, principal.team_id, agent_id, body, now=clock.now())
    )


# --- every other route of one agent, mirrored ------------------------------------------------------


def mirror(router: APIRouter, kind: Kind) -> None:
    """Add to ``router`` every route of one agent (``/agents/{agent_id}…``) that it does not declare
    itself: the agent's own endpoint with its responses and status, under this prefix."""
    own = {
        (method, route.path)
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in route.methods or ()
    }
    for family in AGENT_ROUTERS:
        for route in family.routes:
            if not isinstance(route, APIRoute) or not route.path.startswith(ONE_AGENT):
                continue
            path = route.path.removeprefix("/agents")
            methods = sorted(m for m in route.methods or () if (m, router.prefix + path) not in own)
            if not methods:
                continue
            router.add_api_route(
                path,
                route.endpoint,
                methods=methods,
                name=legacy_operation(route.name, kind),
                response_model=route.response_model,
                status_code=route.status_code,
                responses=route.responses,
                response_class=route.response_class,
                description=f"Deprecated: {' '.join(methods)} /v1{route.path}. {route.description}",
                deprecated=True,
            )


mirror(orbit_router, "orbit")
mirror(comet_router, "comet")
ROUTERS = (orbit_router, comet_router)

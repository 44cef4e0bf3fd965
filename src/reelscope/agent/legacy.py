"""Legacy Orbit and Comet (spec §4.5, §9; deprecated, removed 2026-08-03): the same agents under the old
paths. Orbit is a one-shot agent, comet a recurring one with a cadence; their IDs are agent IDs, so
every read works with either prefix and maps to the same read under ``/v1/agents/{id}/``.

Every response here, errors included, carries ``Deprecation: true`` and ``Sunset`` (RFC 8594). The
tighter legacy rate limits come from the path (``rate_limit.features.feature_of``); the legacy webhook
names fire with every run (``events.service.publish``). Create-time ``min_views``, ``time_range`` and
``time_period`` are accepted and ignored (§9).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal

from fastapi import APIRouter, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from pydantic import Field, JsonValue, model_validator

from reelscope.agent import analysis as agent_analysis
from reelscope.agent import reads, repository
from reelscope.agent import service as agent_service
from reelscope.agent.schemas import (
    AdPage,
    AdQuery,
    AgentCreate,
    AgentList,
    AgentOut,
    AgentPageQuery,
    EmptyQuery,
    ItemQuery,
    OutlierPage,
    OutlierQuery,
    SlideshowPage,
    Sort,
    TrendBatch,
    TrendQuery,
    VideoPage,
)
from reelscope.contract import CallDep, ClockDep, ContractRoute, PrincipalDep, SessionDep
from reelscope.kit.errors import ApiError, ValidationFailed
from reelscope.kit.pagination import Page
from reelscope.kit.schemas import Envelope, Schema, errors
from reelscope.kit.validation import describe_validation_errors

SUNSET = "Mon, 03 Aug 2026 00:00:00 GMT"  # §4.5: removed 2026-08-03 (RFC 8594 HTTP-date)
DEPRECATION_HEADERS = {"Deprecation": "true", "Sunset": SUNSET}


class DeprecatedRoute(ContractRoute):
    """The request contract, plus ``Deprecation: true`` on every response, errors included (the §4.4
    proposal endpoints)."""

    deprecation_headers: ClassVar[dict[str, str]] = {"Deprecation": "true"}

    def get_route_handler(self) -> Callable[[Request], Any]:
        inner = super().get_route_handler()
        headers = self.deprecation_headers

        async def handle(request: Request) -> Response:
            try:
                response: Response = await inner(request)
            except ApiError as error:
                error.headers.update(headers)
                raise
            except RequestValidationError as invalid:
                # rendered here rather than by the app's handler, to carry the headers too
                failed = ValidationFailed(describe_validation_errors(list(invalid.errors())))
                failed.headers.update(headers)
                raise failed from None
            response.headers.update(headers)
            return response

        return handle


class LegacyRoute(DeprecatedRoute):
    """The legacy paths (§4.5): ``Deprecation`` and ``Sunset`` on every response, errors included."""

    deprecation_headers = DEPRECATION_HEADERS


class _Ignored(AgentCreate):
    # §9: accepted on the legacy creates and ignored (the service sets the collection scope)
    min_views: JsonValue = Field(default=None, description="Accepted and ignored")
    time_range: JsonValue = Field(default=None, description="Accepted and ignored")
    time_period: JsonValue = Field(default=None, description="Accepted and ignored")


class OrbitCreate(_Ignored):
    """A one-shot keyword search."""

    @model_validator(mode="after")
    def _one_shot(self) -> OrbitCreate:
        if self.is_recurring or self.cadence is not None:
            raise ValueError(
                "an orbit is one-shot: use POST /v1/comet (or /v1/agents) for a recurring search"
            )
        return self


class CometCreate(_Ignored):
    """A recurring keyword search (default cadence daily)."""

    is_recurring: bool = Field(default=True, description="Always true for a comet")

    @model_validator(mode="after")
    def _recurring(self) -> CometCreate:
        if not self.is_recurring:
            raise ValueError("a comet is recurring: use POST /v1/orbit for a one-shot search")
        return self


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


def legacy_router(kind: Literal["orbit", "comet"]) -> APIRouter:
    """The routes of one legacy prefix; operation ids are ``<verb>_<kind>…`` (billing/prices.py)."""
    router = APIRouter(prefix=f"/{kind}", tags=[f"legacy {kind}"], route_class=LegacyRoute)
    recurring = kind == "comet"
    body_model = CometCreate if recurring else OrbitCreate

    async def create(
        body: AgentCreate,
        session: SessionDep,
        principal: PrincipalDep,
        clock: ClockDep,
        call: CallDep,
    ) -> Envelope[Queued]:
        created = await agent_service.create(
            session, principal, body, charged=call.final_price, now=clock.now()
        )
        return Envelope(
            data=Queued(
                id=created.id,
                job_id=created.job_id,
                run_id=created.run_id,
                poll_url=f"/v1/{kind}/{created.id}",
            )
        )

    # FastAPI reads the body model from the annotation: this prefix's own
    create.__annotations__["body"] = body_model

    async def list_all(
        query: Annotated[AgentPageQuery, Query()],
        session: SessionDep,
        principal: PrincipalDep,
        clock: ClockDep,
    ) -> Envelope[AgentList]:
        page = await agent_service.list_page(
            session, principal.team_id, query, now=clock.now(), recurring=recurring
        )
        return Envelope(data=page)

    async def get_one(
        agent_id: str,
        query: Annotated[ResultsQuery, Query()],
        session: SessionDep,
        principal: PrincipalDep,
        clock: ClockDep,
    ) -> Envelope[OrbitResults]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        rendered = await agent_service.render(session, agent, now=clock.now())
        results = await reads.videos(
            session, agent, query, order=query.order_by.value, descending=query.sort is Sort.DESC
        )
        return Envelope(data=OrbitResults(**rendered.model_dump(), results=results))

    async def videos(
        agent_id: str, query: Annotated[ItemQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Envelope[VideoPage]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        return Envelope(data=await reads.filtered_videos(session, agent, query))

    async def slideshows(
        agent_id: str, query: Annotated[ItemQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Envelope[SlideshowPage]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        return Envelope(data=await reads.slideshows(session, agent, query))

    async def ads(
        agent_id: str, query: Annotated[AdQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Envelope[AdPage]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        return Envelope(data=await reads.ads(session, agent, query))

    async def outliers(
        agent_id: str, query: Annotated[OutlierQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Envelope[OutlierPage]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        return Envelope(data=await reads.outliers(session, agent, query))

    async def latest_trends(
        agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Envelope[TrendBatch]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        batch = agent_analysis.latest_trends(await repository.latest_batch(session, agent.id))
        return Envelope(data=TrendBatch(**batch))

    async def trends(
        agent_id: str, query: Annotated[TrendQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Page[dict[str, Any]]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        return await agent_analysis.trend_page(session, agent, query)

    async def latest_analysis(
        agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
    ) -> Envelope[dict[str, Any] | None]:
        agent = await agent_service.get_owned(session, principal.team_id, agent_id)
        rows, _ = await repository.page_analyses(session, agent.id, skip=0, limit=1)
        return Envelope(data=rows[0].analysis if rows else None)

    what = "recurring search (comet)" if recurring else "one-shot search (orbit)"
    price = (
        "free to create; each run is debited $0.50"
        if recurring
        else "$0.50, $1.50 with data_intelligence_enabled"
    )
    create_errors = (400,) if recurring else (400, 402)
    routes: list[tuple[str, str, Callable[..., Any], str, dict[str, Any]]] = [
        # a comet is free to create (its runs are debited by their jobs): no 402
        ("POST", "", create, f"create_{kind}", {"status_code": 202, "responses": errors(*create_errors)}),
        ("GET", "", list_all, f"list_{kind}s", {"responses": errors(400)}),
        ("GET", "/list", list_all, f"list_{kind}s_alias", {"responses": errors(400)}),
        ("GET", "/{agent_id}", get_one, f"get_{kind}", {"responses": errors(400, 404)}),
        ("GET", "/{agent_id}/videos", videos, f"list_{kind}_videos", {"responses": errors(400, 404)}),
        (
            "GET",
            "/{agent_id}/slideshows",
            slideshows,
            f"list_{kind}_slideshows",
            {"responses": errors(400, 404)},
        ),
        ("GET", "/{agent_id}/ads", ads, f"list_{kind}_ads", {"responses": errors(400, 404)}),
        (
            "GET",
            "/{agent_id}/creators/outliers",
            outliers,
            f"list_{kind}_creator_outliers",
            {"responses": errors(400, 404)},
        ),
        (
            "GET",
            "/{agent_id}/trends/latest",
            latest_trends,
            f"get_{kind}_latest_trends",
            {"responses": errors(400, 404)},
        ),
        ("GET", "/{agent_id}/trends", trends, f"list_{kind}_trends", {"responses": errors(400, 404)}),
        (
            "GET",
            "/{agent_id}/analysis/latest",
            latest_analysis,
            f"get_{kind}_latest_analysis",
            {"responses": errors(400, 404)},
        ),
    ]
    docs = {
        "create": f"Deprecated: queue a {what} ({price}); 202 with the queue response. Use POST /v1/agents.",
        "list_all": f"Deprecated: the team's {what}es, newest first. Use GET /v1/agents.",
        "get_one": "Deprecated: status and results, videos ordered by `order_by`. Use GET /v1/agents/{id}.",
        "videos": "Deprecated: GET /v1/agents/{id}/videos.",
        "slideshows": "Deprecated: GET /v1/agents/{id}/slideshows.",
        "ads": "Deprecated: GET /v1/agents/{id}/ads.",
        "outliers": "Deprecated: GET /v1/agents/{id}/creators/outliers.",
        "latest_trends": "Deprecated: GET /v1/agents/{id}/trends/latest.",
        "trends": "Deprecated: GET /v1/agents/{id}/trends.",
        "latest_analysis": "Deprecated: GET /v1/agents/{id}/analysis/latest.",
    }
    for method, path, endpoint, name, extra in routes:
        router.add_api_route(
            path,
            endpoint,
            methods=[method],
            name=name,
            description=docs[endpoint.__name__],
            deprecated=True,
            **extra,
        )
    return router


ROUTERS = (legacy_router("orbit"), legacy_router("comet"))

"""/v1/agents (spec §4.4): content research agents, their runs and read-time lists.

Creating a one-shot agent costs $0.50 (+$1.00 with Data Intelligence); a recurring agent is free to
create and each of its runs is debited by the job that runs it. Everything else here is free. Another
team's agent is 404 like a missing one (§7).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import Query, Response

from reelscope.agent import affinity as agent_affinity
from reelscope.agent import analysis as agent_analysis
from reelscope.agent import hooks as agent_hooks
from reelscope.agent import reads, repository, suggest
from reelscope.agent import service as agent_service
from reelscope.agent.schemas import (
    AdPage,
    AdQuery,
    Affinity,
    AgentCreate,
    AgentCreated,
    AgentHookPage,
    AgentList,
    AgentOut,
    AgentPageQuery,
    AgentUpdate,
    Benchmarks,
    EmptyQuery,
    HookQuery,
    ItemQuery,
    KeywordSuggestion,
    OutlierPage,
    OutlierQuery,
    RunList,
    RunOut,
    SimilarCreators,
    SlideshowPage,
    SoundQuery,
    SuggestKeywords,
    TrendBatch,
    TrendQuery,
    VideoPage,
)
from reelscope.contract import (
    CallDep,
    ClockDep,
    PrincipalDep,
    RuntimeDep,
    SessionDep,
    v1_router,
    writes_nothing,
)
from reelscope.kit.pagination import Page, PageQuery, Pagination
from reelscope.kit.responses import FastJSON
from reelscope.kit.schemas import Envelope, errors

router = v1_router(prefix="/agents", tags=["agents"])


@router.post("", status_code=201, responses=errors(400, 402))
async def create_agent(
    body: AgentCreate, session: SessionDep, principal: PrincipalDep, clock: ClockDep, call: CallDep
) -> Envelope[AgentCreated]:
    """Create a one-shot or recurring agent and start its first run; returns the agent with the run's
    `job_id`. Poll `GET /v1/agents/{id}` until `finalized` is true, or subscribe to
    `content_research_agent.run.completed`."""
    created = await agent_service.create(session, principal, body, charged=call.final_price, now=clock.now())
    return Envelope(data=created)


@router.post("/suggest-keywords", responses=errors(400))
@writes_nothing  # §4.4 "creates nothing": a read session, no write lock held while an LLM rewords
async def suggest_agent_keywords(
    body: SuggestKeywords, session: SessionDep, clock: ClockDep, runtime: RuntimeDep
) -> Envelope[KeywordSuggestion]:
    """Keywords for an agent from an intent (mode `create`, default), a refresh of current keywords
    (`refresh`) or rising adjacent keywords (`opportunity`), ranked by what the catalog holds for them
    over the last 30 days: volume, week-over-week growth and overlap with the seed terms. Free; creates
    nothing."""
    return Envelope(data=await suggest.suggest(session, body, clock.now(), runtime.settings))


@router.get("", responses=errors(400))
async def list_agents(
    query: Annotated[AgentPageQuery, Query()], session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentList]:
    """The team's agents, newest first. `count` is the items on this page: stop at the first page shorter
    than `limit`."""
    return Envelope(data=await agent_service.list_page(session, principal.team_id, query, now=clock.now()))


@router.get("/{agent_id}", responses=errors(400, 404))
async def get_agent(
    agent_id: str,
    query: Annotated[EmptyQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
) -> Envelope[AgentOut]:
    """The agent with its latest run's `status`, `finalized`, `pending_jobs` and `analysis_data` (§2.6)."""
    return Envelope(data=await agent_service.get(session, principal.team_id, agent_id, now=clock.now()))


@router.put("/{agent_id}", responses=errors(400, 404))
async def update_agent(
    agent_id: str, body: AgentUpdate, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Envelope[AgentOut]:
    """Change the configuration; sending `keywords` or `exclude_keywords` replaces the list."""
    updated = await agent_service.update(session, principal.team_id, agent_id, body, now=clock.now())
    return Envelope(data=updated)


@router.delete("/{agent_id}", status_code=204, response_class=Response, responses=errors(400, 404))
async def delete_agent(
    agent_id: str, session: SessionDep, principal: PrincipalDep, clock: ClockDep
) -> Response:
    """Delete the agent (its schedule stops); it is 404 afterwards."""
    await agent_service.delete(session, principal.team_id, agent_id, now=clock.now())
    return Response(status_code=204)


@router.get("/{agent_id}/videos", responses=errors(400, 404))
async def list_agent_videos(
    agent_id: str, query: Annotated[ItemQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[VideoPage]:
    """The agent's videos with read-time filters; each carries `intelligence_status`. Stop at an empty
    page; `total` may be approximate."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=await reads.filtered_videos(session, agent, query))


@router.get("/{agent_id}/slideshows", responses=errors(400, 404))
async def list_agent_slideshows(
    agent_id: str, query: Annotated[ItemQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[SlideshowPage]:
    """The agent's image carousels, with the same filters as videos."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=await reads.slideshows(session, agent, query))


@router.get("/{agent_id}/ads", responses=errors(400, 404))
async def list_agent_ads(
    agent_id: str, query: Annotated[AdQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[AdPage]:
    """Ads from the ad library (agents with `meta_ads_enabled`); `order_by` created_at or page_like_count."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=await reads.ads(session, agent, query))


@router.get("/{agent_id}/creators/outliers", responses=errors(400, 404))
async def list_agent_creator_outliers(
    agent_id: str, query: Annotated[OutlierQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[OutlierPage]:
    """Creators whose video here is at least 3x their median views: `outlier_ratio = views / median`,
    `weighted_score = ln(outlier_ratio) x ln(median_views)`."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=await reads.outliers(session, agent, query))


@router.get("/{agent_id}/sounds", responses=errors(400, 404))
async def list_agent_sounds(
    agent_id: str, query: Annotated[SoundQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Page[dict[str, Any]]:
    """Top sounds of the agent's videos, `sort` rising (default) or growth_7d; each row has a `lifecycle`
    label: emerging, rising, stable or declining."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return await reads.sounds(session, agent, query)


@router.get("/{agent_id}/hashtags", responses=errors(400, 404))
async def list_agent_hashtags(
    agent_id: str, query: Annotated[AgentPageQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Page[dict[str, Any]]:
    """Per-hashtag analytics of the agent's videos: counts, views, 7-day growth and top creators."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return await reads.hashtags(session, agent, query)


@router.get("/{agent_id}/benchmarks", responses=errors(400, 404))
async def get_agent_benchmarks(
    agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[Benchmarks]:
    """Genre norms by follower tier (nano < 10K, micro < 100K, mid < 1M, macro); not paged."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=reads.benchmarks(agent))


@router.get("/{agent_id}/affinity", responses=errors(400, 404))
async def get_agent_affinity(
    agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[Affinity]:
    """Genre adjacency (beta): the genres of the agent's videos (non-generic hashtags and content
    categories) and the pairs that go together on the same videos or with the same creators, with
    strength (Ochiai, 0 to 1), lift and evidence counts; not paged."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(data=await agent_affinity.genres(session, agent))


@router.get("/{agent_id}/creators/{creator_id}/similar", responses=errors(400, 404))
async def get_agent_similar_creators(
    agent_id: str,
    creator_id: str,
    query: Annotated[EmptyQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    runtime: RuntimeDep,
) -> Envelope[SimilarCreators]:
    """Similar creators (beta): the agent's creators ranked by likeness to `creator_id` (the id of the
    creator lists and the videos' `author_id`): text similarity of their captions and hashtags, shared
    sounds and audience-size tier, with the score and what they share; not paged. At most 25, and only
    creators who post a word, hashtag or sound in common: a shared tier alone lists nobody. A creator
    none of the agent's videos has is 404."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    similar = await agent_affinity.similar_creators(
        session, runtime.caches, agent, creator_id, runtime.clock.now()
    )
    return Envelope(data=similar)


@router.get(
    "/{agent_id}/analysis/latest", response_model=Envelope[dict[str, Any] | None], responses=errors(400, 404)
)
async def get_latest_agent_analysis(
    agent_id: str,
    query: Annotated[EmptyQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    runtime: RuntimeDep,
) -> FastJSON:
    """The latest run's AI analysis: `analysis_data` (key_highlight, overview, themes, viral_tactics,
    timing_analysis, connecting_thread, top_10_breakdown, excluded_videos), `trends`, `video_count`,
    `cost_usd`; `data` is null before the first analysis."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    rows, _ = await repository.page_analyses(session, agent.id, skip=0, limit=1)
    analyses = agent_service.analyses_as_stored(runtime.caches, rows)
    return FastJSON({"data": analyses[0] if analyses else None})


@router.get("/{agent_id}/analysis", response_model=Page[dict[str, Any]], responses=errors(400, 404))
async def list_agent_analyses(
    agent_id: str,
    query: Annotated[AgentPageQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    runtime: RuntimeDep,
) -> FastJSON:
    """Every run's analysis, newest first."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    rows, total = await repository.page_analyses(session, agent.id, skip=query.skip, limit=query.limit)
    pagination = Pagination.of(PageQuery(page=query.page, limit=query.limit), total)
    return FastJSON(
        {
            "data": agent_service.analyses_as_stored(runtime.caches, rows),
            "pagination": pagination.model_dump(mode="json"),
        }
    )


@router.get("/{agent_id}/trends/latest", responses=errors(400, 404))
async def get_latest_agent_trends(
    agent_id: str, query: Annotated[EmptyQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Envelope[TrendBatch]:
    """The newest batch of themes, each with `stable_key`, `status` (new, rising, steady or fading against
    the batch before), evidence videos and engagement stats; empty before the first analysis."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return Envelope(
        data=TrendBatch(**agent_analysis.latest_trends(await repository.latest_batch(session, agent.id)))
    )


@router.get("/{agent_id}/trends", responses=errors(400, 404))
async def list_agent_trends(
    agent_id: str, query: Annotated[TrendQuery, Query()], session: SessionDep, principal: PrincipalDep
) -> Page[dict[str, Any]]:
    """Trend history, newest batch first; filter by `stable_key` and by batch end with `start_date` and
    `end_date`."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    return await agent_analysis.trend_page(session, agent, query)


@router.get("/{agent_id}/hooks", responses=errors(400, 402, 404))
async def get_agent_hooks(
    agent_id: str,
    query: Annotated[HookQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    call: CallDep,
) -> AgentHookPage:
    """The hooks of the agent's videos, ranked by views, each video once, with `coverage` counts and an
    exact `pagination.total`. $0.25; free when the agent has Data Intelligence."""
    agent = await agent_service.get_owned(session, principal.team_id, agent_id)
    found = await agent_hooks.page(session, agent, query)
    if agent.data_intelligence_enabled:
        call.settle(0)  # §4.4: free with Data Intelligence
    return AgentHookPage(
        data=found["items"], pagination=Pagination.of(query, found["total"]), coverage=found["coverage"]
    )


@router.get("/{agent_id}/runs", response_model=Envelope[RunList], responses=errors(400, 404))
async def list_agent_runs(
    agent_id: str,
    query: Annotated[AgentPageQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    runtime: RuntimeDep,
) -> FastJSON:
    """The agent's runs, newest first; a run that did not start says why in `error`."""
    runs = await agent_service.runs_page(
        session, runtime.caches, principal.team_id, agent_id, query, now=clock.now()
    )
    return FastJSON({"data": runs})


@router.get("/{agent_id}/runs/{run_id}", response_model=Envelope[RunOut], responses=errors(400, 404))
async def get_agent_run(
    agent_id: str,
    run_id: str,
    query: Annotated[EmptyQuery, Query()],
    session: SessionDep,
    principal: PrincipalDep,
    clock: ClockDep,
    runtime: RuntimeDep,
) -> FastJSON:
    """One run with its targets, metrics, `finalized` and `pending_jobs`."""
    run = await agent_service.get_run(
        session, runtime.caches, principal.team_id, agent_id, run_id, now=clock.now()
    )
    return FastJSON({"data": run})

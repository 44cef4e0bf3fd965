"""The retention purge of deleted agents' data (issue 31 item 1): REELSCOPE_RETAIN_DELETED_AGENTS_DAYS (30)
after an agent's deletion its rows in every agent table go, with its finished jobs, its schedule and the
agent itself; the catalog rows its links pointed at stay, as do live agents' and other teams' rows."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, NamedTuple

import httpx
import pytest
from sqlalchemy import func, select

from reelscope.agent import service as agent_service
from reelscope.collectors.base import SoundRecord
from reelscope.kit.clock import ManualClock
from reelscope.kit.db import Base
from reelscope.kit.ids import new_id
from reelscope.kit.platforms import Platform
from reelscope.models import (
    Ad,
    Agent,
    AgentActivity,
    AgentAd,
    AgentChange,
    AgentCreator,
    AgentEvent,
    AgentHashtag,
    AgentHook,
    AgentRun,
    AgentSimilarModel,
    AgentSlideshow,
    AgentSound,
    AgentTrend,
    AgentVideo,
    Creator,
    Job,
    Schedule,
    Slideshow,
    Sound,
    Video,
)
from reelscope.retention import repository as retention_repository
from reelscope.retention import tasks as retention_tasks
from reelscope.runtime import Runtime
from reelscope.worker import TaskContext
from reelscope.worker.schedules import service as schedules_service
from tests.catalog_builders import ingest, video
from tests.conftest import MakeTeam, TeamKey

DAY = timedelta(days=1)


def test_every_table_with_an_agent_id_is_purged() -> None:
    """A table added later with an agent's rows must join the purge (or the agent's row would take its
    rows in one unbatched cascade)."""
    with_agent_id = {table.name for table in Base.metadata.tables.values() if "agent_id" in table.columns}
    purged = {model.__tablename__ for model, _ in retention_repository.AGENT_TABLES}
    assert purged == with_agent_id


class Catalog(NamedTuple):
    video_id: str
    creator_id: str
    sound_id: str
    slideshow_id: str
    ad_id: str


async def catalog_rows(runtime: Runtime) -> Catalog:
    """A catalog video with its creator and sound, a carousel and an ad, for agents to link."""
    now = runtime.clock.now()
    external_id = new_id()[:12]
    sound = SoundRecord(platform=Platform.TIKTOK, external_id=external_id, title="a sound")
    await ingest(runtime, video(external_id, now - DAY, sound=sound))
    slideshow = Slideshow(
        id=new_id(),
        platform="tiktok",
        external_id=external_id,
        url="https://example.test/s",
        panels=[],
        image_count=1,
        published_at=now,
        found_at=now,
        fetched_at=now,
        views=1,
        likes=0,
        comments=0,
        hashtags=[],
    )
    ad = Ad(
        id=new_id(),
        external_id=external_id,
        page_id="p",
        page_name="bakery",
        bodies=[],
        start_date=now,
        publisher_platforms=[],
        languages=[],
        first_seen_at=now,
        fetched_at=now,
    )
    async with runtime.db.transaction() as session:
        session.add_all([slideshow, ad])
        row = (await session.execute(select(Video).where(Video.external_id == external_id))).scalar_one()
        assert row.sound_id is not None
        return Catalog(row.id, row.creator_id, row.sound_id, slideshow.id, ad.id)


async def add_agent(runtime: Runtime, team: TeamKey, catalog: Catalog) -> str:
    """An agent with one row in each of its tables (linking ``catalog``), a finished run with its
    collection and analysis jobs, and its schedule, as a recurring agent's first run leaves them."""
    now = runtime.clock.now()
    video_id, creator_id, sound_id, slideshow_id, ad_id = catalog
    agent = Agent(
        id=new_id(),
        team_id=team.team_id,
        user_id=new_id(),
        name="bread",
        is_recurring=True,
        intent=None,
        keywords=["sourdough"],
        exclude_keywords=[],
        pinned_keywords=["sourdough"],
        platforms=["tiktok"],
        meta_ads_enabled=False,
        data_intelligence_enabled=False,
        cadence="0 9 * * *",
        language=None,
        autopilot=False,
        cognition_enabled=True,
        timely_keywords=[],
        is_active=True,
        min_views=0,
        time_range="30d",
        created_at=now,
        updated_at=now,
    )
    run = agent_service.new_run(agent, trigger="create", scheduled_for=None, charged=0, now=now)
    run.status, run.completed_at = "completed", now
    linked = {"run_id": run.id, "keyword": "sourdough", "linked_at": now}
    stats = {"video_count": 1, "total_views": 100, "videos_7d": 1, "videos_prev_7d": 0, "growth_7d": None}
    async with runtime.db.transaction() as session:
        session.add(agent)
        await session.flush()
        schedule = await schedules_service.create(
            session,
            task=agent_service.SCHEDULED_RUN_TASK,
            job_type="agent_run",
            cadence="cron:0 9 * * *",
            at=now,
            team_id=team.team_id,
            resource_type=agent_service.AGENT_RESOURCE,
            resource_id=agent.id,
            params={"agent_id": agent.id},
        )
        agent.schedule_id = schedule.id
        session.add_all(
            [
                run,
                # the collection job goes with every finished job after 14 days; the analysis job is
                # made once per run and stays as long as the run does
                finished_job(runtime, team, agent_service.AGENT_RESOURCE, agent.id),
                finished_job(
                    runtime, team, agent_service.RUN_RESOURCE, run.id, dedupe_key=f"agent_analysis:{run.id}"
                ),
                AgentVideo(
                    agent_id=agent.id,
                    video_id=video_id,
                    platform="tiktok",
                    published_at=now,
                    views=100,
                    intelligence_status="disabled",
                    **linked,
                ),
                AgentSlideshow(
                    agent_id=agent.id,
                    slideshow_id=slideshow_id,
                    platform="tiktok",
                    published_at=now,
                    views=1,
                    intelligence_status="disabled",
                    **linked,
                ),
                AgentAd(agent_id=agent.id, ad_id=ad_id, **linked),
                AgentCreator(
                    agent_id=agent.id,
                    creator_id=creator_id,
                    platform="tiktok",
                    handle="maker",
                    video_count=1,
                    avg_views=1.0,
                    median_views=1.0,
                    outlier_ratio=1.0,
                    weighted_score=1.0,
                    top_video_id=video_id,
                    top_video_views=100,
                    updated_at=now,
                ),
                AgentSound(
                    agent_id=agent.id,
                    sound_id=sound_id,
                    rising_score=0.0,
                    lifecycle="stable",
                    first_used_at=now,
                    last_used_at=now,
                    **stats,
                ),
                AgentHashtag(
                    agent_id=agent.id,
                    hashtag="bread",
                    display="#bread",
                    avg_views=100.0,
                    top_creators=[],
                    **stats,
                ),
                AgentHook(
                    agent_id=agent.id,
                    video_id=video_id,
                    platform="tiktok",
                    url="https://example.test/v",
                    hook_text="wait for it",
                    source="caption",
                    hook_type="curiosity",
                    views=100,
                    published_at=now,
                ),
                AgentSimilarModel(agent_id=agent.id, links_at=now, links_count=1, model=b"", built_at=now),
                AgentTrend(
                    id=new_id(),
                    agent_id=agent.id,
                    run_id=run.id,
                    batch_end=now,
                    stable_key="k",
                    name="crumb",
                    status="new",
                    video_count=1,
                    terms=[],
                    data={},
                ),
                AgentChange(
                    id=new_id(),
                    agent_id=agent.id,
                    team_id=team.team_id,
                    kind="add_keywords",
                    status="proposed",
                    add=["rye"],
                    remove=[],
                    reason="thin run",
                    evidence={},
                    created_at=now,
                ),
                AgentActivity(
                    id=new_id(),
                    agent_id=agent.id,
                    team_id=team.team_id,
                    at=now,
                    action="proposed",
                    summary="rye",
                    detail={},
                ),
                AgentEvent(
                    id=new_id(),
                    agent_id=agent.id,
                    team_id=team.team_id,
                    source="news_scan",
                    topic="bread",
                    dedupe_key=new_id(),
                    title="bread",
                    summary="",
                    salience=0.5,
                    status="candidate",
                    detected_at=now,
                    expires_at=now + DAY,
                    keywords=[],
                    keywords_added=[],
                    evidence=[],
                    updated_at=now,
                ),
            ]
        )
    return agent.id


def finished_job(runtime: Runtime, team: TeamKey, resource_type: str, resource_id: str, **fields: Any) -> Job:
    now = runtime.clock.now()
    return Job(
        id=new_id(),
        team_id=team.team_id,
        task="probe.task",
        type="agent_run",
        status="completed",
        params={},
        resource_type=resource_type,
        resource_id=resource_id,
        expires_at=now + DAY,
        finished_at=now,
        created_at=now,
        updated_at=now,
        **fields,
    )


async def rows_of(runtime: Runtime, agent_id: str) -> dict[str, int]:
    """How many rows the agent has in each of its tables, its schedules and its runs' analysis jobs."""
    async with runtime.db.transaction(write=False) as session:
        counts = {
            model.__tablename__: await session.scalar(
                select(func.count()).select_from(model).where(model.agent_id == agent_id)
            )
            for model, _ in retention_repository.AGENT_TABLES
        }
        counts["agents"] = await session.scalar(select(func.count()).where(Agent.id == agent_id))
        counts["schedules"] = await session.scalar(
            select(func.count()).where(Schedule.resource_id == agent_id)
        )
        runs = select(AgentRun.id).where(AgentRun.agent_id == agent_id)
        counts["analysis_jobs"] = await session.scalar(
            select(func.count()).where(Job.resource_type == "agent_run", Job.resource_id.in_(runs))
        )
    return {name: int(count or 0) for name, count in counts.items()}


async def catalog_count(runtime: Runtime) -> list[int]:
    async with runtime.db.transaction(write=False) as session:
        return [
            int(await session.scalar(select(func.count()).select_from(model)) or 0)
            for model in (Video, Creator, Sound, Slideshow, Ad)
        ]


async def delete_agent(client: httpx.AsyncClient, team: TeamKey, agent_id: str) -> None:
    assert (await client.delete(f"/v1/agents/{agent_id}", headers=team.headers)).status_code == 204


@pytest.mark.both_databases
async def test_a_deleted_agents_rows_go_after_the_window_and_nothing_else(
    runtime: Runtime,
    client: httpx.AsyncClient,
    clock: ManualClock,
    team: TeamKey,
    make_team: MakeTeam,
    task_context: TaskContext,
) -> None:
    other_team = await make_team()
    shared = await catalog_rows(runtime)
    gone = await add_agent(runtime, team, shared)
    live = await add_agent(runtime, team, shared)  # links the same catalog video, creator and sound
    others = await add_agent(runtime, other_team, shared)
    recent = await add_agent(runtime, team, shared)
    full = await rows_of(runtime, live)
    assert all(full.values()), full  # the fixture fills every table
    catalog = await catalog_count(runtime)

    await delete_agent(client, team, gone)
    clock.advance(2 * DAY)
    await delete_agent(client, team, recent)
    await delete_agent(client, other_team, others)
    # 29 days after the first deletion: nothing goes yet
    clock.advance(27 * DAY)
    assert (await retention_tasks.purge(task_context))["deleted_agents"] == 0
    assert await rows_of(runtime, gone) == full

    clock.advance(2 * DAY)  # 31 days after the first, 29 after the others
    assert (await retention_tasks.purge(task_context))["deleted_agents"] == 1
    assert set((await rows_of(runtime, gone)).values()) == {0}
    for kept in (live, others, recent):
        assert await rows_of(runtime, kept) == full
    assert await catalog_count(runtime) == catalog  # the catalog rows it linked stay
    # gone for its team, as it was since the deletion
    response = await client.get(f"/v1/agents/{gone}", headers=team.headers)
    assert response.status_code == 404
    assert (await client.get(f"/v1/agents/{live}", headers=team.headers)).status_code == 200


async def test_each_table_goes_in_batches_of_its_own(
    runtime: Runtime,
    client: httpx.AsyncClient,
    clock: ManualClock,
    team: TeamKey,
    task_context: TaskContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Many linked videos go AGENT_ROWS_BATCH at a time, each batch a write transaction of its own."""
    monkeypatch.setattr(retention_tasks, "AGENT_ROWS_BATCH", 2)
    agent_id = await add_agent(runtime, team, await catalog_rows(runtime))
    for _ in range(4):
        video_id = (await catalog_rows(runtime)).video_id
        async with runtime.db.transaction() as session:
            session.add(
                AgentVideo(
                    agent_id=agent_id,
                    video_id=video_id,
                    platform="tiktok",
                    published_at=clock.now(),
                    views=1,
                    run_id=new_id(),
                    keyword="sourdough",
                    intelligence_status="disabled",
                    linked_at=clock.now(),
                )
            )
    await delete_agent(client, team, agent_id)
    clock.advance(31 * DAY)
    batches: list[int] = []
    delete_rows = retention_repository.delete_agent_rows

    async def spy(session: Any, table: retention_repository.AgentTable, *args: Any) -> int:
        removed = await delete_rows(session, table, *args)
        if table[0] is AgentVideo:
            batches.append(removed)
        return removed

    monkeypatch.setattr(retention_repository, "delete_agent_rows", spy)
    assert (await retention_tasks.purge(task_context))["deleted_agents"] == 1
    assert batches == [2, 2, 1]
    assert set((await rows_of(runtime, agent_id)).values()) == {0}

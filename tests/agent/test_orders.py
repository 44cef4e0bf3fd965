"""The legacy orbit read's catalog orders (spec §4.5: likes, comments, shares, bookmarks, author.followers)
kept on the links (ADR 0058): every page, in both directions, is the page the join of the links with the
catalog sorted by the catalog's values would give (ties by id, NULL counts as 0), and a run's refresh of
the analytics carries a change of the catalog's counts or a creator's followers into the order."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from datetime import timedelta
from typing import Any

import httpx
import pytest
from alembic import command
from sqlalchemy import func, inspect, select

from reelscope.agent import repository
from reelscope.agent.run import service as run_service
from reelscope.catalog import service as catalog_service
from reelscope.collectors.base import CreatorRecord, VideoRecord
from reelscope.kit.clock import ManualClock
from reelscope.kit.migrate import HEAD, alembic_config
from reelscope.kit.platforms import Platform
from reelscope.models import AgentVideo, Creator, Video
from reelscope.models.agent import LINK_CATALOG_ORDERS
from reelscope.runtime import Runtime
from tests.agent.conftest import CreateAgent
from tests.agent.test_autopilot import link as link_as_a_run
from tests.catalog_builders import ingest, video
from tests.conftest import TeamKey

pytestmark = pytest.mark.both_databases

# a keyword the sandbox has next to nothing for: the agent's links are the ones linked here
THIN = {"keywords": ["zzqxthinloaf"], "platforms": ["tiktok"]}
ORDERS = ("likes", "comments", "shares", "bookmarks", "author.followers")
LINKED, PAGE = 60, 7

# what each order sorted by before ADR 0058: the catalog's value, NULL as 0
CATALOG_VALUE = {
    "likes": func.coalesce(Video.likes, 0),
    "comments": func.coalesce(Video.comments, 0),
    "shares": func.coalesce(Video.shares, 0),
    "bookmarks": func.coalesce(Video.bookmarks, 0),
    "author.followers": func.coalesce(Creator.followers, 0),
}


def random_catalog(seed: int, clock: ManualClock) -> list[VideoRecord]:
    """Videos with few distinct counts (ties in every order), missing shares and bookmarks, creators
    with many videos each, with and without followers, and videos with no creator."""
    rng = random.Random(seed)
    creators = [
        CreatorRecord(
            platform=Platform.TIKTOK,
            handle=f"maker_{n}",
            followers=None if n % 4 == 0 else rng.choice([0, 50, 50, 9_000, 1_000_000]),
        )
        for n in range(8)
    ]
    records = []
    for n in range(LINKED):
        record = video(
            f"order{n:03d}",
            clock.now() - timedelta(days=1, hours=n),
            views=rng.randrange(1_000),
            likes=rng.randrange(4),
            comments=rng.randrange(3),
        )
        creator = None if n % 9 == 0 else rng.choice(creators)
        records.append(
            replace(
                record,
                shares=rng.choice([None, 0, 2, 5]),
                bookmarks=rng.choice([None, 1, 3]),
                creator=creator,
            )
        )
    return records


def video_id(record: VideoRecord) -> str:
    return catalog_service.catalog_id("video", record.platform.value, record.external_id)


async def link(runtime: Runtime, agent: dict[str, Any], records: list[VideoRecord]) -> None:
    """The records in the catalog and linked to the agent as a run links them: the links, then the
    analytics refreshed (``run_service.refresh_analytics``)."""
    await link_as_a_run(runtime, agent, records)
    await refresh(runtime, agent)


async def refresh(runtime: Runtime, agent: dict[str, Any], session: Any = None) -> None:
    if session is None:
        async with runtime.db.transaction() as own:
            await refresh(runtime, agent, own)
        return
    found = await repository.get_agent_any_team(session, agent["id"])
    assert found is not None
    await run_service.refresh_analytics(session, found, [], runtime.clock.now())


async def joined_order(runtime: Runtime, agent_id: str, order: str, descending: bool) -> list[str]:
    """The agent's video ids as the join of its links with the catalog sorts them (the order before
    ADR 0058, written here independently of the repository)."""
    value = CATALOG_VALUE[order]
    async with runtime.db.transaction(write=False) as session:
        rows = await session.scalars(
            select(AgentVideo.video_id)
            .join(Video, Video.id == AgentVideo.video_id)
            .outerjoin(Creator, Creator.id == Video.creator_id)
            .where(AgentVideo.agent_id == agent_id)
            .order_by(
                value.desc() if descending else value.asc(),
                AgentVideo.video_id.desc() if descending else AgentVideo.video_id.asc(),
            )
        )
        return list(rows)


async def paged(
    client: httpx.AsyncClient, clock: ManualClock, team: TeamKey, agent_id: str, order: str, sort: str
) -> list[str]:
    """Every page of GET /v1/orbit/{id} in one order, as a client follows them (until an empty page),
    at the pace the legacy reads allow (10 a minute, 200 an hour: ``rate_limit.features``)."""
    ids: list[str] = []
    page = 1
    while True:
        clock.advance(timedelta(seconds=7))
        response = await client.get(
            f"/v1/orbit/{agent_id}",
            params={"order_by": order, "sort": sort, "limit": PAGE, "page": page},
            headers=team.headers,
        )
        assert response.status_code == 200, response.text
        videos = response.json()["data"]["results"]["videos"]
        if not videos:
            return ids
        assert len(videos) == PAGE or len(ids) + len(videos) >= LINKED
        ids += [v["id"] for v in videos]
        page += 1


@pytest.fixture
async def agent(runtime: Runtime, create_agent: CreateAgent, team: TeamKey) -> dict[str, Any]:
    created = await create_agent(team, **THIN)
    async with runtime.db.transaction() as session:
        # only the videos linked here: whatever the thin run found is unlinked
        await session.execute(AgentVideo.__table__.delete().where(AgentVideo.agent_id == created["id"]))
    return created


class TestCatalogOrders:
    @pytest.mark.parametrize("seed", [1, 2])
    async def test_every_page_is_the_joined_order(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        team: TeamKey,
        agent: dict[str, Any],
        seed: int,
    ) -> None:
        await link(runtime, agent, random_catalog(seed, clock))
        for order in ORDERS:
            for sort in ("desc", "asc"):
                expected = await joined_order(runtime, agent["id"], order, sort == "desc")
                assert len(expected) == LINKED
                assert await paged(client, clock, team, agent["id"], order, sort) == expected, (order, sort)

    async def test_the_order_follows_the_catalog_after_a_refresh(
        self,
        client: httpx.AsyncClient,
        runtime: Runtime,
        clock: ManualClock,
        team: TeamKey,
        agent: dict[str, Any],
    ) -> None:
        records = random_catalog(3, clock)
        await link(runtime, agent, records)
        before = {order: await paged(client, clock, team, agent["id"], order, "desc") for order in ORDERS}
        # the least liked video becomes the most liked, the creator with the fewest followers the most
        # followed; observed later, so the catalog takes them
        clock.advance(timedelta(hours=1))
        least_liked = next(r for r in records if video_id(r) == before["likes"][-1])
        by_id = {video_id(r): r for r in records}
        quiet = next(by_id[i] for i in reversed(before["author.followers"]) if by_id[i].creator is not None)
        assert quiet.creator is not None
        changed = [
            replace(least_liked, likes=10**6, fetched_at=clock.now()),
            replace(
                quiet,
                fetched_at=clock.now(),
                creator=replace(quiet.creator, followers=10**9, fetched_at=clock.now()),
            ),
        ]
        await ingest(runtime, *changed)
        # until the agent's next run refreshes its analytics, its order is the one it kept
        assert await paged(client, clock, team, agent["id"], "likes", "desc") == before["likes"]
        await refresh(runtime, agent)
        for order in ("likes", "author.followers"):
            after = await paged(client, clock, team, agent["id"], order, "desc")
            assert after == await joined_order(runtime, agent["id"], order, True)
            assert after != before[order]
        assert (await paged(client, clock, team, agent["id"], "likes", "desc"))[0] == video_id(least_liked)
        first = by_id[(await paged(client, clock, team, agent["id"], "author.followers", "desc"))[0]]
        assert first.creator is not None and first.creator.handle == quiet.creator.handle

    async def test_a_refresh_writes_only_the_links_that_changed(
        self, runtime: Runtime, clock: ManualClock, agent: dict[str, Any]
    ) -> None:
        records = random_catalog(4, clock)
        await link(runtime, agent, records)
        async with runtime.db.transaction() as session:
            assert await repository.refresh_link_orders(session, agent["id"]) == 0
        clock.advance(timedelta(hours=1))
        await ingest(runtime, replace(records[5], comments=77, fetched_at=clock.now()))
        async with runtime.db.transaction() as session:
            assert await repository.refresh_link_orders(session, agent["id"]) == 1


async def kept(runtime: Runtime, agent_id: str) -> dict[str, tuple[int, ...]]:
    """The orders each of the agent's links keeps."""
    async with runtime.db.transaction(write=False) as session:
        columns = [AgentVideo.__table__.c[name] for name in LINK_CATALOG_ORDERS]
        rows = await session.execute(
            select(AgentVideo.video_id, *columns).where(AgentVideo.agent_id == agent_id)
        )
        return {row[0]: tuple(row[1:]) for row in rows}


async def link_columns(runtime: Runtime) -> set[str]:
    async with runtime.db.engine.connect() as connection:
        found = await connection.run_sync(lambda sync: inspect(sync).get_columns("agent_videos"))
    return {column["name"] for column in found}


class TestMigration:
    async def test_down_drops_the_orders_and_up_fills_them_from_the_catalog(
        self, runtime: Runtime, clock: ManualClock, settings: Any, agent: dict[str, Any]
    ) -> None:
        await link(runtime, agent, random_catalog(5, clock))
        before = await kept(runtime, agent["id"])
        assert len(before) == LINKED and any(any(values) for values in before.values())
        config = alembic_config(settings.database_url)
        await runtime.db.engine.dispose()  # no pooled connection holds the table while it changes
        await asyncio.to_thread(command.stamp, config, HEAD)

        await asyncio.to_thread(command.downgrade, config, "0028_hook_library_group")
        assert not set(LINK_CATALOG_ORDERS) & await link_columns(runtime)
        await runtime.db.engine.dispose()
        await asyncio.to_thread(command.upgrade, config, "head")
        assert set(LINK_CATALOG_ORDERS) <= await link_columns(runtime)
        # the existing links, filled from the catalog: what the run's refresh had kept
        assert await kept(runtime, agent["id"]) == before

"""An agent's genre adjacency and similar creators through HTTP (spec §4.4, beta; free; not paged, §8.3),
checked against the agent's own videos as a client reads them."""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import timedelta
from typing import Any, cast

import httpx
import pytest
import pytest_asyncio
from sqlalchemy import Table, delete, insert, select, update

from reelscope.agent import affinity as agent_affinity
from reelscope.agent import repository as agent_repository
from reelscope.agent import tasks as agent_tasks
from reelscope.analysis.themes import GENERIC_TAGS
from reelscope.kit.clock import ManualClock
from reelscope.models import AgentSimilarModel, AgentVideo, Creator, Video
from reelscope.runtime import Runtime
from reelscope.worker import TaskContext
from reelscope.worker.engine import JobEngine
from tests.agent import shared
from tests.agent.conftest import Get, creator
from tests.conftest import MakeTeam, TeamKey

# every test here reads one finished run of one agent, made once per database (tests/agent/shared.py);
# the other teams two of them add see nothing of it
pytestmark = [pytest.mark.both_databases, shared.MODULE_LOOP]
backend, clock, settings, runtime = shared.backend, shared.clock, shared.settings, shared.runtime
jobs, client, team, make_team = shared.jobs, shared.client, shared.team, shared.make_team

TWO_GENRES = {"keywords": ["sourdough", "running"], "platforms": ["tiktok"]}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def agent(client: httpx.AsyncClient, jobs: JobEngine, team: TeamKey) -> dict[str, Any]:
    return await creator(client)(team, **TWO_GENRES)


async def videos_of(get: Get, team: TeamKey, agent_id: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page = 1
    while batch := (await get(team, f"/v1/agents/{agent_id}/videos", limit=100, page=page))["videos"]:
        items += batch
        page += 1
    return items


def tags(video: dict[str, Any]) -> set[str]:
    return {t.lstrip("#").casefold() for t in video["hashtags"]} - GENERIC_TAGS


class TestAffinity:
    async def test_genres_and_pairs_are_counts_of_the_agents_videos(
        self, get: Get, team: TeamKey, agent: dict[str, Any]
    ) -> None:
        found = await get(team, f"/v1/agents/{agent['id']}/affinity")
        videos = await videos_of(get, team, agent["id"])
        assert found["video_count"] == len(videos) > 0
        per_tag = Counter(t for v in videos for t in tags(v))
        hashtags = [g for g in found["genres"] if g["kind"] == "hashtag"]
        assert hashtags and {g["name"] for g in found["genres"]} >= {"#sourdough", "#running"}
        for genre in hashtags:
            assert genre["video_count"] == per_tag[genre["key"].removeprefix("hashtag:")] >= 2
        assert {g["kind"] for g in found["genres"]} == {"hashtag", "category"}
        assert found["pairs"]
        by_id = {v["id"]: v for v in videos}
        for pair in found["pairs"]:
            a, b = pair["genres"]
            if a.startswith("hashtag:") and b.startswith("hashtag:"):
                both = {v["id"] for v in videos if {a[8:], b[8:]} <= tags(v)}
                assert pair["video_count"] == len(both)
                assert set(pair["evidence_video_ids"]) <= both
            assert 0 < pair["strength"] <= 1
            views = [by_id[i]["views"] for i in pair["evidence_video_ids"]]
            assert views == sorted(views, reverse=True)
        strengths = [p["strength"] for p in found["pairs"]]
        assert strengths == sorted(strengths, reverse=True)
        # the two keywords are two genres apart: bread tags go with bread tags, not with running ones
        pairs = {tuple(p["genres"]) for p in found["pairs"] if p["video_count"] > 0}
        assert ("hashtag:running", "hashtag:sourdough") not in pairs

    async def test_isolation_and_parameters(
        self,
        client: httpx.AsyncClient,
        get: Get,
        team: TeamKey,
        make_team: MakeTeam,
        agent: dict[str, Any],
    ) -> None:
        path = f"/v1/agents/{agent['id']}/affinity"
        other = await make_team()
        for key, url in ((other, path), (team, "/v1/agents/nope/affinity")):
            response = await client.get(url, headers=key.headers)
            assert response.status_code == 404 and response.json()["code"] == "not_found"
        response = await client.get(path, params={"page": 2}, headers=team.headers)
        assert response.status_code == 400  # not paged (§8.3)


class TestSimilarCreators:
    async def test_ranked_creators_of_the_agent_with_shared_evidence(
        self, get: Get, team: TeamKey, agent: dict[str, Any]
    ) -> None:
        videos = await videos_of(get, team, agent["id"])
        authors = Counter(v["author_id"] for v in videos if v["author_id"])
        baker = next(
            a
            for a, _ in authors.most_common()
            if any(v["author_id"] == a and "sourdough" in tags(v) for v in videos)
        )
        found = await get(team, f"/v1/agents/{agent['id']}/creators/{baker}/similar")
        assert found["creator_id"] == baker
        similar = found["similar"]
        assert similar and baker not in {s["creator_id"] for s in similar}
        assert {s["creator_id"] for s in similar} <= set(authors)
        scores = [s["score"] for s in similar]
        assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
        for row in similar:
            assert row["video_count"] == authors[row["creator_id"]]
            assert set(row["components"]) == {"text", "sounds", "tier"}
        # the most similar creator posts what the baker posts: a shared hashtag it really carries
        best = similar[0]
        theirs = set().union(*(tags(v) for v in videos if v["author_id"] == best["creator_id"]))
        mine = set().union(*(tags(v) for v in videos if v["author_id"] == baker))
        assert best["shared"]["hashtags"] and set(best["shared"]["hashtags"]) <= theirs & mine

    async def test_unknown_creator_and_another_team_are_404(
        self,
        client: httpx.AsyncClient,
        get: Get,
        team: TeamKey,
        make_team: MakeTeam,
        agent: dict[str, Any],
    ) -> None:
        author = next(v["author_id"] for v in await videos_of(get, team, agent["id"]) if v["author_id"])
        other = await make_team()
        path = f"/v1/agents/{agent['id']}/creators/{author}/similar"
        for key, url in (
            (other, path),
            (team, f"/v1/agents/{agent['id']}/creators/no-such-creator/similar"),
            (team, f"/v1/agents/nope/creators/{author}/similar"),
        ):
            response = await client.get(url, headers=key.headers)
            assert response.status_code == 404 and response.json()["code"] == "not_found", url
            assert response.headers["X-Cost"] == "0.00"

    async def test_creators_a_run_links_are_found_at_once(
        self, client: httpx.AsyncClient, get: Get, team: TeamKey, runtime: Runtime
    ) -> None:
        # the agent's creators are prepared once and kept (agent/affinity.py): videos a run links, even
        # while the run that made the agent's latest_run_id is still going, reach the next question
        made = await creator(client)(team, keywords=["sourdough"], platforms=["tiktok"])
        authors = Counter(v["author_id"] for v in await videos_of(get, team, made["id"]) if v["author_id"])
        (first, _), (late, _) = authors.most_common(2)
        table = cast(Table, AgentVideo.__table__)
        of_late = (table.c.agent_id == made["id"]) & table.c.video_id.in_(
            select(Video.id).where(Video.creator_id == late)
        )
        async with runtime.db.transaction() as session:
            links = [dict(row) for row in (await session.execute(select(table).where(of_late))).mappings()]
            await session.execute(delete(table).where(of_late))
        path = f"/v1/agents/{made['id']}/creators/{{}}/similar"
        assert (await get(team, path.format(first)))["creator_id"] == first
        response = await client.get(path.format(late), headers=team.headers)
        assert response.status_code == 404
        async with runtime.db.transaction() as session:  # a run stores its links, later
            await session.execute(
                insert(table),
                [{**link, "linked_at": link["linked_at"] + timedelta(minutes=1)} for link in links],
            )
        assert (await get(team, path.format(late)))["creator_id"] == late

    async def test_a_run_keeps_its_creators_prepared_and_questions_read_them(
        self, client: httpx.AsyncClient, get: Get, team: TeamKey, runtime: Runtime, clock: ManualClock
    ) -> None:
        # after a run stores its links, the agent.similar job prepares the agent's creators and keeps them
        # (ADR 0056): a process that has not prepared them itself answers from those, as from its own
        made = await creator(client)(team, keywords=["sourdough"], platforms=["tiktok"])
        authors = Counter(v["author_id"] for v in await videos_of(get, team, made["id"]) if v["author_id"])
        first = authors.most_common(1)[0][0]
        path = f"/v1/agents/{made['id']}/creators/{first}/similar"
        async with runtime.db.transaction(write=False) as session:
            kept = await session.get(AgentSimilarModel, made["id"])
            links = await agent_repository.links_changed_at(session, made["id"])
        assert kept is not None and kept.model and (kept.links_at, kept.links_count) == links
        runtime.caches.clear()
        from_kept = await get(team, path)
        assert from_kept["creator_id"] == first and from_kept["similar"]
        async with runtime.db.transaction() as session:
            await session.execute(delete(AgentSimilarModel).where(AgentSimilarModel.agent_id == made["id"]))
        runtime.caches.clear()
        assert await get(team, path) == from_kept  # prepared by the question itself: the same answer
        # and what a question reads is the kept model: one kept for these links with no creator in it
        # knows nobody
        async with runtime.db.transaction() as session:
            await agent_repository.keep_similar_model(session, made["id"], links, None, clock.now())
        runtime.caches.clear()
        response = await client.get(path, headers=team.headers)
        assert response.status_code == 404 and response.json()["code"] == "not_found"

    async def test_agents_never_prepared_are_prepared_by_the_hourly_sweep(
        self, get: Get, team: TeamKey, agent: dict[str, Any], runtime: Runtime, clock: ManualClock
    ) -> None:
        # an agent whose creators no job prepared (made before the agent.similar job): answered all the
        # same, and prepared by the sweep, so that its questions stop preparing them
        async with runtime.db.transaction() as session:
            await session.execute(delete(AgentSimilarModel).where(AgentSimilarModel.agent_id == agent["id"]))
            links = await agent_repository.links_changed_at(session, agent["id"])
        author = next(v["author_id"] for v in await videos_of(get, team, agent["id"]) if v["author_id"])
        path = f"/v1/agents/{agent['id']}/creators/{author}/similar"
        runtime.caches.clear()
        answer = await get(team, path)
        ctx = TaskContext(settings=runtime.settings, clock=clock, db=runtime.db)
        assert (await agent_tasks.similar_sweep(ctx))["kept"] >= 1
        async with runtime.db.transaction(write=False) as session:
            kept = await session.get(AgentSimilarModel, agent["id"])
        assert kept is not None and kept.model and (kept.links_at, kept.links_count) == links
        assert await agent_tasks.similar_sweep(ctx) == {"agents": 0, "kept": 0, "failed": 0}
        runtime.caches.clear()
        assert await get(team, path) == answer

    async def test_tiers_follow_follower_counts_within_the_hour(
        self, get: Get, team: TeamKey, agent: dict[str, Any], runtime: Runtime, clock: ManualClock
    ) -> None:
        author = next(v["author_id"] for v in await videos_of(get, team, agent["id"]) if v["author_id"])
        path = f"/v1/agents/{agent['id']}/creators/{author}/similar"
        before = await get(team, path)
        followers = 5_000 if before["tier"] != "nano" else 5_000_000
        async with runtime.db.transaction() as session:
            was = await session.scalar(select(Creator.followers).where(Creator.id == author))
            await session.execute(update(Creator).where(Creator.id == author).values(followers=followers))
        try:
            clock.advance(timedelta(hours=1))  # no run since: the agent's links are the same
            after = await get(team, path)
            assert after["tier"] == ("nano" if followers == 5_000 else "macro") != before["tier"]
            assert [s["creator_id"] for s in after["similar"]]  # still answered from what was prepared
        finally:
            async with runtime.db.transaction() as session:
                await session.execute(update(Creator).where(Creator.id == author).values(followers=was))


class TestKeptModels:
    """What the agent.similar job keeps, and how questions read it (ADR 0056)."""

    async def test_a_question_during_another_ones_read_is_answered_in_full(
        self,
        get: Get,
        team: TeamKey,
        agent: dict[str, Any],
        runtime: Runtime,
        monkeypatch: pytest.MonkeyPatch,
    ) -> None:
        # who the creators are is kept per process for the hour and shared by concurrent questions: one
        # that arrives while another reads them must not see them as "not in the catalog"
        author = next(v["author_id"] for v in await videos_of(get, team, agent["id"]) if v["author_id"])
        path = f"/v1/agents/{agent['id']}/creators/{author}/similar"
        runtime.caches.clear()  # what an earlier test left kept for the hour is not the catalog now
        expected = await get(team, path)
        assert expected["handle"] and expected["tier"]
        runtime.caches.clear()
        gate, reads = asyncio.Event(), []
        real = agent_repository.creator_people

        async def slow_first(session: Any, creator_ids: list[str]) -> Any:
            reads.append(creator_ids)
            if len(reads) == 1:
                await gate.wait()
            return await real(session, creator_ids)

        monkeypatch.setattr(agent_repository, "creator_people", slow_first)
        first: asyncio.Future[Any] = asyncio.ensure_future(get(team, path))
        while not reads:
            await asyncio.sleep(0.01)
        second = await get(team, path)
        gate.set()
        assert await first == second == expected

    async def test_a_model_of_another_format_is_prepared_again(
        self, get: Get, team: TeamKey, agent: dict[str, Any], runtime: Runtime, clock: ManualClock
    ) -> None:
        # a model kept by an older release (its bytes laid out otherwise) is never read: questions prepare
        # the creators themselves, and the agent's next job keeps them in the current format
        author = next(v["author_id"] for v in await videos_of(get, team, agent["id"]) if v["author_id"])
        path = f"/v1/agents/{agent['id']}/creators/{author}/similar"
        runtime.caches.clear()  # what an earlier test left kept for the hour is not the catalog now
        expected = await get(team, path)
        async with runtime.db.transaction() as session:
            kept = await session.get(AgentSimilarModel, agent["id"])
            assert kept is not None and kept.model is not None
            links = (kept.links_at, kept.links_count)
            # before formats were numbered: the header's size came first
            await agent_repository.keep_similar_model(
                session, agent["id"], links, kept.model[4:], clock.now()
            )
        runtime.caches.clear()
        assert await get(team, path) == expected
        ctx = TaskContext(settings=runtime.settings, clock=clock, db=runtime.db)
        assert (await agent_tasks.similar(ctx, agent_id=agent["id"]))["kept"] is True
        async with runtime.db.transaction(write=False) as session:
            again = await session.get(AgentSimilarModel, agent["id"])
        assert again is not None and again.model is not None and again.model[:4] == b"RSM\x01"
        assert (await agent_tasks.similar(ctx, agent_id=agent["id"]))["kept"] is False  # already kept
        # after a run the job prepares again whatever is kept: the run may have refreshed captions
        # without linking a new video
        assert (await agent_tasks.similar(ctx, agent_id=agent["id"], again=True))["kept"] is True

    async def test_nothing_is_kept_when_the_links_moved_on_meanwhile(
        self, team: TeamKey, agent: dict[str, Any], runtime: Runtime, clock: ManualClock
    ) -> None:
        async with runtime.db.transaction(write=False) as session:
            made = await agent_affinity.prepare_model(session, agent["id"], again=True)
            before = await session.get(AgentSimilarModel, agent["id"])
        assert made is not None and before is not None
        links, model = made
        table = cast(Table, AgentVideo.__table__)
        one = (table.c.agent_id == agent["id"]) & (
            table.c.video_id
            == select(table.c.video_id).where(table.c.agent_id == agent["id"]).limit(1).scalar_subquery()
        )
        later = links[0] + timedelta(seconds=1) if links[0] is not None else clock.now()
        async with runtime.db.transaction() as session:  # a run stores a link meanwhile
            await session.execute(update(table).where(one).values(linked_at=later))
        async with runtime.db.transaction() as session:
            assert await agent_affinity.keep_model(session, agent["id"], links, model, clock.now()) is False
        async with runtime.db.transaction(write=False) as session:
            after = await session.get(AgentSimilarModel, agent["id"])
        assert after is not None and after.built_at == before.built_at

"""Genre adjacency and similar creators of an agent (spec §4.4, beta; both free and not paged, §8.3),
from the agent's linked videos by ``analysis.affinity`` and ``analysis.similar``. The adjacency is kept
with the agent's analytics (``keep``, after each run: ``agents.affinity``, ADR 0038) and computed at read
time for an agent whose analytics predate it.

Similar creators (ADR 0056): after a run stores its links, the ``agent.similar`` job prepares the
agent's creators (TF-IDF over their posts, their sounds: ``analysis.similar.prepare``, about a second at
10,000 linked videos) and keeps them as bytes with the links they were made from
(``agent_similar_models``). A process reads them once per change of the links and keeps them (at most
``PREPARED_KEPT`` agents), with who the creators are now (handle, followers, tier) read again each hour
so that tiers follow follower counts. A question is then array arithmetic over the prepared rows
(milliseconds). Until the job has run for the current links (the first seconds after a run, an agent
from before the job), a question prepares the creators itself, as before.

A creator is named by its catalog id: the ``creator_id`` of ``/creators/outliers`` rows and the
``author_id`` of the agent's videos (ADR 0030). The candidates are the creators of the agent's videos;
a creator none of them has posted is 404.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.agent.analysis import doc_of
from reelscope.agent.run import metrics
from reelscope.agent.schemas import Affinity, SimilarCreators
from reelscope.analysis import affinity as adjacency
from reelscope.analysis import similar
from reelscope.analysis.themes import Doc
from reelscope.kit.caches import ReadCaches
from reelscope.kit.errors import NotFound
from reelscope.models import Agent
from reelscope.worker import enqueue

TIER_RANK = {name: rank for rank, (name, _, _) in enumerate(metrics.TIERS)}


async def _adjacency(session: AsyncSession, agent: Agent) -> dict[str, Any]:
    videos = [
        adjacency.GenreVideo(
            id=row.id,
            caption=row.description,
            hashtags=list(row.hashtags or ()),
            creator_id=row.creator_id,
            views=int(row.views or 0),
        )
        for row in await repository.genre_inputs(session, agent.id)
    ]
    return adjacency.adjacency(videos)


async def keep(session: AsyncSession, agent: Agent) -> None:
    """The agent's genre adjacency from its linked videos now (with the analytics)."""
    agent.affinity = await _adjacency(session, agent)


async def genres(session: AsyncSession, agent: Agent) -> Affinity:
    kept, _ = await repository.kept_reads(session, agent.id)
    return Affinity(**(kept if kept is not None else await _adjacency(session, agent)))


# agents whose prepared creators a process keeps (an agent of 10,000 videos: a few MB)
PREPARED_KEPT = 16
# the job that prepares an agent's creators after a run stores its links (ADR 0056)
SIMILAR_TASK = "agent.similar"
# and the hourly sweep for agents never prepared (from before the job), this many at a time
SIMILAR_SWEEP_TASK = "agent.similar_sweep"
SWEEP_AGENTS = 20

Links = tuple[datetime | None, int]


async def similar_creators(
    session: AsyncSession, caches: ReadCaches, agent: Agent, creator_id: str, now: datetime
) -> SimilarCreators:
    # the agent's linked videos change when a run stores them (not when it starts: a question asked
    # while a run collects must not keep the old creators)
    links = await repository.links_changed_at(session, agent.id)
    prepared = await _prepared(session, caches, agent.id, links, now)
    if prepared is None or creator_id not in prepared.index:
        raise NotFound("Creator not found among the agent's creators")
    scored = similar.score(prepared, creator_id)
    needed = [creator_id, *scored.contender_ids]
    people = await _people(session, caches, agent.id, links, now, needed)
    target = people.get(creator_id)
    return SimilarCreators(
        creator_id=creator_id,
        handle=target.handle if target else "",
        platform=prepared.platforms[prepared.index[creator_id]],
        tier=target.tier if target else None,
        similar=similar.rank(prepared, scored, people),
    )


async def _prepared(
    session: AsyncSession, caches: ReadCaches, agent_id: str, links: Links, now: datetime
) -> similar.Prepared | None:
    """The agent's creators prepared for these links: kept by this process, else kept by the job, else
    (the job has not run since: the first seconds after a run, an agent from before ADR 0056) prepared
    here, in seconds at 10,000 linked videos."""
    key = ("agent.similar", agent_id)
    # the links and the hour: a model the job made again for the same links (a run that linked no new
    # video but refreshed captions) reaches every process within the hour
    version = (*links, now.replace(minute=0, second=0, microsecond=0))
    found, prepared = caches.lookup(key, version)
    if found:
        return prepared  # type: ignore[no-any-return]
    stored = await repository.similar_model(session, agent_id)
    if stored is not None and (stored.links_at, stored.links_count) == links and _readable(stored.model):
        prepared = None if stored.model is None else similar.Prepared.from_bytes(stored.model)
    else:
        prepared = await prepare(session, agent_id)
    caches.keep(key, version, prepared, at_most=PREPARED_KEPT)
    return prepared


def _readable(model: bytes | None) -> bool:
    """A kept model this code can read: none (no creator), or one of the current format (a model kept
    by an older release is prepared again, here and by the agent's next job)."""
    return model is None or similar.format_of(model) == similar.FORMAT


async def _people(
    session: AsyncSession,
    caches: ReadCaches,
    agent_id: str,
    links: Links,
    now: datetime,
    creator_ids: list[str],
) -> dict[str, similar.Person | None]:
    """Who these creators are now (None: not in the catalog), kept by the process for the agent's links
    and the hour, so that tiers follow follower counts: read by primary key for those not kept yet, the
    target and the creators that can reach its list (``similar.score``), not all the agent's."""
    version = (*links, now.replace(minute=0, second=0, microsecond=0))
    key = ("agent.similar.people", agent_id)
    found, people = caches.lookup(key, version)
    if not found:
        people = {}
        caches.keep(key, version, people, at_most=PREPARED_KEPT)
    missing = [c for c in creator_ids if c not in people]
    if missing:
        # read first, then publish: the dict is shared with questions that run during the read, and
        # a placeholder put in before it would answer them as "not in the catalog" (or stay, if the
        # read failed)
        rows = await repository.creator_people(session, missing)
        read: dict[str, similar.Person | None] = dict.fromkeys(missing)
        for row in rows:
            tier = None if row.followers is None else metrics.tier_of(int(row.followers))
            read[row.id] = similar.Person(
                handle=row.handle,
                followers=row.followers,
                tier=tier,
                tier_rank=None if tier is None else TIER_RANK[tier],
            )
        people.update(read)
    return people  # type: ignore[no-any-return]


async def prepare(session: AsyncSession, agent_id: str) -> similar.Prepared | None:
    """The agent's creators as its linked videos are now (None when no video has a creator)."""
    creators = _creator_posts(await repository.creator_videos(session, agent_id))
    return similar.prepare(creators) if creators else None


def _creator_posts(rows: Sequence[Any]) -> list[similar.CreatorPosts]:
    posts: dict[str, list[Doc]] = defaultdict(list)
    about: dict[str, Any] = {}
    for row in rows:
        posts[row.creator_id].append(doc_of(row))
        about.setdefault(row.creator_id, row)
    creators = []
    for cid, docs in posts.items():
        row = about[cid]
        tier = None if row.followers is None else metrics.tier_of(int(row.followers))
        creators.append(
            similar.CreatorPosts(
                creator_id=cid,
                handle=row.handle,
                platform=row.platform,
                followers=row.followers,
                tier=tier,
                tier_rank=None if tier is None else TIER_RANK[tier],
                videos=docs,
            )
        )
    return creators


def _model_bytes(rows: Sequence[Any]) -> bytes | None:
    creators = _creator_posts(rows)
    return similar.prepare(creators).to_bytes() if creators else None


def prepare_later(session: AsyncSession, agent: Agent) -> None:
    """The agent's creators prepared by the ``agent.similar`` job once this transaction, which stored its
    links, commits (not in it: on SQLite it holds the one write lock, ~1 s at 10,000 videos)."""
    enqueue(session, SIMILAR_TASK, agent_id=agent.id, again=True)


async def prepare_model(
    session: AsyncSession, agent_id: str, *, again: bool = False
) -> tuple[Links, bytes | None] | None:
    """For the ``agent.similar`` job: the agent's links now and its creators prepared from them, as
    bytes; None when the model kept is already of these links and of the current format (``again``:
    prepared whatever is kept, as after a run, which may have refreshed its videos' captions without
    linking a new one). The links are read before the videos, and ``keep_model`` keeps nothing if they
    moved on meanwhile (a run stored more): a model never says it was made from links it does not hold."""
    links = await repository.links_changed_at(session, agent_id)
    if not again:
        kept = await repository.similar_model(session, agent_id)
        if kept is not None and (kept.links_at, kept.links_count) == links and _readable(kept.model):
            return None
    rows = await repository.creator_videos(session, agent_id)
    return links, await asyncio.to_thread(_model_bytes, rows)  # CPU: off the worker's loop


async def keep_model(
    session: AsyncSession, agent_id: str, links: Links, model: bytes | None, now: datetime
) -> bool:
    """Keep what ``prepare_model`` made, unless the agent is gone or its links moved on meanwhile."""
    if await repository.get_agent_any_team(session, agent_id) is None:
        return False
    if await repository.links_changed_at(session, agent_id) != links:
        return False
    await repository.keep_similar_model(session, agent_id, links, model, now)
    return True

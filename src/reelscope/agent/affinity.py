"""Genre adjacency and similar creators of an agent (spec §4.4, beta; both free and not paged, §8.3),
from the agent's linked videos by ``analysis.affinity`` and ``analysis.similar``. The adjacency is kept
with the agent's analytics (``keep``, after each run: ``agents.affinity``, ADR 0038) and computed at read
time for an agent whose analytics predate it. Similar creators: the agent's creators are prepared
(TF-IDF over their posts, their sounds and tiers) at the first question after its links change, kept
by the process until they change again (at most ``PREPARED_KEPT`` agents, for an hour at most, so
tiers follow follower counts), and each question is then a sparse row product (issue 33 item 4: 0.7 s
a request at 1M videos before).

A creator is named by its catalog id: the ``creator_id`` of ``/creators/outliers`` rows and the
``author_id`` of the agent's videos (ADR 0030). The candidates are the creators of the agent's videos;
a creator none of them has posted is 404.
"""

from __future__ import annotations

from collections import defaultdict
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


async def similar_creators(
    session: AsyncSession, caches: ReadCaches, agent: Agent, creator_id: str, now: datetime
) -> SimilarCreators:
    # the agent's linked videos change when a run stores them (not when it starts: a question asked
    # while a run collects must not keep the old creators); the hour bounds how old a tier may be
    version = (
        *await repository.links_changed_at(session, agent.id),
        now.replace(minute=0, second=0, microsecond=0),
    )
    key = ("agent.similar", agent.id)
    found, prepared = caches.lookup(key, version)
    if not found:
        prepared = await _prepare(session, agent)
        caches.keep(key, version, prepared, at_most=PREPARED_KEPT)
    if prepared is None or creator_id not in prepared.index:
        raise NotFound("Creator not found among the agent's creators")
    target = prepared.creators[prepared.index[creator_id]]
    return SimilarCreators(
        creator_id=creator_id,
        handle=target.handle,
        platform=target.platform,
        tier=target.tier,
        similar=similar.similar_in(prepared, creator_id),
    )


async def _prepare(session: AsyncSession, agent: Agent) -> similar.Prepared | None:
    posts: dict[str, list[Doc]] = defaultdict(list)
    about: dict[str, Any] = {}
    for row in await repository.creator_videos(session, agent.id):
        posts[row.creator_id].append(doc_of(row))
        about.setdefault(row.creator_id, row)
    if not posts:
        return None
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
    return similar.prepare(creators)

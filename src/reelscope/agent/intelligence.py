"""Data Intelligence of an agent's items (spec §2.6): each linked video and slideshow whose
``intelligence_status`` is ``pending`` gets its intelligence object from ``analysis.intelligence``:

    pending ──▶ ready     (the object is stored)
            ──▶ skipped   (the item has no text at all: nothing to read)
            ──▶ failed    (the analyzer raised; logged, the other items go on)

Items of an agent without Data Intelligence are linked ``disabled`` and never pending. Runs inside the
run's analysis job, before the run-level analysis.

Intent matching (§2.6 ``intent_match``) judges every ready item of an agent that has an intent and Data
Intelligence, all together (a term's weight depends on the whole set, ``analysis/intent.py``): after
each annotation and whenever the intent or Data Intelligence is changed. Without either, every item's
``intent_match`` is null, so the ``intent_match`` filter (§4.5) selects nothing.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.analysis import intelligence
from reelscope.analysis.intent import IntentItem, match_all
from reelscope.kit.logging import get_logger
from reelscope.models import Agent

log = get_logger(__name__)


async def annotate(session: AsyncSession, agent: Agent) -> dict[str, int]:
    """Analyse every pending item of the agent; the count per resulting status."""
    counts: Counter[str] = Counter()
    if not agent.data_intelligence_enabled:
        return {}
    for link, caption, transcript, hashtags, is_duet, is_stitch in await repository.pending_videos(
        session, agent.id
    ):
        try:
            found = intelligence.analyse(
                caption=caption,
                transcript=transcript,
                hashtags=list(hashtags or ()),
                is_duet=is_duet,
                is_stitch=is_stitch,
            )
        except Exception:  # one item's failure never stops the others (§2.6 failed)
            log.exception("agent.intelligence.failed", agent_id=agent.id, video_id=link.video_id)
            link.intelligence_status = "failed"
        else:
            link.intelligence, link.intelligence_status = found, "ready" if found else "skipped"
        counts[link.intelligence_status] += 1
    for link, caption, panels, hashtags in await repository.pending_slideshows(session, agent.id):
        try:
            found = intelligence.analyse(
                caption=caption, transcript=None, hashtags=list(hashtags or ()), panels=list(panels or ())
            )
        except Exception:
            log.exception("agent.intelligence.failed", agent_id=agent.id, slideshow_id=link.slideshow_id)
            link.intelligence_status = "failed"
        else:
            link.intelligence, link.intelligence_status = found, "ready" if found else "skipped"
        counts[link.intelligence_status] += 1
    await session.flush()
    await match_intent(session, agent)
    return dict(counts)


async def match_intent(session: AsyncSession, agent: Agent) -> int:
    """(Re)judge the agent's ready items against its intent; how many match. Clears every judgement when
    the agent has no intent or no Data Intelligence."""
    if not (agent.intent or "").strip() or not agent.data_intelligence_enabled:
        await repository.clear_intent_matches(session, agent.id)
        return 0
    videos, slideshows = await repository.intent_inputs(session, agent.id)
    links = [row[0] for row in videos] + [row[0] for row in slideshows]
    items = [
        IntentItem(caption, transcript, list(hashtags or ()), link.intelligence)
        for link, caption, transcript, hashtags in videos
    ] + [
        IntentItem(
            caption, " ".join(p for p in panels or () if p), list(hashtags or ()), link.intelligence, True
        )
        for link, caption, panels, hashtags in slideshows
    ]
    matched = 0
    for link, found in zip(links, match_all(agent.intent, items), strict=True):
        link.intent_match = found.as_object() if found else None
        link.intent_matches = found.matches if found else None
        matched += bool(found and found.matches)
    return matched

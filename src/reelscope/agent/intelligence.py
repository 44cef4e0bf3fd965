"""Data Intelligence of an agent's items (spec §2.6): each linked video and slideshow whose
``intelligence_status`` is ``pending`` gets its intelligence object from ``analysis.intelligence``:

    pending ──▶ ready     (the object is stored)
            ──▶ skipped   (the item has no text at all: nothing to read)
            ──▶ failed    (the analyzer raised; logged, the other items go on)

Items of an agent without Data Intelligence are linked ``disabled`` and never pending. Runs inside the
run's analysis job, before the run-level analysis.
"""

from __future__ import annotations

from collections import Counter

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.analysis import intelligence
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
    return dict(counts)

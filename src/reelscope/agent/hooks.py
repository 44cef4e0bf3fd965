"""GET /v1/agents/{id}/hooks (spec §4.4): the hooks of an agent's videos, ranked, each video once, with
coverage counts and an exact ``pagination.total``. The extractor and the 17 hook types are the hook
catalogue's (``analysis/hooks.py``), so a hook reads the same here and in ``/v1/hooks``.

A row is one video's opening line: its text, ``hook_type`` (and the cue that decided it),
``visual_hook_type`` when the data shows it, and how the video did against the agent's own median
views (``views_vs_median``). Rows rank by views, then video id; videos without a hook (no transcript
and no caption words) are only counted in ``coverage``.

The rows and the coverage are made with the agent's analytics (``keep``, from ``refresh_analytics``:
after each run) into ``agent_hooks`` and ``agents.hook_coverage``, so a page reads its rows by an index
(ADR 0038); an agent whose analytics predate them is computed at read time until its next run.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.agent.schemas import HookQuery
from reelscope.analysis import hooks
from reelscope.kit.clock import iso
from reelscope.models import Agent


def _hooks_of(rows: Sequence[Any]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Every linked video's hook (the rows of ``agent_hooks``), by views then video id, and the
    coverage counts."""
    median = statistics.median([int(r.views or 0) for r in rows]) if rows else None
    found: list[dict[str, Any]] = []
    for r in rows:
        hook = hooks.extract_hook(transcript=r.transcript, caption=r.description)
        if hook is None:
            continue
        hook_type, cue = hooks.explain(hook.text)
        found.append(
            {
                "video_id": r.id,
                "platform": r.platform,
                "url": r.url,
                "hook_text": hook.text,
                "source": hook.source,
                "hook_type": hook_type,
                "matched_cue": cue,
                "visual_hook_type": hooks.visual_type(
                    r.description, list(r.hashtags or ()), is_duet=r.is_duet, is_stitch=r.is_stitch
                ),
                "views": int(r.views or 0),
                "published_at": r.published_at,
            }
        )
    by_type = Counter(h["hook_type"] for h in found)
    coverage = {
        "videos": len(rows),
        "with_hook": len(found),
        "without_hook": len(rows) - len(found),
        "by_hook_type": dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
        "median_views": median,
    }
    found.sort(key=lambda h: (-h["views"], h["video_id"]))
    return found, coverage


def _item(row: Any, median: float | None) -> dict[str, Any]:
    return {
        "video_id": row["video_id"],
        "platform": row["platform"],
        "url": row["url"],
        "hook_text": row["hook_text"],
        "source": row["source"],
        "hook_type": row["hook_type"],
        "matched_cue": row["matched_cue"],
        "visual_hook_type": row["visual_hook_type"],
        "views": row["views"],
        "views_vs_median": round(row["views"] / median, 3) if median else None,
        "publish_date": iso(row["published_at"]),
    }


async def keep(session: AsyncSession, agent: Agent) -> None:
    """The agent's hooks and coverage from its linked videos now (with the analytics)."""
    found, coverage = _hooks_of(await repository.hook_inputs(session, agent.id))
    await repository.replace_hooks(session, agent.id, found)
    agent.hook_coverage = coverage


async def page(session: AsyncSession, agent: Agent, query: HookQuery) -> dict[str, Any]:
    _, coverage = await repository.kept_reads(session, agent.id)
    if coverage is None:  # analytics from before agent_hooks: compute them now
        found, coverage = _hooks_of(await repository.hook_inputs(session, agent.id))
        if query.hook_type is not None:
            found = [h for h in found if h["hook_type"] == query.hook_type]
        rows: Sequence[Any] = found[query.offset : query.offset + query.limit]
        total = len(found)
    else:
        rows = await repository.page_hooks(session, agent.id, query.hook_type, query.limit, query.offset)
        by_type = coverage["by_hook_type"]
        total = coverage["with_hook"] if query.hook_type is None else by_type.get(query.hook_type, 0)
    return {
        "items": [_item(row, coverage["median_views"]) for row in rows],
        "total": total,
        "coverage": coverage,
    }

"""GET /v1/agents/{id}/hooks (spec §4.4): the hooks of an agent's videos, ranked, each video once, with
coverage counts and an exact ``pagination.total``. The extractor and the 17 hook types are the hook
catalogue's (``analysis/hooks.py``), so a hook reads the same here and in ``/v1/hooks``.

A row is one video's opening line: its text, ``hook_type`` (and the cue that decided it),
``visual_hook_type`` when the data shows it, and how the video did against the agent's own median
views (``views_vs_median``). Rows rank by views, then video id; videos without a hook (no transcript
and no caption words) are only counted in ``coverage``.
"""

from __future__ import annotations

import statistics
from collections import Counter
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.agent import repository
from reelscope.agent.schemas import HookQuery
from reelscope.analysis import hooks
from reelscope.kit.clock import iso
from reelscope.models import Agent


async def page(session: AsyncSession, agent: Agent, query: HookQuery) -> dict[str, Any]:
    rows = await repository.hook_inputs(session, agent.id)
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
                "views_vs_median": round(int(r.views or 0) / median, 3) if median else None,
                "publish_date": iso(r.published_at),
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
    if query.hook_type is not None:
        found = [h for h in found if h["hook_type"] == query.hook_type]
    found.sort(key=lambda h: (-h["views"], h["video_id"]))
    return {
        "items": found[query.offset : query.offset + query.limit],
        "total": len(found),
        "coverage": coverage,
    }

"""What a tracked item's dashboard page shows, and its page kept in the database (ADR 0038, 0061).

Drawing a page costs about half a second of CPU (Bokeh), and a second more for Bokeh's import in a
fresh process. So the page is kept for the hash of what it was drawn from (``drawn_from``): in the
process (``Runtime.caches``) and in ``dashboard_pages``, where the ``dashboard.draw`` job puts it again
after each change to what it shows (a cycle's snapshot, collected posts, an audience snapshot). The job
draws only the pages of items whose dashboard was opened (a page is kept), not of every tracked item:
most are never looked at, and drawing costs ten times a cycle (ADR 0061)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.audience import service as audience_service
from reelscope.dashboard import repository
from reelscope.kit.errors import NotFound
from reelscope.tracking import service as tracking_service
from reelscope.worker import enqueue

DRAW_TASK = "dashboard.draw"

Inputs = dict[str, Any]  # page.render's keyword arguments


async def inputs_of(session: AsyncSession, team_id: str, kind: str, item_id: str, now: datetime) -> Inputs:
    """What the page of ``team_id``'s item shows (``NotFound`` for any other team's): per item, never per
    link, so one drawing serves every link to it."""
    data = await tracking_service.dashboard_data(session, team_id, kind, item_id, now)
    item = data.item
    audience = None
    if item.kind == tracking_service.CREATOR:
        latest = await audience_service.part(session, item, "geography", now)
        if latest.snapshot_id is not None:
            audience = {
                "geography": latest.geography or {},
                "sample_size": latest.sample_size,
                "confidence_level": latest.confidence_level,
            }
    return {
        "item": {
            "id": item.id,
            "kind": item.kind,
            "platform": item.platform,
            "handle": item.handle,
            "title": item.title,
            "status": item.status,
        },
        "snapshots": data.snapshots,
        "outliers": [post.model_dump() for post in data.outliers],
        "by_weekday": data.cadence.by_weekday,
        "audience": audience,
    }


def drawn_from(inputs: Inputs) -> str:
    return hashlib.sha256(orjson.dumps(inputs, option=orjson.OPT_NON_STR_KEYS)).hexdigest()


async def kept_page(session: AsyncSession, team_id: str, item_id: str, inputs_hash: str) -> str | None:
    """The page kept for the team's item if it was drawn from inputs hashing to ``inputs_hash``."""
    return await repository.kept_body(session, team_id, item_id, inputs_hash)


async def is_current(session: AsyncSession, team_id: str, item_id: str, inputs_hash: str) -> bool:
    return await repository.kept_hash(session, team_id, item_id) == inputs_hash


async def keep_page(
    session: AsyncSession, team_id: str, kind: str, item_id: str, inputs_hash: str, body: str, now: datetime
) -> None:
    """Keep ``body``, drawn from inputs hashing to ``inputs_hash``, unless the item is gone meanwhile."""
    try:
        await tracking_service.get_item(session, team_id, kind, item_id)
    except NotFound:
        return
    await repository.keep(
        session, item_id=item_id, team_id=team_id, drawn_from=inputs_hash, body=body, now=now
    )


async def draw_ahead(session: AsyncSession, team_id: str, kind: str, item_id: str) -> None:
    """Called in the transaction that changes what ``item_id``'s page shows: once it commits, the
    ``dashboard.draw`` job draws the page again, if one is kept (its dashboard was opened)."""
    if await repository.kept_hash(session, team_id, item_id) is not None:
        enqueue(session, DRAW_TASK, team_id=team_id, kind=kind, item_id=item_id)

"""``dashboard.draw``: a tracked item's dashboard page drawn ahead after what it shows changed (ADR 0061)."""

from __future__ import annotations

import asyncio
from functools import partial
from typing import Any

from reelscope.dashboard import page, service
from reelscope.kit.errors import NotFound
from reelscope.worker import TaskContext, task


# the background lane: nobody waits for it (a request whose page is not drawn yet draws it itself), and a
# half second of drawing per cycle stays off the workers of cycles and lookups (ADR 0042)
@task(service.DRAW_TASK, background=True)
async def draw(ctx: TaskContext, *, team_id: str, kind: str, item_id: str, **_: Any) -> dict[str, Any]:
    """Draw the page from the item's inputs now and keep it; nothing when the kept one is current."""
    now = ctx.now()
    async with ctx.db.transaction(write=False) as session:
        try:
            inputs = await service.inputs_of(session, team_id, kind, item_id, now)
        except NotFound:
            return {"drawn": False, "skipped": "not_found"}
        inputs_hash = service.drawn_from(inputs)
        if await service.is_current(session, team_id, item_id, inputs_hash):
            return {"drawn": False}
    body = await asyncio.to_thread(partial(page.render, **inputs))
    async with ctx.db.transaction() as session:
        await service.keep_page(session, team_id, kind, item_id, inputs_hash, body, now)
    return {"drawn": True}

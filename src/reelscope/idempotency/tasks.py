"""Expired idempotency records are purged hourly (their key has been free to reuse since they expired)."""

from __future__ import annotations

from huey import crontab

from reelscope.idempotency import repository
from reelscope.worker import TaskContext, task

BATCH = 1_000


@task("idempotency.purge", periodic=crontab(minute="41"))
async def purge(ctx: TaskContext) -> dict[str, int]:
    removed = 0
    while True:
        async with ctx.db.transaction() as session:
            batch = await repository.delete_expired(session, ctx.now(), BATCH)
        removed += batch
        if batch < BATCH:
            return {"removed": removed}

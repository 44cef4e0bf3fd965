"""The periodic dispatcher: one pass fires due schedules and recovers lost work (ARCHITECTURE §5).

Each step is its own short write transaction, in this order:
1. expire jobs past their retry window (§3 "Pending job ... retry window ends → expired");
2. release jobs whose worker died (lease not renewed) — retried, or given up when attempts are spent;
3. fire due schedules (a job per firing);
4. send jobs due to run whose message is missing or stale (retries, lost messages);
5. send the tick tasks (``@task(..., tick=True)``), e.g. the webhook pump that attempts due retries.
Every step claims rows with conditional updates, so any number of dispatchers may run at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from reelscope.kit.logging import get_logger
from reelscope.worker import registry
from reelscope.worker.context import TaskContext
from reelscope.worker.jobs import service as jobs_service
from reelscope.worker.queue import enqueue
from reelscope.worker.schedules import service as schedules_service

log = get_logger(__name__)

# rows claimed per transaction
BATCH = 100


@dataclass(frozen=True)
class DispatchReport:
    expired: int
    recovered: int
    fired: int
    resent: int


async def dispatch_once(ctx: TaskContext) -> DispatchReport:
    stale_after = timedelta(seconds=ctx.settings.job_stale_after_seconds)
    async with ctx.db.transaction() as session:
        expired = await jobs_service.expire_overdue(session, now=ctx.clock.now())
    async with ctx.db.transaction() as session:
        recovered = await jobs_service.recover_lost_leases(session, now=ctx.clock.now())
    fired = resent = 0
    # batches in short transactions, until a batch comes back short: a backlog drains in one pass
    while True:
        async with ctx.db.transaction() as session:
            batch = len(await schedules_service.dispatch_due(session, now=ctx.clock.now(), limit=BATCH))
        fired += batch
        if batch < BATCH:
            break
    while True:
        async with ctx.db.transaction() as session:
            batch = len(
                await jobs_service.resend_due(
                    session, now=ctx.clock.now(), stale_after=stale_after, limit=BATCH
                )
            )
        resent += batch
        if batch < BATCH:
            break
    ticks = registry.tick_tasks()
    if ticks:
        async with ctx.db.transaction() as session:
            for name in ticks:
                enqueue(session, name)
    report = DispatchReport(expired=expired, recovered=recovered, fired=fired, resent=resent)
    if expired or recovered or fired or resent:
        log.info("dispatcher.pass", **report.__dict__)
    return report

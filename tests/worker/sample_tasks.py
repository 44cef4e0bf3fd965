"""Test-only tasks. Imported by the tests, and by real worker processes through
REELSCOPE_EXTRA_TASK_MODULES=tests.worker.sample_tasks (with the project root on PYTHONPATH).

Their side effect is a ledger row (+credits for a team) whose reference names the job, so a test can
count how many times the side effect happened.
"""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any

from huey import crontab

from reelscope.billing import service as billing_service
from reelscope.worker import JobFailed, TaskContext, enqueue, task
from reelscope.worker.registry import Lane


def effect_reference(ctx: TaskContext, label: str | None = None) -> str:
    return f"effect:{ctx.job.id if ctx.job else label}"


@task("test.credit")
async def credit(
    ctx: TaskContext, *, team_id: str, credits: int = 1, label: str | None = None, **_: Any
) -> Any:
    """The side effect and the job's completion in one transaction (the pattern real tasks follow)."""
    result = {"credited": credits}
    async with ctx.db.transaction() as session:
        await billing_service.add_credits(
            session, team_id, credits, reference=effect_reference(ctx, label), at=ctx.now()
        )
        if ctx.job is not None:
            await ctx.complete(session, result)
    return result


@task("test.where")
async def where(ctx: TaskContext) -> dict[str, Any]:
    """Reports the thread and loop it ran on."""
    return {"thread": threading.current_thread().name, "loop": id(asyncio.get_running_loop())}


@task("test.fail")
async def fail(ctx: TaskContext, *, retry: bool = True) -> None:
    raise JobFailed("upstream_error", "The source did not answer", retry=retry)


@task("test.crash")
async def crash(ctx: TaskContext) -> None:
    raise RuntimeError("boom")


@task("test.followup")
async def followup(ctx: TaskContext, *, team_id: str) -> dict[str, int]:
    """Enqueues more work from inside a task; it is sent when this transaction commits."""
    async with ctx.db.transaction() as session:
        enqueue(session, "test.credit", team_id=team_id, label="followup")
    return {"enqueued": 1}


@task("test.blocking_credit")
async def blocking_credit(ctx: TaskContext, *, team_id: str, gate: str, marks: str) -> dict[str, int]:
    """Marks that attempt N started (the mark holds the process id), waits for the gate file, then
    credits and completes at once."""
    assert ctx.job is not None
    Path(marks, f"started-{ctx.job.attempt}").write_text(str(os.getpid()))
    while not Path(gate).exists():
        await asyncio.sleep(0.05)
    async with ctx.db.transaction() as session:
        await billing_service.add_credits(session, team_id, 1, reference=effect_reference(ctx), at=ctx.now())
        await ctx.complete(session, {"credited": 1, "attempt": ctx.job.attempt})
    return {"credited": 1}


TICKS: list[str] = []


@task("test.tick", periodic=crontab(minute="0", hour="*/2"))
async def tick(ctx: TaskContext) -> None:
    """A fixed system job (like the ~2 h momentum refresh): runs on the periodic consumer."""
    TICKS.append(threading.current_thread().name)


class Hold:
    """A long background job under the test's control: ``started`` is released as each one begins, and
    each waits for ``release`` (set by the test) before it ends."""

    def __init__(self) -> None:
        self.started = threading.Semaphore(0)
        self.release = threading.Event()


HOLDS: dict[str, Hold] = {}
# user jobs that have started, by label
STARTED: dict[str, threading.Event] = {}


@task("test.hold", background=True)
async def hold(ctx: TaskContext, *, label: str) -> None:
    """Upkeep that keeps its background worker until the test lets it go (at most a minute)."""
    held = HOLDS[label]
    held.started.release()
    await asyncio.to_thread(held.release.wait, 60)


@task("test.signal")
async def signal(ctx: TaskContext, *, label: str) -> dict[str, str]:
    """User work that says it started."""
    STARTED[label].set()
    return {"label": label}


@task("test.signal_event", lane=Lane.EVENTS)
async def signal_event(ctx: TaskContext, *, label: str) -> dict[str, str]:
    """Work of the events lane (where the webhook pump runs) that says it started."""
    STARTED[label].set()
    return {"label": label}


# what each attempt of a ``test.steps`` job found in its progress, by job id
PROGRESS_SEEN: dict[str, list[dict[str, Any]]] = {}


@task("test.steps")
async def steps(ctx: TaskContext, *, team_id: str) -> dict[str, int]:
    """Works in two steps (a credit each): the first lands with its progress, then the attempt fails;
    the attempt after it reads the progress and does only the second."""
    job = ctx.job
    assert job is not None
    PROGRESS_SEEN.setdefault(job.id, []).append(dict(job.progress))
    if not job.progress:
        async with ctx.db.transaction() as session:
            await billing_service.add_credits(session, team_id, 1, reference=f"step1:{job.id}", at=ctx.now())
            await ctx.save_progress(session, {"step": 1})
        raise JobFailed("upstream_error", "The second step's source did not answer")
    async with ctx.db.transaction() as session:
        await billing_service.add_credits(session, team_id, 1, reference=f"step2:{job.id}", at=ctx.now())
        await ctx.complete(session, {"steps": 2})
    return {"steps": 2}

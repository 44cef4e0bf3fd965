"""What a task body receives: the worker's settings, clock and database, and the job it runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database
from reelscope.worker.jobs import repository as jobs_repository


@dataclass(frozen=True)
class JobRun:
    """The claimed attempt of a jobs row, as the task body sees it."""

    id: str
    task: str
    type: str
    team_id: str | None
    resource_type: str | None
    resource_id: str | None
    params: dict[str, Any]
    attempt: int
    lease_token: str
    charged_credits: int
    # where an earlier attempt of a job that works in steps got to (``TaskContext.save_progress``)
    progress: dict[str, Any] = field(default_factory=dict)


class JobLost(Exception):
    """This attempt no longer owns the job (its lease was reclaimed, or the job expired or completed)."""


class JobFailed(Exception):
    """Raised by a task body: the attempt failed with an error a client may see (``{code, message}``).

    ``retry=False`` gives up at once (the job then shows ``failed`` until its retry window ends, §2.6).
    """

    def __init__(self, code: str, message: str, *, retry: bool = True) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.retry = retry


@dataclass
class TaskContext:
    settings: Settings
    clock: Clock
    # bound to the worker's own event loop; also bound to the job engine, so tasks can enqueue more work
    db: Database
    job: JobRun | None = None
    completed: bool = False

    def now(self) -> datetime:
        return self.clock.now()

    async def hold(self, session: AsyncSession) -> None:
        """Lock the job in the caller's transaction and make sure this attempt still owns it, before a side
        effect of giving up (a failure event, a refund). Raises ``JobLost`` otherwise, as ``complete``."""
        if self.job is None:
            raise RuntimeError("hold() is only for tasks that run a jobs row")
        job = await jobs_repository.get_for_update(session, self.job.id)
        if job is None or job.status != jobs_repository.PROCESSING or job.lease_token != self.job.lease_token:
            raise JobLost(self.job.id)

    async def save_progress(self, session: AsyncSession, progress: dict[str, Any]) -> None:
        """Record where the job stands, in the caller's transaction beside the step it lands: an attempt
        after a restart finds it in ``job.progress`` and goes on from there. Raises ``JobLost`` when this
        attempt no longer owns the job (the step rolls back with it)."""
        if self.job is None:
            return  # a plain call has no row: it starts over when sent again
        saved = await jobs_repository.save_progress(
            session, self.job.id, self.job.lease_token, progress=progress, now=self.clock.now()
        )
        if not saved:
            raise JobLost(self.job.id)

    async def complete(self, session: AsyncSession, result: Any = None) -> None:
        """Mark the job completed in the caller's transaction, beside the side effect it records.

        Raises ``JobLost`` when this attempt no longer owns the job, which rolls the side effect back:
        that is what keeps a side effect from happening twice.
        """
        if self.job is None:
            raise RuntimeError("complete() is only for tasks that run a jobs row")
        done = await jobs_repository.complete(
            session, self.job.id, self.job.lease_token, result=result, now=self.clock.now()
        )
        if not done:
            raise JobLost(self.job.id)
        self.completed = True

"""The task registry: ``@task("name")`` names an async body the worker can run (STYLE "Jobs are small").

Task bodies live in their family's ``tasks.py`` beside the code they drive. The worker (and the API, which
checks a job's task name when it creates the job) imports every ``reelscope.<family>.tasks`` module it finds,
plus the modules listed in ``REELSCOPE_EXTRA_TASK_MODULES`` (comma-separated; tests register test-only
tasks this way).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any, TypeVar

import reelscope

TaskBody = Callable[..., Awaitable[Any]]
F = TypeVar("F", bound=TaskBody)


class Lane(StrEnum):
    """The queue a task's messages travel on, each with worker threads of its own (ADR 0042, 0053).

    ``user``: work a team waits for (agent runs, lookups, tracking cycles, audience snapshots: anything a
    request or a team's schedule starts). ``events``: the webhook pump, whose first attempt §6.1 makes
    immediate. ``background``: the system's own upkeep (periodic tasks, trend runs, the first start's
    history). Background work never occupies a user or events worker, so a user job starts and an event
    is delivered within seconds however long the upkeep runs. Declared in the order ``run_next`` takes
    them.
    """

    USER = "user"
    EVENTS = "events"
    BACKGROUND = "background"


@dataclass(frozen=True)
class TaskDef:
    name: str
    body: TaskBody
    # a Huey ``crontab(...)`` for fixed system jobs (momentum, rollups): run by the periodic consumer
    periodic: Callable[[datetime], bool] | None = None
    # sent by every dispatcher pass (every few seconds): for work finer-grained than Huey's minute crontab
    tick: bool = False
    lane: Lane = Lane.USER
    # attempts of its jobs (None: the jobs service's default); more for a task that records its
    # progress and goes on from it, so restarts during it do not use up its attempts
    max_attempts: int | None = None


class UnknownTask(LookupError):
    pass


_TASKS: dict[str, TaskDef] = {}


def task(
    name: str,
    *,
    periodic: Callable[[datetime], bool] | None = None,
    tick: bool = False,
    background: bool = False,
    lane: Lane | None = None,
    max_attempts: int | None = None,
) -> Callable[[F], F]:
    """Register ``async def body(ctx: TaskContext, **params)`` under ``name``.

    The body takes ids (JSON values), opens its own transactions on ``ctx.db``, can run twice without
    harm, and returns what it did (a JSON value, stored as the job's result). CPU-heavy work goes
    through ``asyncio.to_thread`` so the worker's loop stays free (ARCHITECTURE §5).

    A task runs on the user lane unless it is the system's own upkeep: ``background=True``, and every
    periodic or tick task, run on the background lane (``Lane``); ``lane`` names another lane outright.
    ``max_attempts``: how many attempts its jobs get unless their creator says (the jobs service's
    default otherwise).
    """
    chosen = lane
    if chosen is None:
        chosen = Lane.BACKGROUND if background or periodic is not None or tick else Lane.USER

    def register(body: F) -> F:
        existing = _TASKS.get(name)
        if existing is not None and _origin(existing.body) != _origin(body):
            raise ValueError(f"task {name!r} is already registered by {_origin(existing.body)}")
        _TASKS[name] = TaskDef(
            name=name, body=body, periodic=periodic, tick=tick, lane=chosen, max_attempts=max_attempts
        )
        return body

    return register


def get(name: str) -> TaskDef:
    try:
        return _TASKS[name]
    except KeyError:
        raise UnknownTask(f"no task is registered as {name!r}") from None


def lane_of(name: str) -> Lane:
    """The lane of ``name``'s messages; a task no longer registered goes on the user lane, where its job
    fails at once as ``unknown_task`` rather than waiting behind the upkeep."""
    definition = _TASKS.get(name)
    return definition.lane if definition is not None else Lane.USER


def registered() -> dict[str, TaskDef]:
    return dict(_TASKS)


def discover(extra_modules: str = "") -> list[str]:
    """Import every ``reelscope.<package>.tasks`` module and the extra ones; the names imported."""
    names = [*family_task_modules(), *(name.strip() for name in extra_modules.split(",") if name.strip())]
    for name in names:
        importlib.import_module(name)
    return names


@functools.cache
def family_task_modules() -> tuple[str, ...]:
    """``reelscope.<package>.tasks`` of every package that has one. Looked for once per process: the
    packages are the installed code's, and looking (a directory listing and a search per package, 3-10
    ms) was part of every ``JobEngine`` built, the API's, each worker's and each test's."""
    return tuple(
        f"reelscope.{info.name}.tasks"
        for info in pkgutil.iter_modules(reelscope.__path__)
        if info.ispkg and importlib.util.find_spec(f"reelscope.{info.name}.tasks") is not None
    )


def _origin(body: TaskBody) -> str:
    return f"{body.__module__}.{body.__qualname__}"


def tick_tasks() -> list[str]:
    """Names of the tasks every dispatcher pass sends (``@task(..., tick=True)``)."""
    return sorted(name for name, definition in _TASKS.items() if definition.tick)

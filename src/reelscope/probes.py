"""Liveness and readiness for orchestrators and load balancers (issue 29 item 3; beyond the spec).

``GET /`` stays the spec's greeting (§1). Beside it, outside the contract (no key, no charge, no rate
limit, not in the OpenAPI document):

- ``GET /livez``: the process answers. Nothing else is looked at, so a database outage never gets a
  healthy process restarted.
- ``GET /readyz``: this process can serve: the database answers and its schema is at this code's
  migration head, the job queue (SQLite file or Redis) answers, and its read workers, where it has
  them, have started (a long read sent before waited seconds for a worker to import the app). 200 when
  every check passes, 503 with the failing ones otherwise, each check bounded by
  ``CHECK_TIMEOUT_SECONDS``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from reelscope.kit.migrate import HEAD
from reelscope.runtime import Runtime

CHECK_TIMEOUT_SECONDS = 2.0
_VERSION = text("SELECT version_num FROM alembic_version")

Check = Callable[[Runtime], Awaitable[str | None]]


async def _database(runtime: Runtime) -> str | None:
    """None when the database answers at the migration head; else what is wrong."""
    async with runtime.db.transaction(write=False) as session:
        try:
            versions = list(
                (await session.execute(text("SELECT version_num FROM alembic_version"))).scalars()
            )
        except Exception:  # no alembic_version table: never migrated
            return "the database has no migrations applied: run `reelscope migrate`"
    if versions != [HEAD]:
        found = ", ".join(versions) or "none"
        return f"the database is at migration {found}, this code needs {HEAD}: run `reelscope migrate`"
    return None


async def _job_queue(runtime: Runtime) -> str | None:
    if runtime.jobs is None:
        return "no job engine in this process"
    await asyncio.to_thread(runtime.jobs.pending_count)  # a count on each lane's queue
    return None


async def _read_workers(runtime: Runtime) -> str | None:
    assert runtime.read_workers is not None
    return runtime.read_workers.starting()


CHECKS: dict[str, Check] = {"database": _database, "job_queue": _job_queue}


def _checks(runtime: Runtime) -> dict[str, Check]:
    """The checks of this process: the read workers' only where it has them."""
    if runtime.read_workers is None:
        return CHECKS
    return {**CHECKS, "read_workers": _read_workers}


async def _run(check: Check, runtime: Runtime) -> str | None:
    try:
        return await asyncio.wait_for(check(runtime), CHECK_TIMEOUT_SECONDS)
    except TimeoutError:
        return f"no answer within {CHECK_TIMEOUT_SECONDS:g} s"
    except Exception as exc:  # the probe reports; it never fails with a 500
        return f"unreachable ({type(exc).__name__})"


def add_probe_routes(app: FastAPI) -> None:
    @app.get("/livez", include_in_schema=False)
    async def livez() -> JSONResponse:
        return JSONResponse({"status": "ok"})

    @app.get("/readyz", include_in_schema=False)
    async def readyz(request: Request) -> JSONResponse:
        runtime: Runtime = request.app.state.runtime
        checks_of = _checks(runtime)
        names = list(checks_of)
        found = await asyncio.gather(*(_run(checks_of[name], runtime) for name in names))
        checks = {
            name: "ok" if problem is None else problem for name, problem in zip(names, found, strict=True)
        }
        ready = all(problem is None for problem in found)
        return JSONResponse(
            {"status": "ready" if ready else "not_ready", "checks": checks}, 200 if ready else 503
        )

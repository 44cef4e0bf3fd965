"""One runtime, client, job engine and team for a whole test module, per database: for modules whose tests
only read what a module-scoped fixture made once (an agent run takes seconds to make).

A module takes these fixtures under their own names (``runtime = shared.runtime``, ...), overriding the
function-scoped ones of tests/conftest.py and tests/fixtures/jobs.py, and marks its tests ``MODULE_LOOP``
so that they run on the loop the fixtures were built on. ``backend`` is module-scoped here, so pytest runs
all of a module's SQLite tests, then all of its PostgreSQL ones, each database built once. Under
pytest-xdist such a module must be a group of tests/fixtures/scheduling.py: on one worker, each database is
built once, and no other test empties the worker's PostgreSQL database between two of the module's tests.

Function-scoped fixtures built on these (``get``, ``create_agent``) work as before. ``make_team`` is
module-scoped too, so that the names it gives stay unique in the module's database; a team it adds is one
more team there, which reads of the module's own team never see.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import pytest_asyncio

from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.runtime import Runtime, build_runtime
from reelscope.worker.engine import JobEngine
from tests.conftest import START, MakeTeam, TeamKey, team_maker
from tests.fixtures.databases import PostgresDatabase, copy_sqlite
from tests.fixtures.services import require_postgres

MODULE_LOOP = pytest.mark.asyncio(loop_scope="module")


@pytest.fixture(scope="module")
def backend(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture(scope="module")
def clock(backend: str) -> ManualClock:
    """One per database, as the runtime: a test that advances it moves only its own database's time."""
    return ManualClock(START)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def settings(
    backend: str,
    tmp_path_factory: pytest.TempPathFactory,
    sqlite_template: Path,
    postgres_database: PostgresDatabase,
) -> Settings:
    """As tests/conftest.py's ``settings`` on a fresh database, without Redis (the in-memory limiter)."""
    directory = tmp_path_factory.mktemp("shared")
    if backend == "sqlite":
        url = copy_sqlite(sqlite_template, directory)
    else:
        require_postgres()
        url = await postgres_database.fresh()
    return Settings(data_dir=directory / "data", database_url=url, redis_url=None)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def runtime(settings: Settings, clock: ManualClock) -> AsyncIterator[Runtime]:
    built = build_runtime(settings, clock)
    yield built
    await built.close()


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def jobs(runtime: Runtime) -> AsyncIterator[JobEngine]:
    """Huey's immediate mode, as tests/fixtures/jobs.py's default."""
    engine = JobEngine(runtime.settings, runtime.clock, immediate=True)
    engine.bind(runtime.db)
    yield engine
    await asyncio.to_thread(engine.close)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def client(runtime: Runtime, jobs: JobEngine) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=create_app(runtime=runtime), client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@pytest.fixture(scope="module")
def make_team(runtime: Runtime, clock: ManualClock) -> MakeTeam:
    """tests/conftest.py's ``make_team``, numbering its teams through the whole module."""
    return team_maker(runtime, clock)


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def team(runtime: Runtime, clock: ManualClock) -> TeamKey:
    """As tests/conftest.py's ``team`` (named apart from the teams ``make_team`` adds); a module may
    take this fixture without the module's ``make_team``."""
    return await team_maker(runtime, clock)(name="module-team")

"""Fixtures every test shares: settings on a temp data dir, the manual clock, the app and an HTTP client.

Backends: tests run on SQLite and the in-memory limiter by default. A test or module marked
``both_databases`` runs once on SQLite and once on PostgreSQL (marked ``postgres``); one marked
``both_limiters`` runs with the in-memory and the Redis limiter storage (marked ``redis``).
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import structlog

from reelscope import models  # noqa: F401
from reelscope.auth import service as auth_service
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock
from reelscope.main import create_app
from reelscope.runtime import Runtime, build_runtime
from tests.fixtures.databases import (
    PostgresDatabase,
    build_queue_template,
    build_sqlite_template,
    copy_queue,
    copy_sqlite,
)
from tests.fixtures.services import TEST_DATABASE_URL, TEST_REDIS_URL, require_postgres, require_redis

START = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)

# in-process tests run every endpoint on the event loop (ADR 0040): a read worker is a process of its
# own, which sees neither the test's monkeypatches nor its manual clock unless given it; the worker path is
# tested in tests/contract/test_read_workers.py, and `serve` in tests/test_process.py runs with its default
os.environ["REELSCOPE_READ_WORKERS"] = "0"

# the job engine fixtures: jobs, queue_backend, task_context and the all_queues marker; the fake LLM
# provider (fake_llm); and how `make test` shares the tests among its pytest-xdist workers
pytest_plugins = ["tests.fixtures.jobs", "tests.fixtures.llm"]
if importlib.util.find_spec("xdist") is not None:
    pytest_plugins.append("tests.fixtures.scheduling")


def pytest_configure(config: pytest.Config) -> None:
    # structlog, unconfigured in tests, renders a logged exception with rich (syntax-highlighted source
    # and every frame's locals): 3-6 s for each 500 a test provokes, and a property test provokes dozens.
    # Its default processors stay; only the traceback is plain text, as `configure_logging` logs it.
    *processors, _rich = structlog.get_config()["processors"]
    structlog.configure(
        processors=[
            *processors,
            structlog.dev.ConsoleRenderer(exception_formatter=structlog.dev.plain_traceback),
        ]
    )
    config.addinivalue_line("markers", "both_databases: run on SQLite and on PostgreSQL")
    config.addinivalue_line("markers", "both_limiters: run with the in-memory and the Redis limiter")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_databases"):
        metafunc.parametrize(
            "backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)], indirect=True
        )
    if "limiter_backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_limiters"):
        metafunc.parametrize(
            "limiter_backend", ["memory", pytest.param("redis", marks=pytest.mark.redis)], indirect=True
        )


@pytest.fixture
def backend(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def limiter_backend(request: pytest.FixtureRequest) -> str:
    return str(getattr(request, "param", "memory"))


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file with the whole schema, built once per session (per xdist worker)."""
    return build_sqlite_template(tmp_path_factory.mktemp("schema"))


@pytest.fixture(scope="session")
def queue_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The job queue's file as the app makes it in a new data dir, once per session (per xdist worker)."""
    return build_queue_template(tmp_path_factory.mktemp("queue"))


@pytest.fixture
def data_dir(tmp_path: Path, queue_template: Path) -> Path:
    """The test's own data dir, holding a copy of the job queue's file the app makes there on its first
    start (making it, a new file switched to WAL and its tables committed, was ~10 ms of every test)."""
    directory = tmp_path / "data"
    copy_queue(queue_template, directory)
    return directory


@pytest.fixture(scope="session")
def postgres_database(request: pytest.FixtureRequest) -> Iterator[PostgresDatabase]:
    """This session's PostgreSQL database, created on first use (tests/fixtures/databases.py)."""
    database = PostgresDatabase(TEST_DATABASE_URL, request.config.rootpath)
    yield database
    database.drop()


@pytest.fixture
async def database_url(
    backend: str, tmp_path: Path, sqlite_template: Path, postgres_database: PostgresDatabase
) -> str:
    """A fresh, empty database with the whole schema."""
    if backend == "sqlite":
        return copy_sqlite(sqlite_template, tmp_path)
    require_postgres()
    return await postgres_database.fresh()


@pytest.fixture
async def redis_url(limiter_backend: str) -> AsyncIterator[str | None]:
    if limiter_backend == "memory":
        yield None
        return
    require_redis()
    from redis.asyncio import Redis

    client = Redis.from_url(TEST_REDIS_URL)
    await client.flushdb()
    yield TEST_REDIS_URL
    await client.flushdb()
    await client.aclose()


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(START)


@pytest.fixture
def settings(data_dir: Path, database_url: str, redis_url: str | None) -> Settings:
    return Settings(data_dir=data_dir, database_url=database_url, redis_url=redis_url)


@pytest.fixture
async def runtime(settings: Settings, clock: ManualClock) -> AsyncIterator[Runtime]:
    built = build_runtime(settings, clock)
    yield built
    await built.close()


@pytest.fixture
async def client(runtime: Runtime) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(runtime=runtime)
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 50000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
        yield http


@dataclass(frozen=True)
class TeamKey:
    team_id: str
    key_id: str
    api_key: str
    name: str

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


MakeTeam = Callable[..., Awaitable[TeamKey]]


def team_maker(runtime: Runtime, clock: ManualClock) -> MakeTeam:
    """Teams with a balance and one key each, as the admin CLI makes them, named team-1, team-2, ..."""
    counter = iter(range(1, 10_000))

    async def make(credits: int = 1000, *, name: str | None = None, scope: str = "full") -> TeamKey:
        team_name = name or f"team-{next(counter)}"
        async with runtime.db.transaction() as session:
            team = await auth_service.create_team(session, team_name, credits, clock.now())
            issued = await auth_service.issue_key(session, team, clock.now(), scope)
        return TeamKey(team_id=team.id, key_id=issued.key.id, api_key=issued.api_key, name=team_name)

    return make


@pytest.fixture
def make_team(runtime: Runtime, clock: ManualClock) -> MakeTeam:
    """Create a team with a balance and one key, as the admin CLI would."""
    return team_maker(runtime, clock)


@pytest.fixture
async def team(make_team: MakeTeam) -> TeamKey:
    return await make_team()

"""Running Reelscope: serve, api, worker, migrate, and what the first start of a data dir does."""

from __future__ import annotations

from typing import Annotated

import typer

from reelscope.auth import service as auth_service
from reelscope.cli.common import _run_admin, app, console
from reelscope.config import Settings, load_settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.db import Database
from reelscope.kit.logging import configure_logging
from reelscope.kit.migrate import upgrade_to_head

# --- serving ---------------------------------------------------------------------------------------


@app.command()
def migrate() -> None:
    """Upgrade the database schema to the latest version."""
    settings = load_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.effective_database_url)
    console.print("database is at the latest schema")


def _bootstrap_demo(settings: Settings) -> tuple[str, str] | None:
    """On the first start of an empty data dir: a demo team with credits and a key, shown once."""
    clock = SystemClock()

    async def work(database: Database) -> tuple[str, str] | None:
        async with database.transaction() as session:
            if await auth_service.has_any_team(session):
                return None
            team = await auth_service.create_team(session, "demo", settings.demo_team_credits, clock.now())
            issued = await auth_service.issue_key(session, team, clock.now())
            return team.name, issued.api_key

    return _run_admin(settings, work)


def _print_welcome(settings: Settings, created: tuple[str, str] | None) -> None:
    base = f"http://{settings.host}:{settings.port}"
    if created is None:
        console.print(f"Reelscope on {base} (data in {settings.data_dir})")
        return
    team, api_key = created
    credits = settings.demo_team_credits
    console.print(f"\nCreated team [bold]{team}[/] with {credits} credits. Its API key, shown once:\n")
    # plain echo: the key and the command must not be wrapped, so they can be copied whole
    typer.echo(f"  {api_key}\n")
    typer.echo("Try it:\n")
    typer.echo(f'  curl -s -H "Authorization: Bearer {api_key}" {base}/v1/account/balance\n')


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (REELSCOPE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (REELSCOPE_PORT).")] = None,
) -> None:
    """Run the API, the embedded job consumer and the scheduler in one process (the default)."""
    import uvicorn

    from reelscope.cli.http_server import uvicorn_options
    from reelscope.main import create_app

    settings = load_settings()
    if host:
        settings.host = host
    if port:
        settings.port = port
    configure_logging(settings.log_level, json=settings.log_json)
    created = _bootstrap_demo(settings)
    backfill_catalog(settings)
    _prepare_read_path(settings)
    _bootstrap_trends(settings)
    _print_welcome(settings, created)
    from reelscope.worker.consumer import start_embedded

    app_ = create_app(settings)
    embedded = start_embedded(settings)
    try:
        uvicorn.run(app_, host=settings.host, port=settings.port, **uvicorn_options(settings))
    finally:
        embedded.stop()


@app.command()
def api(
    host: Annotated[str | None, typer.Option(help="Bind address (REELSCOPE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (REELSCOPE_PORT).")] = None,
) -> None:
    """Run the API only (scale-out: N replicas behind a load balancer)."""
    import uvicorn

    from reelscope.cli.http_server import uvicorn_options
    from reelscope.main import create_app

    settings = load_settings()
    configure_logging(settings.log_level, json=settings.log_json)
    upgrade_to_head(settings.effective_database_url)
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        **uvicorn_options(settings),
    )


# --- jobs ------------------------------------------------------------------------------------------


@app.command()
def worker(
    periodic: Annotated[
        bool,
        typer.Option(
            "--periodic/--no-periodic",
            help="Also fire due schedules, recover lost jobs and run periodic tasks (keep one such worker).",
        ),
    ] = True,
) -> None:
    """Run the job consumer only (scale-out). Ctrl-C waits up to 5 s for running jobs (retried if cut off)."""
    from reelscope.worker.consumer import run_worker

    settings = load_settings()
    configure_logging(settings.log_level, json=settings.log_json)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.effective_database_url)
    run_worker(settings, periodic=periodic)


# --- catalog ---------------------------------------------------------------------------------------


def backfill_catalog(settings: Settings) -> None:
    """On the first start of an empty catalog: 14 days of every enabled feed, so reads have data at once."""
    import multiprocessing
    import time
    from concurrent.futures import ProcessPoolExecutor

    from reelscope.catalog import collection
    from reelscope.catalog import service as catalog_service
    from reelscope.collectors.registry import build_connectors

    clock = SystemClock()

    async def work(database: Database) -> int | None:
        async with database.transaction(write=False) as session:
            if not await catalog_service.is_empty(session):
                return None
        # generation runs in a second process, on the other core, while this one writes; spawned, not
        # forked, because this process already runs the database driver's thread
        with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
            connectors = build_connectors(settings, clock, bulk_executor=pool)
            return await collection.backfill(database, connectors, clock, days=collection.backfill_days)

    started = time.monotonic()
    with console.status("Empty catalog: collecting the last 14 days from the enabled connectors…"):
        count = _run_admin(settings, work)
    if count is not None:
        console.print(f"Catalog backfilled: {count} videos in {time.monotonic() - started:.1f}s")


def _bootstrap_trends(settings: Settings) -> None:
    """Trend run schedules for every region; on the first start, each region's latest run at once."""
    import time

    from reelscope.trend import tasks as trend_tasks

    clock = SystemClock()
    started = time.monotonic()

    async def work(database: Database) -> int:
        return await trend_tasks.bootstrap(database, clock.now())

    with console.status("Trends: scheduling region runs…"):
        stored = _run_admin(settings, work)
    if stored:
        console.print(f"Trends: {stored} region runs computed in {time.monotonic() - started:.1f}s")


def _prepare_read_path(settings: Settings) -> None:
    """At start: roll hashtag stats up unless a rollup younger than 6 hours exists, and build the
    digest lists, so the read endpoints answer from precomputed results at once (issue 6)."""
    from reelscope.digest import service as digest_service
    from reelscope.hashtag import service as hashtag_service

    clock = SystemClock()

    async def work(database: Database) -> None:
        await hashtag_service.rollup_if_stale(database, clock.now())
        await digest_service.refresh(database, clock.now())

    with console.status("Preparing digests and hashtag statistics…"):
        _run_admin(settings, work)

"""Running Reelscope: serve, api, worker, migrate, and what the first start of a data dir does."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from reelscope.cli.common import _run_admin, app, command_line, console

if TYPE_CHECKING:
    from fastapi import FastAPI

    from reelscope.config import Settings
    from reelscope.kit.db import Database

# --- serving ---------------------------------------------------------------------------------------


def _record_metrics_in(settings: Settings) -> None:
    """Before anything is counted: this process's metric values go to ``REELSCOPE_METRICS_DIR`` when it
    is set, shared by every process of the host (kit/metrics.py)."""
    if settings.metrics:
        from reelscope.kit import metrics

        metrics.use_directory(settings.metrics_dir)


def _report_memory(settings: Settings) -> None:
    """Freed memory given back to the system (kit/heap.py), and where this process's memory grows,
    logged every ``REELSCOPE_MEMORY_REPORT_SECONDS`` when set."""
    from reelscope.kit import heap, memory_report

    heap.start(settings.malloc_arena_max, settings.malloc_trim_seconds)
    memory_report.start_if_set(settings.memory_report_seconds)


def _settle(settings: Settings, app_: FastAPI | None = None) -> None:
    """What the first requests would build, built now (``main.prepare``); then what this process built
    to serve, kept for its life, out of the garbage collector's walks, and from now on a long
    collection logged (ADR 0059; not during the start's own work, whose big collections are expected,
    and whose warnings a first ``serve`` would print on the screen)."""
    from reelscope.kit import gc_pauses
    from reelscope.main import prepare

    if app_ is not None:
        prepare(app_)
    gc_pauses.settle()
    gc_pauses.start(settings.loop_held_warning_ms)


@app.command()
def migrate() -> None:
    """Upgrade the database schema to the latest version."""
    from reelscope.config import load_settings
    from reelscope.kit.migrate import upgrade_to_head

    settings = load_settings()
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.effective_database_url)
    console.print("database is at the latest schema")


def _bootstrap_demo(settings: Settings) -> tuple[str, str] | None:
    """On the first start of an empty data dir: a demo team with credits and a key, shown once."""
    from reelscope.auth import service as auth_service
    from reelscope.kit.clock import SystemClock

    clock = SystemClock()

    async def work(database: Database) -> tuple[str, str] | None:
        async with database.transaction() as session:
            if await auth_service.has_any_team(session):
                return None
            team = await auth_service.create_team(session, "demo", settings.demo_team_credits, clock.now())
            issued = await auth_service.issue_key(session, team, clock.now())
            return team.name, issued.api_key

    return _run_admin(settings, work)


def _print_welcome(settings: Settings, created: tuple[str, str] | None, log_file: Path | None) -> None:
    """The last thing serve prints before it answers: on a first start the demo key, shown once."""
    base = f"http://{settings.host}:{settings.port}"
    logs = f"; logs in {log_file}" if log_file is not None else ""
    if created is None:
        typer.echo(f"Reelscope on {base} (data in {settings.data_dir}{logs})")
        # keys are shown once and stored hashed: a restart cannot show the demo key again. The command
        # as it works from any directory: this installation's executable and this data dir
        typer.echo("A new API key for the demo team (shown once):")
        typer.echo(f"  {command_line(settings, 'admin', 'key', 'create', '--team', 'demo')}")
        return
    team, api_key = created
    credits = settings.demo_team_credits
    typer.echo(f"\nReelscope on {base} (data in {settings.data_dir}{logs})")
    console.print(f"Created team [bold]{team}[/] with {credits} credits. Its API key, shown once:\n")
    # plain echo: the key and the command must not be wrapped, so they can be copied whole
    typer.echo(f"  {api_key}\n")
    typer.echo("Try it:\n")
    typer.echo(f'  curl -s -H "Authorization: Bearer {api_key}" {base}/v1/account/balance\n')


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (REELSCOPE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (REELSCOPE_PORT).")] = None,
) -> None:
    """Run the API, the embedded job consumer and the scheduler in one process (the default).

    On a terminal the logs go to <data dir>/serve.log (warnings also to the screen), so the welcome
    and the first start's demo key stay on screen."""
    import uvicorn
    from uvicorn.config import LOGGING_CONFIG

    from reelscope.cli.http_server import uvicorn_options
    from reelscope.config import load_settings
    from reelscope.kit.logging import configure_logging
    from reelscope.main import create_app

    settings = load_settings()
    _record_metrics_in(settings)
    if host:
        settings.host = host
    if port:
        settings.port = port
    log_file = settings.data_dir / "serve.log" if sys.stderr.isatty() and sys.stdout.isatty() else None
    configure_logging(settings.log_level, json=settings.log_json, file=log_file)
    _report_memory(settings)
    created = _bootstrap_demo(settings)
    if replays_history(settings):
        collected_days = backfill_catalog(settings, days=settings.first_start_days)
        history_days = None
    else:  # real sources only: no history to replay, the first collection cycle now
        collected_days, history_days = first_cycle(settings), 1
    _prepare_read_path(settings)
    _bootstrap_trends(settings, collected_days, history_days=history_days)
    _print_welcome(settings, created, log_file)
    from reelscope.worker.consumer import start_embedded

    app_ = create_app(settings)
    embedded = start_embedded(settings)
    _settle(settings, app_)
    try:
        uvicorn.run(
            app_,
            host=settings.host,
            port=settings.port,
            # into the log file with everything else on a terminal (uvicorn's own config writes to stderr)
            log_config=None if log_file is not None else LOGGING_CONFIG,
            **uvicorn_options(settings),
        )
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
    from reelscope.config import load_settings
    from reelscope.kit.logging import configure_logging
    from reelscope.kit.migrate import upgrade_if_behind
    from reelscope.main import create_app

    settings = load_settings()
    _record_metrics_in(settings)
    configure_logging(settings.log_level, json=settings.log_json)
    _report_memory(settings)
    upgrade_if_behind(settings.effective_database_url)
    app_ = create_app(settings)
    _settle(settings, app_)
    uvicorn.run(
        app_,
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
    from reelscope.config import load_settings
    from reelscope.kit.logging import configure_logging
    from reelscope.kit.migrate import upgrade_if_behind
    from reelscope.metrics import worker_port
    from reelscope.worker.consumer import run_worker

    settings = load_settings()
    _record_metrics_in(settings)
    configure_logging(settings.log_level, json=settings.log_json)
    _report_memory(settings)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_if_behind(settings.effective_database_url)
    metrics_server = worker_port.serve(settings)
    _settle(settings)
    try:
        run_worker(settings, periodic=periodic)
    finally:
        if metrics_server is not None:
            metrics_server.shutdown()


# --- catalog ---------------------------------------------------------------------------------------


def _progress() -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description:<44}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=console)


def replays_history(settings: Settings) -> bool:
    """Whether an enabled source has a feed of every video posted (the sandbox world): only then does a
    first start fill the catalog with past days and compute their trend runs."""
    from reelscope.collectors.base import Capability
    from reelscope.collectors.registry import build_connectors
    from reelscope.kit.clock import SystemClock

    return any(Capability.WORLD_FEED in c.capabilities for c in build_connectors(settings, SystemClock()))


def first_cycle(settings: Settings) -> int | None:
    """With real sources only, on an empty catalog: one collection cycle now (every country's popular
    chart of every source that has one), so the digests have data when serve answers (issue 26 item 5).
    Returns None when the catalog had data (the periodic collection carries on from it)."""
    import time

    from reelscope.catalog import collection
    from reelscope.catalog import repository as catalog_repository
    from reelscope.catalog import service as catalog_service
    from reelscope.collectors.registry import build_sources
    from reelscope.kit.clock import SystemClock

    clock = SystemClock()
    started = time.monotonic()
    with _progress() as progress:
        stage = progress.add_task("Catalog: the first collection cycle", total=None)

        async def work(database: Database) -> collection.CollectResult | None:
            async with database.transaction(write=False) as session:
                if not await catalog_service.is_empty(session):
                    return None
                regions = await catalog_repository.country_regions(session)
            now = clock.now()
            sources = build_sources(settings, clock, database)
            found = await collection.collect(
                database, sources, clock, now - collection.refresh_window, now, regions=regions
            )
            if sources.ledger is not None:
                await sources.ledger.flush()
            return found

        result = _run_admin(settings, work)
        progress.remove_task(stage)
    if result is None:
        return None
    videos = sum(result.videos.values())
    console.print(
        f"Catalog: {videos} videos from the first collection cycle in {time.monotonic() - started:.1f}s"
    )
    for source, error in sorted(result.failures.items()):
        console.print(
            f"  {source}: {error} (see `reelscope collectors status`)", highlight=False, markup=False
        )
    return 0


def backfill_catalog(settings: Settings, *, days: int | None = None) -> int | None:
    """On the first start of an empty catalog: the newest ``days`` (default: all 14) of every enabled
    feed, so reads have data at once; returns the days collected, None when the catalog had data.

    Serve collects the newest ``first_start_days`` (3) here and leaves the older ones to the first
    start's history job (``trend.backfill``), so it answers within a minute (issue 17 item 4)."""
    import multiprocessing
    import time
    from concurrent.futures import ProcessPoolExecutor

    from reelscope.catalog import collection
    from reelscope.catalog import service as catalog_service
    from reelscope.collectors.registry import build_connectors
    from reelscope.kit.clock import SystemClock

    clock = SystemClock()
    wanted = min(days or collection.backfill_days, collection.backfill_days)

    with _progress() as progress:
        stage = progress.add_task(
            f"Catalog: the newest {wanted} of {collection.backfill_days} days", total=None
        )

        def advance(done: int, total: int) -> None:
            progress.update(stage, completed=done, total=total)

        async def work(database: Database) -> int | None:
            async with database.transaction(write=False) as session:
                if not await catalog_service.is_empty(session):
                    return None
            # generation runs in a second process, on the other core, while this one writes; spawned,
            # not forked, because this process already runs the database driver's thread
            with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
                connectors = collection.world_feeds(build_connectors(settings, clock, bulk_executor=pool))
                return await collection.backfill(database, connectors, clock, days=wanted, on_chunk=advance)

        started = time.monotonic()
        count = _run_admin(settings, work)
        if count is None:
            progress.remove_task(stage)
    if count is None:
        return None
    console.print(f"Catalog: {count} videos of the newest {wanted} days in {time.monotonic() - started:.1f}s")
    return wanted


def _bootstrap_trends(
    settings: Settings, catalog_days_collected: int | None, *, history_days: int | None = None
) -> None:
    """Trend run schedules for every region; on the first start, each region's latest run at once and
    the runs of the whole backfilled period (momentum replayed) as a background job."""
    import time

    from reelscope.catalog import collection
    from reelscope.kit.clock import SystemClock
    from reelscope.trend import tasks as trend_tasks

    clock = SystemClock()
    started = time.monotonic()
    with _progress() as progress:
        stage = progress.add_task("Trends: each region's latest run", total=None)

        def advance(*_: object) -> None:
            progress.update(stage, advance=1)

        async def work(database: Database) -> int:
            async with database.transaction(write=False) as session:
                from reelscope.trend import service as trend_service

                progress.update(stage, total=len(await trend_service.regions(session)))
            return await trend_tasks.bootstrap(
                database,
                clock.now(),
                history_days=history_days or collection.backfill_days,
                catalog_days_collected=catalog_days_collected,
                replay_momentum=True,
                on_run=advance,
            )

        stored = _run_admin(settings, work)
        if not stored:
            progress.remove_task(stage)
    if stored and history_days is not None:
        console.print(f"Trends: {stored} region runs computed in {time.monotonic() - started:.1f}s")
        typer.echo("Trends fill in as collection runs (three runs a day per region, §4.3)")
    elif stored:
        console.print(f"Trends: {stored} region runs computed in {time.monotonic() - started:.1f}s")
        older = (
            f"the older {collection.backfill_days - catalog_days_collected} catalog days and "
            if catalog_days_collected is not None and catalog_days_collected < collection.backfill_days
            else ""
        )
        # the history's pace measured by benchmarks/job_latency.py and first_start.sh (issue 33 item 5)
        typer.echo(
            f"In the background: {older}the trend runs of the last {collection.backfill_days} days, with "
            "momentum, oldest day first: /v1/trends shows each day as it lands, ten days per region "
            "within about 3 minutes and the whole history within about 5 on a 2-core machine (longer "
            "while it is busy with other work)"
        )


def _prepare_read_path(settings: Settings) -> None:
    """At start: roll hashtag stats up unless a rollup younger than 6 hours exists, and build the
    digest lists and the sounds' counts, so the read endpoints answer from precomputed results at once
    (issue 6, ADR 0038)."""
    from reelscope.digest import service as digest_service
    from reelscope.hashtag import service as hashtag_service
    from reelscope.kit.clock import SystemClock
    from reelscope.sound import service as sound_service

    clock = SystemClock()
    with _progress() as progress:
        stage = progress.add_task("Digests, hashtag and sound statistics", total=3)

        async def work(database: Database) -> None:
            await hashtag_service.rollup_if_stale(database, clock.now())
            progress.update(stage, advance=1)
            await digest_service.refresh(database, clock.now())
            progress.update(stage, advance=1)
            await sound_service.refresh(database, clock.now())
            progress.update(stage, advance=1)

        _run_admin(settings, work)

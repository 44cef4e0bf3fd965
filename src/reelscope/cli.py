"""The ``reelscope`` command (ARCHITECTURE §1).

Admin commands print for people by default; with ``--json`` the last line printed is one JSON object,
a contract other tooling relies on. Bad arguments print one line and exit with status 2, changing
nothing. Every command opens its own short transaction, so it works beside a running server and takes
effect at once.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.table import Table

from reelscope.auth import service as auth_service
from reelscope.billing import service as billing_service
from reelscope.config import Settings, load_settings
from reelscope.kit.clock import SystemClock, iso
from reelscope.kit.db import Database, create_database
from reelscope.kit.errors import ApiError
from reelscope.kit.logging import configure_logging
from reelscope.kit.migrate import upgrade_to_head
from reelscope.rate_limit.features import FEATURE_LIMITS

app = typer.Typer(
    help="Reelscope: short-form video intelligence API.", no_args_is_help=True, pretty_exceptions_enable=False
)
admin = typer.Typer(help="Operator commands: teams, keys, credits, limits.", no_args_is_help=True)
team_cli = typer.Typer(help="Teams.", no_args_is_help=True)
key_cli = typer.Typer(help="API keys.", no_args_is_help=True)
credits_cli = typer.Typer(help="Prepaid credits (1 credit = $0.01).", no_args_is_help=True)
limits_cli = typer.Typer(help="Per-team custom rate limits.", no_args_is_help=True)
app.add_typer(admin, name="admin")
admin.add_typer(team_cli, name="team")
admin.add_typer(key_cli, name="key")
admin.add_typer(credits_cli, name="credits")
admin.add_typer(limits_cli, name="limits")

console = Console()
err_console = Console(stderr=True)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON object as the last line.")]
T = TypeVar("T")


def _fail(message: str) -> NoReturn:
    err_console.print(f"error: {message}", markup=False, highlight=False)
    raise typer.Exit(code=2)


def _emit(as_json: bool, payload: dict[str, Any], human: Callable[[], None]) -> None:
    if as_json:
        typer.echo(json.dumps(payload))
    else:
        human()


def _run_admin(settings: Settings, work: Callable[[Database], Awaitable[T]]) -> T:
    """Migrate, then run ``work`` on a fresh database handle; domain errors become exit status 2."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_to_head(settings.effective_database_url)

    async def run() -> T:
        database = create_database(settings.effective_database_url)
        try:
            return await work(database)
        finally:
            await database.dispose()

    try:
        return asyncio.run(run())
    except (ApiError, ValueError) as exc:
        _fail(str(exc))


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

    from reelscope.main import create_app

    settings = load_settings()
    if host:
        settings.host = host
    if port:
        settings.port = port
    configure_logging(settings.log_level, json=settings.log_json)
    created = _bootstrap_demo(settings)
    _backfill_catalog(settings)
    _prepare_read_path(settings)
    _bootstrap_trends(settings)
    _print_welcome(settings, created)
    from reelscope.worker.consumer import start_embedded

    app_ = create_app(settings)
    embedded = start_embedded(settings)
    try:
        uvicorn.run(app_, host=settings.host, port=settings.port, log_level=settings.log_level)
    finally:
        embedded.stop()


@app.command()
def api(
    host: Annotated[str | None, typer.Option(help="Bind address (REELSCOPE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="Port (REELSCOPE_PORT).")] = None,
) -> None:
    """Run the API only (scale-out: N replicas behind a load balancer)."""
    import uvicorn

    from reelscope.main import create_app

    settings = load_settings()
    configure_logging(settings.log_level, json=settings.log_json)
    upgrade_to_head(settings.effective_database_url)
    uvicorn.run(
        create_app(settings),
        host=host or settings.host,
        port=port or settings.port,
        log_level=settings.log_level,
    )


# --- admin: teams ----------------------------------------------------------------------------------


@team_cli.command("create")
def team_create(
    name: str,
    credits: Annotated[int, typer.Option("--credits", min=0, help="Opening balance in credits.")] = 0,
    as_json: JsonFlag = False,
) -> None:
    """Create a team (with an owner user) and its opening balance."""
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            team = await auth_service.create_team(session, name, credits, clock.now())
            return {"team_id": team.id, "name": team.name, "credits_remaining": team.credits}

    result = _run_admin(load_settings(), work)
    _emit(
        as_json,
        result,
        lambda: console.print(
            f"team {result['name']} created: {result['team_id']} ({result['credits_remaining']} credits)"
        ),
    )


@team_cli.command("list")
def team_list(as_json: JsonFlag = False) -> None:
    """All teams with their balances."""

    async def work(database: Database) -> list[dict[str, Any]]:
        async with database.transaction(write=False) as session:
            return [
                {
                    "team_id": t.id,
                    "name": t.name,
                    "credits_remaining": t.credits,
                    "created_at": iso(t.created_at),
                }
                for t in await auth_service.list_teams(session)
            ]

    teams = _run_admin(load_settings(), work)

    def human() -> None:
        table = Table("team_id", "name", "credits", "created_at")
        for t in teams:
            table.add_row(t["team_id"], t["name"], str(t["credits_remaining"]), t["created_at"])
        console.print(table)

    _emit(as_json, {"teams": teams}, human)


# --- admin: keys -----------------------------------------------------------------------------------


@key_cli.command("create")
def key_create(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    read_only: Annotated[
        bool, typer.Option("--read-only", help="Only GET requests (others get 403).")
    ] = False,
    as_json: JsonFlag = False,
) -> None:
    """Issue an API key. This is the only time the key is shown."""
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            issued = await auth_service.issue_key(
                session, found, clock.now(), "read" if read_only else "full"
            )
            return {"api_key": issued.api_key, "key_id": issued.key.id, "team_id": found.id}

    result = _run_admin(load_settings(), work)

    def human() -> None:
        console.print(f"key {result['key_id']} for team {team}; shown only now:")
        console.print(result["api_key"], markup=False, highlight=False)

    _emit(as_json, result, human)


@key_cli.command("list")
def key_list(
    team: Annotated[str, typer.Option("--team", help="Team name.")], as_json: JsonFlag = False
) -> None:
    """The team's keys (prefixes only; keys are stored hashed)."""

    async def work(database: Database) -> list[dict[str, Any]]:
        async with database.transaction(write=False) as session:
            found = await auth_service.team_by_name(session, team)
            return [
                {
                    "key_id": k.id,
                    "prefix": k.display_prefix,
                    "scope": k.scope,
                    "is_active": k.is_active,
                    "created_at": iso(k.created_at),
                    "revoked_at": iso(k.revoked_at),
                }
                for k in await auth_service.list_keys(session, found)
            ]

    found_keys = _run_admin(load_settings(), work)

    def human() -> None:
        table = Table("key_id", "prefix", "scope", "active", "created_at", "revoked_at")
        for k in found_keys:
            table.add_row(
                k["key_id"],
                k["prefix"] + "…",
                k["scope"],
                str(k["is_active"]),
                k["created_at"],
                k["revoked_at"] or "",
            )
        console.print(table)

    _emit(as_json, {"keys": found_keys}, human)


@key_cli.command("revoke")
def key_revoke(key_id: str, as_json: JsonFlag = False) -> None:
    """Revoke a key; it stops working at once, also on a running server."""
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            key = await auth_service.revoke_key(session, key_id, clock.now())
            return {"key_id": key.id, "team_id": key.team_id, "revoked_at": iso(key.revoked_at)}

    result = _run_admin(load_settings(), work)
    _emit(as_json, result, lambda: console.print(f"key {result['key_id']} revoked"))


# --- admin: credits --------------------------------------------------------------------------------


@credits_cli.command("add")
def credits_add(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    credits: Annotated[int, typer.Option("--credits", min=1, help="Credits to add (1 credit = $0.01).")],
    as_json: JsonFlag = False,
) -> None:
    """Top up a team's balance (a ledger row)."""
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            remaining = await billing_service.add_credits(
                session, found.id, credits, reference="admin credits add", at=clock.now()
            )
            return {"team_id": found.id, "credits_remaining": remaining}

    result = _run_admin(load_settings(), work)
    _emit(
        as_json, result, lambda: console.print(f"team {team} now has {result['credits_remaining']} credits")
    )


@credits_cli.command("auto-topup")
def credits_auto_topup(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    below: Annotated[
        int | None,
        typer.Option("--below", min=1, help="Refill when a charge leaves fewer credits than this."),
    ] = None,
    amount: Annotated[
        int | None, typer.Option("--amount", min=1, help="Credits added by each refill.")
    ] = None,
    off: Annotated[bool, typer.Option("--off", help="Switch auto top-up off.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Auto top-up (§8.2): refill AMOUNT when the balance drops below BELOW, at most once every 5 minutes."""
    if off and (below is not None or amount is not None):
        _fail("--off takes no --below or --amount")
    if not off and (below is None or amount is None):
        _fail("give both --below and --amount, or --off")

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            await billing_service.configure_auto_top_up(session, found.id, below=below, amount=amount)
            setting = None if off else {"below_credits": below, "amount_credits": amount}
            return {"team_id": found.id, "auto_top_up": setting}

    result = _run_admin(load_settings(), work)
    _emit(
        as_json,
        result,
        lambda: console.print(
            f"auto top-up for {team}: off"
            if off
            else f"auto top-up for {team}: add {amount} credits when below {below} (at most every 5 minutes)"
        ),
    )


@credits_cli.command("verify")
def credits_verify(as_json: JsonFlag = False) -> None:
    """Check that every team's balance equals the sum of its ledger; exit status 1 if any does not."""

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction(write=False) as session:
            checked = len(await auth_service.list_teams(session))
            mismatches = await billing_service.verify_ledger(session)
        return {
            "ok": not mismatches,
            "teams_checked": checked,
            "mismatches": [
                {
                    "team_id": m.team_id,
                    "name": m.name,
                    "balance": m.balance,
                    "ledger_sum": m.ledger_sum,
                    "difference": m.balance - m.ledger_sum,
                }
                for m in mismatches
            ],
        }

    result = _run_admin(load_settings(), work)

    def human() -> None:
        if result["ok"]:
            console.print(f"all {result['teams_checked']} teams: balance equals the sum of the ledger")
            return
        table = Table("team_id", "name", "balance", "ledger sum", "difference")
        for m in result["mismatches"]:
            table.add_row(
                m["team_id"], m["name"], str(m["balance"]), str(m["ledger_sum"]), str(m["difference"])
            )
        console.print(table)

    _emit(as_json, result, human)
    if not result["ok"]:
        raise typer.Exit(code=1)


# --- admin: limits ---------------------------------------------------------------------------------


@limits_cli.command("set")
def limits_set(
    team: Annotated[str, typer.Option("--team", help="Team name.")],
    feature: Annotated[str, typer.Option("--feature", help=f"One of: {', '.join(FEATURE_LIMITS)}.")],
    per_minute: Annotated[int | None, typer.Option("--per-minute", min=1)] = None,
    per_hour: Annotated[int | None, typer.Option("--per-hour", min=1)] = None,
    per_day: Annotated[int | None, typer.Option("--per-day", min=1)] = None,
    as_json: JsonFlag = False,
) -> None:
    """Replace the table's limits for one feature group of one team (§8.1)."""
    if feature not in FEATURE_LIMITS:
        _fail(f"unknown feature {feature!r}; use one of {', '.join(FEATURE_LIMITS)}")
    if per_minute is None and per_hour is None and per_day is None:
        _fail("give at least one of --per-minute, --per-hour, --per-day")
    clock = SystemClock()

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction() as session:
            found = await auth_service.team_by_name(session, team)
            row = await auth_service.set_limits(
                session,
                found,
                feature,
                per_minute=per_minute,
                per_hour=per_hour,
                per_day=per_day,
                at=clock.now(),
            )
            return {
                "team_id": found.id,
                "feature": feature,
                "per_minute": row.per_minute,
                "per_hour": row.per_hour,
                "per_day": row.per_day,
            }

    result = _run_admin(load_settings(), work)
    _emit(as_json, result, lambda: console.print(f"limits for {team} / {feature}: {result}"))


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

INGEST_BATCH = 5_000


def _backfill_catalog(settings: Settings) -> None:
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


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="JSON lines: normalized records or yt-dlp info dicts.")],
) -> None:
    """Load records into the catalog. Bad lines are reported and skipped; exit status 1 if any failed."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from reelscope.catalog import service as catalog_service
    from reelscope.collectors.jsonl import BadLine, Record, parse_line

    if not file.is_file():
        _fail(f"no such file: {file}")
    settings = load_settings()
    clock = SystemClock()
    total_lines = sum(1 for _ in file.open("rb"))
    failures: list[tuple[int, str]] = []
    stored = catalog_service.IngestResult()

    async def work(database: Database) -> None:
        batch: list[Record] = []

        async def flush() -> None:
            if batch:
                async with database.transaction() as session:
                    stored.add(await catalog_service.ingest(session, batch, clock.now()))
                batch.clear()

        columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns, console=err_console) as progress, file.open("rb") as lines:
            task = progress.add_task("ingest", total=total_lines)
            for number, line in enumerate(lines, start=1):
                progress.advance(task)
                if not line.strip():
                    continue
                try:
                    batch.append(parse_line(line, clock.now()))
                except BadLine as exc:
                    failures.append((number, str(exc)))
                    err_console.print(f"line {number}: {exc}", markup=False, highlight=False, soft_wrap=True)
                if len(batch) >= INGEST_BATCH:
                    await flush()
            await flush()

    _run_admin(settings, work)
    summary = ", ".join(f"{count} {name}" for name, count in vars(stored).items() if count)
    console.print(f"ingested {summary or 'nothing'}; {len(failures)} bad line(s)")
    if failures:
        raise typer.Exit(code=1)

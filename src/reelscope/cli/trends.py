"""``reelscope trends``: operators compute trend runs now or over a past period (issue 17 item 3).

Both commands go through ``trend/runs.py`` (``run_planned``), the code live runs use: the same
detection, the same merge into region-local day groups, the same run records. A run stored before —
by the scheduler of a running server, or by an earlier command — is skipped, so running a command
twice changes nothing, and each run lands in its own short transaction beside a running server.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, time, timedelta
from typing import TYPE_CHECKING, Annotated, Any
from zoneinfo import ZoneInfo

import typer

from reelscope.cli.common import JsonFlag, _emit, _fail, _run_admin, app, console, err_console, quiet_logs

if TYPE_CHECKING:
    from reelscope.config import Settings
    from reelscope.kit.db import Database
    from reelscope.worker.queue import Message

trends_cli = typer.Typer(help="Trend runs: compute them now or over a past period.", no_args_is_help=True)
app.add_typer(trends_cli, name="trends")

RegionOption = Annotated[str | None, typer.Option("--region", help="A trend region code (e.g. us).")]


class _OutboxOnly:
    """The job sender of a command's sessions: a published event stays in the outbox, where the webhook
    pump of a running server (a tick task, every few seconds) finds it; without a server it waits
    there for the next start. Nothing else a trend run enqueues needs this process's queue."""

    def send(self, messages: Sequence[Message]) -> None:
        pass


def _bind_outbox(settings: Settings, database: Database) -> None:
    from reelscope.worker import registry
    from reelscope.worker.queue import SENDER_KEY

    registry.discover(settings.extra_task_modules)
    for factory in (database.read, database.write):
        factory.configure(info={SENDER_KEY: _OutboxOnly()})


def _moment(value: str, option: str) -> datetime:
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        _fail(f"{option} {value!r}: give an ISO time, e.g. 2026-11-20T13:00 (region-local) or with an offset")


def _day(value: str, option: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        _fail(f"{option} {value!r}: give a date, YYYY-MM-DD")


def _progress(total: int, quiet: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    return Progress(*columns, console=err_console, disable=quiet, transient=True)


@trends_cli.command("run")
def trends_run(
    region: Annotated[str, typer.Option("--region", help="A trend region code (e.g. us).")],
    at: Annotated[
        str | None,
        typer.Option(
            "--at",
            help="Compute the scheduled run at or before this time (ISO; without an offset it is the "
            "region's local time). Default: the latest scheduled run.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Compute one scheduled run of a region (07:00, 13:00 or 19:00 local).

    The run is merged into its region-local day group as a live run is. The latest run announces its
    §6.3 event as the scheduler's would; an earlier one does not. A run stored before is left as is."""
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock, iso
    from reelscope.trend import repository as trend_repository
    from reelscope.trend import runs as trend_runs
    from reelscope.trend import service as trend_service

    now = SystemClock().now()
    wanted = _moment(at, "--at") if at is not None else None

    settings = load_settings()

    async def work(database: Database) -> dict[str, Any]:
        _bind_outbox(settings, database)
        async with database.transaction(write=False) as session:
            found = await trend_service.region_or_400(session, region)
        zone = ZoneInfo(found.timezone)
        moment = now if wanted is None else wanted if wanted.tzinfo else wanted.replace(tzinfo=zone)
        if moment > now:
            raise ValueError(f"--at {iso(moment)} is in the future")
        slot = trend_runs.latest_scheduled(found.timezone, moment.astimezone(now.tzinfo))
        latest = trend_runs.latest_scheduled(found.timezone, now)
        with _progress(1, as_json) as progress:
            task = progress.add_task(f"trends {found.code}", total=1)
            stored = await trend_runs.run_planned(
                database,
                [(found, slot)],
                now,
                announce=lambda _region, when: when == latest,
                replay_momentum=True,
                on_run=lambda *_: progress.advance(task),
            )
        async with database.transaction(write=False) as session:
            run = await trend_repository.get_run(session, found.code, slot)
        return {
            "region": found.code,
            "scheduled_for": iso(slot),
            "local_date": slot.astimezone(zone).date().isoformat(),
            "stored": bool(stored),
            "status": run.status if run is not None else None,
            "trends": run.trends_found if run is not None else 0,
        }

    quiet_logs(settings)
    result = _run_admin(settings, work)
    _emit(
        as_json,
        result,
        lambda: console.print(
            f"{result['region']} run of {result['scheduled_for']} "
            + (f"computed: {result['trends']} trends" if result["stored"] else "was stored before; unchanged")
        ),
    )


@trends_cli.command("backfill")
def trends_backfill(
    since: Annotated[str, typer.Option("--since", help="First region-local day, YYYY-MM-DD.")],
    until: Annotated[
        str | None, typer.Option("--until", help="Last region-local day, YYYY-MM-DD (default: today).")
    ] = None,
    region: RegionOption = None,
    as_json: JsonFlag = False,
) -> None:
    """Compute every scheduled run of a period (07:00, 13:00, 19:00 local), in one region or all.

    Runs go in time order, each merged into its day group as live runs are, with momentum from the
    catalog's snapshots of that time. Runs stored before are skipped; past runs send no events."""
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock
    from reelscope.trend import runs as trend_runs
    from reelscope.trend import service as trend_service

    now = SystemClock().now()
    first = _day(since, "--since")
    last = _day(until, "--until") if until is not None else None
    if last is not None and last < first:
        _fail(f"--until {last} is before --since {first}")

    async def work(database: Database) -> dict[str, Any]:
        async with database.transaction(write=False) as session:
            regions = (
                [await trend_service.region_or_400(session, region)]
                if region is not None
                else list(await trend_service.regions(session))
            )
        planned = []
        for found in regions:
            zone = ZoneInfo(found.timezone)
            end_day = last if last is not None else now.astimezone(zone).date()
            start = datetime.combine(first, time(), zone)
            end = min(datetime.combine(end_day + timedelta(days=1), time(), zone) - timedelta(seconds=1), now)
            if start <= end:
                planned += [(found, at) for at in trend_runs.scheduled_times(found.timezone, start, end)]
        with _progress(len(planned), as_json) as progress:
            task = progress.add_task("trend runs", total=len(planned))
            stored = await trend_runs.run_planned(
                database, planned, now, replay_momentum=True, on_run=lambda *_: progress.advance(task)
            )
        return {
            "regions": [r.code for r in regions],
            "since": first.isoformat(),
            "until": last.isoformat() if last is not None else None,
            "runs": len(planned),
            "stored": stored,
            "skipped": len(planned) - stored,
        }

    settings = load_settings()
    quiet_logs(settings)
    result = _run_admin(settings, work)
    _emit(
        as_json,
        result,
        lambda: console.print(
            f"{result['runs']} scheduled runs in {', '.join(result['regions'])}: "
            f"{result['stored']} computed, {result['skipped']} stored before"
        ),
    )

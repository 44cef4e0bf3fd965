"""``reelscope collectors``: what the data sources are doing, and a check of their credentials (issue 26
item 6). ``status`` shows what ``GET /v1/account/collectors`` serves; ``check`` makes one cheap call per
source and exits 1 when any fails."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from reelscope.cli.common import JsonFlag, _emit, _run_admin, app, console, quiet_logs

collectors_cli = typer.Typer(help="Data sources: their state, quota and credentials.", no_args_is_help=True)
app.add_typer(collectors_cli, name="collectors")

if TYPE_CHECKING:
    from reelscope.kit.db import Database


def _plain(value: Any) -> Any:
    """Dataclass fields as JSON: timestamps as ISO 8601 with Z."""
    from reelscope.kit.clock import iso

    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if hasattr(value, "isoformat"):
        return iso(value)
    return value


@collectors_cli.command("status")
def collectors_status(as_json: JsonFlag = False) -> None:
    """Each enabled source: capabilities, state, quota used and left per bucket, last success and error."""
    from reelscope.collectors import status as collector_status
    from reelscope.collectors.registry import build_sources
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock, iso

    settings = load_settings()
    quiet_logs(settings)
    clock = SystemClock()

    async def work(database: Database) -> list[collector_status.SourceStatus]:
        return await collector_status.status(build_sources(settings, clock, database), clock.now())

    found = _run_admin(settings, work)

    def human() -> None:
        for source in found:
            until = f" until {iso(source.state_until)}" if source.state_until else ""
            why = f" ({source.reason})" if source.reason else ""
            console.print(f"[bold]{source.name}[/bold]: {source.state}{until}{why}", highlight=False)
            can = ", ".join(
                f"{name} ({'/'.join(platforms)})" if platforms else name
                for name, platforms in source.capabilities.items()
            )
            console.print(f"  can: {can}", highlight=False, markup=False)
            if source.buckets:
                table = Table("bucket", "limit", "used", "background", "left", "resets", "paused until")
                for b in source.buckets:
                    table.add_row(
                        b.name,
                        "-" if b.daily_limit is None else str(b.daily_limit),
                        str(b.used),
                        f"{b.used_background}/{b.background_limit}"
                        if b.background_limit is not None
                        else "-",
                        "-" if b.left is None else str(b.left),
                        iso(b.resets_at) or "-",
                        iso(b.paused_until) or "-",
                    )
                console.print(table)
            for turn in source.turns:
                console.print(
                    f"  {turn.name}: next at {iso(turn.next_at)} ({turn.runs} runs)", highlight=False
                )
            console.print(f"  last success: {iso(source.last_success_at) or 'never'}", highlight=False)
            if source.last_error_kind:
                at = iso(source.last_error_at)
                said = f"  last error: {source.last_error_kind} at {at}: {source.last_error}"
                console.print(said, highlight=False, markup=False)

    _emit(as_json, {"collectors": [_plain(asdict(s)) for s in found]}, human)


@collectors_cli.command("check")
def collectors_check(as_json: JsonFlag = False) -> None:
    """One cheap call per enabled source to validate its credentials; exit 1 if any fails."""
    from reelscope.collectors import status as collector_status
    from reelscope.collectors.registry import build_sources
    from reelscope.config import load_settings
    from reelscope.kit.clock import SystemClock

    settings = load_settings()
    quiet_logs(settings)
    clock = SystemClock()

    async def work(database: Database) -> list[collector_status.CheckResult]:
        return await collector_status.check(build_sources(settings, clock, database))

    results = _run_admin(settings, work)

    def human() -> None:
        for result in results:
            if result.ok:
                console.print(f"{result.name}: ok", highlight=False)
            else:
                console.print(
                    f"{result.name}: {result.error_kind}: {result.message}", highlight=False, markup=False
                )

    _emit(as_json, {"checks": [asdict(r) for r in results]}, human)
    if not all(r.ok for r in results):
        raise typer.Exit(code=1)

"""What every ``reelscope`` command shares: the Typer app, consoles, the --json contract, errors."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

from reelscope.config import Settings
from reelscope.kit.db import Database, create_database
from reelscope.kit.errors import ApiError
from reelscope.kit.migrate import upgrade_to_head

app = typer.Typer(
    help="Reelscope: short-form video intelligence API.", no_args_is_help=True, pretty_exceptions_enable=False
)

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


def quiet_logs(settings: Settings) -> None:
    """Warnings only, on stderr: a command's progress bar and summary are its output. (A process that
    configured logging already, a test run for one, keeps its configuration.)"""
    import structlog

    from reelscope.kit.logging import configure_logging

    if not structlog.is_configured():
        configure_logging("warning", json=settings.log_json)


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

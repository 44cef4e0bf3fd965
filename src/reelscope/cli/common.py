"""What every ``reelscope`` command shares: the Typer app, consoles, the --json contract, errors.

The command's import path stays light (issue 30 item 5): this package imports only Typer, Rich and the
standard library when it loads, so ``reelscope --help`` and each command start at once; a command
imports what it works with (settings, the database, a family's service) inside its function.
``tests/test_cli_startup.py`` checks that ``--help`` loads none of the heavy modules.
"""

from __future__ import annotations

import asyncio
import json
import shlex
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console

if TYPE_CHECKING:
    from reelscope.config import Settings
    from reelscope.kit.db import Database

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
    from reelscope.kit.db import create_database
    from reelscope.kit.errors import ApiError
    from reelscope.kit.migrate import upgrade_if_behind

    settings.data_dir.mkdir(parents=True, exist_ok=True)
    upgrade_if_behind(settings.effective_database_url)

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


def command_line(settings: Settings, *args: str) -> str:
    """A ``reelscope`` command line that works as printed, from any directory (issue 30 item 5): this
    installation's own executable, and the data dir this process uses (absolute). With a database URL
    set, the command relies on the same ``REELSCOPE_DATABASE_URL`` (it may hold a password: never
    printed)."""
    executable = Path(sys.executable)
    script = executable.parent / "reelscope"
    program = [str(script)] if script.exists() else [str(executable), "-m", "reelscope"]
    line = " ".join(shlex.quote(word) for word in [*program, *args])
    if settings.database_url:
        return line
    return f"REELSCOPE_DATA_DIR={shlex.quote(str(settings.data_dir.resolve()))} {line}"

"""``reelscope ingest``: records into the catalog."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from reelscope.cli.common import _fail, _run_admin, app, console, err_console
from reelscope.config import load_settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.db import Database

INGEST_BATCH = 5_000


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

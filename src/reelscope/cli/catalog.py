"""``reelscope ingest``: records into the catalog, as the source says them (issue 17, ADR 0026)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from reelscope.cli.common import JsonFlag, _emit, _fail, _run_admin, app, console, err_console, quiet_logs

INGEST_BATCH = 5_000
# rejected lines listed in the --json summary (all are counted)
REJECTIONS_LISTED = 1_000

if TYPE_CHECKING:
    from reelscope.kit.db import Database


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(help="JSON lines: normalized records or yt-dlp info dicts.")],
    region: Annotated[
        str | None,
        typer.Option(
            "--region",
            help="The country whose feed the file is (two letters, e.g. us); records naming their own "
            "region keep it. Trend runs of that region read these videos.",
        ),
    ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Load records into the catalog at their own observation times.

    The observation time is yt-dlp's ``epoch`` or a record's ``fetched_at``. Invalid lines are
    reported with their number and reason and skipped, the rest is ingested; exit status 1 if any line
    was rejected."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from reelscope.catalog import service as catalog_service
    from reelscope.collectors.checks import FEED_REGION
    from reelscope.collectors.jsonl import BadLine, Record, parse_line
    from reelscope.config import load_settings
    from reelscope.hashtag import service as hashtag_service
    from reelscope.kit.clock import SystemClock
    from reelscope.trend import service as trend_service

    if not file.is_file():
        _fail(f"no such file: {file}")
    feed_region = region.strip().lower() if region is not None else None
    if feed_region is not None and not FEED_REGION.fullmatch(feed_region):
        _fail(f"--region {region!r}: give a country's two-letter code, e.g. us")
    settings = load_settings()
    quiet_logs(settings)
    clock = SystemClock()
    total_lines = sum(1 for _ in file.open("rb"))
    rejected: list[tuple[int, str]] = []
    stored = catalog_service.IngestResult()
    warnings: list[str] = []
    refreshed: list[bool] = []

    async def work(database: Database) -> None:
        if feed_region is not None:
            async with database.transaction(write=False) as session:
                countries = {r.code for r in await trend_service.regions(session) if r.is_country}
            if feed_region not in countries:
                warnings.append(
                    f"{feed_region} is not a trend region ({', '.join(sorted(countries))}): "
                    "its videos count in global trends only"
                )
        batch: list[Record] = []

        async def flush() -> None:
            if batch:
                async with database.transaction() as session:
                    stored.add(await catalog_service.ingest(session, batch, clock.now()))
                batch.clear()

        columns = (TextColumn("ingest"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with (
            Progress(*columns, console=err_console, disable=as_json, transient=True) as progress,
            file.open("rb") as lines,
        ):
            task = progress.add_task("ingest", total=total_lines)
            for number, line in enumerate(lines, start=1):
                progress.advance(task)
                if not line.strip():
                    continue
                try:
                    batch.append(parse_line(line, clock.now(), region=feed_region))
                except BadLine as exc:
                    rejected.append((number, str(exc)))
                    if not as_json:
                        progress.console.print(
                            f"line {number}: {exc}", markup=False, highlight=False, soft_wrap=True
                        )
                if len(batch) >= INGEST_BATCH:
                    await flush()
            await flush()
        if stored.video_keys:
            # hashtag statistics count these videos now, not at the next 6-hourly rollup (§2.3, issue
            # 31): the rollup rebuilds the posting days the ingest marked as written (ADR 0016)
            await hashtag_service.rollup(database, clock.now())
            refreshed.append(True)

    _run_admin(settings, work)
    new = len(stored.new_video_keys)
    result: dict[str, Any] = {
        "file": str(file),
        "region": feed_region,
        "videos": len(stored.video_keys),
        "new_videos": new,
        "updated_videos": len(stored.video_keys) - new,
        "snapshots": stored.snapshots,
        **{name: getattr(stored, name) for name in catalog_service.COUNTED if name != "videos"},
        "rejected_lines": len(rejected),
        "rejections": [{"line": n, "reason": reason} for n, reason in rejected[:REJECTIONS_LISTED]],
        "warnings": warnings,
        "hashtag_statistics_refreshed": bool(refreshed),
    }

    def human() -> None:
        for warning in warnings:
            err_console.print(f"warning: {warning}", markup=False, highlight=False)
        others = ", ".join(
            f"{result[name]} {name}" for name in catalog_service.COUNTED if name != "videos" and result[name]
        )
        console.print(
            f"ingested {result['videos']} videos ({new} new, {result['updated_videos']} updated), "
            f"{result['snapshots']} snapshots{', ' + others if others else ''}; "
            f"{len(rejected)} line(s) rejected"
        )
        if refreshed:
            console.print("hashtag statistics refreshed: the videos count in /v1/hashtags now")

    _emit(as_json, result, human)
    if rejected:
        raise typer.Exit(code=1)

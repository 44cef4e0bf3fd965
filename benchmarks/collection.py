"""The collection planner and capability routing on a real source (issue 26, "Aims"), against an in-process
fake of the YouTube Data API served over HTTP on 127.0.0.1 (tests/collectors/youtube/fake.py through
tests/fixtures/http.py) and reached through ``REELSCOPE_YOUTUBE_BASE_URL``: the sources are
``build_sources(Settings)``, the database has the schema of ``kit.migrate.upgrade_to_head`` and a fourth
country region (``de``) beside us, gb and au. On SQLite (a temp file) and PostgreSQL (throwaway databases
``collbench_collection`` copied from ``collbench_collection_template``, both dropped after).

The fake's world: each region's mostPopular chart has 200 entries, posted 2 to 12 hours before now and
moving on by 20 entries an hour; one in four passes the Shorts rule (§8 rule 3; an assumption: the chart
is mostly music, gaming and long videos), the others are long, 3-4 minute music videos or a live stream.
Every chart video is also a search result. 500 channels.

1. cycle: one collection cycle (``collection.collect`` for the 4 regions, then ``refresh_recent_stats``)
   on an empty catalog, as the periodic tasks run it; aim < 10 s. Baseline in the same run: the same HTTP
   requests sent again to the fake with bare httpx, one after another. Then the ledger's rows: the
   background must stay inside its share. Repeated on fresh databases.
2. day: 24 simulated hours on the manual clock: every 5 minutes the collection task's body (sources built
   anew each time, as ``catalog.tasks.collect`` does), every 30 minutes the stats refresh, and on-demand
   work beside it (a video lookup every 15 minutes and an agent's keyword search every hour). After every
   step the ledger's rows: used never passes the daily quota, used_background never its share. Units are
   attributed to feeds, refresh and on-demand by the requests the fake received in each. With the default
   quotas (10,000 units, 100 searches, share 0.6; on SQLite only unless ``--full-days``: the figures do
   not depend on the database), and ``tight`` (400 units, on both) where the share and the quota bind.
3. outage: ``youtube`` against a fake that answers 503 (``503``) or holds every request past
   ``collector_timeout_seconds`` (``hang``, the timeout set to 2 s) for a simulated hour, while ``ytdlp``
   (the real connector with a fake fetch in place of its child process: ``Ytdlp(run=...)``) offers the
   same capabilities; the two are put together as ``Sources([youtube, ytdlp], ledger)`` with the youtube
   connector from ``build_sources``. 200 on-demand calls, one every 18 s (alternately a video by id and a
   creator's posts), one at a time and, for ``hang``, also in bursts of 4 at once: requests that reached
   the failing source (and when), the longest call, and that every call was answered by ytdlp.

The machine is shared with other work (2 cores): wall times are noisy.
Writes benchmarks/results/collection.json and .md.
Run: .venv/bin/python benchmarks/collection.py [--repeat 3] [--no-pg] [--full-days]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from meta import machine
from tests.collectors.youtube import payloads
from tests.collectors.youtube.fake import KEY, FakeYouTube
from tests.fixtures.http import serving

from reelscope import models  # noqa: F401
from reelscope.catalog import collection
from reelscope.catalog import repository as catalog_repository
from reelscope.collectors.base import ConnectorError, RateLimited
from reelscope.collectors.ledger import Ledger
from reelscope.collectors.registry import build_sources
from reelscope.collectors.routing import Sources
from reelscope.collectors.youtube import mapper
from reelscope.collectors.ytdlp.client import Ytdlp
from reelscope.collectors.ytdlp.connector import YtdlpConnector
from reelscope.config import Settings
from reelscope.kit.clock import ManualClock, as_utc
from reelscope.kit.db import Database, create_database
from reelscope.kit.logging import configure_logging
from reelscope.kit.migrate import upgrade_to_head
from reelscope.kit.platforms import Platform
from reelscope.models import TrendRegion

RESULTS = Path(__file__).resolve().parent / "results"
PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
PG_NAME = "collbench_collection"
PG_TEMPLATE = "collbench_collection_template"
START = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)
REGIONS = ("us", "gb", "au", "de")
CHART = 200  # mostPopular has about 200 entries per region (connectors reference §1.2)
CHART_MOVES = timedelta(minutes=3)  # one entry leaves the chart and a new one enters this often
POOL = CHART + 24 * 20 + 40  # enough entries for a day of moving on
CHANNELS = 500
# one chart entry in four passes the Shorts rule (≤ 180 s); the rest: long videos, music videos just
# over 3 minutes, a live stream
SHORT = ("PT15S", "PT34S", "PT45S", "PT58S", "PT1M30S")
LONG = ("PT3M21S", "PT3M48S", "PT4M2S", "PT8M15S", "PT10M3S", "PT12M", "PT14M40S", "PT18M", "PT22M5S")
DURATIONS = (*SHORT, *LONG, "PT31M", "PT45M", "PT1H12M", "PT2H1M", "PT3M1S", "P0D")
HANG_TIMEOUT = 2.0  # collector_timeout_seconds in the outage's hang variant
TIGHT_UNITS = 400  # the tight day's units a day: feeds alone would want more than its share


# --- the fake world ------------------------------------------------------------------------------


def entry_id(region: str, n: int) -> str:
    return f"{region}{n:09d}"


def posted(n: int) -> datetime:
    """Entry n enters the chart 2 hours after it is posted and leaves it 10 hours later."""
    return START + (n - CHART) * CHART_MOVES - timedelta(hours=2)


def world() -> FakeYouTube:
    """Every region's pool of chart entries, their channels, and every entry as a search result."""
    fake = FakeYouTube()
    channel_ids = [f"UC{n:022d}" for n in range(CHANNELS)]
    for n, channel_id in enumerate(channel_ids):
        fake.add_channels(payloads.channel(channel_id, f"maker{n:03d}", uploads="UU" + channel_id[2:]))
    for r, region in enumerate(REGIONS):
        for n in range(POOL):
            duration = DURATIONS[n % len(DURATIONS)]
            item = payloads.video(
                entry_id(region, n),
                published=posted(n).strftime("%Y-%m-%dT%H:%M:%SZ"),
                duration=duration,
                views=str(5_000_000 // (1 + (n * 7) % 200)),
                channel=channel_ids[(n * 7 + r * 131) % CHANNELS],
                title=f"{region} chart {n} #{region}trend",
                live="live" if duration == "P0D" else "none",
            )
            fake.add_videos(item)
            fake.playlists.setdefault("UU" + item["snippet"]["channelId"][2:], []).append(item["id"])
        fake.search_results.extend(entry_id(region, n) for n in range(0, POOL, 2))
    return fake


def show_charts(fake: FakeYouTube, now: datetime) -> None:
    """The charts as they stand at ``now``: 200 entries each, the most viewed first."""
    first = max(0, int((now - START) / CHART_MOVES))
    for region in REGIONS:
        ids = [entry_id(region, n) for n in range(first, first + CHART)]
        fake.charts[region.upper()] = sorted(
            ids, key=lambda i: -int(fake.videos[i]["statistics"]["viewCount"])
        )


def units_of(requests: Sequence[httpx.Request]) -> Counter[str]:
    """What the requests cost by resource (every resource 1 unit, search 1 search call; §1.4)."""
    kinds: Counter[str] = Counter()
    for request in requests:
        resource = request.url.path.rsplit("/", 1)[-1]
        if resource == "videos" and request.url.params.get("chart"):
            resource = "videos(chart)"
        kinds[resource] += 1
    return kinds


# --- databases -----------------------------------------------------------------------------------


@asynccontextmanager
async def admin() -> AsyncIterator[asyncpg.Connection]:
    connection = await asyncpg.connect(PG_ADMIN)
    try:
        yield connection
    finally:
        await connection.close()


class Databases:
    """Empty databases with the schema (Alembic head) and a fourth country region, ``de``: the schema is
    built once per backend into a template (a file; a PostgreSQL template database) that each run copies."""

    def __init__(self, backend: str, scratch: Path) -> None:
        self.backend, self.scratch = backend, scratch
        self.template = scratch / "template.db" if backend == "sqlite" else None

    async def __aenter__(self) -> Databases:
        if self.backend == "sqlite":
            url = f"sqlite+aiosqlite:///{self.template}"
        else:
            async with admin() as connection:
                for name in (PG_NAME, PG_TEMPLATE):
                    await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                await connection.execute(f'CREATE DATABASE "{PG_TEMPLATE}"')
            url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{PG_TEMPLATE}"
        await asyncio.to_thread(upgrade_to_head, url)
        db = create_database(url)
        try:
            async with db.transaction() as session:
                session.add(TrendRegion(code="de", name="Germany", timezone="Europe/Berlin", position=4))
        finally:
            await db.dispose()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.backend == "postgresql":
            async with admin() as connection:
                for name in (PG_NAME, PG_TEMPLATE):
                    await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    @asynccontextmanager
    async def fresh(self) -> AsyncIterator[tuple[str, Database]]:
        if self.template is not None:
            path = self.scratch / "run.db"
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            shutil.copyfile(self.template, path)
            url = f"sqlite+aiosqlite:///{path}"
        else:
            async with admin() as connection:
                await connection.execute(f'DROP DATABASE IF EXISTS "{PG_NAME}" WITH (FORCE)')
                await connection.execute(f'CREATE DATABASE "{PG_NAME}" TEMPLATE "{PG_TEMPLATE}"')
            url = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{PG_NAME}"
        db = create_database(url)
        try:
            yield url, db
        finally:
            await db.dispose()


def settings_for(url: str, base: str, scratch: Path, **changes: Any) -> Settings:
    return Settings(
        data_dir=scratch / "data",
        database_url=url,
        connectors="youtube",
        youtube_api_key=SecretStr(KEY),
        youtube_base_url=f"{base}/youtube/v3",
        **changes,
    )


async def quota(ledger: Ledger) -> dict[str, Any]:
    """The youtube buckets' rows: used, used_background and the window's end, by bucket name."""
    await ledger.flush()
    buckets, _sources = await ledger.rows()
    return {
        b.bucket: {
            "used": b.used,
            "used_background": b.used_background,
            "window_ends_at": as_utc(b.window_ends_at).isoformat() if b.window_ends_at else None,
        }
        for b in buckets
        if b.source == "youtube" and b.bucket in ("units", "search")
    }


async def country_regions(db: Database) -> list[str]:
    async with db.transaction(write=False) as session:
        return await catalog_repository.country_regions(session)


# --- 1. one cycle ----------------------------------------------------------------------------------


async def one_cycle(databases: Databases, fake: FakeYouTube, base: str, scratch: Path) -> dict[str, Any]:
    clock = ManualClock(START)
    show_charts(fake, clock.now())
    async with databases.fresh() as (url, db):
        settings = settings_for(url, base, scratch)
        regions = await country_regions(db)
        assert regions == list(REGIONS), regions
        before = len(fake.requests)
        started = time.perf_counter()
        sources = build_sources(settings, clock, db)
        now = clock.now()
        result = await collection.collect(db, sources, clock, now - timedelta(hours=1), now, regions=regions)
        collected = time.perf_counter()
        refresh = await collection.refresh_recent_stats(db, sources, clock)
        assert sources.ledger is not None
        await sources.ledger.flush()
        done = time.perf_counter()
        requests = fake.requests[before:]
        rows = await quota(sources.ledger)
        async with httpx.AsyncClient() as http:  # the baseline: the same requests, bare
            bare_started = time.perf_counter()
            for request in requests:
                (await http.get(request.url)).raise_for_status()
            bare = time.perf_counter() - bare_started
    limit = settings.youtube_units_daily_limit
    share = int(limit * settings.youtube_background_share)
    return {
        "seconds": round(done - started, 3),
        "collect_seconds": round(collected - started, 3),
        "refresh_seconds": round(done - collected, 3),
        "baseline_bare_http_seconds": round(bare, 3),
        "requests": len(requests),
        "units_by_resource": dict(units_of(requests)),
        "videos_stored": result.videos,
        "failures": result.failures,
        "refreshed": refresh.refreshed,
        "deferred": refresh.deferred,
        "ledger": rows,
        "units_background_limit": share,
        "inside_share": rows["units"]["used_background"] <= share,
        "aim_under_10s": done - started < 10,
    }


# --- 2. a day of cycles ----------------------------------------------------------------------------


async def a_day(
    databases: Databases, fake: FakeYouTube, base: str, scratch: Path, **quotas: Any
) -> dict[str, Any]:
    clock = ManualClock(START)
    async with databases.fresh() as (url, db):
        settings = settings_for(url, base, scratch, **quotas)
        units_limit = settings.youtube_units_daily_limit
        search_limit = settings.youtube_search_daily_limit
        share = int(units_limit * settings.youtube_background_share)
        search_share = int(search_limit * settings.youtube_background_share)
        spent: dict[str, Counter[str]] = {"feeds": Counter(), "refresh": Counter(), "on_demand": Counter()}
        peak: dict[str, dict[str, int]] = {}  # window end → the most used and used_background seen
        over: list[str] = []
        refused = Counter[str]()
        seconds: Counter[str] = Counter()
        chart_pages = [0] * 24  # chart pages pulled in each simulated hour
        refreshed = deferred = lookups = searches = 0
        ondemand = build_sources(settings, clock, db)  # the API's and workers' sources: one per process
        assert ondemand.ledger is not None
        ledger: Ledger = ondemand.ledger

        async def step(kind: str, work: Awaitable[Any]) -> Any:
            before = len(fake.requests)
            began = time.perf_counter()
            try:
                done = await work
            except RateLimited:
                refused[kind] += 1
                done = None
            else:
                failures = done.failures.values() if isinstance(done, collection.CollectResult) else ()
                refused[kind] += RateLimited.__name__ in failures
            finally:
                seconds[kind] += time.perf_counter() - began
                spent[kind].update(units_of(fake.requests[before:]))
                for name, row in (await quota(ledger)).items():
                    key = f"{name} until {row['window_ends_at']}"
                    seen = peak.setdefault(key, {"used": 0, "used_background": 0})
                    seen["used"] = max(seen["used"], row["used"])
                    seen["used_background"] = max(seen["used_background"], row["used_background"])
                    limit, bg_limit = (
                        (units_limit, share) if name == "units" else (search_limit, search_share)
                    )
                    if row["used"] > limit or row["used_background"] > bg_limit:
                        over.append(f"{clock.now().isoformat()} {name} {row}")
            return done

        started = time.perf_counter()
        for tick in range(24 * 12):
            clock.set(START + tick * timedelta(minutes=5))
            now = clock.now()
            show_charts(fake, now)
            regions = await country_regions(db)
            sources = build_sources(settings, clock, db)  # as catalog.tasks.collect: anew each run
            since = now - timedelta(hours=1)
            pages = spent["feeds"]["videos(chart)"]
            await step("feeds", collection.collect(db, sources, clock, since, now, regions=regions))
            chart_pages[tick // 12] += spent["feeds"]["videos(chart)"] - pages
            if tick % 6 == 0:
                sources = build_sources(settings, clock, db)
                refresh = await step("refresh", collection.refresh_recent_stats(db, sources, clock))
                if refresh is not None:
                    refreshed += refresh.refreshed
                    deferred += refresh.deferred
            # on demand: every 15 minutes a lookup of a video on the chart, every hour an agent's search
            if tick % 3 == 1:
                shorts = [i for i in fake.charts["US"] if mapper.is_short(fake.videos[i])]
                video = shorts[tick % len(shorts)]
                found = await step("on_demand", ondemand.video(Platform.YOUTUBE, video))
                lookups += found is not None
            if tick % 12 == 4:
                day = now - timedelta(days=1)
                search = ondemand.search_videos(Platform.YOUTUBE, f"chart {tick}", day, now, limit=100)
                hits = await step("on_demand", search)
                searches += hits is not None
        wall = time.perf_counter() - started
    units = {kind: sum(v for k, v in used.items() if k != "search") for kind, used in spent.items()}
    return {
        "quotas": {"units": units_limit, "search": search_limit, "background_share": share / units_limit},
        "units_background_limit": share,
        "search_background_limit": search_share,
        "wall_seconds": round(wall, 1),
        "seconds_by_kind": {kind: round(s, 1) for kind, s in seconds.items()},
        "units_spent": units,
        "search_calls": {kind: used["search"] for kind, used in spent.items()},
        "by_resource": {kind: dict(used) for kind, used in spent.items()},
        "peak_per_window": peak,
        "background_share_used": {
            k: round(v["used_background"] / (share if k.startswith("units") else search_share), 3)
            for k, v in peak.items()
            if (share if k.startswith("units") else search_share)
        },
        "moments_over_a_limit": over,
        # calls refused by the ledger: collection cycles whose chart pull was refused (the rest of that
        # cycle is skipped) and on-demand calls; refreshes defer instead (stats_deferred)
        "refused_rate_limited": {kind: n for kind, n in refused.items() if n},
        "chart_pages_per_hour": chart_pages,
        "stats_refreshed": refreshed,
        "stats_deferred": deferred,
        "on_demand_lookups_answered": lookups,
        "on_demand_searches_answered": searches,
    }


# --- 3. an outage ----------------------------------------------------------------------------------


class Failing:
    """The YouTube API answering 503 at once, or only after ``hold`` seconds (past the client's
    timeout); every request is kept with the manual clock's time it arrived at."""

    def __init__(self, clock: ManualClock, hold: float | None) -> None:
        self.clock, self.hold = clock, hold
        self.arrivals: list[datetime] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.arrivals.append(self.clock.now())
        if self.hold is not None:
            time.sleep(self.hold)
        return httpx.Response(503, json=payloads.error(503, "backendError"))


class FakeFetch:
    """yt-dlp's child process, answering at once: a Short for a video page, five for a Shorts tab."""

    def __init__(self) -> None:
        self.runs = 0

    async def __call__(self, argv: Sequence[str]) -> dict[str, Any]:
        self.runs += 1
        target = argv[0]
        if "/@" in target:
            entries = [
                {"id": f"tab{n:08d}", "url": f"https://www.youtube.com/shorts/tab{n:08d}"} for n in range(5)
            ]
            return {"info": {"id": "tab", "entries": entries}}
        video_id = target.rstrip("/").rsplit("/", 1)[-1]
        return {
            "info": {
                "id": video_id,
                "title": "A short #shorts",
                "channel": "Crumb Lab",
                "channel_id": "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
                "uploader_id": "@crumblab",
                "duration": 41,
                "view_count": 88412,
                "like_count": 3920,
                "comment_count": 57,
                "timestamp": int((START - timedelta(days=1)).timestamp()),
                "media_type": "short",
                "live_status": "not_live",
                "webpage_url": f"https://www.youtube.com/watch?v={video_id}",
                "extractor": "youtube",
                "extractor_key": "Youtube",
            }
        }


async def outage(databases: Databases, scratch: Path, variant: str, burst: int) -> dict[str, Any]:
    clock = ManualClock(START)
    hold = HANG_TIMEOUT + 1.5 if variant == "hang" else None
    failing = Failing(clock, hold)
    fetch = FakeFetch()
    calls, total, every = [], 200, timedelta(seconds=18)
    with serving(failing) as base:
        async with databases.fresh() as (url, db):
            settings = settings_for(url, base, scratch, collector_timeout_seconds=HANG_TIMEOUT)
            built = build_sources(settings, clock, db)
            (youtube,) = built.connectors
            ledger = built.ledger
            ytdlp = YtdlpConnector(Ytdlp(clock=clock, ledger=ledger, seconds=60, run=fetch), clock)
            sources = Sources([youtube, ytdlp], ledger)

            async def one(n: int) -> tuple[float, bool, bool]:
                asked = len(failing.arrivals)
                began = time.perf_counter()
                try:
                    if n % 2:
                        answer: Any = await sources.creator_posts(Platform.YOUTUBE, f"maker{n:03d}", limit=5)
                    else:
                        answer = await sources.video(Platform.YOUTUBE, f"vid{n:08d}")
                    served = bool(answer)
                except ConnectorError:
                    served = False
                return time.perf_counter() - began, served, len(failing.arrivals) > asked

            started = time.perf_counter()
            for first in range(0, total, burst):
                clock.set(START + first * every)
                calls.extend(await asyncio.gather(*(one(n) for n in range(first, first + burst))))
            wall = time.perf_counter() - started
            assert ledger is not None
            await ledger.flush()
            _buckets, health = await ledger.rows()
    youtube_row = next(r for r in health if r.source == "youtube")
    seconds = [s for s, _, _ in calls]
    # the calls during which youtube was asked (with bursts: any call of such a burst) and the others
    asking = [s for s, _, asked in calls if asked] or [0.0]
    skipping = [s for s, _, asked in calls if not asked] or [0.0]
    minutes = [round((at - START).total_seconds() / 60, 1) for at in failing.arrivals]
    return {
        "variant": variant,
        "burst": burst,
        "calls": len(calls),
        "served": sum(ok for _, ok, _ in calls),
        "requests_to_failing_source": len(failing.arrivals),
        "failing_requests_at_minute": minutes,
        "youtube_failures_recorded": youtube_row.failures,
        "ytdlp_fetches": fetch.runs,
        "max_call_seconds": round(max(seconds), 3),
        "max_call_seconds_youtube_asked": round(max(asking), 3),
        "max_call_seconds_youtube_skipped": round(max(skipping), 3),
        "p50_call_seconds": round(statistics.median(seconds), 4),
        "timeout_seconds": HANG_TIMEOUT,
        "no_call_over_one_timeout": max(seconds) < HANG_TIMEOUT + 1.0,
        "wall_seconds": round(wall, 1),
    }


# --- the run ---------------------------------------------------------------------------------------


async def run(backends: Sequence[str], repeat: int, full_days: bool) -> dict[str, Any]:
    results: dict[str, Any] = {
        "machine": machine() | {"shared": "2 cores shared with other work: wall times are noisy"},
        "world": {
            "regions": list(REGIONS),
            "chart_entries": CHART,
            "shorts_share": sum(
                mapper.within_shorts_length(START, mapper.duration_seconds(d)) for d in DURATIONS
            )
            / len(DURATIONS),
            "channels": CHANNELS,
        },
    }
    with tempfile.TemporaryDirectory() as tmp, serving(world_fake := world()) as base:
        scratch = Path(tmp)
        for backend in backends:
            out: dict[str, Any] = {}
            async with Databases(backend, scratch) as databases:
                cycles = [await one_cycle(databases, world_fake, base, scratch) for _ in range(repeat)]
                out["cycle"] = {
                    "runs": cycles,
                    "median_seconds": statistics.median(c["seconds"] for c in cycles),
                    "median_baseline_bare_http_seconds": statistics.median(
                        c["baseline_bare_http_seconds"] for c in cycles
                    ),
                }
                print(f"{backend} cycle: {[c['seconds'] for c in cycles]} s", flush=True)
                if backend == "sqlite" or full_days:
                    out["day"] = await a_day(databases, world_fake, base, scratch)
                    print(f"{backend} day: {out['day']['units_spent']} {out['day']['wall_seconds']} s")
                out["day_tight"] = await a_day(
                    databases, world_fake, base, scratch, youtube_units_daily_limit=TIGHT_UNITS
                )
                print(f"{backend} tight day: {out['day_tight']['units_spent']}", flush=True)
                out["outage"] = [
                    await outage(databases, scratch, "503", 1),
                    await outage(databases, scratch, "hang", 1),
                    await outage(databases, scratch, "hang", 4),
                ]
            for o in out["outage"]:
                print(
                    f"{backend} outage {o['variant']}x{o['burst']}: {o['requests_to_failing_source']} "
                    f"requests, max {o['max_call_seconds']} s",
                    flush=True,
                )
            results[backend] = out
    return results


def aims(results: dict[str, Any], backends: Sequence[str]) -> list[str]:
    """Issue 26's aims, each met or not, from the figures."""
    cycles = {b: results[b]["cycle"]["median_seconds"] for b in backends}
    days = [results[b][k] for b in backends for k in ("day", "day_tight") if k in results[b]]
    inside = all(
        not d["moments_over_a_limit"] and all(v <= 1 for v in d["background_share_used"].values())
        for d in days
    )
    outages = [o for b in backends for o in results[b]["outage"]]
    over = max(o["max_call_seconds_youtube_asked"] - o["timeout_seconds"] for o in outages)
    return [
        f"- one cycle for 4 regions < 10 s: {all(s < 10 for s in cycles.values())} (median "
        + ", ".join(f"{b} {s:.2f} s" for b, s in cycles.items())
        + "), inside the background share: "
        + str(all(r["inside_share"] for b in backends for r in results[b]["cycle"]["runs"])),
        f"- a day of cycles never passes the daily quota nor the background share: {inside} "
        f"({len(days)} simulated days, the ledger read after every step)",
        f"- a failing source costs no call more than its timeout: longest call that asked it "
        f"{over:+.2f} s beyond the timeout (the fallback's own time; noisy machine); every call served by "
        f"the other source: {all(o['served'] == o['calls'] for o in outages)}; requests that reached the "
        f"failing source in the hour: {sorted({o['requests_to_failing_source'] for o in outages})} "
        "(youtube's breaker: 5 failures, then one trial after 2, 4, 8, 16 and 30 minutes)",
    ]


def write_markdown(results: dict[str, Any], backends: Sequence[str]) -> str:
    m = results["machine"]
    lines = [
        "# collection (issue 26 aims)",
        "",
        f"Commit {m['commit']}, {m['platform']}, {m['cpus']} CPUs, load {m['load_average_1m']} at "
        f"{m['measured_at']}. The machine is shared with other work: wall times are noisy.",
        "",
        "## Aims",
        "",
        *aims(results, backends),
        "",
        "## 1. One collection cycle, 4 regions × 200 chart entries (aim < 10 s, inside the share)",
        "",
        "| database | cycle s (runs) | collect / refresh s | bare HTTP of the same requests s | requests "
        "| units used (background) / share | inside share |",
        "|---|---|---|---|---|---|---|",
    ]
    for b in backends:
        c = results[b]["cycle"]
        first = c["runs"][0]
        runs = ", ".join(f"{r['seconds']:.2f}" for r in c["runs"])
        lines.append(
            f"| {b} | {c['median_seconds']:.2f} ({runs}) | {first['collect_seconds']:.2f} / "
            f"{first['refresh_seconds']:.2f} | {c['median_baseline_bare_http_seconds']:.2f} | "
            f"{first['requests']} {first['units_by_resource']} | {first['ledger']['units']['used']} "
            f"({first['ledger']['units']['used_background']}) / {first['units_background_limit']} | "
            f"{all(r['inside_share'] for r in c['runs'])} |"
        )
    lines += [
        "",
        "## 2. A simulated day (collect every 5 min, stats refresh every 30 min, on-demand beside)",
        "",
        "| database | quota | units: feeds / refresh / on-demand | searches (bg / on-demand) | peak used "
        "(background) per window | moments over a limit | refused | refreshed (deferred) | wall s |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for b in backends:
        for key in ("day", "day_tight"):
            if key not in results[b]:
                continue
            d = results[b][key]
            u = d["units_spent"]
            peaks = "; ".join(
                f"{k.split(' until ')[0]}→{k.split(' until ')[1][5:16]}: {v['used']} ({v['used_background']})"
                for k, v in d["peak_per_window"].items()
            )
            searches = d["search_calls"]
            lines.append(
                f"| {b} | {d['quotas']['units']} units, share {d['units_background_limit']} | "
                f"{u['feeds']} / {u['refresh']} / {u['on_demand']} | "
                f"{searches['feeds'] + searches['refresh']} / {searches['on_demand']} | {peaks} | "
                f"{len(d['moments_over_a_limit'])} | {d['refused_rate_limited']} | "
                f"{d['stats_refreshed']} ({d['stats_deferred']}) | {d['wall_seconds']} |"
            )
    lines.append("")
    for b in backends:
        for key in ("day", "day_tight"):
            if key in results[b]:
                d = results[b][key]
                lines.append(
                    f"Chart pages pulled per simulated hour from 12:00 UTC, {b}, {d['quotas']['units']} "
                    f"units (the quota resets at 08:00 UTC, hour 20): {d['chart_pages_per_hour']}  "
                )
    lines += [
        "",
        "## 3. youtube failing for a simulated hour, ytdlp serving (200 on-demand calls, 18 s apart)",
        "",
        "| database | youtube answers | calls at once | served by ytdlp | requests to youtube (at minute) "
        "| longest call s: youtube asked / skipped (timeout) | median call s |",
        "|---|---|---|---|---|---|---|",
    ]
    for b in backends:
        for o in results[b]["outage"]:
            what = (
                "503 at once"
                if o["variant"] == "503"
                else f"nothing before the {o['timeout_seconds']:g} s timeout"
            )
            lines.append(
                f"| {b} | {what} | {o['burst']} | {o['served']}/{o['calls']} | "
                f"{o['requests_to_failing_source']} ({', '.join(map(str, o['failing_requests_at_minute']))})"
                " | "
                f"{o['max_call_seconds_youtube_asked']} / {o['max_call_seconds_youtube_skipped']} "
                f"({o['timeout_seconds']:g}) | {o['p50_call_seconds']} |"
            )
    lines.append("")
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=3, help="collection cycles, each on a fresh database")
    parser.add_argument("--no-pg", action="store_true", help="SQLite only")
    parser.add_argument(
        "--full-days", action="store_true", help="the day with the default quotas on PostgreSQL too"
    )
    args = parser.parse_args()
    configure_logging("error")
    backends = ["sqlite"] if args.no_pg else ["sqlite", "postgresql"]
    results = await run(backends, args.repeat, args.full_days)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "collection.json").write_text(json.dumps(results, indent=2, default=str) + "\n")
    (RESULTS / "collection.md").write_text(write_markdown(results, backends))
    print(write_markdown(results, backends))


if __name__ == "__main__":
    asyncio.run(main())

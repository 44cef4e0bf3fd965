"""What a region's run detects, and where its posts come from (spec §4.3, §2.5; ADR 0013, 0042).

A run reads the catalog's videos of its window (the recent 24 hours and the week before) and detects
among them (``analysis.trends``), off the event loop. A sequence of runs in time order reads each post
once and keeps the windows of each population between runs (``Populations``), so each run only counts
the posts that crossed a window's edge. A ``Detector`` holds that state for one sequence: in this
process (a worker thread runs the CPU work), or in a process of its own (``OwnProcess``) for a long
sequence such as the first start's history, which then neither holds this process's interpreter lock
(the API and the user lane share it) nor waits for it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from typing import Protocol

from reelscope.analysis.trends import (
    DetectedTrend,
    DetectionParams,
    FeatureMemo,
    FeatureWindows,
    Promotion,
    promote,
    trends_at,
)
from reelscope.catalog import reads as catalog_reads
from reelscope.catalog.reads import CountryPost
from reelscope.kit.db import Database, create_database
from reelscope.kit.logging import get_logger
from reelscope.trend.regions import GLOBAL

log = get_logger(__name__)

PARAMS = DetectionParams()
# a country needs this many recent videos before its own detection means anything
MIN_COUNTRY_POSTS = 200
# how long a detector process may take to stop once asked
STOP_SECONDS = 30


@dataclass
class Detection:
    """What a run found, before it is stored."""

    trends: list[DetectedTrend]
    promotions: list[Promotion] = field(default_factory=list)


def window(at: datetime) -> tuple[datetime, datetime]:
    """The posts a run at ``at`` reads: its recent window and the baseline before it."""
    return at - PARAMS.recent - PARAMS.baseline, at


class Populations:
    """The posts runs detect among, one ``FeatureWindows`` per population: each country's posts (a
    country's runs, and ``global``'s look at every country) and every post (``global``'s own). Posts are
    ``add``-ed as they are read; a run advances the windows it reads to its time, so a sequence of runs in
    time order counts each post into and out of each window once (``FeatureWindows``)."""

    def __init__(self, regions: Iterable[str], memo: FeatureMemo | None = None) -> None:
        self.memo = memo if memo is not None else FeatureMemo(PARAMS)
        regions = set(regions)
        # global needs every country and every post; a country region only its own posts
        self.every_country = GLOBAL in regions
        self.windows: dict[str | None, FeatureWindows] = {}
        if self.every_country:
            self.windows[None] = FeatureWindows(PARAMS, self.memo)
        for code in regions - {GLOBAL}:
            self.windows[code] = FeatureWindows(PARAMS, self.memo)

    def add(self, posts: Iterable[CountryPost]) -> None:
        everyone = self.windows.get(None)
        for item in posts:
            if everyone is not None:
                everyone.add((item.post,))
            if not item.country:
                continue
            windows = self.windows.get(item.country)
            if windows is None and self.every_country:
                windows = self.windows[item.country] = FeatureWindows(PARAMS, self.memo)
            if windows is not None:
                windows.add((item.post,))

    def at(self, code: str | None, at: datetime) -> FeatureWindows:
        windows = self.windows[code]
        windows.advance(at)
        return windows

    def countries(self) -> list[str]:
        return sorted(code for code in self.windows if code is not None)

    def forget_old_features(self) -> None:
        """Keep the memo to the posts some window still holds, once it has grown well past them."""
        if len(self.memo) > 2 * max(map(len, self.windows.values()), default=0) + 10_000:
            self.memo.keep(set().union(*(w.video_ids() for w in self.windows.values())))


def detect_region(code: str, populations: Populations, at: datetime) -> Detection:
    """Detection for region ``code``'s run at ``at``. Countries look at their own videos; ``global``
    looks at all of them natively and promotes what two or more countries found independently (§2.5)."""
    if code != GLOBAL:
        return Detection(trends=trends_at(populations.at(code, at)))
    country_trends = {}
    for country in populations.countries():
        windows = populations.at(country, at)
        if len(windows) >= MIN_COUNTRY_POSTS:
            country_trends[country] = trends_at(windows)
    return Detection(trends=trends_at(populations.at(None, at)), promotions=promote(country_trends))


async def load_posts(db: Database, since: datetime, until: datetime) -> list[CountryPost]:
    async with db.transaction(write=False) as session:
        return await catalog_reads.posts_for_detection(session, since, until)


class PostReader:
    """Reads the posts of runs taken in time order: each run's window once, and only the part beyond
    what the previous run read (a period of months is never in memory at once)."""

    def __init__(self, db: Database) -> None:
        self.db = db
        self.until: datetime | None = None

    async def up_to(self, at: datetime) -> list[CountryPost]:
        """The posts of the run at ``at``'s window not read before."""
        start, end = window(at)
        since = start if self.until is None or self.until < start else self.until
        if end <= since:
            return []
        self.until = end
        return await load_posts(self.db, since, end)


class Detector(Protocol):
    """Detection for the runs of one sequence, asked in time order."""

    async def detect(self, code: str, at: datetime) -> Detection: ...

    async def close(self) -> None: ...


class InProcess:
    """A sequence's detection in this process: posts read on its loop, detection in a worker thread so
    the loop stays free (ARCHITECTURE §5)."""

    def __init__(self, db: Database, regions: Iterable[str]) -> None:
        self.reader = PostReader(db)
        self.populations = Populations(regions)

    async def detect(self, code: str, at: datetime) -> Detection:
        self.populations.add(await self.reader.up_to(at))
        self.populations.forget_old_features()
        return await asyncio.to_thread(detect_region, code, self.populations, at)

    async def close(self) -> None:
        return None


class OwnProcess:
    """A sequence's detection in a process of its own (``spawn``ed: this one runs threads), which
    reads the posts from the database itself; each ``detect`` is a request over a pipe."""

    def __init__(self, database_url: str, regions: Iterable[str]) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, database_url, sorted(regions)), name="reelscope-detector", daemon=True
        )
        self._process.start()
        child.close()

    async def detect(self, code: str, at: datetime) -> Detection:
        self._conn.send((code, at))
        try:
            found: Detection | str = await asyncio.to_thread(self._conn.recv)
        except EOFError:
            raise RuntimeError("the detector process stopped") from None
        if isinstance(found, str):
            raise RuntimeError(f"detection failed in the detector process: {found}")
        return found

    async def close(self) -> None:
        if self._process.is_alive():
            self._conn.send(None)
            await asyncio.to_thread(self._process.join, STOP_SECONDS)
        if self._process.is_alive():
            self._process.terminate()
        self._conn.close()


def _serve(conn: Connection, database_url: str, regions: list[str]) -> None:
    """The detector process: answers (code, at) requests until it receives None or its parent goes."""
    asyncio.run(_answer(conn, database_url, regions))


async def _answer(conn: Connection, database_url: str, regions: list[str]) -> None:
    db = create_database(database_url)
    detector = InProcess(db, regions)
    try:
        while True:
            try:
                request = conn.recv()
            except EOFError:
                return  # the parent went away
            if request is None:
                return
            code, at = request
            answer: Detection | str
            try:
                answer = await detector.detect(code, at)
            # the process boundary: the parent raises it, with what went wrong
            except Exception as exc:
                log.error("trend.detector.failed", region=code, error_type=type(exc).__name__, exc_info=exc)
                answer = f"{type(exc).__name__}: {exc}"
            try:
                conn.send(answer)
            except (BrokenPipeError, ConnectionResetError):
                return  # the parent went away while this detection ran (a restart): nobody to answer
            except Exception as exc:  # the answer could not be sent (pickled): say so instead
                conn.send(f"{type(exc).__name__}: {exc}")
    finally:
        await db.dispose()

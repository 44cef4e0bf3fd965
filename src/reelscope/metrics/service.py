"""A scrape of ``/metrics``: the counters of this process (or, in multiprocess mode, of every process of
the host), plus the state read from the database and the queue at that moment (issue 29 item 2).

State is read, never kept: the jobs waiting and running by task and lane and the oldest wait, the
messages on each lane's queue, the webhook deliveries due and the oldest, each source's quota left.
Each part is read with a bound (``PART_TIMEOUT_SECONDS``); a part that fails or times out is left out
of that scrape and reported as ``reelscope_scrape_part_up{part} 0``, so a database outage shows as such
and the process's own counters are still served.

These values are the same whichever API process is scraped: sum them over instances with ``max``, not
``sum``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterable
from datetime import datetime

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from reelscope.collectors import status as collector_status
from reelscope.collectors.registry import build_sources
from reelscope.kit import metrics
from reelscope.runtime import Runtime
from reelscope.webhook import repository as webhook_repository
from reelscope.worker import registry as task_registry
from reelscope.worker.jobs import repository as jobs_repository

PART_TIMEOUT_SECONDS = 2.0

Part = Callable[[Runtime, datetime], Awaitable[list[Metric]]]


def _gauge(name: str, documentation: str, labels: list[str]) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, labels=labels)


def _age(now: datetime, since: datetime | None) -> float:
    return 0.0 if since is None else max((now - since).total_seconds(), 0.0)


async def jobs(runtime: Runtime, now: datetime) -> list[Metric]:
    waiting = _gauge("reelscope_jobs_waiting", "Jobs due to run and not yet claimed", ["task", "lane"])
    oldest = _gauge(
        "reelscope_jobs_oldest_waiting_seconds",
        "How long the longest-waiting due job of a task has waited",
        ["task", "lane"],
    )
    running = _gauge("reelscope_jobs_running", "Jobs being run (leased)", ["task", "lane"])
    async with runtime.db.transaction(write=False) as session:
        for found in await jobs_repository.backlog_by_task(session, now):
            labels = [found.task, task_registry.lane_of(found.task).value]
            waiting.add_metric(labels, found.waiting)
            oldest.add_metric(labels, _age(now, found.oldest_due_at))
            running.add_metric(labels, found.running)
    return [waiting, oldest, running]


async def queue(runtime: Runtime, _now: datetime) -> list[Metric]:
    messages = _gauge(
        "reelscope_queue_messages", "Messages on a lane's queue (jobs and task calls) not yet taken", ["lane"]
    )
    engine = runtime.jobs
    if engine is not None:
        for lane, huey in engine.queues.items():
            messages.add_metric([lane.value], await asyncio.to_thread(huey.pending_count))
    return [messages]


async def webhooks(runtime: Runtime, now: datetime) -> list[Metric]:
    async with runtime.db.transaction(write=False) as session:
        due, oldest = await webhook_repository.due_backlog(session, now)
    count = _gauge("reelscope_webhook_deliveries_due", "Webhook deliveries due and not yet attempted", [])
    count.add_metric([], due)
    age = _gauge(
        "reelscope_webhook_oldest_due_seconds", "How long the longest-waiting due delivery has waited", []
    )
    age.add_metric([], _age(now, oldest))
    return [count, age]


async def collectors(runtime: Runtime, now: datetime) -> list[Metric]:
    left = _gauge(
        "reelscope_collector_quota_left",
        "Units left in a source's quota bucket this window (0 while paused)",
        ["source", "bucket"],
    )
    limit = _gauge(
        "reelscope_collector_quota_limit", "A quota bucket's units per window", ["source", "bucket"]
    )
    sources = build_sources(runtime.settings, runtime.clock, runtime.db)
    for source in await collector_status.status(sources, now):
        for bucket in source.buckets:
            if bucket.left is not None:
                left.add_metric([source.name, bucket.name], bucket.left)
            if bucket.daily_limit is not None:
                limit.add_metric([source.name, bucket.name], bucket.daily_limit)
    return [left, limit]


PARTS: dict[str, Part] = {"jobs": jobs, "queue": queue, "webhooks": webhooks, "collectors": collectors}


async def _read(name: str, part: Part, runtime: Runtime, now: datetime) -> list[Metric] | None:
    try:
        return await asyncio.wait_for(part(runtime, now), PART_TIMEOUT_SECONDS)
    # a scrape reports what it could read; the part's absence is itself reported (scrape_part_up)
    except Exception:
        return None


class _Families(Collector):
    """Metric families handed to a scrape's registry: the state read for it, or this process's own."""

    def __init__(self, families: Callable[[], Iterable[Metric]]) -> None:
        self.families = families

    def collect(self) -> Iterable[Metric]:
        return self.families()


def registry_of(state: list[Metric]) -> CollectorRegistry:
    """One scrape's registry: this process's metrics, or in multiprocess mode every process's values
    merged from the directory's files; and the state read for it."""
    registry = CollectorRegistry()
    if metrics.directory() is None:
        registry.register(_Families(metrics.REGISTRY.collect))
    else:
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(_Families(lambda: state))
    return registry


async def exposition(runtime: Runtime) -> bytes:
    """The text of one scrape (Prometheus text format)."""
    now = runtime.clock.now()
    names = list(PARTS)
    found = await asyncio.gather(*(_read(name, PARTS[name], runtime, now) for name in names))
    up = _gauge("reelscope_scrape_part_up", "Whether a part of the scrape's state could be read", ["part"])
    state: list[Metric] = []
    for name, families in zip(names, found, strict=True):
        up.add_metric([name], 0 if families is None else 1)
        state += families or []
    state.append(up)
    # merging the files of many processes reads them all: off the loop
    return await asyncio.to_thread(lambda: generate_latest(registry_of(state)))

"""The process's Prometheus metrics: what is counted where it happens (issue 29 item 2; ADR 0050).

Counted where the event happens, in whichever process it happens in: requests by the API's outermost
middleware (metrics/middleware.py), credits charged by the request contract, job outcomes by the
worker's runner, webhook attempts by the delivery pump, collector calls by the sources' ledger, pooled
database connections by the engines' pool events. Everything that is state rather than an event (the
job queue's depth, deliveries due, quota left) is read from the database when scraped
(metrics/service.py), never kept here.

Labels are bounded by the code, never by the data: a route's template (``/v1/agents/{agent_id}``),
never the path a client sent; an operation id, a task name, a source; never a team, a key or an id.

**Several processes on one host.** ``REELSCOPE_METRICS_DIR`` (or prometheus-client's own
``PROMETHEUS_MULTIPROC_DIR``) names a directory every process of the host writes its values to, one
memory-mapped file per process (prometheus-client's multiprocess mode); any API process's ``/metrics``
then reports the sum over all of them, workers included. ``use_directory`` must run before the first
value is recorded: every metric here has labels, so its values are made on first use, and the value
class chosen then decides where they live.
"""

from __future__ import annotations

import atexit
import os
from pathlib import Path

from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    disable_created_metrics,
    values,
)
from prometheus_client import multiprocess as prometheus_multiprocess

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"

# no ``*_created`` series beside every counter and histogram: they double a scrape for a value (the
# process's start) that ``process_start_time_seconds`` already gives
disable_created_metrics()  # type: ignore[no-untyped-call]

# the metrics of a single process (no directory): what a scrape of it reports, beside what it reads then
REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)

# latency buckets from a cached read (~1 ms) to a slow aggregation (seconds)
REQUEST_SECONDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
# webhook lag: from the event to its delivery; retries stretch it to the schedule's day (§6.1)
DELIVERY_LAG_SECONDS = (0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 21600.0, 86400.0)

HTTP_REQUESTS = Counter(
    "reelscope_http_requests",
    "HTTP requests answered, by method, route template and status",
    ["method", "route", "status"],
    registry=REGISTRY,
)
HTTP_SECONDS = Histogram(
    "reelscope_http_request_duration_seconds",
    "From the request's arrival to its answer's last byte, by method and route template",
    ["method", "route"],
    buckets=REQUEST_SECONDS,
    registry=REGISTRY,
)
CREDITS_CHARGED = Counter(
    "reelscope_credits_charged",
    "Credits debited, by rate-limit feature group (§8.1) and operation",
    ["feature", "operation"],
    registry=REGISTRY,
)
JOB_OUTCOMES = Counter(
    "reelscope_job_outcomes",
    "Job attempts finished, by task, lane and outcome (completed, retry, gave_up, lost)",
    ["task", "lane", "outcome"],
    registry=REGISTRY,
)
TASK_CALLS = Counter(
    "reelscope_task_calls",
    "Plain task calls finished (periodic upkeep, pumps: no jobs row), by task, lane and outcome (ok, failed)",
    ["task", "lane", "outcome"],
    registry=REGISTRY,
)
WEBHOOK_ATTEMPTS = Counter(
    "reelscope_webhook_attempts",
    "Webhook delivery attempts, by outcome of the attempt and the delivery's status after it",
    ["outcome", "status"],
    registry=REGISTRY,
)
WEBHOOK_LAG = Histogram(
    "reelscope_webhook_delivery_lag_seconds",
    "From an event's creation to its delivery's successful attempt",
    ["event_type"],
    buckets=DELIVERY_LAG_SECONDS,
    registry=REGISTRY,
)
COLLECTOR_CALLS = Counter(
    "reelscope_collector_calls",
    "Calls to a data source, by source and outcome (ok, or the connector error's kind)",
    ["source", "outcome"],
    registry=REGISTRY,
)
DB_CONNECTIONS_IN_USE = Gauge(
    "reelscope_db_connections_in_use",
    "Database connections checked out of this process's pools (summed over live processes)",
    ["pool"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)


# the processes whose live gauges are removed from the directory at exit (``use_directory``)
_MARKED_AT_EXIT: set[int] = set()


def directory() -> Path | None:
    """The multiprocess directory in force, if any."""
    found = os.environ.get(MULTIPROC_ENV)
    return Path(found) if found else None


def use_directory(path: Path | None) -> None:
    """Record this process's values in ``path`` (multiprocess mode), and forget its live gauges when it
    exits. Without a path, the directory already in force if any (``PROMETHEUS_MULTIPROC_DIR`` set before
    start, or inherited by a child process). Idempotent."""
    path = path or directory()
    if path is None:
        return
    path.mkdir(parents=True, exist_ok=True)
    os.environ[MULTIPROC_ENV] = str(path)
    if not getattr(values.ValueClass, "_multiprocess", False):
        values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]
    pid = os.getpid()
    if pid not in _MARKED_AT_EXIT:
        _MARKED_AT_EXIT.add(pid)
        atexit.register(prometheus_multiprocess.mark_process_dead, pid, str(path))


def forget_this_process() -> None:
    """Remove this process's live gauges (connections in use) from the directory, if any: at the app's
    shutdown, because uvicorn ends a process stopped by a signal by raising that signal again once
    shut down, and exit handlers do not run then."""
    path = directory()
    if path is not None:
        prometheus_multiprocess.mark_process_dead(os.getpid(), str(path))  # type: ignore[no-untyped-call]

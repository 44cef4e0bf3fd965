"""The long-lived parts one process shares: settings, clock, database, rate limiter, read caches."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from redis.asyncio import BlockingConnectionPool, Redis

from reelscope.billing.debits import DebitQueue
from reelscope.config import Settings
from reelscope.kit.caches import ReadCaches
from reelscope.kit.clock import Clock, SystemClock
from reelscope.kit.db import Database, create_database
from reelscope.rate_limit.service import RateLimiter
from reelscope.rate_limit.storage import LimiterStorage, MemoryStorage, RedisStorage
from reelscope.worker.engine import JobEngine

if TYPE_CHECKING:
    from reelscope.contract.read_workers import ReadWorkers
    from reelscope.webhook.network import Resolver


@dataclass
class Runtime:
    settings: Settings
    clock: Clock
    db: Database
    limiter: RateLimiter
    # every answer this process keeps between requests (kit/caches.py)
    caches: ReadCaches = field(default_factory=ReadCaches)
    redis: Redis | None = None
    # sends what requests enqueue (after their commit); the API never runs tasks itself
    jobs: JobEngine | None = None
    # how webhook hosts are resolved when a target is checked (§4.6); None: the machine's DNS. Tests give
    # a static table here: the /v1 routes are shared by every app of a process, so FastAPI's
    # ``dependency_overrides`` cannot reach them (api.py)
    resolver: Resolver | None = None
    # the processes that run the endpoints of reads not declared small (contract/read_workers.py, ADR
    # 0040); None: every endpoint runs on the loop
    read_workers: ReadWorkers | None = None
    _write_gate: asyncio.Lock | None = field(default=None, init=False, repr=False)
    _debits: DebitQueue | None = field(default=None, init=False, repr=False)

    @property
    def sqlite_write_gate(self) -> asyncio.Lock | None:
        """This process's queue for SQLite's single write lock (ADR 0011); None on PostgreSQL.

        Without it, concurrent requests all issue ``BEGIN IMMEDIATE`` and the losers wait in SQLite's
        busy handler, which sleeps in steps of up to 100 ms: the lock is free again long before they
        look, and the tail latency is those sleeps. Waiting here instead hands the lock over in arrival
        order the moment it is released. Other processes still meet at SQLite's lock (busy timeout).
        """
        if not self.settings.is_sqlite:
            return None
        if self._write_gate is None:
            self._write_gate = asyncio.Lock()
        return self._write_gate

    @property
    def debits(self) -> DebitQueue:
        """Group commit of the debits of charged safe requests (billing/debits.py)."""
        if self._debits is None:
            self._debits = DebitQueue(self.db, self.sqlite_write_gate)
        return self._debits

    async def close(self) -> None:
        if self.read_workers is not None:
            await self.read_workers.close()
        if self._debits is not None:
            await self._debits.aclose()
        if self.jobs is not None:
            await asyncio.to_thread(self.jobs.close)
        await self.db.dispose()
        if self.redis is not None:
            await self.redis.aclose()


def redis_pool(settings: Settings, url: str) -> BlockingConnectionPool:
    """The API's Redis pool: under a burst a request waits (bounded) for a free connection rather than
    failing at once, as the default pool does when its 100 connections are busy (issue 14)."""
    timeout = settings.redis_timeout_seconds
    return BlockingConnectionPool.from_url(
        url,
        max_connections=settings.redis_max_connections,
        timeout=timeout,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
    )


def build_runtime(settings: Settings, clock: Clock | None = None) -> Runtime:
    redis: Redis | None = None
    storage: LimiterStorage
    if settings.redis_url:
        redis = Redis.from_pool(redis_pool(settings, settings.redis_url))
        storage = RedisStorage(redis)
    else:
        storage = MemoryStorage()
    runtime = Runtime(
        settings=settings,
        clock=clock or SystemClock(),
        db=create_database(settings.effective_database_url, echo=settings.sql_echo),
        limiter=RateLimiter(
            storage, ip_burst=settings.ip_burst, ip_refill_per_second=settings.ip_refill_per_second
        ),
        redis=redis,
        caches=ReadCaches(max_bytes=settings.read_cache_mb * 1024 * 1024),
    )
    runtime.jobs = JobEngine(settings, runtime.clock)
    runtime.jobs.bind(runtime.db)
    # imported here: the contract's routes import this module
    from reelscope.contract.read_workers import ReadWorkers, worker_count

    workers = worker_count(settings)
    if workers > 0:
        runtime.read_workers = ReadWorkers(settings, workers)
    return runtime

"""The long-lived parts one process shares: settings, clock, database, rate limiter."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from redis.asyncio import Redis

from reelscope.config import Settings
from reelscope.kit.clock import Clock, SystemClock
from reelscope.kit.db import Database, create_database
from reelscope.rate_limit.service import RateLimiter
from reelscope.rate_limit.storage import LimiterStorage, MemoryStorage, RedisStorage
from reelscope.worker.engine import JobEngine


@dataclass
class Runtime:
    settings: Settings
    clock: Clock
    db: Database
    limiter: RateLimiter
    redis: Redis | None = None
    # sends what requests enqueue (after their commit); the API never runs tasks itself
    jobs: JobEngine | None = None

    async def close(self) -> None:
        if self.jobs is not None:
            await asyncio.to_thread(self.jobs.close)
        await self.db.dispose()
        if self.redis is not None:
            await self.redis.aclose()


def build_runtime(settings: Settings, clock: Clock | None = None) -> Runtime:
    redis: Redis | None = None
    storage: LimiterStorage
    if settings.redis_url:
        redis = Redis.from_url(settings.redis_url)
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
    )
    runtime.jobs = JobEngine(settings, runtime.clock)
    runtime.jobs.bind(runtime.db)
    return runtime

"""Fixed system jobs as Huey periodic tasks, and the embedded consumer's start and stop."""

from __future__ import annotations

import asyncio
from datetime import datetime

from reelscope.config import Settings
from reelscope.worker.consumer import start_embedded
from reelscope.worker.engine import JobEngine
from reelscope.worker.registry import Lane
from tests.worker import sample_tasks


class TestPeriodicTasks:
    def test_a_periodic_task_runs_when_its_crontab_matches(self, jobs: JobEngine) -> None:
        assert "test.tick" in jobs.register_periodic()

        def ticks(at: datetime) -> list[object]:
            # other families' periodic tasks (catalog collection, …) are registered too; look at ours
            return [
                t
                for t in jobs.queues[Lane.BACKGROUND].read_periodic(at)
                if t.name.endswith("periodic.test.tick")
            ]

        assert ticks(datetime(2026, 11, 21, 13, 0)) == []
        due = ticks(datetime(2026, 11, 21, 14, 0))
        assert len(due) == 1
        before = len(sample_tasks.TICKS)
        jobs.queues[Lane.BACKGROUND].execute(due[0])
        assert len(sample_tasks.TICKS) == before + 1
        assert sample_tasks.TICKS[-1].startswith("reelscope-loop-")


class TestEmbeddedConsumer:
    async def test_without_periodic_work_it_starts_no_dispatcher_and_registers_no_periodic_task(
        self, settings: Settings
    ) -> None:
        embedded = await asyncio.to_thread(start_embedded, settings, periodic=False)
        try:
            assert embedded.dispatcher is None
            for lane, consumer in embedded.consumers.items():
                assert consumer.periodic is False
                assert embedded.engine.queues[lane].read_periodic(datetime(2026, 11, 21, 14, 0)) == []
        finally:
            await asyncio.to_thread(embedded.stop)
        for consumer in embedded.consumers.values():
            assert not consumer.scheduler.is_alive()
            assert not any(thread.is_alive() for _, thread in consumer.worker_threads)

"""The job engine: the Huey instance, the worker's event loops, and sending messages (ARCHITECTURE §5).

Huey runs synchronous functions in its worker threads. Task bodies are async and need a database engine
bound to one event loop, so each thread that executes tasks gets a long-lived ``LoopThread``: an event
loop running in a thread of its own, with its own ``Database``. The Huey worker hands each task to that
loop and waits. Huey's immediate mode (tests) executes tasks in the thread that enqueues them, which may
itself be running an event loop; the dedicated loop thread makes that work the same way.

The queue carries only two kinds of message: "run jobs row X" and "call task T with these ids". There
is one queue per lane (``registry.Lane``, ADR 0042 and 0053): the user and events lanes' messages never
wait behind the background lane's, because each lane's consumer has worker threads of its own.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from huey import Huey, RedisHuey, SqliteHuey

from reelscope.config import Settings
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database, create_database
from reelscope.kit.logging import get_logger
from reelscope.worker import registry, runner
from reelscope.worker.context import TaskContext
from reelscope.worker.queue import SENDER_KEY, Message
from reelscope.worker.registry import Lane

log = get_logger(__name__)

T = TypeVar("T")

# the background lane keeps the queue's first name, so messages queued by an earlier version still run
QUEUE_NAMES = {Lane.BACKGROUND: "reelscope", Lane.USER: "reelscope-user", Lane.EVENTS: "reelscope-events"}
CALL_TASK = "reelscope.call"
JOB_TASK = "reelscope.job"


class LoopThread:
    """An event loop that lives as long as its worker, with a Database bound to it."""

    def __init__(self, name: str, make_db: Callable[[], Database]) -> None:
        self.loop = asyncio.new_event_loop()
        self.db = make_db()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_forever()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def close(self, timeout: float = 10) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self.db.dispose(), self.loop).result(timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(timeout)
            if not self._thread.is_alive():
                self.loop.close()


class JobEngine:
    """One per process role: the API uses it to send, workers also to run (``consumer``)."""

    def __init__(self, settings: Settings, clock: Clock, *, immediate: bool = False) -> None:
        self.settings = settings
        self.clock = clock
        registry.discover(settings.extra_task_modules)
        # one Huey per lane, each knowing the two message kinds
        self.queues = build_queues(settings, immediate=immediate)
        self._loops: dict[int, LoopThread] = {}
        self._lock = threading.Lock()
        self._call = {
            lane: huey.task(name=CALL_TASK)(self._execute_call) for lane, huey in self.queues.items()
        }
        self._job = {lane: huey.task(name=JOB_TASK)(self._execute_job) for lane, huey in self.queues.items()}

    @property
    def lease(self) -> timedelta:
        return timedelta(seconds=self.settings.job_lease_seconds)

    def bind(self, db: Database) -> None:
        """Sessions of ``db`` send what they enqueue through this engine when they commit."""
        for factory in (db.read, db.write):
            factory.configure(info={SENDER_KEY: self})

    def send(self, messages: Sequence[Message]) -> None:
        for message in messages:
            lane = message.lane
            if message.job_id is not None:
                self.queues[lane].enqueue(self._job[lane].s(message.job_id))
            else:
                self.queues[lane].enqueue(self._call[lane].s(message.task, message.kwargs))

    def run(self, work: Callable[[TaskContext], Awaitable[T]]) -> T:
        """Run ``work`` on the calling thread's worker loop, with a fresh context, and wait for it."""
        loop = self._loop_for_this_thread()

        async def main() -> T:
            return await work(TaskContext(settings=self.settings, clock=self.clock, db=loop.db))

        return loop.run(main())

    def register_periodic(self) -> list[str]:
        """Fixed system jobs (``@task(..., periodic=crontab(...))``) become Huey periodic tasks of the
        background lane's queue."""
        names = []
        for definition in registry.registered().values():
            if definition.periodic is None:
                continue
            name = definition.name

            def fire(name: str = name) -> None:
                self._execute_call(name, {})

            self.queues[Lane.BACKGROUND].periodic_task(definition.periodic, name=f"periodic.{name}")(fire)
            names.append(name)
        return names

    def run_next(self) -> bool:
        """Run the next queued message in this thread, the user lane's first, then the events lane's;
        False when none is left.

        For tests on a real queue backend (SQLite, Redis): a deterministic stand-in for the consumers.
        """
        for huey in self.queues.values():  # in the order of ``Lane``: user, events, background
            # Redis's dequeue blocks up to a second on an empty queue (BRPOP): look first
            if not huey.pending_count():
                continue
            message = huey.dequeue()
            if message is not None:
                huey.execute(message)
                return True
        return False

    def drain(self) -> int:
        """Run every queued message in this thread until the queues are empty; how many ran."""
        ran = 0
        while self.run_next():
            ran += 1
        return ran

    def pending_count(self) -> int:
        return sum(huey.pending_count() for huey in self.queues.values())

    def close(self) -> None:
        with self._lock:
            loops, self._loops = list(self._loops.values()), {}
        for loop in loops:
            loop.close()
        for huey in self.queues.values():
            huey.storage.close()

    def _loop_for_this_thread(self) -> LoopThread:
        ident = threading.get_ident()
        with self._lock:
            loop = self._loops.get(ident)
            if loop is None:
                loop = self._loops[ident] = LoopThread(
                    f"reelscope-loop-{threading.current_thread().name}", self._make_db
                )
            return loop

    def _make_db(self) -> Database:
        db = create_database(self.settings.effective_database_url, echo=self.settings.sql_echo)
        self.bind(db)
        return db

    def _execute_call(self, task: str, kwargs: dict[str, Any]) -> None:
        self.run(lambda ctx: runner.run_call(ctx, task, kwargs))

    def _execute_job(self, job_id: str) -> None:
        self.run(lambda ctx: runner.run_job(ctx, job_id, lease=self.lease))


def build_queues(settings: Settings, *, immediate: bool = False) -> dict[Lane, Huey]:
    """The queue of each lane: ``RedisHuey`` when ``REELSCOPE_REDIS_URL`` is set, else ``SqliteHuey`` in the
    data dir (every lane in one file, told apart by the queue name).

    The lanes' SQLite queues share the file's tables, so the first lane's storage makes them and the
    others only open the file: each storage making them again was a connection, an exclusive
    transaction and a commit more per lane, every time an engine was built (at every start of the API
    and the worker, and in every test)."""
    options: dict[str, Any] = {"results": False, "utc": True, "immediate": immediate}
    if settings.redis_url:
        return {lane: RedisHuey(QUEUE_NAMES[lane], url=settings.redis_url, **options) for lane in Lane}
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    filename = str(settings.data_dir / "queue.db")
    return {
        lane: SqliteHuey(QUEUE_NAMES[lane], filename=filename, create_tables=index == 0, **options)
        for index, lane in enumerate(Lane)
    }

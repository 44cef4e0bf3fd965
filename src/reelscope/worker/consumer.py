"""Consumers: the standalone ``reelscope worker`` and the one ``reelscope serve`` embeds in threads.

Both run one Huey consumer (thread workers) per lane on a ``JobEngine`` of their own (ADR 0042, 0053):
the user lane's ``REELSCOPE_JOB_USER_WORKERS`` threads take only user work, the events lane's
``REELSCOPE_JOB_EVENT_WORKERS`` only the webhook pump, the background lane's ``REELSCOPE_JOB_WORKERS``
only the upkeep. With periodic tasks on, they also run the dispatcher thread
(``dispatch_once`` every ``REELSCOPE_JOB_DISPATCH_INTERVAL_SECONDS``) and Huey's periodic tasks (on the
background lane). The embedded one leaves signals to uvicorn and is stopped by ``serve`` after uvicorn
returns; a job still running then is picked up again through its lease (no work is lost).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from huey.consumer import Consumer

from reelscope.config import Settings
from reelscope.kit.clock import SystemClock
from reelscope.kit.logging import get_logger
from reelscope.worker.dispatcher import dispatch_once
from reelscope.worker.engine import JobEngine
from reelscope.worker.registry import Lane

log = get_logger(__name__)

# an idle SQLite queue is polled at least this often (Redis blocks on the list instead)
MAX_POLL_DELAY_SECONDS = 1.0
SHUTDOWN_TIMEOUT_SECONDS = 5.0


class Dispatcher:
    """Runs ``dispatch_once`` on its own worker loop every ``interval`` seconds until stopped."""

    def __init__(self, engine: JobEngine, interval: float) -> None:
        self.engine = engine
        self.interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="reelscope-dispatcher", daemon=True)

    def start(self) -> None:
        self._thread.start()

    @property
    def stop_flag(self) -> threading.Event:
        return self._stop

    def stop(self, timeout: float = SHUTDOWN_TIMEOUT_SECONDS) -> None:
        self._stop.set()
        self._thread.join(timeout)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                self.engine.run(dispatch_once)
            # keep dispatching: a failed pass (database briefly away) is retried on the next tick
            except Exception as exc:
                log.error("dispatcher.failed", error_type=type(exc).__name__, exc_info=exc)
            self._stop.wait(self.interval)


class _EmbeddedConsumer(Consumer):  # type: ignore[misc]  # huey is untyped
    def _set_signal_handlers(self) -> None:
        """uvicorn owns the signals of ``serve``; it stops us through ``EmbeddedWorker.stop``."""


@dataclass
class EmbeddedWorker:
    engine: JobEngine
    consumers: dict[Lane, Consumer]
    dispatcher: Dispatcher | None

    def stop(self) -> None:
        """Every lane stops taking work at once and finishes what it runs within one shared
        ``SHUTDOWN_TIMEOUT_SECONDS`` (not one after the other: Ctrl-C took twice the time the log
        announced); a job still running then is taken up again through its lease."""
        if self.dispatcher is not None:
            self.dispatcher.stop_flag.set()
        _stop_together(self.consumers)
        if self.dispatcher is not None:
            self.dispatcher.stop()
        _close_unless_running(self.engine, self.consumers)


def _close_unless_running(engine: JobEngine, consumers: dict[Lane, Consumer]) -> None:
    """Close the engine's loops once every lane's workers have ended. Workers still running keep their
    loops open (closing them under a running job only spills tracebacks): the process ends with them,
    and their jobs are taken up again when their leases expire."""
    running = sum(
        consumer.environment.is_alive(worker)
        for consumer in consumers.values()
        for _, worker in consumer.worker_threads
    )
    if running:
        log.info("worker.stopped", jobs_still_running=running)
        return
    engine.close()
    log.info("worker.stopped")


class _LeadConsumer(Consumer):  # type: ignore[misc]  # huey is untyped
    """The foreground lane's consumer of ``reelscope worker``: it owns the signals, and when a signal
    stops it, the other lanes stop at the same moment and share its shutdown timeout (one after the
    other, SIGTERM could take twice the time and outlast an orchestrator's grace period)."""

    followers: dict[Lane, Consumer]

    def stop(self, graceful: bool = False) -> None:
        for consumer in self.followers.values():
            consumer.stop_flag.set()
        stopping = [
            threading.Thread(target=consumer.stop, kwargs={"graceful": graceful}, name=f"stop-{lane}")
            for lane, consumer in self.followers.items()
        ]
        for thread in stopping:
            thread.start()
        super().stop(graceful=graceful)
        for thread in stopping:
            thread.join()


def _stop_together(consumers: dict[Lane, Consumer]) -> None:
    """Stop ``consumers`` gracefully at once, each in a thread, and wait for all of them."""
    for consumer in consumers.values():
        consumer.stop_flag.set()
    stopping = [
        threading.Thread(target=consumer.stop, kwargs={"graceful": True}, name=f"stop-{lane}")
        for lane, consumer in consumers.items()
    ]
    for thread in stopping:
        thread.start()
    for thread in stopping:
        thread.join()


def _consumer(cls: type[Consumer], engine: JobEngine, lane: Lane, *, periodic: bool) -> Consumer:
    settings = engine.settings
    periodic = periodic and lane is Lane.BACKGROUND  # the upkeep's crontabs are background work
    if periodic:
        engine.register_periodic()
    workers = {
        Lane.USER: settings.job_user_workers,
        Lane.EVENTS: settings.job_event_workers,
        Lane.BACKGROUND: settings.job_workers,
    }
    return cls(
        engine.queues[lane],
        workers=workers[lane],
        periodic=periodic,
        worker_type="thread",
        max_delay=MAX_POLL_DELAY_SECONDS,
        shutdown_timeout=SHUTDOWN_TIMEOUT_SECONDS,
    )


def _started(settings: Settings, *, periodic: bool, embedded: bool) -> None:
    log.info(
        "worker.started",
        embedded=embedded,
        user_workers=settings.job_user_workers,
        event_workers=settings.job_event_workers,
        background_workers=settings.job_workers,
        periodic=periodic,
    )


def start_embedded(settings: Settings, *, periodic: bool = True) -> EmbeddedWorker:
    """Start every lane's consumer (and the dispatcher) in threads of this process; returns at once."""
    engine = JobEngine(settings, SystemClock())
    consumers = {lane: _consumer(_EmbeddedConsumer, engine, lane, periodic=periodic) for lane in Lane}
    for consumer in consumers.values():
        consumer.start()
    dispatcher = Dispatcher(engine, settings.job_dispatch_interval_seconds) if periodic else None
    if dispatcher is not None:
        dispatcher.start()
    _started(settings, periodic=periodic, embedded=True)
    return EmbeddedWorker(engine=engine, consumers=consumers, dispatcher=dispatcher)


def run_worker(settings: Settings, *, periodic: bool = True) -> None:
    """Run every lane's consumer until SIGINT (graceful) or SIGTERM: the background lane's in the
    foreground, owning the signals; the others in threads, stopped together with it."""
    engine = JobEngine(settings, SystemClock())
    others: dict[Lane, Consumer] = {
        lane: _consumer(_EmbeddedConsumer, engine, lane, periodic=periodic)
        for lane in Lane
        if lane is not Lane.BACKGROUND
    }
    background = _consumer(_LeadConsumer, engine, Lane.BACKGROUND, periodic=periodic)
    background.followers = others
    dispatcher = Dispatcher(engine, settings.job_dispatch_interval_seconds) if periodic else None
    if dispatcher is not None:
        dispatcher.start()
    _started(settings, periodic=periodic, embedded=False)
    for consumer in others.values():
        consumer.start()
    try:
        background.run()
    finally:
        _stop_together(others)  # already stopped with the foreground one, unless it failed
        if dispatcher is not None:
            dispatcher.stop()
        _close_unless_running(engine, {Lane.BACKGROUND: background, **others})

"""Read workers: the processes that run the endpoints of reads not declared small (issue 33, ADR 0040).

The API's event loop answers every request: it runs the request contract (authentication, rate limit,
price check, debit) and the endpoints of reads declared small (``@small_read``, ``@precomputed``: point
reads and bodies computed ahead). Any other safe request's endpoint runs in one of
``REELSCOPE_READ_WORKERS`` worker processes, so a read that aggregates for a second holds a worker,
never the loop everyone else is answered by:

* **Processes, not threads.** A thread running Python holds the GIL; the loop then waits up to the
  switch interval (5 ms) every time it takes the GIL back after a system call, several times a request.
  Measured with a 2-core box's loop answering ``GET /`` on 2 connections while 8 others ran 30 ms of
  Python each: threads kept 0.22-0.5 of its throughput, processes 0.46-0.5, processes at a lower CPU
  priority 0.9-1.4 (ADR 0040). So the workers run at ``NICENESS``: when the machine is short of CPU,
  the loop (the contract, the cheap reads) goes first and the long reads wait.
* **A fair gate in front** (kit/fair_gate.py): one request per worker at a time, and the waiting
  requests served in turn by team, so a team that sends fifty long reads waits behind itself and
  another team's read waits for one turn.
* **The contract stays here.** A worker gets what the endpoint reads (method, path, query string,
  headers, path parameters, the caller, the quote, the moment) and sends back the response's status,
  headers and body and any price the endpoint settled; the debit is made here, after a 2xx, as for a
  read on the loop. Exceptions the endpoint raises are rendered in the worker by the app's own handlers,
  so errors have the same bodies either way; an unexpected one is logged there with the request id.
* A worker is one process with its own ``Runtime`` (database engine, read caches) and the same routes;
  its clock answers the moment the API process gave the call (tests' manual clock holds across).
* **A large body crosses as a file in memory** (ADR 0062). Pickled through the pool's pipe, a body is
  copied about five times and passed 64 KB at a time, and the API process's share of an 18 MB trend
  window was ~55 ms of CPU, most of it copying and faulting in fresh pages. A body of
  ``BODY_FILE_BYTES`` or more is written by the worker to a file of this API process's directory in
  ``/dev/shm`` (tmpfs: memory), which the API process maps, unlinks at once and sends from the mapping.

``REELSCOPE_READ_WORKERS=0`` runs every endpoint on the loop, as before (the tests do, but for those of
this module; so does a machine with one core by default).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import mmap
import os
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Awaitable, Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import AsyncExitStack
from dataclasses import dataclass, replace
from datetime import datetime
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.types import Message

from reelscope.auth.service import Principal
from reelscope.config import Settings
from reelscope.contract.calls import CallState
from reelscope.kit.errors import ServiceUnavailable
from reelscope.kit.fair_gate import FairGate
from reelscope.kit.json_body import JsonBodyRequest
from reelscope.kit.logging import configure_logging, get_logger, logging_configuration

if TYPE_CHECKING:
    from fastapi import FastAPI

log = get_logger(__name__)

# a worker's CPU priority below the API process's (0): nice 10 weighs about a tenth of nice 0 in Linux's
# scheduler, so a busy machine gives the loop its share first and the long reads what remains
NICENESS = 10
# what a worker needs of the request's ASGI scope (all of it plain data)
_SCOPE_KEYS = (
    "type",
    "http_version",
    "method",
    "scheme",
    "path",
    "raw_path",
    "root_path",
    "query_string",
    "headers",
    "client",
    "server",
    "path_params",
)


@dataclass(frozen=True)
class ReadCall:
    """One endpoint call sent to a worker."""

    operation: str
    scope: dict[str, Any]
    body: bytes
    request_id: str
    principal: Principal
    quoted: int
    now: datetime


@dataclass(frozen=True)
class ReadReply:
    status: int
    headers: list[tuple[bytes, bytes]]
    # the body, or b"" with ``body_file`` naming the file it was written to (``_hand_over``)
    body: bytes | memoryview
    settled: int | None
    body_file: str | None = None

    def response(self) -> Response:
        response = Response(status_code=self.status)
        response.body = self.body
        response.raw_headers = self.headers
        return response

    def received(self) -> ReadReply:
        """This reply with its body in this process: a body file mapped (read-only), then unlinked, so
        it is gone from the file system once received and from memory once sent."""
        if self.body_file is None:
            return self
        with open(self.body_file, "rb") as file:
            os.unlink(self.body_file)
            mapped = mmap.mmap(file.fileno(), 0, prot=mmap.PROT_READ)
        return replace(self, body=memoryview(mapped), body_file=None)


# a body this large crosses as a file in memory rather than through the pool's pipe (the module's notes)
BODY_FILE_BYTES = 1 << 20


def bodies_directory() -> Path:
    """A directory of this API process (mode 0700) for its workers' large bodies: in ``/dev/shm``
    (memory) where there is one, else in the temporary directory."""
    shared = Path("/dev/shm")  # noqa: S108 (mkdtemp: a new directory only this user can enter)
    parent = shared if shared.is_dir() and os.access(shared, os.W_OK) else Path(tempfile.gettempdir())
    return Path(tempfile.mkdtemp(prefix=f"reelscope-bodies-{os.getpid()}-", dir=parent))


def _hand_over(body: bytes, directory: Path) -> str | None:
    """``body`` written to a new file of ``directory`` (mode 0600): its path, or None when it could not
    be written (tmpfs full), and the body goes through the pipe after all."""
    try:
        fd, path = tempfile.mkstemp(dir=directory)
    except OSError:
        return None
    try:
        view, written = memoryview(body), 0
        while written < len(view):  # a write may take less than it was given
            written += os.write(fd, view[written:])
    except OSError:
        os.unlink(path)
        return None
    finally:
        os.close(fd)
    return path


def _discard_body(future: Future[ReadReply]) -> None:
    """Remove the body file of an answer nobody took (``ReadWorkers.run``, cancelled)."""
    if future.cancelled() or future.exception() is not None:
        return
    body_file = future.result().body_file
    if body_file is not None:
        with contextlib.suppress(OSError):
            os.unlink(body_file)


def read_call(request: Request, body: bytes, call: CallState, now: datetime) -> ReadCall:
    """What a worker needs of a request: ``body`` is what it was sent (a ``@writes_nothing`` POST's JSON)."""
    assert call.principal is not None  # the contract identified the caller first
    return ReadCall(
        operation=call.operation,
        scope={key: request.scope[key] for key in _SCOPE_KEYS if key in request.scope},
        body=body,
        request_id=call.request_id,
        principal=call.principal,
        quoted=call.quoted,
        now=now,
    )


def worker_count(settings: Settings) -> int:
    """``REELSCOPE_READ_WORKERS``, or by default one fewer than the CPUs: the loop keeps one (none on a
    single CPU, where a worker could only take the loop's time)."""
    if settings.read_workers is not None:
        return settings.read_workers
    return max(0, (os.cpu_count() or 1) - 1)


class ReadWorkers:
    """The worker processes of one API process, and the fair gate in front of them."""

    def __init__(self, settings: Settings, count: int) -> None:
        if count < 1:
            raise ValueError("read workers need at least one process")
        self._settings = settings
        self._count = count
        self._gate = FairGate(count)
        self._pool: ProcessPoolExecutor | None = None
        self._warming: list[Future[int]] = []
        self._bodies: Path | None = None

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            if self._bodies is None:
                self._bodies = bodies_directory()
                # removed on close, or when this object is collected or the process exits without it
                weakref.finalize(self, shutil.rmtree, self._bodies, ignore_errors=True)
            self._pool = ProcessPoolExecutor(
                self._count,
                mp_context=get_context("spawn"),
                initializer=_start_worker,
                initargs=(self._settings, logging_configuration(), os.getpid(), self._bodies),
            )
        return self._pool

    def start(self) -> None:
        """Start the workers now rather than on the first long read (each imports the app, ~2 s)."""
        pool = self._executor()
        self._warming = [pool.submit(os.getpid) for _ in range(self._count)]

    def starting(self) -> str | None:
        """None once every worker has started (``start``); else why this process cannot yet answer a long
        read at once: a request that came first waited for a worker to import the app (2-4 s)."""
        if not self._warming:
            return "read workers not started"
        if not all(future.done() for future in self._warming):
            return "read workers starting"
        failed = next((f.exception() for f in self._warming if f.exception() is not None), None)
        if failed is not None:
            return f"a read worker failed to start ({type(failed).__name__})"
        return None

    async def run(
        self, owner: str, build: Callable[[], ReadCall], gone: Callable[[], Awaitable[bool]]
    ) -> ReadReply | None:
        """The endpoint's response, computed by a worker once ``owner`` (the team) has its turn; the call
        is built then, so that its moment is when the endpoint runs. None when the client is ``gone`` by
        then: a read nobody waits for any more is not run (issue 33: clients that gave up on a queue of
        long reads were still served, and charged, one after the other)."""
        async with self._gate.slot(owner):
            if await gone():
                return None
            call = build()
            pool = self._executor()
            future = pool.submit(_serve, call)
            try:
                reply = await asyncio.wrap_future(future)
                return reply.received()
            except asyncio.CancelledError:
                # nobody takes this answer (the request was cancelled): a body the worker hands over as
                # a file is removed once written, not left in memory until the pool closes
                future.add_done_callback(_discard_body)
                raise
            except BrokenProcessPool as exc:
                # a worker died (killed, out of memory): the next call starts a new pool
                log.error("read_workers.broken", operation=call.operation, request_id=call.request_id)
                if self._pool is pool:
                    self._pool = None
                    pool.shutdown(wait=False, cancel_futures=True)
                raise ServiceUnavailable("A read worker stopped; retry the request") from exc

    async def close(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            await asyncio.to_thread(pool.shutdown, wait=True, cancel_futures=True)
        if self._bodies is not None:  # with any body written for a call whose answer nobody took
            shutil.rmtree(self._bodies, ignore_errors=True)


# --- in the worker process --------------------------------------------------------------------------


class _CallClock:
    """A worker's clock: the moment the API process gave the call it is serving."""

    moment: datetime

    def now(self) -> datetime:
        return self.moment


def _receive(body: bytes) -> Callable[[], Awaitable[Message]]:
    async def receive() -> Message:
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


class _Worker:
    def __init__(self, settings: Settings, bodies: Path) -> None:
        # imported here: the app imports the contract, which imports this module
        from reelscope.contract.route import ContractRoute
        from reelscope.kit.caches import ReadCaches
        from reelscope.kit.db import create_database
        from reelscope.main import create_app
        from reelscope.rate_limit.service import RateLimiter
        from reelscope.rate_limit.storage import MemoryStorage
        from reelscope.runtime import Runtime

        self.bodies = bodies
        self.loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self.loop)
        self.clock = _CallClock()
        runtime = Runtime(
            settings=settings,
            clock=self.clock,
            db=create_database(settings.effective_database_url, echo=settings.sql_echo),
            # never asked: the API process counts requests
            limiter=RateLimiter(MemoryStorage(), ip_burst=1, ip_refill_per_second=1.0),
            caches=ReadCaches(max_bytes=settings.read_cache_mb * 1024 * 1024),
        )
        self.app: FastAPI = create_app(runtime=runtime)
        self.routes = {route.name: route for route in self.app.routes if isinstance(route, ContractRoute)}

    def serve(self, call: ReadCall) -> ReadReply:
        return self.loop.run_until_complete(self._serve(call))

    async def _serve(self, call: ReadCall) -> ReadReply:
        route = self.routes[call.operation]
        self.clock.moment = call.now
        state = CallState(
            operation=call.operation, request_id=call.request_id, principal=call.principal, quoted=call.quoted
        )
        scope: dict[str, Any] = {
            **call.scope,
            "app": self.app,
            "route": route,
            "endpoint": route.endpoint,
            "state": {"request_id": call.request_id, "call": state},
        }
        request = JsonBodyRequest(scope, _receive(call.body))
        async with AsyncExitStack() as stack:
            # what FastAPI's middleware and request_response put in the scope for its handler
            scope["fastapi_middleware_astack"] = scope["fastapi_inner_astack"] = stack
            scope["fastapi_function_astack"] = stack
            try:
                response = await route.endpoint_handler(request)
            except Exception as exc:
                response = await self._error_response(request, exc, call.request_id)
            finally:
                if state.session is not None:
                    await state.session.close()
        body = bytes(response.body)
        body_file = _hand_over(body, self.bodies) if len(body) >= BODY_FILE_BYTES else None
        return ReadReply(
            status=response.status_code,
            headers=list(response.raw_headers),
            body=b"" if body_file else body,
            settled=state.settled,
            body_file=body_file,
        )

    async def _error_response(self, request: Request, exc: Exception, request_id: str) -> Response:
        """The response the API process would have made of ``exc``: the app's handler for its class, or
        the 500 of an unexpected failure (logged here, with the request id)."""
        from reelscope.main import render_unexpected

        for cls in type(exc).__mro__:
            handler = self.app.exception_handlers.get(cls)
            if handler is not None:
                response = handler(request, exc)
                return await response if inspect.isawaitable(response) else response
        status, body = await render_unexpected(exc, request_id)
        return Response(content=body, status_code=status, media_type="application/json")


_worker: _Worker | None = None


def _start_worker(settings: Settings, logging: dict[str, Any], parent: int, bodies: Path) -> None:
    """A worker process's start (``ProcessPoolExecutor``'s initializer): it leaves with its API process,
    lower priority, logs as the API process logs, then the app."""
    global _worker
    from reelscope.kit import gc_pauses, heap

    heap.start(settings.malloc_arena_max, settings.malloc_trim_seconds)
    _exit_with(parent)
    os.nice(NICENESS)
    if logging:
        configure_logging(**logging)
    _worker = _Worker(settings, bodies)
    gc_pauses.settle()  # the app it imported and built, out of the collector's walks (ADR 0059)
    gc_pauses.start(settings.loop_held_warning_ms)


# how often a worker checks that its API process is still there
PARENT_CHECK_SECONDS = 1.0


def _exit_with(parent: int) -> None:
    """Exit once ``parent`` (the API process) is gone. A worker waits on its call queue, whose writing end
    it holds too, so an API process killed (SIGKILL, the OOM killer) never closes it: the worker stayed on
    for good, an orphan with its memory and database connections (benchmarks/soak.py, issue 31). Adopted
    by another process, its parent id changes; then it ends, running nothing more."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(0)

    threading.Thread(target=watch, name="read-worker-parent", daemon=True).start()


def _serve(call: ReadCall) -> ReadReply:
    assert _worker is not None, "a read worker serves only after its start"
    return _worker.serve(call)

"""A small HTTP/1.1 keep-alive load generator run in a second process (no third-party client overhead).

``measure(base, path, headers, concurrency, seconds)`` runs in a child process and returns latencies
(ms) and the request rate. Used by the read-path and other benchmarks to compare an endpoint with
``GET /`` on the same server in the same run; ``start_api`` starts that server (``reelscope api``) and
``cpu_seconds`` reads what a process has spent.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from queue import Empty
from urllib.parse import urlsplit

import httpx


@dataclass(frozen=True)
class LoadResult:
    path: str
    requests: int
    errors: int
    seconds: float
    p50_ms: float
    p99_ms: float
    statuses: dict[int, int]

    @property
    def rps(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "requests": self.requests,
            "errors": self.errors,
            "seconds": round(self.seconds, 3),
            "requests_per_s": round(self.rps, 1),
            "p50_ms": round(self.p50_ms, 3),
            "p99_ms": round(self.p99_ms, 3),
            "statuses": {str(k): v for k, v in self.statuses.items()},
        }


async def _worker(
    host: str, port: int, request: bytes, until: float, latencies: list[float], statuses: dict[int, int]
) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < until:
            started = time.perf_counter()
            writer.write(request)
            status_line = await reader.readline()
            if not status_line.startswith(b"HTTP/"):  # the server closed the connection
                statuses[0] = statuses.get(0, 0) + 1
                break
            length = 0
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value.strip())
            if length:
                await reader.readexactly(length)
            latencies.append((time.perf_counter() - started) * 1000)
            status = int(status_line.split()[1])
            statuses[status] = statuses.get(status, 0) + 1
    finally:
        writer.close()


async def _run(
    base: str, path: str, headers: dict[str, str], concurrency: int, seconds: float, cutoff: bool
) -> LoadResult:
    parts = urlsplit(base)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{head}\r\n".encode()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    started = time.perf_counter()
    until = started + seconds
    workers = [
        asyncio.create_task(_worker(host, port, request, until, latencies, statuses))
        for _ in range(concurrency)
    ]
    if cutoff:  # requests still unanswered when the time is up are dropped, not waited for
        _done, pending = await asyncio.wait(workers, timeout=seconds + 0.5)
        for task in pending:
            task.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    else:
        await asyncio.gather(*workers)
    elapsed = min(time.perf_counter() - started, seconds + 0.5) if cutoff else time.perf_counter() - started
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    return LoadResult(
        path=path,
        requests=len(latencies),
        errors=sum(count for status, count in statuses.items() if status >= 400 or status == 0),
        seconds=elapsed,
        p50_ms=statistics.median(ordered) if ordered else 0.0,
        p99_ms=p99,
        statuses=statuses,
    )


def _child(args: tuple[str, str, dict[str, str], int, float, bool], out: multiprocessing.Queue) -> None:  # type: ignore[type-arg]
    out.put(asyncio.run(_run(*args)))


def measure(
    base: str,
    path: str,
    headers: dict[str, str],
    *,
    concurrency: int = 16,
    seconds: float = 10,
    cutoff: bool = False,
    wait_s: float = 120,
) -> LoadResult:
    """Load ``path`` from a second process for ``seconds``; the server runs in a process of its own.
    The requests under way when the time is up are waited for (up to ``wait_s``), or with ``cutoff``
    dropped (a load that only has to be there, whatever its own figures)."""
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    proc = context.Process(target=_child, args=((base, path, headers, concurrency, seconds, cutoff), queue))
    proc.start()
    try:
        result: LoadResult = queue.get(timeout=seconds + wait_s)
    except Empty:
        proc.kill()
        raise TimeoutError(f"{path}: no answer within {seconds + wait_s} s") from None
    proc.join(timeout=30)
    return result


def start_api(
    database_url: str,
    data_dir: Path,
    redis_url: str | None = None,
    *,
    env: dict[str, str] | None = None,
    log_file: Path | None = None,
) -> tuple[subprocess.Popen[bytes], str]:
    """``reelscope api`` on a free port over ``database_url`` (with the Redis limiter if ``redis_url``),
    logging warnings only (to ``log_file`` if given, as JSON lines), with ``env`` added to its
    environment; returns the process and its base URL once ``GET /`` answers."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    environment = {**os.environ, "REELSCOPE_DATABASE_URL": database_url, "REELSCOPE_DATA_DIR": str(data_dir)}
    environment["REELSCOPE_LOG_LEVEL"] = "warning"
    environment.pop("REELSCOPE_REDIS_URL", None)
    if redis_url:
        environment["REELSCOPE_REDIS_URL"] = redis_url
    if log_file is not None:
        environment["REELSCOPE_LOG_JSON"] = "true"
    reelscope = Path(sys.executable).with_name("reelscope")
    command = [str(reelscope), "api", "--host", "127.0.0.1", "--port", str(port)]
    out = log_file.open("ab") if log_file is not None else subprocess.DEVNULL
    proc = subprocess.Popen(command, env=environment | (env or {}), stdout=out)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            # ready: migrated, and its read workers started (a long read sent before waits for them)
            if httpx.get(base + "/readyz", timeout=2).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the API did not start")


def children(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux /proc): a server's read workers."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def cpu_seconds(*pids: int) -> float:
    """User + system CPU time of processes so far (Linux /proc); a process gone counts nothing."""
    ticks = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ticks += int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")

"""Paid work during the first start's history job (issue 33 item 5): from a paid POST to its job's start.

Starts `reelscope serve` on an empty data dir (SQLite, the SQLite job queue, the embedded consumers, the
sandbox world) exactly as `make serve` does, and, from the first answer until the first start's history
job (`trend.backfill`) has finished, sends a paid `POST /v1/satellite/video-outlier` every
``--interval`` seconds and a one-shot research agent (`POST /v1/agents`) every ``--agent-every`` lookups,
while a second client reads `GET /v1/videos/digest` (charged) in a loop, and a probe times how long
SQLite's write lock stays taken (``LockProbe``). Each job's start is its
`jobs.started_at`; the latency is that minus the moment the POST was sent. The baseline in the same run
is the same traffic for ``--after`` seconds once the history job is done.

Writes benchmarks/results/job_latency.json (one entry per run, keyed by the code measured). Run from the
repository root: .venv/bin/python benchmarks/job_latency.py [--src DIR] [--label NAME]. ``--src`` points
`PYTHONPATH` at another checkout's `src` (e.g. the commit before, for a before/after in one sitting).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import signal
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "job_latency.json"
KEY = re.compile(r"reelscope_tkn_[A-Za-z0-9_-]+")
HISTORY_TASK = "trend.backfill"


@dataclass
class Sent:
    kind: str
    phase: str
    sent_at: float  # wall clock (the jobs table's clock), seconds since the epoch
    status: int
    job_id: str | None


@dataclass
class Traffic:
    sent: list[Sent] = field(default_factory=list)
    digest_ms: dict[str, list[float]] = field(default_factory=lambda: {"during": [], "after": []})
    digest_statuses: dict[str, dict[int, int]] = field(default_factory=lambda: {"during": {}, "after": {}})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def cli(env: dict[str, str], *args: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "reelscope", *args, "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def query(db: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)) as conn:
        return conn.execute(sql, params).fetchall()


def history_state(db: Path) -> str | None:
    """The history job's status; a failed attempt that will be retried is still "running"."""
    rows = query(db, "select status, finished_at from jobs where task = ?", HISTORY_TASK)
    if not rows:
        return None
    status, finished_at = rows[0]
    return "running" if status == "failed" and finished_at is None else str(status)


def parse_time(value: str) -> float:
    return datetime.fromisoformat(value).replace(tzinfo=UTC).timestamp()


async def post_jobs(
    http: httpx.AsyncClient,
    headers: dict[str, str],
    videos: list[tuple[str, str]],
    phase: list[str],
    traffic: Traffic,
    interval: float,
    agent_every: int,
    stop: asyncio.Event,
) -> None:
    n = 0
    while not stop.is_set():
        platform, external_id = videos[n % len(videos)]
        kind = "agent" if agent_every and n % agent_every == agent_every - 1 else "video_outlier"
        sent_at = time.time()
        if kind == "agent":
            body = {"keywords": [f"bench{n}"], "platforms": ["tiktok"], "autopilot": False}
            response = await http.post("/v1/agents", json=body, headers=headers)
        else:
            body = {"platform": platform, "video_id": external_id}
            response = await http.post("/v1/satellite/video-outlier", json=body, headers=headers)
        data = response.json().get("data") or {}
        job_id = data.get("job_id") if isinstance(data, dict) else None
        traffic.sent.append(Sent(kind, phase[0], sent_at, response.status_code, job_id))
        n += 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), interval)


async def read_digests(
    http: httpx.AsyncClient, headers: dict[str, str], phase: list[str], traffic: Traffic, stop: asyncio.Event
) -> None:
    while not stop.is_set():
        started = time.perf_counter()
        response = await http.get("/v1/videos/digest", params={"limit": 10}, headers=headers)
        traffic.digest_ms[phase[0]].append((time.perf_counter() - started) * 1000)
        statuses = traffic.digest_statuses[phase[0]]
        statuses[response.status_code] = statuses.get(response.status_code, 0) + 1
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.5)


class LockProbe:
    """How long SQLite's write lock stays taken: every ``every`` seconds, from a connection of its own,
    ``BEGIN IMMEDIATE`` without waiting (and at once ``ROLLBACK``); a run of refusals is one hold, timed
    from the first refusal to the first success (so a hold is seen ``every`` late at most). Taking the
    lock for a few microseconds 20 times a second is the probe's whole cost to the server."""

    def __init__(self, db: Path, every: float = 0.05) -> None:
        self.db, self.every = db, every
        self.holds: dict[str, list[float]] = {"during": [], "after": []}
        self.phase = ["during"]
        self.stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self.stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def _run(self) -> None:
        conn = sqlite3.connect(str(self.db), timeout=0, isolation_level=None)
        busy_since: float | None = None
        while not self.stop.wait(self.every):
            try:
                conn.execute("BEGIN IMMEDIATE")
                conn.execute("ROLLBACK")
            except sqlite3.OperationalError:
                busy_since = busy_since or time.monotonic()
                continue
            if busy_since is not None:
                self.holds[self.phase[0]].append(time.monotonic() - busy_since)
                busy_since = None
        conn.close()


def summary(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    return {
        "n": len(ordered),
        "p50": round(statistics.median(ordered), 3),
        "p90": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 3),
        "p99": round(ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))], 3),
        "max": round(ordered[-1], 3),
    }


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix="reelscope-job-latency-"))
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(args.src).resolve()),
        "REELSCOPE_DATA_DIR": str(work / "data"),
        "REELSCOPE_HOST": "127.0.0.1",
        "REELSCOPE_PORT": str(port),
    }
    for name in ("REELSCOPE_DATABASE_URL", "REELSCOPE_REDIS_URL"):
        env.pop(name, None)
    db = work / "data" / "reelscope.db"
    out = (work / "serve.out").open("w")
    started = time.monotonic()
    server = subprocess.Popen(
        [sys.executable, "-m", "reelscope", "serve"], env=env, stdout=out, stderr=subprocess.STDOUT
    )
    base = f"http://127.0.0.1:{port}"
    traffic = Traffic()
    phase = ["during"]  # shared by the traffic and the probe: "after" once the history job is done
    probe = LockProbe(db)
    probe.phase = phase
    figures: dict[str, Any] = {}
    try:
        async with httpx.AsyncClient(base_url=base, timeout=120) as http:
            while True:
                with contextlib.suppress(httpx.TransportError):
                    if (await http.get("/")).status_code == 200:
                        break
                if server.poll() is not None:
                    raise RuntimeError(f"serve exited; see {work / 'serve.out'}")
                await asyncio.sleep(0.2)
            figures["first_answer_s"] = round(time.monotonic() - started, 1)
            # a team of its own with room for the traffic (the demo team's key stays unused)
            await asyncio.to_thread(cli, env, "admin", "team", "create", "bench", "--credits", "10000000")
            issued = await asyncio.to_thread(cli, env, "admin", "key", "create", "--team", "bench")
            await asyncio.to_thread(
                cli,
                env,
                "admin",
                "limits",
                "set",
                "--team",
                "bench",
                "--feature",
                "satellite_lookup",
                "--per-minute",
                "1000",
                "--per-hour",
                "100000",
                "--per-day",
                "1000000",
            )
            headers = {"Authorization": f"Bearer {issued['api_key']}"}
            videos = [
                (str(p), str(e))
                for p, e in query(db, "select platform, external_id from videos order by id limit 200")
            ]
            probe.start()
            stop = asyncio.Event()
            tasks = [
                asyncio.create_task(
                    post_jobs(http, headers, videos, phase, traffic, args.interval, args.agent_every, stop)
                ),
                asyncio.create_task(read_digests(http, headers, phase, traffic, stop)),
            ]
            history_started = time.monotonic()
            while history_state(db) not in ("completed", "failed", "expired"):
                if server.poll() is not None:
                    raise RuntimeError(f"serve exited; see {work / 'serve.out'}")
                if "ten_day_groups_per_region_s_after_first_answer" not in figures:
                    groups = query(db, "select region, count(*) from trend_groups group by region")
                    if len(groups) >= 4 and min(n for _, n in groups) >= 10:
                        figures["ten_day_groups_per_region_s_after_first_answer"] = round(
                            time.monotonic() - history_started, 1
                        )
                await asyncio.sleep(1)
            figures["history_job_s_after_first_answer"] = round(time.monotonic() - history_started, 1)
            figures["history_job_status"] = history_state(db)
            phase[0] = "after"
            await asyncio.sleep(args.after)
            stop.set()
            await asyncio.gather(*tasks)
            # let the last jobs start before reading their rows
            deadline = time.monotonic() + 120
            ids = [s.job_id for s in traffic.sent if s.job_id]
            while time.monotonic() < deadline:
                marks = ",".join("?" * len(ids))
                waiting = query(
                    db, f"select count(*) from jobs where id in ({marks}) and started_at is null", *ids
                )
                if not waiting[0][0]:
                    break
                await asyncio.sleep(1)
    finally:
        probe.close()
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()
        out.close()
    rows = {
        job_id: (task, started_at)
        for job_id, task, started_at in query(
            db, f"select id, task, started_at from jobs where id in ({','.join('?' * len(ids))})", *ids
        )
    }
    by_phase: dict[str, dict[str, Any]] = {}
    for phase_name in ("during", "after"):
        sent = [s for s in traffic.sent if s.phase == phase_name]
        latencies: dict[str, list[float]] = {"all": []}
        never = 0
        for item in sent:
            if item.job_id is None or rows.get(item.job_id, ("", None))[1] is None:
                never += item.job_id is not None
                continue
            delay = parse_time(rows[item.job_id][1]) - item.sent_at
            latencies["all"].append(delay)
            latencies.setdefault(item.kind, []).append(delay)
        statuses: dict[str, int] = {}
        for item in sent:
            statuses[str(item.status)] = statuses.get(str(item.status), 0) + 1
        by_phase[phase_name] = {
            "post_to_job_start_s": {kind: summary(values) for kind, values in latencies.items()},
            "jobs_never_started": never,
            "post_statuses": statuses,
            "digest_ms": summary(traffic.digest_ms[phase_name]),
            # seconds the write lock stayed taken, each time the probe found it taken
            "write_lock_holds_s": {
                **summary(probe.holds[phase_name]),
                "over_1s": sum(1 for h in probe.holds[phase_name] if h > 1),
            },
            "digest_statuses": {str(k): v for k, v in traffic.digest_statuses[phase_name].items()},
        }
    figures["phases"] = by_phase
    figures["serve_output"] = str(work / "serve.out")
    return figures


def git_commit(src: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(src), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    return done.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--src", default=str(ROOT / "src"), help="the src directory whose code serve runs")
    parser.add_argument("--label", default=None, help="the name of this run in the results file")
    parser.add_argument("--interval", type=float, default=2.0, help="seconds between paid POSTs")
    parser.add_argument("--agent-every", type=int, default=10, help="every Nth POST is an agent (0: none)")
    parser.add_argument("--after", type=float, default=60.0, help="seconds of the same traffic afterwards")
    args = parser.parse_args()
    with open("/proc/loadavg") as loadavg:
        load_before = loadavg.read().split()[:3]
    figures = asyncio.run(run(args))
    with open("/proc/loadavg") as loadavg:
        load_after = loadavg.read().split()[:3]
    src = Path(args.src).resolve()
    entry = {
        "commit": git_commit(src),
        "src": str(src),
        "at": datetime.now(UTC).isoformat(timespec="seconds"),
        "cpus": os.cpu_count(),
        "load_average_before_after": [load_before, load_after],
        **figures,
    }
    results: dict[str, Any] = {"benchmark": "job_latency", "runs": {}}
    if RESULTS.exists():
        results = json.loads(RESULTS.read_text())
    results["runs"][args.label or str(entry["commit"])[:10]] = entry
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(entry, indent=2))


if __name__ == "__main__":
    main()

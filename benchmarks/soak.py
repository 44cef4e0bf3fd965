"""Soak under restarts (issue 31 item 2): mixed traffic from several keys while the server processes are
stopped with SIGTERM and SIGKILL in turn, then what must hold afterwards. Not in CI; ``make bench`` runs
it without ``--mode``, which does nothing.

Mode ``sqlite``: ``reelscope serve`` (SQLite, the SQLite job queue, the embedded consumers) on an empty
data dir, first start included; it is restarted every ``--restart-every`` seconds, SIGTERM and SIGKILL
alternately. Mode ``pg``: ``reelscope serve`` once on a fresh PostgreSQL database with Redis (the first
start: catalog and trend history), then ``reelscope api`` + ``reelscope worker`` on them; the API is
restarted in the first half of the run (the worker lives through it) and the worker in the second half
(the API lives through it), each SIGTERM and SIGKILL alternately.

Traffic, from ``--teams`` teams each with a key of its own (ample credits and limits), one client loop per
team with a random pause of ``--pause`` seconds between requests: the charged reads (digests, hashtags,
trends, sounds, hooks), free reads (balance, agents, runs, tracking, delivery log), one-shot agents (and
their deletion), creator, hashtag and video-outlier lookups with their status polls, tracked creators and
webhook test sends. Each team has two webhooks (all its events; lookups only) to a local HTTPS receiver
(uvicorn in a thread of this process, the tests' CA, ``REELSCOPE_WEBHOOK_ALLOWED_NETWORKS=127.0.0.0/8``,
the test suite's recipe) that answers 500 to 20% of the attempts at random and 200 to the rest.

After ``--minutes`` of traffic the processes run ``--drain`` seconds more without traffic or restarts
(the 30 s and 2 min retries, leases running out), then:

- ``reelscope admin credits verify``: every balance equals its ledger;
- jobs: none ``processing`` past its lease (also sampled every 30 s during the run), pending backlog;
- webhooks: every outbox event of the teams (and every public one) fanned out to every subscribed endpoint;
  every delivery delivered (the receiver answered 2xx for its id) or still scheduled (``pending`` with a
  next attempt), none lost; test sends answered 202 found among the deliveries; an id answered 2xx twice
  at one endpoint is inside the at-least-once window (ADR 0010: a process stopped between the attempt and
  its record) when a process that delivers was stopped within 30 s after the first 2xx, else outside;
- 5xx and transport errors: inside a restart (from the signal to 10 s after the process answers again)
  or outside;
- RSS (the process and its children, /proc) every 5 s: the least-squares slope of each process's lives,
  from 60 s after its start (the long-lived ones: the worker in the pg run's first half, the API in its
  second).

Results per mode in benchmarks/results/soak.json, and soak.md from all recorded modes.
Run: PYTHONPATH=src .venv/bin/python benchmarks/soak.py --mode sqlite|pg [--minutes 30]
     [--restart-every 120] [--drain 150] [--teams 3] [--pause 0.3,1.0] [--label NAME]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import httpx
import uvicorn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select, text  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402
from sqlalchemy.pool import NullPool  # noqa: E402
from tests.webhook.receiver import TlsFiles, make_tls  # noqa: E402

from benchmarks.loadgen import children  # noqa: E402
from benchmarks.meta import machine  # noqa: E402
from reelscope import models  # noqa: E402, F401
from reelscope.auth import service as auth_service  # noqa: E402
from reelscope.kit.db import Database, create_database  # noqa: E402
from reelscope.models import (  # noqa: E402
    AgentRun,
    Creator,
    Hashtag,
    Job,
    LookupRun,
    OutboxCursor,
    OutboxEvent,
    Video,
    WebhookDelivery,
    WebhookEndpoint,
)

RESULTS = ROOT / "benchmarks" / "results"
PG_ADMIN_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"
PG_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/reelscope_soak"
REDIS_URL = "redis://127.0.0.1:6379/13"
REELSCOPE = Path(sys.executable).with_name("reelscope")
FEATURES = (
    "creator_lookup",
    "satellite_lookup",
    "hashtag_stats",
    "video_digests",
    "trends",
    "emerging_trends",
    "legacy_create",
    "legacy_read",
    "default",
)
TEAM_EVENTS = [
    "content_research_agent.run.completed",
    "satellite.lookup.completed",
    "tracking.cycle.completed",
    "tracking.outlier_video.detected",
    "tracking.paused",
    "trends.daily.completed",
    "trends.region.completed",
]
LOOKUP_EVENTS = ["satellite.lookup.completed"]
TEST_EVENTS = [
    "satellite.lookup.completed",
    "content_research_agent.run.completed",
    "tracking.cycle.completed",
]
FAIL_SHARE = 0.2
# a 5xx or a refused connection this long after the restarted process answers again is still the restart's
AFTER_RESTART_S = 10.0
# an id answered 2xx twice: a process that delivers stopped this long after the first 2xx at most
# (the attempt is recorded as soon as the answer is in; a receiver may take 30 s to answer, §6.1)
DUPLICATE_WINDOW_S = 30.0
# a job processing this long past its lease (the dispatcher's interval and some slack) is stuck
LEASE_SLACK_S = 60.0
RSS_EVERY_S = 5.0
RSS_WARMUP_S = 60.0


# --- the receiver --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Hit:
    endpoint: str  # the receiver path: /hook/<team>/<all|lookups>
    delivery_id: str
    event: str
    at: float  # wall clock
    status: int


class FlakyReceiver:
    """Answers 500 to ``FAIL_SHARE`` of the requests at random, 200 to the rest; records every one."""

    def __init__(self, seed: int) -> None:
        self.hits: list[Hit] = []
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
        with self._lock:
            status = 500 if self._rng.random() < FAIL_SHARE else 200
            self.hits.append(
                Hit(
                    scope["path"],
                    headers.get("service-event-id", ""),
                    headers.get("service-event-type", ""),
                    time.time(),
                    status,
                )
            )
        await send({"type": "http.response.start", "status": status, "headers": []})
        await send({"type": "http.response.body", "body": b"ok"})


class ReceiverThread:
    def __init__(self, app: FlakyReceiver, tls: TlsFiles) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.port = int(self._sock.getsockname()[1])
        config = uvicorn.Config(
            app,
            ssl_certfile=str(tls.cert),
            ssl_keyfile=str(tls.key),
            log_level="critical",
            access_log=False,
            lifespan="off",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def start(self) -> None:
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the receiver did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._sock.close()


# --- the server processes ------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


@dataclass
class Restart:
    process: str
    signal: str
    sent_at: float
    exited_after_s: float
    up_at: float
    orphans: list[str]  # children still alive 10 s after their parent was killed: pid and command


@dataclass
class Server:
    """One ``reelscope`` process the soak starts, stops and starts again; ``base`` if it serves HTTP."""

    name: str
    command: list[str]
    env: dict[str, str]
    log: Path
    base: str | None = None
    proc: subprocess.Popen[bytes] | None = None
    life: int = 0
    started_at: float = 0.0
    next_signal: signal.Signals = signal.SIGTERM

    def start(self) -> None:
        with self.log.open("ab") as out:
            self.proc = subprocess.Popen(
                [str(REELSCOPE), *self.command], env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        self.started_at = time.time()

    def wait_up(self, deadline_s: float = 600) -> float:
        """Until ``GET /`` answers 200 (a worker: at once); returns the wall time."""
        assert self.proc is not None
        deadline = time.monotonic() + deadline_s
        while self.base is not None:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}; see {self.log}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(self.base + "/", timeout=2).status_code == 200:
                    break
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.name} did not answer; see {self.log}")
            time.sleep(0.2)
        return time.time()

    def stop(self, sig: signal.Signals, timeout: float = 60) -> tuple[float, list[str]]:
        """Send ``sig``; wait for the exit (SIGKILL after ``timeout``). Returns the seconds to the exit and
        the children left alive (killed then, after being recorded)."""
        assert self.proc is not None
        kids = children(self.proc.pid)
        started = time.monotonic()
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        exited = time.monotonic() - started
        orphans: list[str] = []
        deadline = time.monotonic() + 10
        while kids and time.monotonic() < deadline:
            kids = [pid for pid in kids if Path(f"/proc/{pid}").exists() and not _zombie(pid)]
            time.sleep(0.2)
        for pid in kids:
            orphans.append(f"{pid} {_command(pid)}")
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        return exited, orphans

    def restart(self) -> Restart:
        sig = self.next_signal
        self.next_signal = signal.SIGKILL if sig == signal.SIGTERM else signal.SIGTERM
        sent_at = time.time()
        exited, orphans = self.stop(sig)
        self.life += 1
        self.start()
        up_at = self.wait_up()
        return Restart(self.name, sig.name, sent_at, round(exited, 2), up_at, orphans)


def _command(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:160].strip()
    return "?"


def log_errors(logs: Path) -> dict[str, Any]:
    """Error lines of the servers' logs by event and error type (console format: ``[error ] event k=v``)."""
    found: Counter[str] = Counter()
    for log in sorted(logs.glob("*.log")):
        for line in log.read_text(errors="replace").splitlines():
            plain = re.sub(r"\x1b\[[0-9;]*m", "", line)
            match = re.search(r"\[(error|critical)\s*\]\s+(\S+)(.*)", plain)
            if match:
                kind = re.search(r"error_type=(\S+)", match.group(3))
                task = re.search(r"task=(\S+)", match.group(3))
                parts = [
                    log.stem,
                    match.group(2),
                    kind.group(1) if kind else "",
                    task.group(1) if task else "",
                ]
                found[" ".join(p for p in parts if p)] += 1
    return dict(found.most_common())


def memory_reports(logs: Path) -> dict[str, list[str]]:
    """Each server log's ``memory.report`` lines (REELSCOPE_MEMORY_REPORT_SECONDS), the last three."""
    found: dict[str, list[str]] = {}
    for log in sorted(logs.glob("*.log")):
        lines = [
            re.sub(r"\x1b\[[0-9;]*m", "", line)
            for line in log.read_text(errors="replace").splitlines()
            if "memory.report" in line
        ]
        if lines:
            found[log.stem] = lines[-3:]
    return found


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


# --- traffic -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    at: float  # wall clock when sent
    op: str
    status: int  # 0: no answer (connection refused, reset, timeout)
    ms: float
    code: str | None  # the error body's code of a 4xx/5xx
    error: str | None = None


@dataclass
class Catalog:
    creators: list[tuple[str, str]]
    videos: list[tuple[str, str]]
    hashtags: list[str]


@dataclass
class TeamState:
    name: str
    api_key: str
    team_id: str
    webhooks: dict[str, str] = field(default_factory=dict)  # receiver path -> webhook id
    agents: list[str] = field(default_factory=list)
    polls: list[str] = field(default_factory=list)
    tracked: int = 0
    test_ids: list[str] = field(default_factory=list)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"}


def ops(team: TeamState, catalog: Catalog, rng: random.Random) -> list[tuple[str, float]]:
    """The mix: (operation, weight)."""
    return [
        ("digest", 6),
        ("platform_digest", 3),
        ("hashtags", 4),
        ("hashtag_performance", 2),
        ("trends", 3),
        ("trends_digest", 2),
        ("trends_emerging", 1),
        ("sounds_trending", 2),
        ("sounds_search", 2),
        ("hooks_trending", 2),
        ("hooks_search", 2),
        ("hooks_library", 2),
        ("balance", 3),
        ("agents_list", 2),
        ("agent_detail", 2 if team.agents else 0),
        ("agent_videos", 1 if team.agents else 0),
        ("agent_runs", 1 if team.agents else 0),
        ("agent_create", 1.2),
        ("agent_delete", 0.3 if len(team.agents) > 3 else 0),
        ("creator_lookup", 2),
        ("hashtag_lookup", 1),
        ("video_outlier", 2),
        ("lookup_poll", 3 if team.polls else 0),
        ("satellite_runs", 1),
        ("tracking_create", 0.4 if team.tracked < 10 else 0),
        ("tracking_list", 1),
        ("webhook_test", 1.5),
        ("delivery_log", 1),
    ]


async def one_request(
    http: httpx.AsyncClient, team: TeamState, catalog: Catalog, op: str, rng: random.Random
) -> httpx.Response:
    today = datetime.now(UTC).date()
    tag = rng.choice(catalog.hashtags)
    word = rng.choice(catalog.hashtags)
    platform, handle = rng.choice(catalog.creators)
    h = team.headers
    match op:
        case "digest":
            return await http.get("/v1/videos/digest", params={"limit": 20}, headers=h)
        case "platform_digest":
            return await http.get(
                f"/v1/{rng.choice(['tiktok', 'youtube', 'instagram'])}/videos/digest", headers=h
            )
        case "hashtags":
            start = today - timedelta(days=rng.choice([1, 7, 30]))
            return await http.get(
                "/v1/hashtags",
                params={"start_date": str(start), "end_date": str(today), "limit": 20},
                headers=h,
            )
        case "hashtag_performance":
            return await http.get(f"/v1/hashtags/{tag}/performance", headers=h)
        case "trends":
            return await http.get(
                "/v1/trends", params={"region": rng.choice(["global", "us", "gb", "au"])}, headers=h
            )
        case "trends_digest":
            return await http.get("/v1/trends/digest", params={"region": rng.choice(["us", "gb"])}, headers=h)
        case "trends_emerging":
            return await http.get("/v1/trends/emerging", headers=h)
        case "sounds_trending":
            return await http.get("/v1/sounds/trending", headers=h)
        case "sounds_search":
            return await http.get("/v1/sounds/search", params={"q": word}, headers=h)
        case "hooks_trending":
            return await http.get("/v1/hooks/trending", headers=h)
        case "hooks_search":
            return await http.get("/v1/hooks/search", params={"q": word}, headers=h)
        case "hooks_library":
            return await http.get("/v1/hooks/library", headers=h)
        case "balance":
            return await http.get("/v1/account/balance", headers=h)
        case "agents_list":
            return await http.get("/v1/agents", params={"limit": 20}, headers=h)
        case "agent_detail":
            return await http.get(f"/v1/agents/{rng.choice(team.agents)}", headers=h)
        case "agent_videos":
            return await http.get(f"/v1/agents/{rng.choice(team.agents)}/videos", headers=h)
        case "agent_runs":
            return await http.get(f"/v1/agents/{rng.choice(team.agents)}/runs", headers=h)
        case "agent_create":
            body = {
                "keywords": rng.sample(catalog.hashtags, 2),
                "platforms": rng.sample(["tiktok", "youtube", "instagram"], rng.choice([1, 2])),
                "autopilot": False,
            }
            # with an Idempotency-Key, as a careful client sends a paid POST (its record is kept a day)
            response = await http.post("/v1/agents", json=body, headers={**h, "Idempotency-Key": uuid4().hex})
            if response.status_code == 201 or response.status_code == 200:
                team.agents.append(response.json()["data"]["id"])
            return response
        case "agent_delete":
            agent = team.agents.pop(0)
            return await http.delete(f"/v1/agents/{agent}", headers=h)
        case "creator_lookup":
            response = await http.get(f"/v1/satellite/creator/{platform}/{handle}", headers=h)
            _keep_poll(team, response)
            return response
        case "hashtag_lookup":
            response = await http.get(
                f"/v1/satellite/hashtags/{rng.choice(['tiktok', 'youtube'])}/{tag}", headers=h
            )
            _keep_poll(team, response)
            return response
        case "video_outlier":
            platform, video_id = rng.choice(catalog.videos)
            response = await http.post(
                "/v1/satellite/video-outlier", json={"platform": platform, "video_id": video_id}, headers=h
            )
            _keep_poll(team, response)
            return response
        case "lookup_poll":
            return await http.get(rng.choice(team.polls[-30:]), headers=h)
        case "satellite_runs":
            return await http.get("/v1/satellite/runs", headers=h)
        case "tracking_create":
            response = await http.post(
                "/v1/tracking/creators", json={"platform": platform, "handle": handle}, headers=h
            )
            if response.status_code == 201:
                team.tracked += 1
            return response
        case "tracking_list":
            return await http.get("/v1/tracking/creators", headers=h)
        case "webhook_test":
            webhook = rng.choice(list(team.webhooks.values()))
            response = await http.post(
                f"/v1/webhooks/{webhook}/test", json={"event": rng.choice(TEST_EVENTS)}, headers=h
            )
            if response.status_code == 202:
                team.test_ids.append(
                    response.json()["data"]["id"] if "data" in response.json() else response.json()["id"]
                )
            return response
        case "delivery_log":
            webhook = rng.choice(list(team.webhooks.values()))
            return await http.get(f"/v1/webhooks/{webhook}/deliveries", headers=h)
    raise ValueError(op)


def _keep_poll(team: TeamState, response: httpx.Response) -> None:
    if response.status_code in (200, 202):
        data = response.json().get("data")
        if isinstance(data, dict) and isinstance(data.get("poll_url"), str):
            team.polls.append(data["poll_url"])


async def team_loop(
    base: list[str],
    team: TeamState,
    catalog: Catalog,
    answers: list[Answer],
    until: float,
    pause: tuple[float, float],
    seed: int,
) -> None:
    """One team's client: a request, a pause, until ``until`` (wall clock). ``base[0]`` is the API's address,
    read per request (it stays the same across restarts)."""
    rng = random.Random(seed)
    async with httpx.AsyncClient(base_url=base[0], timeout=httpx.Timeout(90.0)) as http:
        while time.time() < until:
            choices = [(op, w) for op, w in ops(team, catalog, rng) if w > 0]
            op = rng.choices([c[0] for c in choices], weights=[c[1] for c in choices])[0]
            sent = time.time()
            started = time.perf_counter()
            try:
                response = await one_request(http, team, catalog, op, rng)
            except httpx.HTTPError as exc:
                answers.append(
                    Answer(sent, op, 0, (time.perf_counter() - started) * 1000, None, type(exc).__name__)
                )
            else:
                code = None
                if response.status_code >= 400:
                    with contextlib.suppress(ValueError, AttributeError):
                        code = response.json().get("code")
                error = response.text[:300] if response.status_code >= 500 else None
                answers.append(
                    Answer(
                        sent, op, response.status_code, (time.perf_counter() - started) * 1000, code, error
                    )
                )
            await asyncio.sleep(rng.uniform(*pause))


# --- database reads ------------------------------------------------------------------------------


async def sample_catalog(db: Database) -> Catalog:
    async with db.transaction(write=False) as session:
        creators = (await session.execute(select(Creator.platform, Creator.handle).limit(400))).all()
        videos = (await session.execute(select(Video.platform, Video.external_id).limit(400))).all()
        tags = (await session.scalars(select(Hashtag.key).limit(300))).all()
    words = [t for t in tags if t.isascii() and t.isalnum() and len(t) >= 3]
    return Catalog(
        creators=[(p, h) for p, h in creators if p in ("tiktok", "youtube", "instagram")],
        videos=[(p, e) for p, e in videos],
        hashtags=words or ["music"],
    )


async def make_team(db: Database, name: str) -> TeamState:
    now = datetime.now(UTC)
    async with db.transaction() as session:
        team = await auth_service.create_team(session, name, 10**9, now)
        for feature in FEATURES:
            await auth_service.set_limits(
                session, team, feature, per_minute=100_000, per_hour=1_000_000, per_day=10_000_000, at=now
            )
        issued = await auth_service.issue_key(session, team, now)
    return TeamState(name=name, api_key=issued.api_key, team_id=team.id)


async def add_webhooks(base: str, team: TeamState, receiver_port: int) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        for kind, events in (("all", TEAM_EVENTS), ("lookups", LOOKUP_EVENTS)):
            path = f"/hook/{team.name}/{kind}"
            response = await http.post(
                "/v1/webhooks",
                json={"url": f"https://127.0.0.1:{receiver_port}{path}", "enabled_events": events},
                headers=team.headers,
            )
            response.raise_for_status()
            body = response.json()
            team.webhooks[path] = (body.get("data") or body)["id"]


async def stuck_jobs(db: Database, job_lease_s: float) -> dict[str, Any]:
    """Jobs processing past their lease (with the dispatcher's slack), and the pending backlog."""
    now = datetime.now(UTC)
    async with db.transaction(write=False) as session:
        processing = (
            await session.execute(
                select(Job.id, Job.task, Job.locked_until, Job.started_at).where(Job.status == "processing")
            )
        ).all()
        pending = (
            await session.execute(select(Job.task, Job.next_attempt_at).where(Job.status == "pending"))
        ).all()
    stuck = [
        {"id": i, "task": t, "past_lease_s": round((now - lu).total_seconds(), 1)}
        for i, t, lu, _s in processing
        if lu is None or (now - lu).total_seconds() > LEASE_SLACK_S
    ]
    due = [(t, (now - at).total_seconds()) for t, at in pending if at is not None and at < now]
    return {
        "processing": len(processing),
        "stuck_past_lease": stuck,
        "pending": len(pending),
        "pending_due": len(due),
        "oldest_pending_due_s": round(max((s for _t, s in due), default=0.0), 1),
        "pending_due_by_task": dict(Counter(t for t, _s in due)),
    }


async def job_summary(db: Database) -> dict[str, Any]:
    async with db.transaction(write=False) as session:
        by = (
            await session.execute(select(Job.task, Job.status, func.count()).group_by(Job.task, Job.status))
        ).all()
        failed = (
            await session.execute(
                select(Job.task, Job.error, Job.attempts).where(Job.status.in_(["failed", "expired"]))
            )
        ).all()
        runs = (await session.execute(select(AgentRun.status, func.count()).group_by(AgentRun.status))).all()
        lookups = (
            await session.execute(select(LookupRun.status, func.count()).group_by(LookupRun.status))
        ).all()
    per_task: dict[str, dict[str, int]] = defaultdict(dict)
    for task, status, n in by:
        per_task[task][status] = n
    return {
        "jobs_by_task": dict(per_task),
        "failed_or_expired": [
            {"task": t, "attempts": a, "error": (e or {}).get("code") or str(e)[:200]} for t, e, a in failed
        ][:30],
        "agent_runs": {s: n for s, n in runs},
        "lookup_runs": {s: n for s, n in lookups},
    }


async def webhook_check(
    db: Database, teams: list[TeamState], hits: list[Hit], restarts: list[Restart], deliverers: set[str]
) -> dict[str, Any]:
    """Events fanned out to every subscribed endpoint; deliveries delivered or scheduled; duplicates."""
    by_path = {path: team for team in teams for path in team.webhooks}
    endpoint_ids = {wid: path for team in teams for path, wid in team.webhooks.items()}
    team_ids = {team.team_id for team in teams}
    async with db.transaction(write=False) as session:
        endpoints = (
            await session.scalars(select(WebhookEndpoint).where(WebhookEndpoint.id.in_(endpoint_ids)))
        ).all()
        cursor = await session.get(OutboxCursor, "webhooks")
        events = (
            await session.execute(
                select(
                    OutboxEvent.sequence,
                    OutboxEvent.id,
                    OutboxEvent.name,
                    OutboxEvent.team_id,
                    OutboxEvent.created_at,
                )
            )
        ).all()
        deliveries = (
            await session.execute(
                select(
                    WebhookDelivery.id,
                    WebhookDelivery.endpoint_id,
                    WebhookDelivery.event_id,
                    WebhookDelivery.status,
                    WebhookDelivery.next_attempt_at,
                    WebhookDelivery.attempts,
                    WebhookDelivery.created_at,
                ).where(WebhookDelivery.endpoint_id.in_(endpoint_ids))
            )
        ).all()
    up_to = cursor.sequence if cursor is not None else 0
    reached = {(event_id, endpoint_id) for _i, endpoint_id, event_id, *_ in deliveries}
    missing: list[dict[str, Any]] = []
    not_fanned_out = 0
    public = {"trends.daily.completed", "trends.region.completed"}
    for sequence, event_id, name, team_id, created_at in events:
        if team_id is not None and team_id not in team_ids:
            continue
        for endpoint in endpoints:
            if name not in endpoint.enabled_events or endpoint.created_at > created_at:
                continue
            if name not in public and endpoint.team_id != team_id:
                continue
            if sequence > up_to:
                not_fanned_out += 1
            elif (event_id, endpoint.id) not in reached:
                missing.append({"event_id": event_id, "event": name, "endpoint": endpoint_ids[endpoint.id]})

    ok: dict[str, list[float]] = defaultdict(list)
    attempts_seen: Counter[str] = Counter()
    first_hit: dict[str, float] = {}
    for hit in hits:
        first_hit.setdefault(hit.delivery_id, hit.at)
        attempts_seen[hit.delivery_id] += 1
        if 200 <= hit.status < 300:
            ok[hit.delivery_id].append(hit.at)
    statuses: Counter[str] = Counter()
    recorded_not_received: list[str] = []
    received_not_recorded = 0
    pending_unscheduled: list[str] = []
    # from a delivery row's creation (the fan-out, or a test send) to its first attempt at the receiver:
    # the first attempt is immediate (§6.1); a pump starved of its lane shows here
    lags = sorted(
        first_hit[d[0]] - d[6].timestamp() for d in deliveries if d[0] in first_hit and d[6] is not None
    )
    never_attempted = sum(1 for d in deliveries if d[0] not in first_hit)
    oldest_unfanned = max(
        (
            time.time() - e[4].timestamp()
            for e in events
            if e[0] > up_to and (e[3] is None or e[3] in team_ids)
        ),
        default=0.0,
    )
    for delivery_id, _endpoint_id, _event_id, status, next_at, _attempts, _created in deliveries:
        statuses[status] += 1
        if status == "delivered" and delivery_id not in ok:
            recorded_not_received.append(delivery_id)
        if status == "pending":
            if delivery_id in ok:
                received_not_recorded += 1  # a stopped process's attempt: sent again (at-least-once)
            if next_at is None:
                pending_unscheduled.append(delivery_id)
    stops = [r.sent_at for r in restarts if r.process in deliverers]
    inside, outside = [], []
    for delivery_id, times in ok.items():
        if len(times) < 2:
            continue
        first = min(times)
        entry = {"delivery_id": delivery_id, "received_2xx": len(times), "first_at": first}
        (inside if any(first - 1 <= s <= first + DUPLICATE_WINDOW_S for s in stops) else outside).append(
            entry
        )
    known = {d[0] for d in deliveries}
    tests_sent = [i for team in teams for i in team.test_ids]
    return {
        "endpoints": {
            endpoint_ids[e.id]: {"status": e.status, "consecutive_failures": e.consecutive_failures}
            for e in endpoints
        },
        "events_considered": sum(1 for e in events if e[3] is None or e[3] in team_ids),
        "outbox_cursor": up_to,
        "event_endpoint_pairs_not_fanned_out_yet": not_fanned_out,
        "oldest_event_not_fanned_out_s": round(oldest_unfanned, 1),
        "first_attempt_lag_s": {
            "p50": round(lags[len(lags) // 2], 2) if lags else None,
            "p99": round(lags[min(len(lags) - 1, int(len(lags) * 0.99))], 2) if lags else None,
            "max": round(lags[-1], 2) if lags else None,
        },
        "deliveries_never_attempted": never_attempted,
        "lost_no_delivery_row": missing[:50],
        "lost_no_delivery_row_count": len(missing),
        "deliveries_by_status": dict(statuses),
        "pending_without_next_attempt": pending_unscheduled[:50],
        "recorded_delivered_never_received_2xx": recorded_not_received[:50],
        "received_2xx_record_pending": received_not_recorded,
        "receiver_requests": len(hits),
        "receiver_500s": sum(1 for h in hits if h.status >= 500),
        "receiver_requests_unknown_id": sum(1 for h in hits if h.delivery_id not in known),
        "test_sends_accepted": len(tests_sent),
        "test_sends_without_delivery_row": [i for i in tests_sent if i not in known][:50],
        "duplicates_inside_window": len(inside),
        "duplicates_outside_window": outside[:50],
        "max_attempts_one_id": max(attempts_seen.values(), default=0),
        "unrouted_paths": sorted({h.endpoint for h in hits if h.endpoint not in by_path}),
    }


# --- analysis ------------------------------------------------------------------------------------


def restart_windows(restarts: list[Restart]) -> list[tuple[float, float, str]]:
    """The instants a process that answers HTTP was away: a worker's restart excuses no answer."""
    return [
        (r.sent_at - 0.5, r.up_at + AFTER_RESTART_S, r.process) for r in restarts if r.process != "worker"
    ]


def classify(answers: list[Answer], restarts: list[Restart], t0: float) -> dict[str, Any]:
    windows = restart_windows(restarts)
    per_op: dict[str, Counter[str]] = defaultdict(Counter)
    latencies: dict[str, list[float]] = defaultdict(list)
    bad_inside: Counter[str] = Counter()
    bad_outside: list[dict[str, Any]] = []
    for a in answers:
        per_op[a.op][str(a.status)] += 1
        if 200 <= a.status < 300:
            latencies[a.op].append(a.ms)
        if a.status == 0 or a.status >= 500:
            near = [w for w in windows if w[0] <= a.at + a.ms / 1000 and a.at <= w[1]]
            kind = "no_answer" if a.status == 0 else f"{a.status}"
            if near:
                bad_inside[f"{kind} ({near[0][2]} restart)"] += 1
            else:
                bad_outside.append(
                    {
                        "t_s": round(a.at - t0, 1),
                        "op": a.op,
                        "status": a.status,
                        "code": a.code,
                        "error": a.error,
                    }
                )
    return {
        "requests": len(answers),
        "statuses": dict(Counter(str(a.status) for a in answers)),
        "per_op": {op: dict(c) for op, c in sorted(per_op.items())},
        "p50_p99_ms_2xx": {
            op: [round(statistics.median(v), 1), round(sorted(v)[min(len(v) - 1, int(len(v) * 0.99))], 1)]
            for op, v in sorted(latencies.items())
        },
        "errors_inside_restarts": dict(bad_inside),
        "errors_outside_restarts": bad_outside[:100],
        "errors_outside_restarts_count": len(bad_outside),
    }


def slope(points: list[tuple[float, float]]) -> float | None:
    """Least squares, y per x."""
    if len(points) < 3:
        return None
    mx = statistics.fmean(p[0] for p in points)
    my = statistics.fmean(p[1] for p in points)
    den = sum((p[0] - mx) ** 2 for p in points)
    return sum((p[0] - mx) * (p[1] - my) for p in points) / den if den else None


def rss_report(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    lives: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for s in samples:
        lives[(s["process"], s["life"])].append(s)
    out = []
    for (name, life), points in sorted(lives.items()):
        start = points[0]["started_at"]
        warm = [p for p in points if p["at"] - start >= RSS_WARMUP_S]
        minutes = (points[-1]["at"] - start) / 60
        tree = slope([((p["at"] - start) / 60, p["tree_kb"] / 1024) for p in warm])
        main = slope([((p["at"] - start) / 60, p["main_kb"] / 1024) for p in warm])
        # caches fill early in a life: its second half tells a leak from filling
        late = [p for p in warm if p["at"] - start >= (points[-1]["at"] - start) / 2]
        late_main = slope([((p["at"] - start) / 60, p["main_kb"] / 1024) for p in late])
        late_tree = slope([((p["at"] - start) / 60, p["tree_kb"] / 1024) for p in late])
        # a process whose jobs allocate in bursts (the worker) draws a sawtooth: the least RSS of each
        # 5 minutes is what it comes back to between them, and a leak raises that floor
        floors: dict[int, float] = {}
        for p in warm:
            window = int((p["at"] - start) // 300)
            floors[window] = min(floors.get(window, float("inf")), p["main_kb"] / 1024)
        floor = slope([(w * 5 + 2.5, mb) for w, mb in sorted(floors.items())])
        out.append(
            {
                "process": name,
                "life": life,
                "minutes": round(minutes, 1),
                "samples": len(points),
                "first_mb": round(points[0]["tree_kb"] / 1024, 1),
                "after_warmup_mb": round(warm[0]["tree_kb"] / 1024, 1) if warm else None,
                "last_mb": round(points[-1]["tree_kb"] / 1024, 1),
                "max_mb": round(max(p["tree_kb"] for p in points) / 1024, 1),
                "slope_mb_per_min_with_children": None if tree is None else round(tree, 3),
                "slope_mb_per_min_main": None if main is None else round(main, 3),
                "second_half_slope_mb_per_min_with_children": None
                if late_tree is None
                else round(late_tree, 3),
                "second_half_slope_mb_per_min_main": None if late_main is None else round(late_main, 3),
                "floor_per_5_min_mb_main": [round(mb, 1) for _, mb in sorted(floors.items())],
                "floor_slope_mb_per_min_main": None if floor is None else round(floor, 3),
                # every 30 s: minutes since start, main and with children (MB)
                "samples_30s": [
                    [
                        round((p["at"] - start) / 60, 2),
                        round(p["main_kb"] / 1024, 1),
                        round(p["tree_kb"] / 1024, 1),
                    ]
                    for p in points[:: max(1, round(30 / RSS_EVERY_S))]
                ],
            }
        )
    return out


# --- the run -------------------------------------------------------------------------------------


async def recreate_pg() -> None:
    admin = create_async_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    name = PG_URL.rsplit("/", 1)[1]
    async with admin.connect() as conn:
        await conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        await conn.execute(text(f'CREATE DATABASE "{name}"'))
    await admin.dispose()


def flush_redis() -> None:
    from redis import Redis

    client = Redis.from_url(REDIS_URL)
    client.flushdb()
    client.close()


def credits_verify(env: dict[str, str]) -> dict[str, Any]:
    done = subprocess.run(
        [str(REELSCOPE), "admin", "credits", "verify", "--json"],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    last = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else "{}"
    with contextlib.suppress(ValueError):
        return {"exit_status": done.returncode, "result": json.loads(last)}
    return {"exit_status": done.returncode, "output": done.stdout[-2000:] + done.stderr[-2000:]}


def loadavg() -> list[str]:
    return Path("/proc/loadavg").read_text().split()[:3]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work = Path(tempfile.mkdtemp(prefix=f"reelscope-soak-{args.mode}-"))
    tls = make_tls(work / "tls")
    receiver = FlakyReceiver(seed=args.seed)
    receiver_thread = ReceiverThread(receiver, tls)
    receiver_thread.start()
    # the servers run a copy of the checkout's code: an edit made while the soak runs must not reach a server
    # restarted after it (a worker importing newer code than its API process broke every read once)
    for part in ("src", "migrations", "alembic.ini"):  # the migrations are found beside src (kit/migrate.py)
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, work / part, ignore=shutil.ignore_patterns("__pycache__"))
        elif (ROOT / part).exists():
            shutil.copy2(ROOT / part, work / part)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(work / "src"), os.environ.get("PYTHONPATH")])),
        "REELSCOPE_DATA_DIR": str(work / "data"),
        "REELSCOPE_HOST": "127.0.0.1",
        "REELSCOPE_LOG_LEVEL": "warning",
        "REELSCOPE_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
        "REELSCOPE_WEBHOOK_CA_BUNDLE": str(tls.ca),
    }
    for name in ("REELSCOPE_DATABASE_URL", "REELSCOPE_REDIS_URL"):
        env.pop(name, None)
    if args.mode == "pg":
        await recreate_pg()
        flush_redis()
        env["REELSCOPE_DATABASE_URL"] = PG_URL
        env["REELSCOPE_REDIS_URL"] = REDIS_URL
    job_lease_s = float(env.get("REELSCOPE_JOB_LEASE_SECONDS", 300))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    logs = work / "logs"
    logs.mkdir()
    first = Server("serve", ["serve", "--port", str(port)], env, logs / "serve.log", base=base)
    t_first = time.time()
    first.start()
    first.wait_up()
    figures: dict[str, Any] = {"first_start_s": round(time.time() - t_first, 1), "work_dir": str(work)}
    print(f"first start answered after {figures['first_start_s']} s", flush=True)
    url = env.get("REELSCOPE_DATABASE_URL") or f"sqlite+aiosqlite:///{work / 'data' / 'reelscope.db'}"
    db = create_database(url)
    servers: dict[str, Server]
    if args.mode == "sqlite":
        servers = {"serve": first}
        deliverers = {"serve"}
    else:
        # the first start's catalog and trends are in; from here the scale-out processes run on them
        first.stop(signal.SIGTERM)
        servers = {
            "api": Server("api", ["api", "--port", str(port)], env, logs / "api.log", base=base),
            "worker": Server("worker", ["worker"], env, logs / "worker.log"),
        }
        for server in servers.values():
            server.start()
        for server in servers.values():
            server.wait_up()
        deliverers = {"worker"}

    teams = [await make_team(db, f"soak{i}") for i in range(args.teams)]
    for team in teams:
        await add_webhooks(base, team, receiver_thread.port)
    catalog = await sample_catalog(db)
    print(f"catalog sample: {len(catalog.creators)} creators, {len(catalog.videos)} videos", flush=True)

    answers: list[Answer] = []
    restarts: list[Restart] = []
    rss: list[dict[str, Any]] = []
    job_samples: list[dict[str, Any]] = []
    t0 = time.time()
    until = t0 + args.minutes * 60
    stop = asyncio.Event()
    load_start = loadavg()

    async def sample_rss() -> None:
        while not stop.is_set():
            for server in servers.values():
                if server.proc is None or server.proc.poll() is not None:
                    continue
                main = rss_kb(server.proc.pid)
                if main is None:
                    continue
                tree = main + sum(rss_kb(k) or 0 for k in children(server.proc.pid))
                rss.append(
                    {
                        "process": server.name,
                        "life": server.life,
                        "started_at": server.started_at,
                        "at": time.time(),
                        "main_kb": main,
                        "tree_kb": tree,
                    }
                )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), RSS_EVERY_S)

    async def sample_jobs() -> None:
        while not stop.is_set():
            with contextlib.suppress(Exception):  # a sample during a restart may fail; the next one counts
                state = await stuck_jobs(db, job_lease_s)
                job_samples.append({"t_s": round(time.time() - t0), **state})
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 30)

    async def restarter() -> None:
        half = t0 + args.minutes * 30
        k = 1
        while True:
            at = t0 + k * args.restart_every
            if at > until - 30:
                return
            await asyncio.sleep(max(0.0, at - time.time()))
            if args.mode == "sqlite":
                target = servers["serve"]
            else:
                target = servers["api"] if at < half else servers["worker"]
            record = await asyncio.to_thread(target.restart)
            restarts.append(record)
            print(
                f"t={record.sent_at - t0:.0f}s {record.process} {record.signal}: exited in "
                f"{record.exited_after_s}s, answering {record.up_at - record.sent_at:.1f}s after the signal; "
                f"orphans {record.orphans}",
                flush=True,
            )
            k += 1

    background = [asyncio.create_task(sample_rss()), asyncio.create_task(sample_jobs())]
    restarts_task = asyncio.create_task(restarter())
    await asyncio.gather(
        *(
            team_loop([base], team, catalog, answers, until, args.pause, args.seed + i)
            for i, team in enumerate(teams)
        )
    )
    await restarts_task
    traffic_s = time.time() - t0
    print(f"traffic done ({len(answers)} requests); draining {args.drain}s", flush=True)
    await asyncio.sleep(args.drain)
    figures["jobs_at_end"] = await stuck_jobs(db, job_lease_s)
    stop.set()
    await asyncio.gather(*background)
    load_end = loadavg()
    for server in servers.values():
        server.stop(signal.SIGTERM)
    figures["jobs"] = await job_summary(db)
    figures["webhooks"] = await webhook_check(db, teams, receiver.hits, restarts, deliverers)
    await db.dispose()
    receiver_thread.stop()
    figures["credits_verify"] = credits_verify(env)
    figures.update(
        {
            "load_average_start_end": [load_start, load_end],
            "traffic_s": round(traffic_s, 1),
            "drain_s": args.drain,
            "restarts": [
                {**r.__dict__, "t_s": round(r.sent_at - t0, 1), "down_s": round(r.up_at - r.sent_at, 1)}
                for r in restarts
            ],
            "traffic": classify(answers, restarts, t0),
            "jobs_sampled": {
                "samples": len(job_samples),
                "max_stuck_past_lease": max((len(s["stuck_past_lease"]) for s in job_samples), default=0),
                "stuck_samples": [s for s in job_samples if s["stuck_past_lease"]][:10],
                "max_pending_due": max((s["pending_due"] for s in job_samples), default=0),
                "max_oldest_pending_due_s": max((s["oldest_pending_due_s"] for s in job_samples), default=0),
            },
            "rss": rss_report(rss),
            "server_log_errors": log_errors(logs),
            "memory_reports": memory_reports(logs),
            "logs": str(logs),
        }
    )
    return figures


def verdict(r: dict[str, Any]) -> dict[str, bool]:
    w = r["webhooks"]
    return {
        "credits_verify_clean": r["credits_verify"]["exit_status"] == 0,
        "no_job_stuck_past_lease": not r["jobs_at_end"]["stuck_past_lease"]
        and r["jobs_sampled"]["max_stuck_past_lease"] == 0,
        "no_webhook_lost": w["lost_no_delivery_row_count"] == 0
        and not w["pending_without_next_attempt"]
        and not w["recorded_delivered_never_received_2xx"]
        and not w["test_sends_without_delivery_row"],
        "no_duplicate_outside_window": not w["duplicates_outside_window"],
        "no_5xx_outside_restarts": r["traffic"]["errors_outside_restarts_count"] == 0,
        "no_orphaned_children": not any(x["orphans"] for x in r["restarts"]),
    }


def _mode_markdown(mode: str, r: dict[str, Any]) -> list[str]:
    m, t, w, a = r["machine"], r["traffic"], r["webhooks"], r["args"]
    jobs_end, sampled = r["jobs_at_end"], r["jobs_sampled"]
    load_start, load_end = (" ".join(x) for x in r["load_average_start_end"])
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(t["statuses"].items()))
    restarts = "; ".join(
        f"{x['t_s']:.0f} s {x['process']} {x['signal']} (exit {x['exited_after_s']} s, answering "
        f"{x['down_s']} s after the signal)"
        for x in r["restarts"]
    )
    endpoints = {"/".join(k.rsplit("/", 2)[-2:]): v["status"] for k, v in w["endpoints"].items()}
    lag = (
        f" (the oldest event {w['oldest_event_not_fanned_out_s']} s old); from a delivery's row to its first "
        f"attempt {w['first_attempt_lag_s']} s, never attempted {w['deliveries_never_attempted']}"
        if "first_attempt_lag_s" in w  # recorded since 83bc14e
        else ""
    )
    lines = [
        f"## {mode}",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, {m['cpus']} CPUs, load average (1/5/15 min) {load_start} "
        f"at the start, {load_end} at the end. `--minutes {a['minutes']} --restart-every "
        f"{a['restart_every']} --drain {a['drain']} --teams {a['teams']}`; the first start answered after "
        f"{r['first_start_s']} s.",
        "",
        "| check | result |",
        "|---|---|",
    ]
    lines += [
        f"| {name.replace('_', ' ')} | {'yes' if ok else '**no**'} |" for name, ok in r["verdict"].items()
    ]
    lines += [
        "",
        f"Requests: {t['requests']} ({statuses}); 5xx or no answer inside restarts: "
        f"{t['errors_inside_restarts'] or 'none'}; outside: {t['errors_outside_restarts_count']}.",
        "",
        f"Restarts: {restarts}.",
        "",
        f"Webhooks: {w['receiver_requests']} requests at the receiver ({w['receiver_500s']} answered 500); "
        f"deliveries by status {w['deliveries_by_status']}; {w['test_sends_accepted']} test sends accepted. "
        f"Lost (an event without its delivery row): {w['lost_no_delivery_row_count']}; pending without a "
        f"next attempt: {len(w['pending_without_next_attempt'])}; recorded delivered but never answered 2xx: "
        f"{len(w['recorded_delivered_never_received_2xx'])}; answered 2xx but still pending (to be sent "
        f"again): {w['received_2xx_record_pending']}; duplicates inside the at-least-once window "
        f"{w['duplicates_inside_window']}, outside {len(w['duplicates_outside_window'])}; event/endpoint "
        f"pairs not fanned out yet {w['event_endpoint_pairs_not_fanned_out_yet']}{lag}; endpoints "
        f"{endpoints}.",
        "",
        f"Jobs at the end: {jobs_end['processing']} processing, {len(jobs_end['stuck_past_lease'])} past "
        f"their lease, {jobs_end['pending_due']} pending and due (oldest {jobs_end['oldest_pending_due_s']} "
        f"s); sampled every 30 s: at most {sampled['max_stuck_past_lease']} past their lease. Agent runs "
        f"{r['jobs']['agent_runs']}, lookup runs {r['jobs']['lookup_runs']}, failed or expired jobs "
        f"{len(r['jobs']['failed_or_expired'])}.",
        "",
        f"Credits verify: exit status {r['credits_verify']['exit_status']}.",
        "",
        "Error lines in the servers' logs (log, event, error type, task): "
        f"{r.get('server_log_errors') or 'none'}.",
        "",
        "RSS of the process and its children (MB), each life of each process; slope by least squares from "
        "60 s after its start:",
        "",
        "| process | life | minutes | first | after 60 s | last | max | slope MB/min | without children "
        "| second half | second half without children | floor of each 5 min, without children |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    floors: list[str] = []
    for x in r["rss"]:
        lines.append(
            f"| {x['process']} | {x['life']} | {x['minutes']} | {x['first_mb']} | {x['after_warmup_mb']} "
            f"| {x['last_mb']} | {x['max_mb']} | {x['slope_mb_per_min_with_children']} "
            f"| {x['slope_mb_per_min_main']} | {x.get('second_half_slope_mb_per_min_with_children')} "
            f"| {x.get('second_half_slope_mb_per_min_main')} | {x.get('floor_slope_mb_per_min_main')} |"
        )
        if x.get("floor_per_5_min_mb_main"):
            floors.append(f"{x['process']} life {x['life']}: {x['floor_per_5_min_mb_main']}")
    if floors:
        lines += ["", "Least RSS of each 5 minutes, without children (MB): " + "; ".join(floors) + "."]
    if r.get("notes"):
        lines += ["", r["notes"]]
    return [*lines, ""]


def write_markdown(results: dict[str, Any]) -> None:
    lines = [
        "# Soak under restarts (issue 31 item 2)",
        "",
        "`benchmarks/soak.py`; the aim is 30 minutes per mode, the recorded runs are 12 minutes each "
        "(`--minutes 12`) on the shared 2-core machine. Traffic from several keys (charged and free reads, "
        "one-shot agents, lookups and their polls, tracking, webhook tests) while the server processes are "
        "stopped with SIGTERM and SIGKILL in turn; webhooks to a local HTTPS receiver answering 500 to 20% "
        "of the attempts. The script's docstring says what each check is.",
        "",
    ]
    for mode, r in results.get("runs", {}).items():
        lines += _mode_markdown(mode, r)
    (RESULTS / "soak.md").write_text("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["sqlite", "pg"], help="required: without it, nothing runs")
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--restart-every", type=float, default=120, help="seconds between restarts")
    parser.add_argument("--drain", type=float, default=150, help="seconds without traffic before the checks")
    parser.add_argument("--teams", type=int, default=3)
    parser.add_argument("--pause", default="0.3,1.0", help="min,max seconds between one team's requests")
    parser.add_argument("--seed", type=int, default=31)
    parser.add_argument("--no-record", action="store_true", help="print only; do not write results/")
    parser.add_argument(
        "--label", help="the name the run is recorded under (default: the mode; e.g. sqlite-one-life)"
    )
    args = parser.parse_args()
    if args.mode is None:
        # `make bench` runs every script here without arguments: the soak (30 minutes a mode, restarts) is
        # not one of them
        print("soak.py: not part of `make bench`; run it with --mode sqlite or --mode pg (see --help)")
        return
    low, high = (float(x) for x in args.pause.split(","))
    args.pause = (low, high)
    result = {"machine": machine(), "args": {k: v for k, v in vars(args).items() if k != "pause"}}
    result["args"]["pause"] = [low, high]
    result.update(asyncio.run(run(args)))
    result["verdict"] = verdict(result)
    print(
        json.dumps(
            {k: result[k] for k in ("verdict", "traffic", "webhooks", "jobs_at_end", "rss")},
            indent=2,
            default=str,
        )
    )
    if args.no_record:
        return
    out = RESULTS / "soak.json"
    results: dict[str, Any] = (
        json.loads(out.read_text()) if out.exists() else {"benchmark": "soak", "runs": {}}
    )
    results["runs"][args.label or args.mode] = result
    out.write_text(json.dumps(results, indent=2, default=str) + "\n")
    write_markdown(results)


if __name__ == "__main__":
    main()

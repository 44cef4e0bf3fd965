"""Database size over simulated days with the retention purge (issue 31 item 1): flat once retention starts.

A migrated database (SQLite by default, ``--database-url`` for PostgreSQL) on a manual clock, moved
through ``--days`` days in 6-hour steps. Each step writes what a day of mixed traffic writes into the tables
retention looks after, through the code that writes them where that is cheap:

- outbox events (``events.service.publish`` with the §6.3 sample payloads the test sends use: lookups,
  agent runs and their legacy alias, tracking cycles), fanned out to two webhooks per team by the webhook
  consumer (``webhook.tasks.fan_out_new_events``), then attempted by ``webhook.delivery``'s claim and record
  with a receiver that answers 500 to 20% of attempts (the 30 s, 2 min, ... schedule runs on the clock);
- finished jobs (a lookup job's params and result), idempotency records (a 2 KB stored response, kept 24
  hours), a tracking snapshot per tracked item and step (the six-hour cadence);
- a one-shot agent with a run per team and day, the previous one deleted.

At the end of each day the periodic purges run as the worker runs them (``retention.purge``,
``idempotency.purge``) and the database is measured: the file (SQLite: pages in use and the file; PostgreSQL:
``pg_database_size``) and every table's rows and bytes. The defaults retain deliveries 30 days, jobs 14,
events 90, snapshots 365 and deleted agents 30 (config.py); ``--events-days`` and ``--snapshots-days``
shorten the last two so a run of weeks shows them level too (the recorded run says which it used).

Not simulated: the catalog (videos, creators, sounds, their snapshots), which retention never purges (it is
the product), and lookup runs, kept for ever by §8.4. Their growth is the catalog's, not retention's.

Writes benchmarks/results/retention_size.{json,md}.
Run: PYTHONPATH=src .venv/bin/python benchmarks/retention_size.py [--days 120] [--database-url URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select, text, update  # noqa: E402
from sqlalchemy.ext.asyncio import create_async_engine  # noqa: E402

from benchmarks.meta import machine  # noqa: E402
from reelscope import models  # noqa: E402, F401
from reelscope.auth import service as auth_service  # noqa: E402
from reelscope.config import Settings  # noqa: E402
from reelscope.events import service as events_service  # noqa: E402
from reelscope.idempotency import tasks as idempotency_tasks  # noqa: E402
from reelscope.kit.clock import ManualClock  # noqa: E402
from reelscope.kit.db import Database, create_database  # noqa: E402
from reelscope.kit.ids import new_id  # noqa: E402
from reelscope.kit.logging import configure_logging  # noqa: E402
from reelscope.kit.migrate import upgrade_to_head  # noqa: E402
from reelscope.models import (  # noqa: E402
    Agent,
    AgentRun,
    IdempotencyRecord,
    Job,
    TrackedItem,
    TrackingSnapshotRow,
    WebhookEndpoint,
)
from reelscope.retention import tasks as retention_tasks  # noqa: E402
from reelscope.webhook import samples  # noqa: E402
from reelscope.webhook.delivery import (  # noqa: E402
    Attempted,
    DeliveryReport,
    claim_due,
    record,
)
from reelscope.webhook.tasks import fan_out_new_events  # noqa: E402
from reelscope.webhook.transport import DeliveryPolicy, Outcome, Result, new_secret  # noqa: E402
from reelscope.worker import TaskContext  # noqa: E402
from reelscope.worker.queue import SENDER_KEY, Message  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
START = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
STEP = timedelta(hours=6)
TEAMS = 3
FAIL_SHARE = 0.2
# per team and 6-hour step
LOOKUP_EVENTS = 12
AGENT_RUN_EVENTS = 2  # each with its legacy alias: two outbox rows
JOBS = 20
IDEMPOTENCY_RECORDS = 15
TRACKED_ITEMS = 10
# the tables retention keeps level, and the ones it leaves to grow by design
RETAINED = (
    "events",
    "webhook_deliveries",
    "webhook_attempts",
    "jobs",
    "idempotency_keys",
    "tracking_snapshots",
    "agents",
    "agent_runs",
)


class NullSender:
    """The simulation runs the consumer's work itself, step by step: queue messages go nowhere."""

    def send(self, messages: Sequence[Message]) -> None:
        return None


async def setup(db: Database, clock: ManualClock) -> list[dict[str, Any]]:
    teams = []
    now = clock.now()
    async with db.transaction() as session:
        for n in range(TEAMS):
            team = await auth_service.create_team(session, f"team{n}", 10**9, now)
            issued = await auth_service.issue_key(session, team, now)
            user_id = issued.key.user_id
            for path, events in (
                ("all", list(samples_events())),
                ("lookups", ["satellite.lookup.completed"]),
            ):
                session.add(
                    WebhookEndpoint(
                        id=new_id(), team_id=team.id, url=f"https://receiver.example/{n}/{path}",
                        description="", enabled_events=events, headers={}, secret=new_secret(),
                        is_active=True, status="active", consecutive_failures=0, created_by=user_id,
                        created_at=now, updated_at=now,
                    )
                )  # fmt: skip
            items = []
            for i in range(TRACKED_ITEMS):
                item = TrackedItem(
                    id=new_id(), team_id=team.id, kind="creator", platform="tiktok", target=f"creator{n}_{i}",
                    handle=f"creator{n}_{i}", status="active", cadence="six_hours", consecutive_failures=0,
                    cycles_completed=0, created_at=now, updated_at=now,
                )  # fmt: skip
                session.add(item)
                items.append(item.id)
            teams.append({"id": team.id, "user_id": user_id, "items": items})
    return teams


def samples_events() -> list[str]:
    return ["satellite.lookup.completed", "content_research_agent.run.completed", "tracking.cycle.completed"]


async def step(
    db: Database, ctx: TaskContext, clock: ManualClock, teams: list[dict[str, Any]], rng: random.Random
) -> None:
    now = clock.now()
    async with db.transaction() as session:
        for team in teams:
            for event, count in (
                ("satellite.lookup.completed", LOOKUP_EVENTS),
                ("content_research_agent.run.completed", AGENT_RUN_EVENTS),
                ("tracking.cycle.completed", len(team["items"])),
            ):
                for _ in range(count):
                    data = samples.sample_data(event, team_id=team["id"], user_id=team["user_id"], now=now)
                    await events_service.publish(session, event, data, team["id"], at=now)
            for _ in range(JOBS):
                session.add(
                    Job(
                        id=new_id(), team_id=team["id"], task="lookup.creator", type="creator_lookup",
                        resource_type="lookup_run", resource_id=new_id(), status="completed", attempts=1,
                        max_attempts=3, params={"platform": "tiktok", "handle": "x" * 20, "max_videos": 20},
                        result={"videos": [{"id": new_id(), "views": rng.randint(0, 99)} for _ in range(20)]},
                        charged_credits=50, expires_at=now + timedelta(days=1), started_at=now,
                        finished_at=now, created_at=now, updated_at=now,
                    )
                )  # fmt: skip
            for _ in range(IDEMPOTENCY_RECORDS):
                session.add(
                    IdempotencyRecord(
                        id=new_id(), team_id=team["id"], key=new_id(), fingerprint="f" * 64, status_code=201,
                        body=rng.randbytes(2048), headers=[["content-type", "application/json"]],
                        created_at=now, expires_at=now + timedelta(hours=24),
                    )
                )  # fmt: skip
            for item in team["items"]:
                session.add(
                    TrackingSnapshotRow(
                        id=new_id(), item_id=item, team_id=team["id"], scheduled_for=now, taken_at=now,
                        metrics={"followers": rng.randint(0, 10**6), "total_views": rng.randint(0, 10**8)},
                        new_posts_count=0, credits_charged=0, report={"posts": []},
                    )
                )  # fmt: skip
    await fan_out_new_events(ctx)
    await attempt_due(db, clock, rng)


async def attempt_due(db: Database, clock: ManualClock, rng: random.Random) -> None:
    """Every due delivery attempted once: 500 for ``FAIL_SHARE`` of them, 200 for the rest."""
    policy = DeliveryPolicy()
    while claims := await claim_due(db, clock, policy):
        items = []
        for claim in claims:
            status = 500 if rng.random() < FAIL_SHARE else 200
            outcome = Outcome.DELIVERED if status == 200 else Outcome.RETRYABLE
            items.append(Attempted(claim, Result(outcome, status, None, 40), clock.now()))
        await record(db, policy, items, DeliveryReport())
        if len(claims) < policy.batch_size:
            break


async def daily_agents(db: Database, clock: ManualClock, teams: list[dict[str, Any]], day: int) -> None:
    """A one-shot agent with a run for every team, and the team's previous one deleted: the live agents stay
    one per team, the deleted ones wait ``retain_deleted_agents_days`` for the purge."""
    now = clock.now()
    async with db.transaction() as session:
        for team in teams:
            previous = await session.scalar(
                select(Agent.id).where(Agent.team_id == team["id"], Agent.deleted_at.is_(None)).limit(1)
            )
            if previous is not None:
                await session.execute(
                    update(Agent).where(Agent.id == previous).values(deleted_at=now, is_active=False)
                )
            for n in range(1):
                agent_id = new_id()
                session.add(
                    Agent(
                        id=agent_id, team_id=team["id"], user_id=team["user_id"], name=f"agent {day} {n}",
                        is_recurring=False, intent=None, keywords=["music", "dance"], exclude_keywords=[],
                        pinned_keywords=["music", "dance"], platforms=["tiktok"], meta_ads_enabled=False,
                        data_intelligence_enabled=False, cadence=None, language=None, autopilot=False,
                        cognition_enabled=False, timely_keywords=[], is_active=True, min_views=0,
                        time_range="30d", created_at=now, updated_at=now,
                    )
                )  # fmt: skip
                await session.flush()
                session.add(
                    AgentRun(
                        id=new_id(), agent_id=agent_id, team_id=team["id"], trigger="create",
                        status="completed",
                        charged_credits=50, refunded=False, metrics={"videos_linked": 40},
                        targets=[{"keyword": "music", "status": "completed", "found": 40}],
                        started_at=now, completed_at=now, created_at=now,
                    )
                )  # fmt: skip


async def measure(db: Database, url: str) -> dict[str, Any]:
    async with db.transaction(write=False) as session:
        rows = {
            t: int(await session.scalar(select(func.count()).select_from(text(t))) or 0) for t in RETAINED
        }
        if url.startswith("sqlite"):
            page = int(await session.scalar(text("PRAGMA page_size")) or 0)
            pages = int(await session.scalar(text("PRAGMA page_count")) or 0)
            free = int(await session.scalar(text("PRAGMA freelist_count")) or 0)
            sizes = dict(
                (await session.execute(text("SELECT name, SUM(pgsize) FROM dbstat GROUP BY name"))).all()
            )
            per_table = {t: int(sizes.get(t, 0)) for t in RETAINED}
            return {
                "file_bytes": page * pages,
                "used_bytes": page * (pages - free),
                "rows": rows,
                "table_bytes": per_table,
            }
        total = int(await session.scalar(text("SELECT pg_database_size(current_database())")) or 0)
        per_table = {
            t: int(await session.scalar(text(f"SELECT pg_total_relation_size('{t}')")) or 0) for t in RETAINED
        }
        return {"file_bytes": total, "used_bytes": total, "rows": rows, "table_bytes": per_table}


async def vacuum(url: str) -> None:
    engine = create_async_engine(url, isolation_level="AUTOCOMMIT")
    try:
        async with engine.connect() as connection:
            for table in RETAINED:
                await connection.execute(text(f"VACUUM {table}"))
    finally:
        await engine.dispose()


async def simulate(args: argparse.Namespace, data_dir: Path) -> dict[str, Any]:
    url = args.database_url or f"sqlite+aiosqlite:///{data_dir / 'retention.db'}"
    await asyncio.to_thread(upgrade_to_head, url)
    settings = Settings(
        data_dir=data_dir,
        database_url=url,
        retain_events_days=args.events_days,
        retain_tracking_snapshots_days=args.snapshots_days,
    )
    clock = ManualClock(START)
    db = create_database(url)
    for factory in (db.read, db.write):
        factory.configure(info={SENDER_KEY: NullSender()})
    ctx = TaskContext(settings=settings, clock=clock, db=db)
    rng = random.Random(31)
    teams = await setup(db, clock)
    days: list[dict[str, Any]] = []
    purge_s: list[float] = []
    for day in range(1, args.days + 1):
        for _ in range(4):
            clock.advance(STEP)
            await step(db, ctx, clock, teams, rng)
        await daily_agents(db, clock, teams, day)
        started = time.perf_counter()
        purged = await retention_tasks.purge(ctx)
        purged["idempotency"] = (await idempotency_tasks.purge(ctx))["removed"]
        purge_s.append(time.perf_counter() - started)
        if url.startswith("postgresql"):
            # what autovacuum does many times in a real day, and cannot in a simulated one of seconds:
            # the purged rows' space made reusable (the size measured is the database's, dead rows too)
            await vacuum(url)
        size = await measure(db, url)
        days.append({"day": day, "purged": purged, **size})
        if day % 10 == 0 or day == 1:
            print(f"day {day}: used {size['used_bytes'] / 2**20:.1f} MB, rows {size['rows']}", flush=True)
    await db.dispose()
    return {
        "days": days,
        "purge_seconds_p50_max": [round(sorted(purge_s)[len(purge_s) // 2], 3), round(max(purge_s), 3)],
    }


def write_markdown(result: dict[str, Any], stem: str) -> None:
    m, days, s = result["machine"], result["days"], result["settings"]
    mb = 2**20
    lines = [
        "# Database size with retention over simulated days (issue 31 item 1)",
        "",
        f"Commit {m['commit']}, {m['measured_at']}, load {m['load_average_1m']} on {m['cpus']} CPUs, "
        f"{result['database']}. `benchmarks/retention_size.py "
        f"--days {result['days_simulated']} --events-days {s['retain_events_days']} "
        f"--snapshots-days {s['retain_tracking_snapshots_days']}"
        + (" --database-url postgresql+asyncpg://…" if result["database"] != "SQLite" else "")
        + "`: a "
        f"manual clock in 6-hour steps; per team ({TEAMS} teams) and "
        f"step {LOOKUP_EVENTS} lookup events, {AGENT_RUN_EVENTS} agent run events (+ legacy alias), "
        f"{TRACKED_ITEMS} tracking cycles, fanned out to two webhooks and attempted against a receiver "
        f"failing 20%; {JOBS} finished jobs, {IDEMPOTENCY_RECORDS} idempotency records, {TRACKED_ITEMS} "
        "snapshots; a one-shot agent a day and the previous one deleted. The retention purge and the "
        "idempotency purge run at the end of each day. "
        f"Retention: deliveries {s['retain_deliveries_days']} days, jobs {s['retain_jobs_days']}, events "
        f"{s['retain_events_days']}, snapshots {s['retain_tracking_snapshots_days']}, deleted agents "
        f"{s['retain_deleted_agents_days']}, idempotency records 24 hours. The purge took p50 / max "
        f"{result['purge_seconds_p50_max'][0]} / {result['purge_seconds_p50_max'][1]} s a day.",
        "",
        "| day | used MB | file MB | " + " | ".join(RETAINED) + " |",
        "|---:|---:|---:|" + "---:|" * len(RETAINED),
    ]
    shown = sorted({1, 7, 14, 15, 21, 30, 31, 45, 60, 75, 90, 91, 100, 105, 110, 120, len(days)})
    for d in days:
        if d["day"] in shown:
            lines.append(
                f"| {d['day']} | {d['used_bytes'] / mb:.1f} | {d['file_bytes'] / mb:.1f} | "
                + " | ".join(f"{d['rows'][t]:,}" for t in RETAINED)
                + " |"
            )
    last = days[-1]
    biggest = ", ".join(
        f"{t} {b / mb:.1f} MB" for t, b in sorted(last["table_bytes"].items(), key=lambda x: -x[1])
    )
    lines += [
        "",
        result["flat"],
        "",
        f"The tables' own pages (indexes not counted) on day {last['day']}: {biggest}. "
        + (
            "Each table levels off at its own horizon: jobs at 14 days, deliveries (with their "
            "attempts) and deleted agents (with their runs) at 30, snapshots at the run's 60 (365 by "
            "default: a year of six-hourly checks, a tracked item's at most 1,460), events at 90; "
            "idempotency records stay at a day's. The SQLite file keeps the pages the purge frees and "
            "reuses them, so it levels off with the rows (no VACUUM)."
            if result["database"] == "SQLite"
            else "Each table levels off at its own horizon (the settings above). The size is "
            "`pg_database_size` after a plain `VACUUM` of the retained tables each simulated day, which "
            "autovacuum does many times in a real day and cannot in a simulated one of seconds (without it "
            "the size grew +3.0 MB a simulated day past the horizon, dead rows not yet reusable)."
        ),
        "",
        "Not simulated: the catalog (videos, creators, sounds, hooks, their snapshots), which retention "
        "never purges, and lookup runs, which §8.4 keeps for ever; they grow with what is collected and "
        "looked up.",
        "",
    ]
    (RESULTS / f"{stem}.md").write_text("\n".join(lines))


def flatness(days: list[dict[str, Any]], horizon: int) -> str:
    """Growth of the used size per day over the last stretch past the longest horizon simulated."""
    tail = [d for d in days if d["day"] > horizon]
    if len(tail) < 5:
        return f"Fewer than 5 days past the longest retention horizon ({horizon} days): no flatness figure."
    first, last = tail[0], tail[-1]
    per_day = (last["used_bytes"] - first["used_bytes"]) / (last["day"] - first["day"])
    before = days[horizon - 1]["used_bytes"] / horizon if horizon <= len(days) else 0
    return (
        f"From day {first['day']} to day {last['day']} (past the longest horizon, {horizon} days) the used "
        f"size moved {per_day / 1024:+.1f} KB a day ({first['used_bytes'] / 2**20:.1f} -> "
        f"{last['used_bytes'] / 2**20:.1f} MB), against {before / 1024:.1f} KB a day on average while it "
        "filled up."
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--days", type=int, default=120)
    parser.add_argument("--database-url", default=None, help="default: SQLite in a temp dir")
    parser.add_argument("--events-days", type=int, default=Settings().retain_events_days)
    parser.add_argument("--snapshots-days", type=int, default=Settings().retain_tracking_snapshots_days)
    parser.add_argument("--no-record", action="store_true")
    args = parser.parse_args()
    configure_logging("warning", json=False)
    with tempfile.TemporaryDirectory(prefix="retention-size-") as tmp:
        result: dict[str, Any] = {"machine": machine(), "days_simulated": args.days}
        result["database"] = "PostgreSQL" if args.database_url else "SQLite"
        figures = asyncio.run(simulate(args, Path(tmp)))
    settings = Settings(
        retain_events_days=args.events_days, retain_tracking_snapshots_days=args.snapshots_days
    )
    result["settings"] = {k: v for k, v in settings.model_dump().items() if k.startswith("retain_")}
    result.update(figures)
    horizon = max(
        v for k, v in result["settings"].items() if k != "retain_tracking_snapshots_days" or v <= args.days
    )
    result["flat"] = flatness(result["days"], horizon)
    print(result["flat"])
    print(f"purge p50 / max: {result['purge_seconds_p50_max']} s a day")
    if args.no_record:
        return
    stem = "retention_size" if result["database"] == "SQLite" else "retention_size_postgresql"
    (RESULTS / f"{stem}.json").write_text(json.dumps(result, indent=2) + "\n")
    write_markdown(result, stem)


if __name__ == "__main__":
    main()

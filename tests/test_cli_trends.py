"""`reelscope trends run` and `reelscope trends backfill` through a real data dir (issue 17 item 3):
every scheduled run of a period, merged into day groups as live runs are, momentum from the snapshots
of each run time, idempotent, no events for the past."""

from __future__ import annotations

import json
import shutil
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reelscope.cli import app
from tests.fixtures.data_dirs import migrated_data_dir

FEED = Path(__file__).parent / "fixtures" / "ytdlp_us_trending.jsonl"  # the US feed, 2026-11-15..23
TREND_TABLES = ("trend_groups", "trends", "trend_rankings", "trend_readings", "trend_runs")


def week_before(path: Path) -> Path:
    """The feed's week before the fixture (2026-11-08..14): ten everyday videos a day, each from its own
    channel, the history a burst is measured against (ADR 0051: no history, no rate)."""
    first = json.loads(FEED.read_text().splitlines()[0])
    start = datetime(2026, 11, 8, tzinfo=UTC)
    lines = []
    for n in range(70):
        posted = start + timedelta(hours=n * 24 / 10)
        lines.append(
            {
                **first,
                "id": f"wk{n:09d}",
                "title": f"Daily vlog {n}",
                "description": "A day in my life",
                "tags": ["vlog"],
                "channel": f"Vlogger {n}",
                "channel_id": f"UCweek{n:018d}",
                "uploader_id": f"@vlogger{n}",
                "timestamp": int(posted.timestamp()),
                "upload_date": posted.strftime("%Y%m%d"),
                "epoch": int((posted + timedelta(hours=6)).timestamp()),
                "webpage_url": f"https://www.youtube.com/shorts/wk{n:09d}",
            }
        )
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return path


@pytest.fixture(scope="module")
def ingested(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the week before and the fixture's feed ingested, once for the module: each test
    gets a copy (``data_dir``), so every one starts from the same catalog and no trend run."""
    tmp_path = tmp_path_factory.mktemp("ingested")
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("REELSCOPE_DATA_DIR", str(migrated_data_dir(tmp_path_factory, tmp_path / "data")))
        monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
        for feed in (week_before(tmp_path / "week_before.jsonl"), FEED):
            result = CliRunner().invoke(app, ["ingest", str(feed), "--region", "us", "--json"])
            assert result.exit_code == 0, result.output
    return tmp_path / "data"


@pytest.fixture
def data_dir(ingested: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    shutil.copytree(ingested, tmp_path / "data")
    monkeypatch.setenv("REELSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
    return tmp_path / "data"


def sql(data_dir: Path, query: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(data_dir / "reelscope.db") as connection:
        return connection.execute(query).fetchall()


def trends(*args: str) -> dict[str, object]:
    result = CliRunner().invoke(app, ["trends", *args, "--json"])
    assert result.exit_code == 0, result.output
    parsed = json.loads(result.stdout.strip().splitlines()[-1])
    assert isinstance(parsed, dict)
    return parsed


def dump(data_dir: Path) -> dict[str, list[tuple[object, ...]]]:
    return {table: sorted(sql(data_dir, f"SELECT * FROM {table}"), key=repr) for table in TREND_TABLES}


ROWS = (
    "SELECT g.region, g.local_date, t.name, t.trend_type, r.count_recent, r.id FROM trend_rankings r "
    "JOIN trends t ON t.id = r.trend_id JOIN trend_groups g ON g.id = r.group_id ORDER BY 1, 2"
)


class TestBackfill:
    def test_every_scheduled_run_of_the_period_finds_the_feeds_story(self, data_dir: Path) -> None:
        result = trends("backfill", "--since", "2026-11-15", "--until", "2026-11-22", "--region", "us")
        assert result == {
            "regions": ["us"],
            "since": "2026-11-15",
            "until": "2026-11-22",
            "runs": 24,  # 8 New York days x 07:00, 13:00, 19:00
            "stored": 24,
            "skipped": 0,
        }
        runs = sql(data_dir, "SELECT region, scheduled_for FROM trend_runs ORDER BY scheduled_for")
        assert runs[0] == ("us", "2026-11-15 12:00:00.000000")  # 07:00 in New York
        assert runs[-1] == ("us", "2026-11-23 00:00:00.000000")  # 19:00 on the 22nd
        # nine newly trending videos tagged "Hurricane Nadine" on the 17th, from nothing: a trend of the
        # us feed named by the uploaders' tag, in the day groups of the runs that saw it
        rows = sql(data_dir, ROWS)
        assert [r[:5] for r in rows] == [
            ("us", "2026-11-17", "Hurricane Nadine", "tag", 9),
            ("us", "2026-11-18", "Hurricane Nadine", "tag", 9),
        ]
        assert sql(data_dir, "SELECT count(*) FROM events") == [(0,)]  # past runs announce nothing

    def test_other_regions_do_not_see_the_us_feed(self, data_dir: Path) -> None:
        result = trends("backfill", "--since", "2026-11-15", "--until", "2026-11-22")
        assert result["regions"] == ["global", "us", "gb", "au"] and result["runs"] == 96
        regions = {r[0] for r in sql(data_dir, ROWS)}
        assert regions == {"global", "us"}

    def test_momentum_follows_the_snapshots_of_each_run_time(self, data_dir: Path) -> None:
        trends("backfill", "--since", "2026-11-15", "--until", "2026-11-22", "--region", "us")
        second_day = sql(data_dir, ROWS)[1][5]
        readings = sql(
            data_dir, f"SELECT at, views FROM trend_readings WHERE ranking_id = '{second_day}' ORDER BY at"
        )
        # one reading per run while the row is live, each with the views observed by then: the feed
        # observed the story at 06:00 UTC on the 18th, 19th and 20th
        assert [str(at)[:13] for at, _ in readings] == [
            "2026-11-18 12",
            "2026-11-18 18",
            "2026-11-19 00",
            "2026-11-19 12",
            "2026-11-19 18",
            "2026-11-20 00",
            "2026-11-20 12",
        ]
        views = [v for _, v in readings]
        assert views[0] == views[2] < views[3] == views[5] < views[6]
        [(status, updated)] = sql(
            data_dir,
            f"SELECT momentum_status, momentum_updated_at FROM trend_rankings WHERE id = '{second_day}'",
        )
        assert status == "rising" and str(updated).startswith("2026-11-20 12:00")

    def test_running_it_twice_changes_nothing(self, data_dir: Path) -> None:
        trends("backfill", "--since", "2026-11-15", "--until", "2026-11-22")
        first = dump(data_dir)
        again = trends("backfill", "--since", "2026-11-15", "--until", "2026-11-22")
        assert (again["stored"], again["skipped"]) == (0, 96)
        assert dump(data_dir) == first

    def test_a_wider_period_adds_only_the_missing_runs(self, data_dir: Path) -> None:
        trends("backfill", "--since", "2026-11-17", "--until", "2026-11-18", "--region", "us")
        wider = trends("backfill", "--since", "2026-11-16", "--until", "2026-11-19", "--region", "us")
        assert (wider["runs"], wider["stored"], wider["skipped"]) == (12, 6, 6)
        assert [r[:5] for r in sql(data_dir, ROWS)] == [
            ("us", "2026-11-17", "Hurricane Nadine", "tag", 9),
            ("us", "2026-11-18", "Hurricane Nadine", "tag", 9),
        ]

    def test_human_output(self, data_dir: Path) -> None:
        result = CliRunner().invoke(
            app, ["trends", "backfill", "--since", "2026-11-17", "--until", "2026-11-17"]
        )
        assert result.exit_code == 0
        assert "12 scheduled runs in global, us, gb, au: 12 computed, 0 stored before" in result.stdout

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--since", "2026-11-20", "--until", "2026-11-19"], "before --since"),
            (["--since", "20/11/2026"], "YYYY-MM-DD"),
            (["--since", "2026-11-20", "--region", "mars"], "unknown"),
        ],
    )
    def test_bad_arguments_exit_2_and_change_nothing(
        self, data_dir: Path, args: list[str], message: str
    ) -> None:
        result = CliRunner().invoke(app, ["trends", "backfill", *args])
        assert result.exit_code == 2
        assert message in result.stderr.lower() or message in result.stderr
        assert sql(data_dir, "SELECT count(*) FROM trend_runs") == [(0,)]


class TestRun:
    def test_a_past_run_at_a_local_time(self, data_dir: Path) -> None:
        result = trends("run", "--region", "us", "--at", "2026-11-17T20:30")
        # the scheduled run at or before 20:30 New York time is 19:00, merged into the 17th's group
        assert result == {
            "region": "us",
            "scheduled_for": "2026-11-18T00:00:00Z",
            "local_date": "2026-11-17",
            "stored": True,
            "status": "completed",
            "trends": 1,
        }
        assert [r[:3] for r in sql(data_dir, ROWS)] == [("us", "2026-11-17", "Hurricane Nadine")]
        assert sql(data_dir, "SELECT count(*) FROM events") == [(0,)]  # not the latest run: no event
        again = trends("run", "--region", "us", "--at", "2026-11-18T00:00:00Z")
        assert again["stored"] is False and again["trends"] == 1

    def test_the_latest_run_is_announced_as_the_schedulers_would_be(self, data_dir: Path) -> None:
        result = trends("run", "--region", "gb")
        assert result["stored"] is True
        assert sql(data_dir, "SELECT name FROM events") == [("trends.region.completed",)]
        assert trends("run", "--region", "gb")["stored"] is False
        assert sql(data_dir, "SELECT count(*) FROM events") == [(1,)]

    @pytest.mark.parametrize(
        ("args", "message"),
        [
            (["--region", "mars"], "unknown"),
            (["--region", "us", "--at", "2999-01-01T00:00"], "future"),
            (["--region", "us", "--at", "yesterday"], "iso time"),
        ],
    )
    def test_bad_arguments_exit_2(self, data_dir: Path, args: list[str], message: str) -> None:
        result = CliRunner().invoke(app, ["trends", "run", *args])
        assert result.exit_code == 2
        assert message in result.stderr.lower()
        assert sql(data_dir, "SELECT count(*) FROM trend_runs") == [(0,)]

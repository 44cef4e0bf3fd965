"""`reelscope ingest FILE` (issue 5): good lines land, bad lines are reported by number, exit 1 if any."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
import structlog
from typer.testing import CliRunner

from reelscope.cli import app
from tests.fixtures.data_dirs import migrated_data_dir

TIKTOK_INFO = {
    "id": "7432109876543210987",
    "description": "Sourdough in 40 seconds #sourdough #baking",
    "uploader": "crumblab",
    "timestamp": 1791130805,
    "view_count": 391020,
    "like_count": 28410,
    "comment_count": 402,
    "webpage_url": "https://www.tiktok.com/@crumblab/video/7432109876543210987",
    "extractor_key": "TikTok",
}
NORMALIZED = {
    "record": "video",
    "platform": "youtube",
    "external_id": "Zt3kQ9vLm0A",
    "url": "https://www.youtube.com/shorts/Zt3kQ9vLm0A",
    "published_at": "2026-10-04T16:20:05Z",
    "views": 88412,
    "hashtags": ["#Sourdough"],
}


@pytest.fixture
def data_dir(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    monkeypatch.setenv("REELSCOPE_DATA_DIR", str(migrated_data_dir(tmp_path_factory, tmp_path / "data")))
    monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
    return tmp_path / "data"


def catalog(data_dir: Path, sql: str) -> list[tuple[object, ...]]:
    with sqlite3.connect(data_dir / "reelscope.db") as connection:
        return connection.execute(sql).fetchall()


class TestIngestCommand:
    def test_good_lines_land_and_exit_0(self, data_dir: Path, tmp_path: Path) -> None:
        file = tmp_path / "records.jsonl"
        file.write_text(json.dumps(TIKTOK_INFO) + "\n\n" + json.dumps(NORMALIZED) + "\n")
        result = CliRunner().invoke(app, ["ingest", str(file)])
        assert result.exit_code == 0, result.output
        assert "2 videos" in result.stdout
        assert sorted(catalog(data_dir, "SELECT platform, external_id FROM videos")) == [
            ("tiktok", "7432109876543210987"),
            ("youtube", "Zt3kQ9vLm0A"),
        ]
        assert catalog(data_dir, "SELECT key FROM hashtags ORDER BY key") == [("baking",), ("sourdough",)]

    def test_bad_lines_are_reported_by_number_and_skipped(self, data_dir: Path, tmp_path: Path) -> None:
        lines = [
            json.dumps(TIKTOK_INFO),
            "{not json",
            json.dumps(NORMALIZED),
            json.dumps({"record": "video", "platform": "myspace", "external_id": "1"}),
            json.dumps({"extractor_key": "Vimeo", "id": "5"}),
        ]
        file = tmp_path / "records.jsonl"
        file.write_text("\n".join(lines) + "\n")
        result = CliRunner().invoke(app, ["ingest", str(file)])
        assert result.exit_code == 1
        reported = [line for line in result.stderr.splitlines() if line.startswith("line ")]
        assert [line.split(":")[0] for line in reported] == ["line 2", "line 4", "line 5"]
        assert "not JSON" in reported[0] and "platform" in reported[1] and "vimeo" in reported[2]
        assert len(catalog(data_dir, "SELECT id FROM videos")) == 2

    def test_ingesting_the_same_file_twice_changes_nothing(self, data_dir: Path, tmp_path: Path) -> None:
        file = tmp_path / "records.jsonl"
        file.write_text(json.dumps(NORMALIZED | {"fetched_at": "2026-11-01T00:00:00Z"}) + "\n")
        runner = CliRunner()
        assert runner.invoke(app, ["ingest", str(file)]).exit_code == 0
        first = catalog(data_dir, "SELECT * FROM videos")
        assert runner.invoke(app, ["ingest", str(file)]).exit_code == 0
        assert catalog(data_dir, "SELECT * FROM videos") == first
        assert len(catalog(data_dir, "SELECT * FROM view_snapshots")) == 1

    def test_ingested_videos_count_in_hashtag_statistics_at_once(
        self, data_dir: Path, tmp_path: Path
    ) -> None:
        """Not at the next 6-hourly rollup, nor only after a restart (issue 31 item 4)."""
        file = tmp_path / "records.jsonl"
        file.write_text(json.dumps(NORMALIZED | {"fetched_at": "2026-10-05T00:00:00Z"}) + "\n")
        result = CliRunner().invoke(app, ["ingest", str(file), "--json"])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout.splitlines()[-1])["hashtag_statistics_refreshed"] is True
        counted = (
            "SELECT d.day, d.platform, d.videos, d.views FROM hashtag_daily d "
            "JOIN hashtags h ON h.id = d.hashtag_id"
        )
        assert catalog(data_dir, counted + " WHERE h.key = 'sourdough'") == [
            ("2026-10-04", "youtube", 1, 88412)
        ]
        # a later partial line moves the statistics with it
        partial = {k: NORMALIZED[k] for k in ("platform", "external_id", "url", "published_at")}
        file.write_text(json.dumps(partial | {"views": 90000, "fetched_at": "2026-10-06T00:00:00Z"}) + "\n")
        assert CliRunner().invoke(app, ["ingest", str(file)]).exit_code == 0
        assert catalog(data_dir, counted) == [("2026-10-04", "youtube", 1, 90000)]

    def test_missing_file_exits_2(self, data_dir: Path, tmp_path: Path) -> None:
        result = CliRunner().invoke(app, ["ingest", str(tmp_path / "nope.jsonl")])
        assert result.exit_code == 2
        assert "nope.jsonl" in result.stderr


class TestServeBackfill:
    def test_an_empty_catalog_is_backfilled_once(
        self, data_dir: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """`reelscope serve` fills an empty catalog before serving (issue 5), and only an empty one."""
        from reelscope.catalog import collection
        from reelscope.cli.serving import backfill_catalog
        from reelscope.config import load_settings

        monkeypatch.setattr(collection, "backfill_days", 1)  # the shape of the run, not its size
        settings = load_settings()
        backfill_catalog(settings)
        videos = catalog(
            data_dir, "SELECT platform, count(*) FROM videos GROUP BY platform ORDER BY platform"
        )
        assert [platform for platform, _ in videos] == ["instagram", "tiktok", "youtube"]
        assert all(count > 2_000 for _, count in videos)
        assert catalog(data_dir, "SELECT count(*) FROM sound_usage")[0][0] > 0
        backfill_catalog(settings)
        assert (
            catalog(data_dir, "SELECT platform, count(*) FROM videos GROUP BY platform ORDER BY platform")
            == videos
        )


FEED = Path(__file__).parent / "fixtures" / "ytdlp_us_trending.jsonl"  # 20 videos over 9 days, 54 lines
MUSIC_VIDEO = "QvNYY6wK8J5"  # posted 2026-11-15 00:00 UTC, observed daily at 06:27 for 9 days


def ingest_json(*args: str) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(app, ["ingest", *args, "--json"])
    return result.exit_code, json.loads(result.stdout.strip().splitlines()[-1])


class TestFaithfulIngest:
    """Issue 17 item 1: a file of many days replays as the history it is (ADR 0026)."""

    def test_a_trending_feed_replays_at_its_observation_times(self, data_dir: Path) -> None:
        code, summary = ingest_json(str(FEED), "--region", "us")
        assert code == 0
        assert {k: summary[k] for k in ("videos", "new_videos", "updated_videos", "snapshots")} == {
            "videos": 20,
            "new_videos": 20,
            "updated_videos": 0,
            "snapshots": 54,
        }
        assert summary["rejected_lines"] == 0 and summary["region"] == "us"
        [(found, fetched, views, at_7d)] = catalog(
            data_dir,
            "SELECT found_at, fetched_at, views, views_at_7d FROM videos "
            f"WHERE external_id = '{MUSIC_VIDEO}'",
        )
        # found when first observed, counters of the last observation, views frozen at the first one a
        # week after posting (§2.3), not the ingest moment
        assert str(found).startswith("2026-11-15 06:27") and str(fetched).startswith("2026-11-23 06:27")
        assert views == int(2_100_000 * 1.35**8) and at_7d == int(2_100_000 * 1.35**7)
        snapshots = catalog(
            data_dir,
            "SELECT s.at FROM view_snapshots s JOIN videos v ON v.id = s.video_id "
            f"WHERE v.external_id = '{MUSIC_VIDEO}' ORDER BY s.at",
        )
        assert [str(at)[:10] for (at,) in snapshots] == [f"2026-11-{d}" for d in range(15, 24)]
        assert catalog(data_dir, "SELECT DISTINCT feed_region FROM videos") == [("us",)]

    def test_a_second_ingest_updates_and_adds_no_snapshot(self, data_dir: Path) -> None:
        ingest_json(str(FEED))
        first = catalog(data_dir, "SELECT * FROM videos ORDER BY id")
        code, summary = ingest_json(str(FEED))
        assert code == 0 and (summary["videos"], summary["new_videos"], summary["updated_videos"]) == (
            20,
            0,
            20,
        )
        assert summary["snapshots"] == 0
        assert catalog(data_dir, "SELECT * FROM videos ORDER BY id") == first

    def test_the_order_of_the_lines_does_not_matter(self, data_dir: Path, tmp_path: Path) -> None:
        reversed_feed = tmp_path / "reversed.jsonl"
        reversed_feed.write_text("".join(reversed(FEED.read_text().splitlines(keepends=True))))
        ingest_json(str(reversed_feed))
        columns = "external_id, found_at, fetched_at, views, views_at_7d"
        backwards = catalog(data_dir, f"SELECT {columns} FROM videos ORDER BY external_id")
        (data_dir / "reelscope.db").unlink()
        ingest_json(str(FEED))
        assert catalog(data_dir, f"SELECT {columns} FROM videos ORDER BY external_id") == backwards

    def test_tags_are_kept_and_hashtags_keep_their_platform_meaning(self, data_dir: Path) -> None:
        ingest_json(str(FEED))
        [(tags, hashtags)] = catalog(
            data_dir, "SELECT tags, hashtags FROM videos WHERE description LIKE 'Late Night Recap%'"
        )
        assert json.loads(tags) == ["late night", "comedy", "monologue"]
        assert json.loads(hashtags) == ["#latenight"]  # "#66" is an episode number
        keys = {key for (key,) in catalog(data_dir, "SELECT key FROM hashtags")}
        assert "66" not in keys and "latenight" in keys
        assert "hurricane nadine" not in keys  # tags never become hashtags

    def test_a_records_own_region_wins_over_the_files(self, data_dir: Path, tmp_path: Path) -> None:
        line = json.loads(FEED.read_text().splitlines()[0]) | {"region": "GB"}
        file = tmp_path / "one.jsonl"
        file.write_text(json.dumps(line) + "\n")
        ingest_json(str(file), "--region", "us")
        assert catalog(data_dir, "SELECT feed_region FROM videos") == [("gb",)]

    def test_invalid_lines_are_rejected_by_number_and_the_rest_ingested(
        self, data_dir: Path, tmp_path: Path
    ) -> None:
        good = FEED.read_text().splitlines()
        base = json.loads(good[0])
        bad = [
            base | {"view_count": -5},
            base | {"id": "#NAME?", "webpage_url": "https://www.youtube.com/shorts/#NAME?"},
            base | {"epoch": 10**13},
            base | {"timestamp": 631152000},
        ]
        file = tmp_path / "mixed.jsonl"
        file.write_text("\n".join([*good[:3], *(json.dumps(b) for b in bad), *good[3:]]) + "\n")
        code, summary = ingest_json(str(file))
        assert code == 1
        rejections = summary["rejections"]
        assert isinstance(rejections, list)
        assert [r["line"] for r in rejections] == [4, 5, 6, 7]
        reasons = [r["reason"] for r in rejections]
        assert "views is negative (-5)" in reasons[0]
        assert "'#NAME?' is not a youtube video id" in reasons[1]
        assert "epoch out of range" in reasons[2]
        assert "published_at 1990-" in reasons[3]
        assert (summary["rejected_lines"], summary["videos"], summary["snapshots"]) == (4, 20, 54)
        assert catalog(data_dir, "SELECT count(*) FROM videos WHERE views < 0 OR url LIKE '%#%'") == [(0,)]

    def test_human_summary_and_rejections_on_stderr(self, data_dir: Path, tmp_path: Path) -> None:
        file = tmp_path / "two.jsonl"
        first = json.loads(FEED.read_text().splitlines()[0])
        file.write_text(json.dumps(first) + "\n" + json.dumps(first | {"like_count": -1}) + "\n")
        result = CliRunner().invoke(app, ["ingest", str(file)])
        assert result.exit_code == 1
        assert "ingested 1 videos (1 new, 0 updated), 1 snapshots" in result.stdout
        assert "1 line(s) rejected" in result.stdout
        assert "line 2: invalid video: likes is negative (-1)" in result.stderr

    def test_json_is_quiet_and_last(self, data_dir: Path) -> None:
        # info logs (the hashtag refresh's) stay off the screen through quiet_logs, which leaves a test
        # run's logging as it is: captured here
        with structlog.testing.capture_logs():
            result = CliRunner().invoke(app, ["ingest", str(FEED), "--json"])
        assert result.exit_code == 0
        assert len(result.stdout.strip().splitlines()) == 1
        assert result.stderr == ""

    def test_region_must_be_a_country_code(self, data_dir: Path) -> None:
        result = CliRunner().invoke(app, ["ingest", str(FEED), "--region", "usa"])
        assert result.exit_code == 2 and "two-letter" in result.stderr
        code, summary = ingest_json(str(FEED), "--region", "FR")
        assert code == 0 and summary["region"] == "fr"
        assert "global trends only" in str(summary["warnings"])

    def test_a_replayed_history_is_counted_by_the_hashtag_statistics(
        self, data_dir: Path, tmp_path: Path
    ) -> None:
        """§2.3 counts a video found within a week of posting, so a months-old file still counts when
        its own observation times say it was found in time (found = ingested dropped it, issue 17)."""
        from datetime import UTC, datetime

        from reelscope.cli.common import _run_admin
        from reelscope.config import load_settings
        from reelscope.hashtag import service as hashtag_service
        from reelscope.kit.db import Database

        base = json.loads(FEED.read_text().splitlines()[0])
        posted = int(datetime(2026, 9, 1, 15, tzinfo=UTC).timestamp())
        story = {"timestamp": posted, "description": "From the archive #oldstory", "view_count": 5000}
        lines = [
            base | story | {"id": "Arch1ve0001", "epoch": posted + 3_600},  # found within the hour
            base | story | {"id": "Arch1ve0002", "epoch": posted + 10 * 86_400},  # found 10 days late
        ]
        file = tmp_path / "archive.jsonl"
        file.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
        ingest_json(str(file))

        async def work(database: Database) -> None:
            await hashtag_service.rollup(database, datetime.now(UTC), full=True)

        _run_admin(load_settings(), work)
        assert catalog(
            data_dir,
            "SELECT d.day, d.videos, d.views FROM hashtag_daily d JOIN hashtags h ON h.id = d.hashtag_id "
            "WHERE h.key = 'oldstory'",
        ) == [("2026-09-01", 1, 5000)]

"""`reelscope ingest FILE` (issue 5): good lines land, bad lines are reported by number, exit 1 if any."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reelscope.cli import app

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
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("REELSCOPE_DATA_DIR", str(tmp_path / "data"))
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

"""``reelscope collectors status|check`` and a first start on real sources (issue 26 items 5, 6), against
the fake YouTube API served on 127.0.0.1."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reelscope.cli import app, serving
from reelscope.config import Settings, load_settings
from tests.collectors.youtube.fake import KEY, FakeYouTube, populated
from tests.conftest import START
from tests.fixtures.http import serving as served


@pytest.fixture
def youtube(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeYouTube]:
    """REELSCOPE_CONNECTORS=youtube with a key, the API a fake on 127.0.0.1, the data dir empty."""
    fake = populated(FakeYouTube(), ["us", "gb", "au"], 30, START)
    with served(fake) as base:
        monkeypatch.setenv("REELSCOPE_DATA_DIR", str(tmp_path / "data"))
        monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
        monkeypatch.setenv("REELSCOPE_CONNECTORS", "youtube")
        monkeypatch.setenv("REELSCOPE_YOUTUBE_API_KEY", KEY)
        monkeypatch.setenv("REELSCOPE_YOUTUBE_BASE_URL", f"{base}/youtube/v3")
        yield fake


def last_json(output: str) -> dict[str, object]:
    parsed = json.loads(output.strip().splitlines()[-1])
    assert isinstance(parsed, dict)
    return parsed


class TestCommands:
    def test_check_then_status(self, youtube: FakeYouTube) -> None:
        cli = CliRunner()
        checked = cli.invoke(app, ["collectors", "check", "--json"])
        assert checked.exit_code == 0, checked.output
        assert last_json(checked.stdout) == {
            "checks": [{"name": "youtube", "ok": True, "error_kind": None, "message": None}]
        }
        assert len(youtube.requests) == 1  # one cheap call

        status = cli.invoke(app, ["collectors", "status", "--json"])
        assert status.exit_code == 0, status.output
        (source,) = last_json(status.stdout)["collectors"]  # type: ignore[misc]
        assert source["name"] == "youtube" and source["state"] == "ok"
        assert source["capabilities"]["popular_feed"] == ["youtube"]
        units = next(b for b in source["buckets"] if b["name"] == "units")
        assert (units["used"], units["left"]) == (1, 9_999)
        assert KEY not in status.stdout + checked.stdout

    def test_a_refused_key_fails_the_check_with_exit_1(
        self, youtube: FakeYouTube, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        monkeypatch.setenv("REELSCOPE_YOUTUBE_API_KEY", "AIza-not-the-right-one")
        result = CliRunner().invoke(app, ["collectors", "check", "--json"])
        assert result.exit_code == 1
        (check,) = last_json(result.stdout)["checks"]  # type: ignore[misc]
        assert check["ok"] is False and check["error_kind"] == "Unavailable"
        assert "AIza-not-the-right-one" not in result.output


class TestFirstStart:
    def test_without_the_sandbox_a_first_start_collects_one_cycle_and_replays_no_history(
        self, youtube: FakeYouTube
    ) -> None:
        settings: Settings = load_settings()
        assert not serving.replays_history(settings)
        assert serving.first_cycle(settings) == 0
        charts = {r.url.params["regionCode"] for r in youtube.requests if r.url.params.get("chart")}
        assert charts == {"US", "GB", "AU"}
        assert serving.first_cycle(settings) is None  # the catalog has data now: nothing again
        assert serving.replays_history(Settings(connectors="youtube,sandbox"))

"""``reelscope collectors status|check`` and a first start on real sources (issue 26 items 5, 6), against
the fake YouTube API served on 127.0.0.1; the research sources' check and status (issue 27)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reelscope.cli import app, serving
from reelscope.config import Settings, load_settings
from tests.collectors.instagram.fake import TOKEN as INSTAGRAM_TOKEN
from tests.collectors.instagram.fake import FakeInstagram
from tests.collectors.instagram.payloads import ACCOUNT as IG_ACCOUNT
from tests.collectors.meta_ads.fake import TOKEN as META_TOKEN
from tests.collectors.meta_ads.fake import FakeAdLibrary
from tests.collectors.tiktok_research.fake import CLIENT_KEY as TIKTOK_KEY
from tests.collectors.tiktok_research.fake import CLIENT_SECRET as TIKTOK_SECRET
from tests.collectors.tiktok_research.fake import FakeTikTok
from tests.collectors.youtube.fake import KEY, FakeYouTube, populated
from tests.conftest import START
from tests.fixtures.data_dirs import migrated_data_dir
from tests.fixtures.http import serving as served


@pytest.fixture
def youtube(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[FakeYouTube]:
    """REELSCOPE_CONNECTORS=youtube with a key, the API a fake on 127.0.0.1, the data dir migrated and
    empty."""
    fake = populated(FakeYouTube(), ["us", "gb", "au"], 30, START)
    with served(fake) as base:
        monkeypatch.setenv("REELSCOPE_DATA_DIR", str(migrated_data_dir(tmp_path_factory, tmp_path / "data")))
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


@pytest.fixture
def research(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[FakeTikTok, FakeInstagram, FakeAdLibrary]]:
    """REELSCOPE_CONNECTORS=tiktok_research,instagram,meta_ads (issue 27), each API a fake on 127.0.0.1."""
    tiktok, instagram, ads = FakeTikTok(), FakeInstagram(), FakeAdLibrary()
    tiktok.users["tiktok"] = {"display_name": "TikTok", "follower_count": 1}
    with served(tiktok) as tiktok_base, served(instagram) as instagram_base, served(ads) as ads_base:
        monkeypatch.setenv("REELSCOPE_DATA_DIR", str(migrated_data_dir(tmp_path_factory, tmp_path / "data")))
        monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
        monkeypatch.setenv("REELSCOPE_CONNECTORS", "tiktok_research,instagram,meta_ads")
        monkeypatch.setenv("REELSCOPE_TIKTOK_CLIENT_KEY", TIKTOK_KEY)
        monkeypatch.setenv("REELSCOPE_TIKTOK_CLIENT_SECRET", TIKTOK_SECRET)
        monkeypatch.setenv("REELSCOPE_TIKTOK_BASE_URL", tiktok_base)
        monkeypatch.setenv("REELSCOPE_INSTAGRAM_ACCESS_TOKEN", INSTAGRAM_TOKEN)
        monkeypatch.setenv("REELSCOPE_INSTAGRAM_USER_ID", IG_ACCOUNT)
        monkeypatch.setenv("REELSCOPE_INSTAGRAM_BASE_URL", f"{instagram_base}/v25.0")
        monkeypatch.setenv("REELSCOPE_META_ACCESS_TOKEN", META_TOKEN)
        monkeypatch.setenv("REELSCOPE_META_BASE_URL", f"{ads_base}/v25.0")
        yield tiktok, instagram, ads


class TestResearchSources:
    def test_check_then_status(self, research: tuple[FakeTikTok, FakeInstagram, FakeAdLibrary]) -> None:
        cli = CliRunner()
        checked = cli.invoke(app, ["collectors", "check", "--json"])
        assert checked.exit_code == 0, checked.output
        checks = last_json(checked.stdout)["checks"]
        assert [(c["name"], c["ok"]) for c in checks] == [  # type: ignore[union-attr]
            ("tiktok_research", True), ("instagram", True), ("meta_ads", True),
        ]  # fmt: skip
        tiktok, instagram, ads = research
        assert [r.url.path for r in tiktok.requests] == ["/v2/oauth/token/", "/v2/research/user/info/"]
        assert len(instagram.requests) == 1 and len(ads.requests) == 1

        status = cli.invoke(app, ["collectors", "status", "--json"])
        assert status.exit_code == 0, status.output
        found = {c["name"]: c for c in last_json(status.stdout)["collectors"]}  # type: ignore[union-attr]
        assert {name: c["state"] for name, c in found.items()} == dict.fromkeys(found, "ok")
        requests = {b["name"]: b for b in found["tiktok_research"]["buckets"]}["requests"]
        assert (requests["used"], requests["left"]) == (1, 999)
        places = {b["name"]: b for b in found["instagram"]["buckets"]}["hashtags_7d"]
        assert (places["used"], places["left"]) == (0, 30)
        output = checked.output + status.output
        assert not any(s in output for s in (TIKTOK_SECRET, INSTAGRAM_TOKEN, META_TOKEN))

    def test_an_expired_instagram_token_fails_its_check_saying_what_to_renew(
        self, research: tuple[FakeTikTok, FakeInstagram, FakeAdLibrary]
    ) -> None:
        _tiktok, instagram, _ads = research
        instagram.fail("me", 400, {"error": {"message": "expired", "type": "OAuthException", "code": 190}})
        result = CliRunner().invoke(app, ["collectors", "check", "--json"])
        assert result.exit_code == 1
        checks = {c["name"]: c for c in last_json(result.stdout)["checks"]}  # type: ignore[union-attr]
        assert checks["tiktok_research"]["ok"] and checks["meta_ads"]["ok"]
        assert checks["instagram"]["error_kind"] == "Unavailable"
        assert "REELSCOPE_INSTAGRAM_ACCESS_TOKEN" in checks["instagram"]["message"]

"""The admin CLI contract (issue: foundation §7): --json prints one JSON object last; bad args exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from reelscope.cli import app
from tests.fixtures.data_dirs import migrated_data_dir


@pytest.fixture
def cli(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> CliRunner:
    monkeypatch.setenv("REELSCOPE_DATA_DIR", str(migrated_data_dir(tmp_path_factory, tmp_path / "data")))
    monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
    return CliRunner()


def run_json(cli: CliRunner, *args: str) -> dict[str, object]:
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    last = result.stdout.strip().splitlines()[-1]
    parsed = json.loads(last)
    assert isinstance(parsed, dict)
    return parsed


class TestTeams:
    def test_create_and_list(self, cli: CliRunner) -> None:
        created = run_json(cli, "admin", "team", "create", "acme", "--credits", "500")
        assert set(created) == {"team_id", "name", "credits_remaining"}
        assert created["name"] == "acme"
        assert created["credits_remaining"] == 500
        listed = run_json(cli, "admin", "team", "list")
        assert [t["name"] for t in listed["teams"]] == ["acme"]  # type: ignore[index]

    def test_duplicate_name_exits_2_and_changes_nothing(self, cli: CliRunner) -> None:
        run_json(cli, "admin", "team", "create", "acme", "--credits", "500")
        result = cli.invoke(app, ["admin", "team", "create", "acme", "--credits", "9"])
        assert result.exit_code == 2
        assert len(result.stderr.strip().splitlines()) == 1
        assert run_json(cli, "admin", "team", "list")["teams"][0]["credits_remaining"] == 500  # type: ignore[index]

    def test_negative_credits_exit_2(self, cli: CliRunner) -> None:
        result = cli.invoke(app, ["admin", "team", "create", "acme", "--credits", "-5"])
        assert result.exit_code == 2
        assert run_json(cli, "admin", "team", "list")["teams"] == []


class TestKeys:
    def test_create_list_revoke(self, cli: CliRunner) -> None:
        team = run_json(cli, "admin", "team", "create", "acme", "--credits", "1")
        issued = run_json(cli, "admin", "key", "create", "--team", "acme")
        assert set(issued) == {"api_key", "key_id", "team_id", "daily_cap_credits"}
        assert issued["daily_cap_credits"] is None
        assert str(issued["api_key"]).startswith("reelscope_tkn_")
        assert issued["team_id"] == team["team_id"]
        listed = run_json(cli, "admin", "key", "list", "--team", "acme")
        keys = listed["keys"]
        assert isinstance(keys, list) and len(keys) == 1
        assert keys[0]["is_active"] is True
        # the list never shows the key itself
        result = cli.invoke(app, ["admin", "key", "list", "--team", "acme", "--json"])
        assert str(issued["api_key"]) not in result.output
        revoked = run_json(cli, "admin", "key", "revoke", str(issued["key_id"]))
        assert revoked["key_id"] == issued["key_id"]
        assert run_json(cli, "admin", "key", "list", "--team", "acme")["keys"][0]["is_active"] is False  # type: ignore[index]

    def test_daily_cap_on_create_and_update(self, cli: CliRunner) -> None:
        # issue 30 item 4 (ADR 0047): dollars on the command line, credits in the database
        run_json(cli, "admin", "team", "create", "acme", "--credits", "1")
        issued = run_json(cli, "admin", "key", "create", "--team", "acme", "--daily-cap-usd", "5")
        assert issued["daily_cap_credits"] == 500
        key_id = str(issued["key_id"])
        updated = run_json(cli, "admin", "key", "update", key_id, "--daily-cap-usd", "2.50")
        assert updated["daily_cap_credits"] == 250
        assert run_json(cli, "admin", "key", "list", "--team", "acme")["keys"][0]["daily_cap_credits"] == 250  # type: ignore[index]
        assert run_json(cli, "admin", "key", "update", key_id, "--no-daily-cap")["daily_cap_credits"] is None
        human = cli.invoke(app, ["admin", "key", "update", key_id, "--daily-cap-usd", "0"])
        assert human.exit_code == 0 and "daily cap $0.00 (0 credits)" in human.stdout

    @pytest.mark.parametrize("value", ["-1", "1.001", "five", "nan"])
    def test_a_bad_daily_cap_exits_2(self, cli: CliRunner, value: str) -> None:
        run_json(cli, "admin", "team", "create", "acme")
        result = cli.invoke(app, ["admin", "key", "create", "--team", "acme", "--daily-cap-usd", value])
        assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
        assert run_json(cli, "admin", "key", "list", "--team", "acme")["keys"] == []

    def test_update_needs_exactly_one_change(self, cli: CliRunner) -> None:
        assert cli.invoke(app, ["admin", "key", "update", "some-id"]).exit_code == 2
        both = ["admin", "key", "update", "some-id", "--daily-cap-usd", "1", "--no-daily-cap"]
        assert cli.invoke(app, both).exit_code == 2

    def test_tables_never_cut_an_id(self, cli: CliRunner) -> None:
        # issue 30 item 5: on an 80-column terminal the id is whole, on one line, to be copied
        team = run_json(cli, "admin", "team", "create", "acme")
        issued = run_json(cli, "admin", "key", "create", "--team", "acme", "--daily-cap-usd", "5")
        for args, wanted in (
            (["admin", "key", "list", "--team", "acme"], issued["key_id"]),
            (["admin", "team", "list"], team["team_id"]),
        ):
            result = cli.invoke(app, args, env={"COLUMNS": "80"})
            assert result.exit_code == 0
            assert str(wanted) in result.stdout, result.stdout

    def test_unknown_team_exits_2(self, cli: CliRunner) -> None:
        result = cli.invoke(app, ["admin", "key", "create", "--team", "ghost"])
        assert result.exit_code == 2
        assert "ghost" in result.stderr

    def test_unknown_key_exits_2(self, cli: CliRunner) -> None:
        assert cli.invoke(app, ["admin", "key", "revoke", "no-such-key"]).exit_code == 2


class TestCredits:
    def test_add(self, cli: CliRunner) -> None:
        team = run_json(cli, "admin", "team", "create", "acme", "--credits", "100")
        added = run_json(cli, "admin", "credits", "add", "--team", "acme", "--credits", "250")
        assert added == {"team_id": team["team_id"], "credits_remaining": 350}

    def test_zero_or_missing_credits_exit_2(self, cli: CliRunner) -> None:
        run_json(cli, "admin", "team", "create", "acme", "--credits", "100")
        assert cli.invoke(app, ["admin", "credits", "add", "--team", "acme", "--credits", "0"]).exit_code == 2
        assert cli.invoke(app, ["admin", "credits", "add", "--team", "acme"]).exit_code == 2
        assert run_json(cli, "admin", "team", "list")["teams"][0]["credits_remaining"] == 100  # type: ignore[index]


class TestLimits:
    def test_set(self, cli: CliRunner) -> None:
        run_json(cli, "admin", "team", "create", "acme")
        result = run_json(
            cli, "admin", "limits", "set", "--team", "acme", "--feature", "video_digests", "--per-minute", "7"
        )
        assert result["per_minute"] == 7
        assert result["per_hour"] is None
        assert result["previous"] == {"per_minute": 50, "per_hour": 500, "per_day": 5000}  # §8.1's table

    def test_set_prints_what_changed(self, cli: CliRunner) -> None:
        # issue 30 item 5: each window before and after, not a Python dict
        run_json(cli, "admin", "team", "create", "acme")
        args = ["admin", "limits", "set", "--team", "acme", "--feature", "video_digests"]
        run_json(cli, *args, "--per-minute", "7")
        result = cli.invoke(app, [*args, "--per-day", "9000"])
        assert result.exit_code == 0
        assert result.stdout.splitlines()[1:] == [
            "  per minute: 7 (unchanged)",
            "  per hour: 500 (unchanged)",
            "  per day: 5,000 → 9,000",
        ]
        assert "{" not in result.stdout

    def test_unknown_feature_exits_2(self, cli: CliRunner) -> None:
        run_json(cli, "admin", "team", "create", "acme")
        result = cli.invoke(
            app, ["admin", "limits", "set", "--team", "acme", "--feature", "warp", "--per-day", "1"]
        )
        assert result.exit_code == 2
        assert "video_digests" in result.stderr

    def test_no_window_exits_2(self, cli: CliRunner) -> None:
        run_json(cli, "admin", "team", "create", "acme")
        result = cli.invoke(app, ["admin", "limits", "set", "--team", "acme", "--feature", "trends"])
        assert result.exit_code == 2

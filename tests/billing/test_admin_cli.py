"""``reelscope admin credits auto-topup`` and ``verify`` (issue 3; spec §8.2).

--json prints one JSON object as the last line; bad arguments exit 2 and change nothing; verify exits 1
when a team's balance is not the sum of its ledger.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from reelscope.cli import app
from reelscope.config import load_settings


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("REELSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("REELSCOPE_DATABASE_URL", raising=False)
    return CliRunner()


def run(cli: CliRunner, *args: str, exit_code: int = 0) -> dict[str, object]:
    result = cli.invoke(app, [*args, "--json"])
    assert result.exit_code == exit_code, result.output
    parsed = json.loads(result.stdout.strip().splitlines()[-1])
    assert isinstance(parsed, dict)
    return parsed


@pytest.fixture
def acme(cli: CliRunner) -> dict[str, object]:
    return run(cli, "admin", "team", "create", "acme", "--credits", "500")


def tamper_balance(team_id: object, credits: int) -> None:
    """What a bug or a hand edit could do: change the cached balance without a ledger row."""
    url = load_settings().effective_database_url.replace("+aiosqlite", "")
    engine = create_engine(url)
    with engine.begin() as conn:
        conn.execute(text("UPDATE teams SET credits = :c WHERE id = :id"), {"c": credits, "id": team_id})
    engine.dispose()


class TestAutoTopUpCommand:
    def test_set_then_switch_off(self, cli: CliRunner, acme: dict[str, object]) -> None:
        result = run(
            cli, "admin", "credits", "auto-topup", "--team", "acme", "--below", "100", "--amount", "1000"
        )
        assert result == {
            "team_id": acme["team_id"],
            "auto_top_up": {"below_credits": 100, "amount_credits": 1000},
        }
        off = run(cli, "admin", "credits", "auto-topup", "--team", "acme", "--off")
        assert off == {"team_id": acme["team_id"], "auto_top_up": None}

    @pytest.mark.parametrize(
        "args",
        [
            ["--below", "100"],
            ["--amount", "100"],
            ["--off", "--below", "100"],
            ["--below", "0", "--amount", "100"],
            ["--below", "100", "--amount", "-5"],
        ],
    )
    def test_bad_arguments_exit_2(self, cli: CliRunner, acme: dict[str, object], args: list[str]) -> None:
        result = cli.invoke(app, ["admin", "credits", "auto-topup", "--team", "acme", *args])
        assert result.exit_code == 2

    def test_unknown_team_exits_2(self, cli: CliRunner) -> None:
        args = ["admin", "credits", "auto-topup", "--team", "ghost", "--below", "1", "--amount", "1"]
        result = cli.invoke(app, args)
        assert result.exit_code == 2
        assert "ghost" in result.stderr


class TestVerify:
    def test_consistent_ledgers_exit_0(self, cli: CliRunner, acme: dict[str, object]) -> None:
        run(cli, "admin", "credits", "add", "--team", "acme", "--credits", "25")
        run(cli, "admin", "team", "create", "empty")
        assert run(cli, "admin", "credits", "verify") == {"ok": True, "teams_checked": 2, "mismatches": []}
        assert cli.invoke(app, ["admin", "credits", "verify"]).exit_code == 0

    def test_a_team_whose_balance_differs_is_reported_with_exit_1(
        self, cli: CliRunner, acme: dict[str, object]
    ) -> None:
        run(cli, "admin", "team", "create", "fine", "--credits", "10")
        tamper_balance(acme["team_id"], 900)
        result = run(cli, "admin", "credits", "verify", exit_code=1)
        assert result["ok"] is False
        assert result["mismatches"] == [
            {"team_id": acme["team_id"], "name": "acme", "balance": 900, "ledger_sum": 500, "difference": 400}
        ]
        human = cli.invoke(app, ["admin", "credits", "verify"])
        assert human.exit_code == 1
        assert "acme" in human.stdout
        assert "fine" not in human.stdout

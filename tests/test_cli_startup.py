"""The CLI's import path is lazy (issue 30 item 5): ``reelscope --help`` and the start of every command
load Typer and Rich, not the web framework, the ORM or the analysis libraries; a command imports what
it works with inside its function. Checked by what a fresh interpreter has imported, never by timing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from reelscope.cli.common import command_line
from reelscope.config import Settings

HEAVY = ("fastapi", "sqlalchemy", "pydantic_settings", "alembic", "sklearn", "numpy", "uvicorn", "httpx")

_PROBE = """
import sys
from typer.testing import CliRunner
from reelscope.cli import app
result = CliRunner().invoke(app, sys.argv[1:])
assert result.exit_code == 0, result.output
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def imported_by(*args: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, check=True, timeout=60
    )
    return set(done.stdout.split())


class TestLazyImports:
    def test_help_loads_nothing_heavy(self) -> None:
        loaded = imported_by("--help")
        assert "typer" in loaded
        assert not loaded & set(HEAVY), loaded & set(HEAVY)

    def test_a_group_help_loads_nothing_heavy(self) -> None:
        assert not imported_by("admin", "key", "--help") & set(HEAVY)


class TestRestartHint:
    def test_the_command_works_from_anywhere(self, tmp_path: Path) -> None:
        # issue 30 item 5: this installation's executable and this data dir, both absolute
        line = command_line(Settings(data_dir=tmp_path / "data"), "admin", "key", "create", "--team", "demo")
        prefix, program, *rest = line.split(" ")
        assert prefix == f"REELSCOPE_DATA_DIR={(tmp_path / 'data').resolve()}"
        assert Path(program).is_absolute() and Path(program).exists()
        assert rest[-5:] == ["admin", "key", "create", "--team", "demo"]

    def test_a_database_url_is_never_printed(self, tmp_path: Path) -> None:
        settings = Settings(data_dir=tmp_path, database_url="postgresql+asyncpg://u:secret@db/x")
        line = command_line(settings, "admin", "team", "list")
        assert "secret" not in line and not line.startswith("REELSCOPE_")

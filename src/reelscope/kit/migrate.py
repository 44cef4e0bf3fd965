"""Run Alembic programmatically (``reelscope migrate``, ``serve``, the admin CLI and tests)."""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from alembic.config import Config

# an editable install keeps migrations/ beside src/ (ARCHITECTURE §2)
PROJECT_ROOT = Path(__file__).resolve().parents[3]

# the newest revision of migrations/versions (tests/test_migrations.py checks it is Alembic's head)
HEAD = "0032_trend_group_versions"


def is_at_head(database_url: str) -> bool:
    """Whether a SQLite database already is at ``HEAD``: one point read, without loading Alembic and
    every migration script (most of an admin command's start, issue 30 item 5). Any other database,
    or any doubt, says False, and the caller upgrades the ordinary way."""
    prefix = next((p for p in ("sqlite+aiosqlite:///", "sqlite:///") if database_url.startswith(p)), None)
    if prefix is None:
        return False
    path = database_url.removeprefix(prefix).split("?", 1)[0]
    if not path or path == ":memory:" or not Path(path).is_file():
        return False
    try:
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
            rows = connection.execute("SELECT version_num FROM alembic_version").fetchall()
    except sqlite3.Error:
        return False
    return rows == [(HEAD,)]


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def upgrade_to_head(database_url: str) -> None:
    """Upgrade in a thread of its own: env.py runs its own event loop, which cannot nest in a caller's."""
    failure: list[BaseException] = []

    from alembic import command

    def run() -> None:
        try:
            command.upgrade(alembic_config(database_url), "head")
        except BaseException as exc:  # re-raised in the caller's thread
            failure.append(exc)

    worker = threading.Thread(target=run, name="alembic-upgrade")
    worker.start()
    worker.join()
    if failure:
        raise failure[0]


def upgrade_if_behind(database_url: str) -> None:
    """What a command does before it works (``api``, ``worker``, the admin commands): upgrade, unless
    ``is_at_head`` already knows the database is at ``HEAD``. A restart on SQLite then skips loading
    Alembic and its migration scripts (~0.3 s of CPU each time, more on a busy machine)."""
    if not is_at_head(database_url):
        upgrade_to_head(database_url)

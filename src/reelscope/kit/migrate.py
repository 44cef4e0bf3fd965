"""Run Alembic programmatically (``reelscope migrate``, ``serve``, the admin CLI and tests)."""

from __future__ import annotations

import threading
from pathlib import Path

from alembic import command
from alembic.config import Config

# an editable install keeps migrations/ beside src/ (ARCHITECTURE §2)
PROJECT_ROOT = Path(__file__).resolve().parents[3]


def alembic_config(database_url: str) -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    return config


def upgrade_to_head(database_url: str) -> None:
    """Upgrade in a thread of its own: env.py runs its own event loop, which cannot nest in a caller's."""
    failure: list[BaseException] = []

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

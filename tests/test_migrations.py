"""Alembic's head is exactly the models' schema, on SQLite and PostgreSQL (ARCHITECTURE §9)."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import create_async_engine

from reelscope import models  # noqa: F401
from reelscope.kit.db import Base
from reelscope.kit.migrate import upgrade_to_head
from reelscope.models import fulltext

pytestmark = pytest.mark.both_databases


def _not_full_text(name: str | None, _type: str, _parent: object) -> bool:
    # the full-text tables and indexes live outside the models (models/fulltext.py, ADR 0021)
    return name not in fulltext.NAMES


def _diff(connection: Connection) -> list[object]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "include_name": _not_full_text}
    )
    return list(compare_metadata(context, Base.metadata))


async def test_migrations_build_the_models_schema(database_url: str) -> None:
    engine = create_async_engine(database_url)
    async with engine.begin() as conn:
        # start from nothing: the fixture created the tables from the models
        await conn.run_sync(Base.metadata.drop_all)
        await conn.execute(text("DROP TABLE IF EXISTS alembic_version"))
    await engine.dispose()

    upgrade_to_head(database_url)
    upgrade_to_head(database_url)  # idempotent

    engine = create_async_engine(database_url)
    async with engine.connect() as conn:
        differences = await conn.run_sync(_diff)
    await engine.dispose()
    assert differences == []


def test_the_head_the_cli_knows_is_alembics() -> None:
    """``kit.migrate.HEAD`` lets admin commands skip Alembic on a database already at head (issue 30
    item 5): it must name the newest migration."""
    from alembic.script import ScriptDirectory

    from reelscope.kit.migrate import HEAD, alembic_config

    assert ScriptDirectory.from_config(alembic_config("sqlite://")).get_heads() == [HEAD]

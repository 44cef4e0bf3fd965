"""Alembic environment: async engine, URL from the Reelscope settings or the caller's config."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy.engine import Connection

from reelscope import models  # noqa: F401  (registers every table on Base.metadata)
from reelscope.config import load_settings
from reelscope.kit.db import Base, create_database
from reelscope.models import fulltext

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return config.attributes.get("database_url") or load_settings().effective_database_url


def run_migrations_offline() -> None:
    context.configure(url=_url(), target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        # the full-text tables and indexes live outside the models (ADR 0021): never autogenerate drops
        include_name=lambda name, _type, _parent: name not in fulltext.NAMES,
    )
    with context.begin_transaction():
        context.run_migrations()


async def run_migrations_online() -> None:
    database = create_database(_url())
    async with database.engine.connect() as connection:
        await connection.run_sync(_run)
        await connection.commit()
    await database.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    asyncio.run(run_migrations_online())

"""collectors: what each source has spent and how it is doing (issue 26, ADR 0044)

Revision ID: 0019_collectors
Revises: 0016_bigint_credits
Create Date: 2026-11-28 01:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db

revision: str = "0019_collectors"
down_revision: str | None = "0016_bigint_credits"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
MOMENT = reelscope.kit.db.UtcDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "collector_buckets",
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("bucket", sa.String(length=80), nullable=False),
        sa.Column("window_ends_at", MOMENT, nullable=True),
        sa.Column("used", BIG, nullable=False),
        sa.Column("used_background", BIG, nullable=False),
        sa.Column("daily_limit", BIG, nullable=True),
        sa.Column("paused_until", MOMENT, nullable=True),
        sa.Column("pause_reason", sa.String(length=300), nullable=True),
        sa.Column("updated_at", MOMENT, nullable=True),
        sa.PrimaryKeyConstraint("source", "bucket", name=op.f("pk_collector_buckets")),
    )
    op.create_table(
        "collector_sources",
        sa.Column("source", sa.String(length=40), nullable=False),
        sa.Column("calls", BIG, nullable=False),
        sa.Column("last_success_at", MOMENT, nullable=True),
        sa.Column("last_error_at", MOMENT, nullable=True),
        sa.Column("last_error_kind", sa.String(length=40), nullable=True),
        sa.Column("last_error", sa.String(length=300), nullable=True),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("circuit_open_until", MOMENT, nullable=True),
        sa.Column("circuit_reason", sa.String(length=300), nullable=True),
        sa.PrimaryKeyConstraint("source", name=op.f("pk_collector_sources")),
    )


def downgrade() -> None:
    op.drop_table("collector_sources")
    op.drop_table("collector_buckets")

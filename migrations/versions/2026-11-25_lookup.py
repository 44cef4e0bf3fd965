"""lookup runs and batches (satellite lookups, issue 18)

Revision ID: 0010_lookup
Revises: 0010_ingest
Create Date: 2026-11-25 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db


revision: str = "0010_lookup"
down_revision: str | None = "0010_ingest"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "lookup_runs",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("user_id", sa.String(length=36), nullable=False),
        sa.Column("type", sa.String(length=32), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=300), nullable=False),
        sa.Column("cache_key", sa.String(length=1000), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("job_id", sa.String(length=36), nullable=False),
        sa.Column("batch_id", sa.String(length=36), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("error", sa.JSON(), nullable=True),
        sa.Column("video_count", sa.Integer(), nullable=False),
        sa.Column("charged_credits", sa.Integer(), nullable=False),
        sa.Column("created_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("started_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("completed_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_lookup_runs_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lookup_runs")),
    )
    op.create_index("ix_lookup_runs_team_created", "lookup_runs", ["team_id", "created_at"], unique=False)
    op.create_index(
        "ix_lookup_runs_team_cache_key", "lookup_runs", ["team_id", "cache_key", "created_at"], unique=False
    )
    op.create_index(op.f("ix_lookup_runs_job_id"), "lookup_runs", ["job_id"], unique=False)
    op.create_index(op.f("ix_lookup_runs_batch_id"), "lookup_runs", ["batch_id"], unique=False)
    op.create_table(
        "lookup_batches",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("entries", sa.JSON(), nullable=False),
        sa.Column("created_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_lookup_batches_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lookup_batches")),
    )
    op.create_index(op.f("ix_lookup_batches_team_id"), "lookup_batches", ["team_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_lookup_batches_team_id"), table_name="lookup_batches")
    op.drop_table("lookup_batches")
    op.drop_index(op.f("ix_lookup_runs_batch_id"), table_name="lookup_runs")
    op.drop_index(op.f("ix_lookup_runs_job_id"), table_name="lookup_runs")
    op.drop_index("ix_lookup_runs_team_cache_key", table_name="lookup_runs")
    op.drop_index("ix_lookup_runs_team_created", table_name="lookup_runs")
    op.drop_table("lookup_runs")

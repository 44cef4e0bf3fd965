"""agents2: the trend batches of agent analyses and per-item intelligence (issue 16)

Revision ID: 0011_agents2
Revises: 0011_fixes
Create Date: 2026-11-25 16:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db

revision: str = "0011_agents2"
down_revision: str | None = "0011_fixes"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ("agent_videos", "agent_slideshows"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("intelligence", sa.JSON(), nullable=True))
    op.create_table(
        "agent_trends",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("agent_id", sa.String(length=36), nullable=False),
        sa.Column("run_id", sa.String(length=36), nullable=False),
        sa.Column("batch_end", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("stable_key", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=300), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("video_count", sa.Integer(), nullable=False),
        sa.Column("terms", sa.JSON(), nullable=False),
        sa.Column("data", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_trends_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_trends")),
    )
    op.create_index("ix_agent_trends_agent_batch", "agent_trends", ["agent_id", "batch_end"], unique=False)
    op.create_index(
        "ix_agent_trends_agent_key", "agent_trends", ["agent_id", "stable_key", "batch_end"], unique=False
    )


def downgrade() -> None:
    op.drop_index("ix_agent_trends_agent_key", table_name="agent_trends")
    op.drop_index("ix_agent_trends_agent_batch", table_name="agent_trends")
    op.drop_table("agent_trends")
    for table in ("agent_slideshows", "agent_videos"):
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("intelligence")

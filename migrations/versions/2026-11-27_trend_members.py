"""agent trend members: a theme's video ids in a column of their own, not in its served JSON

Revision ID: 0015_trend_members
Revises: 0014_search_speed
Create Date: 2026-11-27 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015_trend_members"
down_revision: str | None = "0014_search_speed"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # null for themes stored before: later runs match those by their terms alone (ADR 0032)
    with op.batch_alter_table("agent_trends", schema=None) as batch_op:
        batch_op.add_column(sa.Column("member_ids", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_trends", schema=None) as batch_op:
        batch_op.drop_column("member_ids")

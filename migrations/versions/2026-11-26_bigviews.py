"""bigviews: trend view counts are 64-bit, as the catalog's (a real video passes 2^31 views)

Revision ID: 0012_bigviews
Revises: 0011_agents2
Create Date: 2026-11-25 18:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012_bigviews"
down_revision: str | None = "0011_agents2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = {"trend_rankings": ("median_views",), "trend_readings": ("views", "likes")}


def upgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.alter_column(
                    column, existing_type=sa.Integer(), type_=sa.BigInteger(), existing_nullable=False
                )


def downgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.alter_column(
                    column, existing_type=sa.BigInteger(), type_=sa.Integer(), existing_nullable=False
                )

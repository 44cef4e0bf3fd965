"""per-key daily spending caps (issue 30 item 4, ADR 0047)

Revision ID: 0022_spend
Revises: 0021_part2
Create Date: 2026-12-01 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022_spend"
down_revision: str | None = "0021_part2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BIG_INT = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("daily_cap_credits", BIG_INT, nullable=True))
        batch.add_column(sa.Column("spent_day", sa.String(length=10), nullable=True))
        batch.add_column(sa.Column("spent_credits", BIG_INT, server_default="0", nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("spent_credits")
        batch.drop_column("spent_day")
        batch.drop_column("daily_cap_credits")

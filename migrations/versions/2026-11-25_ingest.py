"""ingest: videos.tags and videos.feed_region (issue 17, ADR 0026)

Revision ID: 0010_ingest
Revises: 0009
Create Date: 2026-11-25 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010_ingest"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("videos") as batch_op:
        batch_op.add_column(sa.Column("tags", sa.JSON(), server_default=sa.text("'[]'"), nullable=False))
        batch_op.add_column(sa.Column("feed_region", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("videos") as batch_op:
        batch_op.drop_column("feed_region")
        batch_op.drop_column("tags")

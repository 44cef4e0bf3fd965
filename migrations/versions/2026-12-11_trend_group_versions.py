"""trend_group_versions: trend_groups.version, a fresh id whenever what a day group shows changes, under
which a process keeps the group's rendered JSON (issue 33 item 4, ADR 0062)

Revision ID: 0032_trend_group_versions
Revises: 0031_hashtag_top_lists
Create Date: 2026-12-11 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0032_trend_group_versions"
down_revision: str | None = "0031_hashtag_top_lists"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # every group starts at one version: no process has kept a rendering under it yet
    op.add_column(
        "trend_groups", sa.Column("version", sa.String(length=36), nullable=False, server_default="initial")
    )


def downgrade() -> None:
    # ALTER TABLE DROP COLUMN, on SQLite too (3.35+): a batch copy of the table would drop the old one,
    # and with it, by ON DELETE CASCADE, every trend_rankings row
    op.drop_column("trend_groups", "version")

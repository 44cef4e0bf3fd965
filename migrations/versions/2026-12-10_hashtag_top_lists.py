"""hashtag_top_lists: the §4.2 top lists of the common windows (the last 7, 30 and 90 days), built by the
hashtag rollup under its version, so that a request for one reads a row instead of aggregating
hashtag_daily (issue 33 item 4, ADR 0060)

Revision ID: 0031_hashtag_top_lists
Revises: 0030_dashboard_pages
Create Date: 2026-12-10 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0031_hashtag_top_lists"
down_revision: str | None = "0030_dashboard_pages"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "hashtag_top_lists",
        sa.Column("version", sa.String(length=36), nullable=False),
        sa.Column("first_day", sa.String(length=10), nullable=False),
        sa.Column("last_day", sa.String(length=10), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("order_by", sa.String(length=8), nullable=False),
        sa.Column("sort", sa.String(length=4), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint(
            "version", "first_day", "last_day", "scope", "order_by", "sort", name=op.f("pk_hashtag_top_lists")
        ),
    )


def downgrade() -> None:
    op.drop_table("hashtag_top_lists")

"""dashboard_pages: a tracked item's dashboard page drawn ahead by the job that changed what it shows,
with the hash of the inputs it was drawn from (issue 33 item 4, ADR 0061)

Empty at first: a page is kept the first time its dashboard is opened, and drawn ahead from then on.

Revision ID: 0030_dashboard_pages
Revises: 0029_agent_video_orders
Create Date: 2026-12-10 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from reelscope.kit.db import UtcDateTime

revision: str = "0030_dashboard_pages"
down_revision: str | None = "0029_agent_video_orders"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dashboard_pages",
        sa.Column("item_id", sa.String(36), nullable=False),
        sa.Column("team_id", sa.String(36), nullable=False),
        sa.Column("drawn_from", sa.String(64), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("drawn_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["tracked_items.id"],
            name=op.f("fk_dashboard_pages_item_id_tracked_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_dashboard_pages_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("item_id", name=op.f("pk_dashboard_pages")),
    )
    op.create_index(op.f("ix_dashboard_pages_team_id"), "dashboard_pages", ["team_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_dashboard_pages_team_id"), table_name="dashboard_pages")
    op.drop_table("dashboard_pages")

"""part 2 of real data: the hashtags the Instagram source searched, per account (issue 27, ADR 0045)

Revision ID: 0021_part2
Revises: 0020_dropin
Create Date: 2026-11-30 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db

revision: str = "0021_part2"
down_revision: str | None = "0018_job_priority"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

MOMENT = reelscope.kit.db.UtcDateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "instagram_hashtags",
        sa.Column("account", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("hashtag_id", sa.String(length=40), nullable=True),
        sa.Column("counted_at", MOMENT, nullable=False),
        sa.PrimaryKeyConstraint("account", "name", name=op.f("pk_instagram_hashtags")),
    )


def downgrade() -> None:
    op.drop_table("instagram_hashtags")

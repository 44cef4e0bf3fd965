"""sound_resolutions

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 02:35:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db


revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "sound_resolutions",
        sa.Column("sound_id", sa.String(length=36), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("track_title", sa.String(length=500), nullable=True),
        sa.Column("artist", sa.String(length=300), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("resolved_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["sound_id"], ["sounds.id"], name=op.f("fk_sound_resolutions_sound_id_sounds"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("sound_id", name=op.f("pk_sound_resolutions")),
    )


def downgrade() -> None:
    op.drop_table("sound_resolutions")

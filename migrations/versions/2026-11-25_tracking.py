"""tracking

Revision ID: 0010_tracking
Revises: 0010_lookup
Create Date: 2026-11-25 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db

revision: str = "0010_tracking"
down_revision: str | None = "0010_lookup"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:

    op.create_table(
        "tracked_items",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("target", sa.String(length=200), nullable=False),
        sa.Column("handle", sa.String(length=200), nullable=True),
        sa.Column("video_id", sa.String(length=100), nullable=True),
        sa.Column("video_url", sa.String(length=500), nullable=True),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("pause_reason", sa.String(length=32), nullable=True),
        sa.Column("cadence", sa.String(length=32), nullable=False),
        sa.Column("consecutive_failures", sa.Integer(), nullable=False),
        sa.Column("cycles_completed", sa.Integer(), nullable=False),
        sa.Column("last_checked_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.JSON(), nullable=True),
        sa.Column("latest_snapshot", sa.JSON(), nullable=True),
        sa.Column("created_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_tracked_items_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tracked_items")),
        sa.UniqueConstraint("team_id", "kind", "platform", "target", name="uq_tracked_items_target"),
    )
    with op.batch_alter_table("tracked_items", schema=None) as batch_op:
        batch_op.create_index("ix_tracked_items_team_kind", ["team_id", "kind", "created_at"], unique=False)

    op.create_table(
        "tracked_posts",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("item_id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("external_id", sa.String(length=100), nullable=False),
        sa.Column("url", sa.String(length=500), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("thumbnail_url", sa.String(length=500), nullable=True),
        sa.Column("duration", sa.Integer(), nullable=True),
        sa.Column("hashtags", sa.JSON(), nullable=False),
        sa.Column("published_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("views", sa.BigInteger(), nullable=False),
        sa.Column("likes", sa.BigInteger(), nullable=False),
        sa.Column("comments", sa.BigInteger(), nullable=False),
        sa.Column("shares", sa.BigInteger(), nullable=True),
        sa.Column("bookmarks", sa.BigInteger(), nullable=True),
        sa.Column("is_new", sa.Boolean(), nullable=False),
        sa.Column("outlier_ratio", sa.Float(), nullable=True),
        sa.Column("outlier_announced_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=True),
        sa.Column("first_seen_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("updated_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["tracked_items.id"],
            name=op.f("fk_tracked_posts_item_id_tracked_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_tracked_posts_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tracked_posts")),
        sa.UniqueConstraint("item_id", "external_id", name="uq_tracked_posts_item_external"),
    )
    with op.batch_alter_table("tracked_posts", schema=None) as batch_op:
        batch_op.create_index("ix_tracked_posts_item_published", ["item_id", "published_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_tracked_posts_team_id"), ["team_id"], unique=False)

    op.create_table(
        "tracking_snapshots",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("item_id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("scheduled_for", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("taken_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("new_posts_count", sa.Integer(), nullable=False),
        sa.Column("credits_charged", sa.Integer(), nullable=False),
        sa.Column("report", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["item_id"],
            ["tracked_items.id"],
            name=op.f("fk_tracking_snapshots_item_id_tracked_items"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["team_id"], ["teams.id"], name=op.f("fk_tracking_snapshots_team_id_teams"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tracking_snapshots")),
        sa.UniqueConstraint("item_id", "scheduled_for", name="uq_tracking_snapshots_due"),
    )
    with op.batch_alter_table("tracking_snapshots", schema=None) as batch_op:
        batch_op.create_index("ix_tracking_snapshots_item_taken", ["item_id", "taken_at"], unique=False)
        batch_op.create_index(batch_op.f("ix_tracking_snapshots_team_id"), ["team_id"], unique=False)


def downgrade() -> None:

    with op.batch_alter_table("tracking_snapshots", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tracking_snapshots_team_id"))
        batch_op.drop_index("ix_tracking_snapshots_item_taken")

    op.drop_table("tracking_snapshots")
    with op.batch_alter_table("tracked_posts", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_tracked_posts_team_id"))
        batch_op.drop_index("ix_tracked_posts_item_published")

    op.drop_table("tracked_posts")
    with op.batch_alter_table("tracked_items", schema=None) as batch_op:
        batch_op.drop_index("ix_tracked_items_team_kind")

    op.drop_table("tracked_items")

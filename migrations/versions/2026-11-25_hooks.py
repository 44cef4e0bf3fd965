"""hooks, and the full-text indexes of hook and sound search (ADR 0021)

Revision ID: 0010_hooks
Revises: 0010_agent
Create Date: 2026-11-25 15:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db
from reelscope.models import fulltext

revision: str = "0010_hooks"
down_revision: str | None = "0010_agent"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "hooks",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("video_id", sa.String(length=36), nullable=False),
        sa.Column("creator_id", sa.String(length=36), nullable=True),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("language", sa.String(length=8), nullable=True),
        sa.Column("category", sa.String(length=32), nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("text_key", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("hook_type", sa.String(length=32), nullable=False),
        sa.Column("visual_hook_type", sa.String(length=32), nullable=True),
        sa.Column("views", sa.BigInteger(), nullable=False),
        sa.Column("published_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.Column("outlier_ratio", sa.Float(), nullable=True),
        sa.Column("weighted_score", sa.Float(), nullable=True),
        sa.Column("rank_score", sa.Float(), nullable=False),
        sa.Column("usage_count", sa.Integer(), nullable=False),
        sa.Column("updated_at", reelscope.kit.db.UtcDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["video_id"], ["videos.id"], name=op.f("fk_hooks_video_id_videos"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_hooks")),
        sa.UniqueConstraint("id", name=op.f("uq_hooks_id")),
        sa.UniqueConstraint("video_id", name=op.f("uq_hooks_video_id")),
    )
    op.create_index("ix_hooks_creator_id", "hooks", ["creator_id"], unique=False)
    op.create_index("ix_hooks_published_at", "hooks", ["published_at"], unique=False)
    op.create_index("ix_hooks_text_key", "hooks", ["text_key"], unique=False)
    filtered = ["published_at", "views", "platform", "language", "hook_type", "category", "visual_hook_type"]
    op.create_index("ix_hooks_rank", "hooks", ["rank_score", "seq", *filtered], unique=False)
    for column in ("platform", "language", "hook_type", "category"):
        op.create_index(
            f"ix_hooks_{column}_rank",
            "hooks",
            [column, "rank_score", "seq", "published_at", "views"],
            unique=False,
        )
    dialect = op.get_bind().dialect.name
    # the tables of this revision only: models/fulltext.py holds later tables' statements too
    for statement in (s for table in ("hooks", "sounds") for s in fulltext.statements(dialect, table=table)):
        op.execute(statement)
    if dialect == "sqlite":  # index the sounds already there; hooks fill from the refresh job's backfill
        op.execute("INSERT INTO sounds_fts(sounds_fts) VALUES ('rebuild')")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for name in ("hooks_fts", "sounds_fts"):
            op.execute(f"DROP TABLE IF EXISTS {name}")
        for trigger in ("insert", "delete", "update"):
            op.execute(f"DROP TRIGGER IF EXISTS sounds_fts_{trigger}")
    else:
        op.execute("DROP INDEX IF EXISTS ix_sounds_fts")
    op.drop_table("hooks")

"""read tables: counts of each sound's videos, the hook lists' figures and library, the catalog's
indexes their refreshes and the sound lists walk, a trend group's rows by ranking (issue 33, ADR 0038)

Revision ID: 0017_read_tables
Revises: 0016_bigint_credits
Create Date: 2026-11-28 00:00:00

The new tables start empty and are filled by their refreshes (``sound.refresh``, ``hook.refresh``),
which run after the next catalog change, every 10 minutes, and at ``reelscope serve``'s start.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db

revision: str = "0017_read_tables"
down_revision: str | None = "0020_dropin"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_TRENDING = sa.text("videos_30d > 0")
_BREAKOUT = sa.text("videos_7d > 0")


def _desc(name: str) -> sa.ColumnElement[object]:
    return sa.column(name).desc()


def upgrade() -> None:
    op.create_table(
        "sound_stats",
        sa.Column("sound_id", sa.String(length=36), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("usage_rank", sa.BigInteger(), nullable=False),
        sa.Column("video_count", sa.Integer(), nullable=False),
        sa.Column("videos_7d", sa.Integer(), nullable=False),
        sa.Column("videos_30d", sa.Integer(), nullable=False),
        sa.Column("videos_90d", sa.Integer(), nullable=False),
        sa.Column("breakout_score", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["sound_id"], ["sounds.id"], name=op.f("fk_sound_stats_sound_id_sounds"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("sound_id", name=op.f("pk_sound_stats")),
    )
    for name, keys in (
        ("videos_7d", [_desc("videos_7d")]),
        ("videos_30d", [_desc("videos_30d"), _desc("videos_7d")]),
        ("usage_count", [_desc("usage_rank"), _desc("videos_7d")]),
        ("video_count", [_desc("video_count"), _desc("videos_7d")]),
    ):
        op.create_index(
            f"ix_sound_stats_{name}",
            "sound_stats",
            [*keys, "sound_id", "platform"],
            sqlite_where=_TRENDING,
            postgresql_where=_TRENDING,
        )
    op.create_index(
        "ix_sound_stats_breakout",
        "sound_stats",
        [_desc("breakout_score"), _desc("videos_7d"), "sound_id", "platform", "videos_90d"],
        sqlite_where=_BREAKOUT,
        postgresql_where=_BREAKOUT,
    )

    op.create_table(
        "hook_type_stats",
        sa.Column("hook_type", sa.String(length=32), nullable=False),
        sa.Column("hook_count", sa.Integer(), nullable=False),
        sa.Column("median_weighted_score", sa.Float(), nullable=True),
        sa.Column("strong_hit_rate", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("hook_type", name=op.f("pk_hook_type_stats")),
    )
    op.create_table(
        "hook_category_stats",
        sa.Column("category", sa.String(length=32), nullable=False),
        sa.Column("hook_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("category", name=op.f("pk_hook_category_stats")),
    )
    op.create_table(
        "hook_library",
        sa.Column("scope", sa.String(length=64), nullable=False),
        sa.Column("text_key", sa.Text(), nullable=False),
        sa.Column("hook_type", sa.String(length=32), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("usage_count", sa.Integer(), nullable=False),
        sa.Column("best_weighted_score", sa.Float(), nullable=True),
        sa.Column("best_rank", sa.Float(), nullable=False),
        sa.Column("max_views", sa.BigInteger(), nullable=False),
        sa.Column("platform_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("scope", "text_key", "hook_type", name=op.f("pk_hook_library")),
        sqlite_with_rowid=False,
    )
    op.create_index(
        "ix_hook_library_usage",
        "hook_library",
        ["scope", _desc("usage_count"), _desc("best_rank"), "text_key", "hook_type"],
    )
    op.create_index(
        "ix_hook_library_best",
        "hook_library",
        ["scope", _desc("best_rank"), _desc("usage_count"), "text_key", "hook_type"],
    )

    # an agent's hooks and genre adjacency, kept with its analytics
    op.create_table(
        "agent_hooks",
        sa.Column("agent_id", sa.String(length=36), nullable=False),
        sa.Column("video_id", sa.String(length=36), nullable=False),
        sa.Column("platform", sa.String(length=16), nullable=False),
        sa.Column("url", sa.Text(), nullable=False),
        sa.Column("hook_text", sa.Text(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("hook_type", sa.String(length=32), nullable=False),
        sa.Column("matched_cue", sa.Text(), nullable=True),
        sa.Column("visual_hook_type", sa.String(length=32), nullable=True),
        sa.Column("views", sa.BigInteger(), nullable=False),
        sa.Column("published_at", reelscope.kit.db.UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_hooks_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("agent_id", "video_id", name=op.f("pk_agent_hooks")),
    )
    op.create_index("ix_agent_hooks_views", "agent_hooks", ["agent_id", _desc("views"), "video_id"])
    op.create_index(
        "ix_agent_hooks_type_views", "agent_hooks", ["agent_id", "hook_type", _desc("views"), "video_id"]
    )
    op.create_index(
        "ix_agent_sounds_rising",
        "agent_sounds",
        ["agent_id", _desc("rising_score"), _desc("video_count"), "sound_id"],
    )
    op.create_index(
        "ix_agent_hashtags_order",
        "agent_hashtags",
        ["agent_id", _desc("video_count"), _desc("total_views"), "hashtag"],
    )
    with op.batch_alter_table("agents") as batch_op:
        batch_op.add_column(sa.Column("affinity", sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column("hook_coverage", sa.JSON(), nullable=True))

    # the catalog's indexes the sound lists and sound.refresh read instead of the videos themselves
    op.create_index("ix_videos_creator_sound", "videos", ["creator_id", "sound_id"])
    op.create_index("ix_videos_sound_views", "videos", ["sound_id", _desc("views"), "id", "published_at"])
    op.drop_index("ix_videos_creator_id", table_name="videos")
    op.drop_index("ix_videos_sound_id", table_name="videos")
    # a trend group's top rows by ranking
    op.create_index("ix_trend_rankings_group_ranking", "trend_rankings", ["group_id", "ranking"])
    op.drop_index("ix_trend_rankings_group_id", table_name="trend_rankings")


def downgrade() -> None:
    with op.batch_alter_table("agents") as batch_op:
        batch_op.drop_column("hook_coverage")
        batch_op.drop_column("affinity")
    op.drop_table("agent_hooks")
    op.drop_index("ix_agent_hashtags_order", table_name="agent_hashtags")
    op.drop_index("ix_agent_sounds_rising", table_name="agent_sounds")
    op.create_index("ix_trend_rankings_group_id", "trend_rankings", ["group_id"])
    op.drop_index("ix_trend_rankings_group_ranking", table_name="trend_rankings")
    op.create_index("ix_videos_sound_id", "videos", ["sound_id"])
    op.create_index("ix_videos_creator_id", "videos", ["creator_id"])
    op.drop_index("ix_videos_sound_views", table_name="videos")
    op.drop_index("ix_videos_creator_sound", table_name="videos")
    op.drop_table("hook_library")
    op.drop_table("hook_category_stats")
    op.drop_table("hook_type_stats")
    op.drop_table("sound_stats")

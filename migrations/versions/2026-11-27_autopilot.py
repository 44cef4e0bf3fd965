"""autopilot: the autopilot's changes and decision log, breaking events, autonomy columns (issue 16
items 6 and 7, ADR 0032)

Revision ID: 0013_autopilot
Revises: 0012_bigviews
Create Date: 2026-11-27 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import reelscope.kit.db

revision: str = "0013_autopilot"
down_revision: str | None = "0012_bigviews"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _time() -> reelscope.kit.db.UtcDateTime:
    return reelscope.kit.db.UtcDateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("cognition_enabled", sa.Boolean(), nullable=False, server_default=sa.true())
        )
        batch_op.add_column(sa.Column("timely_keywords", sa.JSON(), nullable=False, server_default="[]"))
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.alter_column("cognition_enabled", server_default=None)
        batch_op.alter_column("timely_keywords", server_default=None)

    op.create_table(
        "agent_changes",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("agent_id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("decided_by", sa.String(length=16), nullable=True),
        sa.Column("add", sa.JSON(), nullable=False),
        sa.Column("remove", sa.JSON(), nullable=False),
        sa.Column("time_range_from", sa.String(length=16), nullable=True),
        sa.Column("time_range_to", sa.String(length=16), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("effect", sa.JSON(), nullable=True),
        sa.Column("run_id", sa.String(length=36), nullable=True),
        sa.Column("event_id", sa.String(length=36), nullable=True),
        sa.Column("expires_at", _time(), nullable=True),
        sa.Column("created_at", _time(), nullable=False),
        sa.Column("decided_at", _time(), nullable=True),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_changes_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_changes")),
    )
    op.create_index("ix_agent_changes_agent_created", "agent_changes", ["agent_id", "created_at"])

    op.create_table(
        "agent_activity",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("agent_id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("at", _time(), nullable=False),
        sa.Column("action", sa.String(length=40), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("change_id", sa.String(length=36), nullable=True),
        sa.Column("event_id", sa.String(length=36), nullable=True),
        sa.Column("run_id", sa.String(length=36), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_activity_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_activity")),
    )
    op.create_index("ix_agent_activity_agent_at", "agent_activity", ["agent_id", "at"])

    op.create_table(
        "agent_events",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("agent_id", sa.String(length=36), nullable=False),
        sa.Column("team_id", sa.String(length=36), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("topic", sa.String(length=300), nullable=False),
        sa.Column("dedupe_key", sa.String(length=400), nullable=False),
        sa.Column("title", sa.String(length=500), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("salience", sa.Float(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("detected_at", _time(), nullable=False),
        sa.Column("confirmed_at", _time(), nullable=True),
        sa.Column("expires_at", _time(), nullable=False),
        sa.Column("ended_at", _time(), nullable=True),
        sa.Column("keywords", sa.JSON(), nullable=False),
        sa.Column("keywords_added", sa.JSON(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("action_taken", sa.String(length=20), nullable=True),
        sa.Column("change_id", sa.String(length=36), nullable=True),
        sa.Column("updated_at", _time(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_agent_events_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_events")),
        sa.UniqueConstraint("agent_id", "dedupe_key", name=op.f("uq_agent_events_agent_id_dedupe_key")),
    )
    op.create_index("ix_agent_events_agent_topic", "agent_events", ["agent_id", "source", "topic"])
    op.create_index("ix_agent_events_status_expires", "agent_events", ["status", "expires_at"])


def downgrade() -> None:
    op.drop_index("ix_agent_events_status_expires", table_name="agent_events")
    op.drop_index("ix_agent_events_agent_topic", table_name="agent_events")
    op.drop_table("agent_events")
    op.drop_index("ix_agent_activity_agent_at", table_name="agent_activity")
    op.drop_table("agent_activity")
    op.drop_index("ix_agent_changes_agent_created", table_name="agent_changes")
    op.drop_table("agent_changes")
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.drop_column("timely_keywords")
        batch_op.drop_column("cognition_enabled")

"""agent_similar_models: each agent's creators prepared for similar-creator questions, made by a job after
a run stores its links (issue 33 item 4, ADR 0056)

Empty at first: an agent's model is made after its next run; until then a question prepares the agent's
creators itself, as before.

Revision ID: 0027_agent_similar_models
Revises: 0026_hook_texts
Create Date: 2026-12-06 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from reelscope.kit.db import UtcDateTime

revision: str = "0027_agent_similar_models"
down_revision: str | None = "0026_hook_texts"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agent_similar_models",
        sa.Column("agent_id", sa.String(36), nullable=False),
        sa.Column("links_at", UtcDateTime(), nullable=True),
        sa.Column("links_count", sa.Integer(), nullable=False),
        sa.Column("model", sa.LargeBinary(), nullable=True),
        sa.Column("built_at", UtcDateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agents.id"],
            name=op.f("fk_agent_similar_models_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("agent_id", name=op.f("pk_agent_similar_models")),
    )


def downgrade() -> None:
    op.drop_table("agent_similar_models")

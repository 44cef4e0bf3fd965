"""the index the retention purge finds deleted agents by (issue 31 item 1)

Revision ID: 0024_deleted_agents
Revises: 0023_retention
Create Date: 2026-12-03 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0024_deleted_agents"
down_revision: str | None = "0023_retention"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_DELETED = sa.text("deleted_at IS NOT NULL")


def upgrade() -> None:
    # partial: live agents (nearly all) are not in it
    op.create_index(
        "ix_agents_deleted", "agents", ["deleted_at"], sqlite_where=_DELETED, postgresql_where=_DELETED
    )


def downgrade() -> None:
    op.drop_index("ix_agents_deleted", table_name="agents")

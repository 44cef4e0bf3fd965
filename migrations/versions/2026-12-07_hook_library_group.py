"""hooks by distinct hook with what the library filters and shows: a library with two filters or
min_views walks the kept rows of one scope and reads each one's figures within the filters from this
index alone; and hooks by views, for a min_views over which few hooks are (issue 33 item 4, ADR 0057)

Revision ID: 0028_hook_library_group
Revises: 0027_agent_similar_models
Create Date: 2026-12-06 00:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0028_hook_library_group"
down_revision: str | None = "0027_agent_similar_models"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# as models/hooks.LIBRARY_GROUP at this revision
COLUMNS = [
    "text_key",
    "hook_type",
    "views",
    "platform",
    "language",
    "category",
    "visual_hook_type",
    "weighted_score",
    "text",
]


def upgrade() -> None:
    op.create_index("ix_hooks_library_group", "hooks", COLUMNS, unique=False)
    op.create_index("ix_hooks_views", "hooks", ["views"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_hooks_views", table_name="hooks")
    op.drop_index("ix_hooks_library_group", table_name="hooks")

"""hooks by text, best first: search serves one row per distinct hook (issue 32 item 5)

``ix_hooks_text_key`` (text_key) becomes ``ix_hooks_text_key_rank`` (text_key, rank_score, seq): the
same lookups by text, and a text's best hook in one seek, which search checks for every row it counts.

Revision ID: 0025_hook_text_rank
Revises: 0024_deleted_agents
Create Date: 2026-12-04 00:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0025_hook_text_rank"
down_revision: str | None = "0024_deleted_agents"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_hooks_text_key_rank", "hooks", ["text_key", "rank_score", "seq"], unique=False)
    op.drop_index("ix_hooks_text_key", table_name="hooks")


def downgrade() -> None:
    op.create_index("ix_hooks_text_key", "hooks", ["text_key"], unique=False)
    op.drop_index("ix_hooks_text_key_rank", table_name="hooks")

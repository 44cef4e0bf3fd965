"""search speed: PostgreSQL phrase pairs, rank order with the words, sound search order; a rank index per
visual hook type (issue 19 item 3, ADR 0035)

Revision ID: 0014_search_speed
Revises: 0013_autopilot
Create Date: 2026-11-27 12:00:00
"""

from collections.abc import Sequence

from alembic import op

from reelscope.models import fulltext

revision: str = "0014_search_speed"
down_revision: str | None = "0013_autopilot"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# PostgreSQL only (models/fulltext.py): SQLite's FTS5 keeps positions and has its search order already
_POSTGRESQL_NEW = ("hook_word_pairs", "ix_hooks_fts_pairs", "ix_hooks_rank_text", "ix_sounds_search_order")


def upgrade() -> None:
    op.create_index(
        "ix_hooks_visual_hook_type_rank",
        "hooks",
        ["visual_hook_type", "rank_score", "seq", "published_at", "views"],
        unique=False,
    )
    if op.get_bind().dialect.name == "postgresql":
        # the tables of this revision only: models/fulltext.py holds later tables' statements too
        made = [s for table in ("hooks", "sounds") for s in fulltext.statements("postgresql", table=table)]
        for statement in made:
            if any(name in statement for name in _POSTGRESQL_NEW):
                op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        for name in _POSTGRESQL_NEW[1:]:
            op.execute(f"DROP INDEX IF EXISTS {name}")
        op.execute("DROP FUNCTION IF EXISTS hook_word_pairs(text)")
    op.drop_index("ix_hooks_visual_hook_type_rank", table_name="hooks")

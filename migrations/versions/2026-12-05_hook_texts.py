"""hook_texts: one row per distinct hook text with its usage count and best hook, its own full-text
index, kept from hooks by triggers; search reads it (issue 33 item 4, ADR 0055)

Filled from the hooks already there (one pass over them, grouped by text), then its full-text index made
(SQLite: the FTS5 table rebuilt from the rows; PostgreSQL: the stored word vectors and their GIN indexes)
and the triggers on hooks that keep it set.

Revision ID: 0026_hook_texts
Revises: 0025_hook_text_rank
Create Date: 2026-12-05 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from reelscope.models import fulltext

revision: str = "0026_hook_texts"
down_revision: str | None = "0025_hook_text_rank"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "hook_texts",
        sa.Column("seq", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("text_key", sa.Text(), nullable=False),
        sa.Column("usage_count", sa.Integer(), nullable=False),
        sa.Column("best_seq", sa.Integer(), nullable=False),
        sa.Column("best_rank", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("seq", name=op.f("pk_hook_texts")),
        sa.UniqueConstraint("text_key", name=op.f("uq_hook_texts_text_key")),
    )
    op.execute(fulltext.HOOK_TEXTS_FILL)  # before the index and triggers: one sorted pass, then the index
    best = [sa.column("best_rank").desc(), sa.column("best_seq").desc()]
    op.create_index("ix_hook_texts_best", "hook_texts", best, postgresql_include=["text_key", "usage_count"])
    dialect = op.get_bind().dialect.name
    for statement in fulltext.statements(dialect, table="hook_texts"):
        op.execute(statement)
    if dialect == "sqlite":
        op.execute("INSERT INTO hook_texts_fts(hook_texts_fts) VALUES ('rebuild')")
    # statistics now, not at autovacuum's leisure: without them PostgreSQL walked the whole table for a
    # rare word (300-480 ms a search at 1M hooks, against 5-10 ms once analyzed)
    op.execute("ANALYZE hook_texts")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS hook_texts_keep ON hooks")
        op.execute("DROP FUNCTION IF EXISTS hook_texts_keep()")
    else:
        for name in ("join", "leave", "move", "rerank"):
            op.execute(f"DROP TRIGGER IF EXISTS hook_texts_{name}")
        op.execute("DROP TABLE IF EXISTS hook_texts_fts")
    op.drop_index("ix_hook_texts_best", table_name="hook_texts")
    op.drop_table("hook_texts")

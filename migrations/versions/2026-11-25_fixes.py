"""fixes: a refund is unique per (team_id, reference)

Revision ID: 0011_fixes
Revises: 0010_tracking
Create Date: 2026-11-25 16:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_fixes"
down_revision: str | None = "0010_tracking"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # billing/usage.py inserts a refund with ON CONFLICT DO NOTHING on this index, so two paths giving up
    # the same job (its task and the dispatcher) refund it once
    op.create_index(
        "uq_credit_ledger_refund_reference",
        "credit_ledger",
        ["team_id", "reference"],
        unique=True,
        postgresql_where=sa.text("kind = 'refund'"),
        sqlite_where=sa.text("kind = 'refund'"),
    )


def downgrade() -> None:
    op.drop_index("uq_credit_ledger_refund_reference", table_name="credit_ledger")

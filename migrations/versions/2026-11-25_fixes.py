"""fixes: a refund is unique per (team_id, reference); schedules carry their jobs' poll_url and webhook_event

Revision ID: 0011_fixes
Revises: 0010_hooks
Create Date: 2026-11-25 16:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011_fixes"
down_revision: str | None = "0010_hooks"
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

    # a scheduled job shows in §2.6 pending_jobs with the poll_url and webhook_event of a first one
    with op.batch_alter_table("schedules") as batch:
        batch.add_column(sa.Column("poll_url", sa.String(length=300), nullable=True))
        batch.add_column(sa.Column("webhook_event", sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("schedules") as batch:
        batch.drop_column("webhook_event")
        batch.drop_column("poll_url")
    op.drop_index("uq_credit_ledger_refund_reference", table_name="credit_ledger")

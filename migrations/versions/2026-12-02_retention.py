"""indexes the retention purge finds old rows by (issue 31 item 1)

Revision ID: 0023_retention
Revises: 0022_spend
Create Date: 2026-12-02 00:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0023_retention"
down_revision: str | None = "0022_spend"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_webhook_deliveries_created", "webhook_deliveries", ["created_at"])
    op.create_index("ix_jobs_finished_at", "jobs", ["finished_at"])
    op.create_index("ix_tracking_snapshots_taken", "tracking_snapshots", ["taken_at"])


def downgrade() -> None:
    op.drop_index("ix_tracking_snapshots_taken", table_name="tracking_snapshots")
    op.drop_index("ix_jobs_finished_at", table_name="jobs")
    op.drop_index("ix_webhook_deliveries_created", table_name="webhook_deliveries")

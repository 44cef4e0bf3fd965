"""job progress: where a job that works in steps stands, so a restart resumes it (issue 33 item 5)

A long background job (the first start's history) records, in the transaction of each step it lands,
what it has done; the attempt that follows a restart reads it and goes on from there (ADR 0042). Null
for every job that does not work in steps.

Revision ID: 0018_job_priority
Revises: 0016_bigint_credits
Create Date: 2026-11-28 02:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018_job_priority"
down_revision: str | None = "0017_read_tables"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.add_column(sa.Column("progress", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs", schema=None) as batch_op:
        batch_op.drop_column("progress")

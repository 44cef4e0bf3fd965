"""drop-in: a batch creator lookup may mix platforms, so its platform may be null (issue 28, ADR 0043)

Revision ID: 0020_dropin
Revises: 0016_bigint_credits
Create Date: 2026-11-29 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_dropin"
down_revision: str | None = "0019_collectors"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lookup_batches", schema=None) as batch_op:
        batch_op.alter_column("platform", existing_type=sa.String(length=16), nullable=True)


def downgrade() -> None:
    # a mixed batch had no one platform before: it is shown under the platform of a run it started (a
    # batch of cached runs only started none, and is shown under tiktok)
    op.execute(
        "UPDATE lookup_batches SET platform = COALESCE((SELECT MIN(r.platform) FROM lookup_runs r "
        "WHERE r.batch_id = lookup_batches.id), 'tiktok') WHERE platform IS NULL"
    )
    with op.batch_alter_table("lookup_batches", schema=None) as batch_op:
        batch_op.alter_column("platform", existing_type=sa.String(length=16), nullable=False)

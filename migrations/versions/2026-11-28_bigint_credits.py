"""bigint credits: balances and ledger amounts are 64-bit on PostgreSQL, as they are on SQLite

A team's balance, its auto top-up settings and the ledger's amounts were PostgreSQL ``integer``: a balance
past 2^31 - 1 credits ($21.5M) failed there while SQLite (whose INTEGER is 64-bit) took it. SQLite's
schema is unchanged (models: ``kit.db.BigInt``). On PostgreSQL the ledger is rewritten under its lock.

Revision ID: 0016_bigint_credits
Revises: 0015_trend_members
Create Date: 2026-11-28 00:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016_bigint_credits"
down_revision: str | None = "0015_trend_members"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = {
    "teams": (("credits", False), ("auto_topup_below", True), ("auto_topup_amount", True)),
    "credit_ledger": (("credits", False), ("balance_after", False)),
}


def _retype(old: sa.types.TypeEngine, new: sa.types.TypeEngine) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite's INTEGER is 64-bit already
    for table, columns in COLUMNS.items():
        for column, nullable in columns:
            op.alter_column(table, column, existing_type=old, type_=new, existing_nullable=nullable)


def upgrade() -> None:
    _retype(sa.Integer(), sa.BigInteger())


def downgrade() -> None:
    _retype(sa.BigInteger(), sa.Integer())

"""The credit ledger: append-only rows whose sum is the team's balance (spec §1, §8.2)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, BigInt, UtcDateTime
from reelscope.kit.ids import new_ordered_id


class LedgerEntry(Base):
    __tablename__ = "credit_ledger"
    __table_args__ = (
        Index("ix_credit_ledger_team_created", "team_id", "created_at"),
        # a refund is given once per reference (a job's ``job:<id>``), however many paths give it up
        Index(
            "uq_credit_ledger_refund_reference",
            "team_id",
            "reference",
            unique=True,
            postgresql_where=text("kind = 'refund'"),
            sqlite_where=text("kind = 'refund'"),
        ),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_ordered_id)
    team_id: Mapped[str] = mapped_column(ForeignKey("teams.id", ondelete="CASCADE"))
    # charge | top_up | refund | adjustment
    kind: Mapped[str] = mapped_column(String(16))
    # signed: charges are negative
    credits: Mapped[int] = mapped_column(BigInt)
    balance_after: Mapped[int] = mapped_column(BigInt)
    operation: Mapped[str | None] = mapped_column(String(100), nullable=True)
    reference: Mapped[str | None] = mapped_column(String(100), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)

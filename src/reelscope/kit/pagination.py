"""Page-numbered lists with a ``pagination`` block (spec §8.3): sounds, hooks, tracking lists.

A family's query model subclasses ``PageQuery`` (``page`` from 1, ``limit`` default 20, above 100 read
as 100); its repository takes ``query.offset`` and ``query.limit`` and also counts the matching rows;
its endpoint returns ``Page(data=items, pagination=Pagination.of(query, total))``.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import Field

from reelscope.kit.schemas import LimitUpTo100, QueryModel, Schema

T = TypeVar("T")

# §7: a page or offset past these is a 400 validation_error, never an overflow in the database (a
# digits-only value can be larger than any 64-bit integer); no list is anywhere near this long
MAX_PAGE = 1_000_000
MAX_OFFSET = 100_000_000


class PageQuery(QueryModel):
    """``page`` is 1-indexed, default 1; ``limit`` default 20, max 100 (values above clamp) (§8.3)."""

    page: int = Field(default=1, ge=1, le=MAX_PAGE, description="1-indexed page number (at most 1,000,000)")
    limit: LimitUpTo100 = Field(default=20, description="1 to 100, default 20; above 100 is treated as 100")

    @property
    def offset(self) -> int:
        return (self.page - 1) * self.limit


class Pagination(Schema):
    """§8.3: follow ``has_next_page``."""

    page: int
    limit: int
    total: int
    total_pages: int
    has_next_page: bool
    has_prev_page: bool

    @classmethod
    def of(cls, query: PageQuery, total: int) -> Pagination:
        total_pages = -(-total // query.limit)  # ceiling division
        return cls(
            page=query.page,
            limit=query.limit,
            total=total,
            total_pages=total_pages,
            has_next_page=query.page < total_pages,
            has_prev_page=query.page > 1,
        )


class Page(Schema, Generic[T]):
    """``{ "data": [...], "pagination": {...} }``."""

    data: list[T]
    pagination: Pagination

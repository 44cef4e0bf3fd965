"""kit/pagination.py: the §8.3 page query and pagination block every paged family shares."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from reelscope.kit.pagination import PageQuery, Pagination


class TestPageQuery:
    def test_defaults(self) -> None:
        query = PageQuery()
        assert (query.page, query.limit, query.offset) == (1, 20, 0)

    def test_limit_above_100_is_100(self) -> None:
        assert PageQuery(limit=500).limit == 100

    def test_offset_of_a_later_page(self) -> None:
        assert PageQuery(page=3, limit=10).offset == 20

    @pytest.mark.parametrize("fields", [{"page": 0}, {"limit": 0}, {"offset": 5}])
    def test_refused(self, fields: dict[str, int]) -> None:
        with pytest.raises(ValidationError):
            PageQuery(**fields)


class TestPagination:
    @pytest.mark.parametrize(
        ("page", "limit", "total", "pages", "has_next", "has_prev"),
        [
            (1, 20, 0, 0, False, False),
            (1, 20, 20, 1, False, False),
            (1, 20, 21, 2, True, False),
            (2, 20, 21, 2, False, True),
            (5, 20, 21, 2, False, True),  # a page past the end: empty, nothing next
        ],
    )
    def test_block(
        self, page: int, limit: int, total: int, pages: int, has_next: bool, has_prev: bool
    ) -> None:
        block = Pagination.of(PageQuery(page=page, limit=limit), total)
        assert block.model_dump() == {
            "page": page,
            "limit": limit,
            "total": total,
            "total_pages": pages,
            "has_next_page": has_next,
            "has_prev_page": has_prev,
        }

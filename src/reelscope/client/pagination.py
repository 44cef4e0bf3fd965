"""Iterators over the four pagination styles of §8.3, and over offset pages (satellite runs).

Each list names its style; ``iter_*`` methods of the clients call the operation page after page:

- ``pagination``: a ``pagination`` block; follow ``has_next_page`` (``total`` can be too low).
- ``short_page``: agents and runs return ``count``, no total; stop at the first page shorter than ``limit``.
- ``empty_page``: an agent's videos, slideshows, ads and outliers; stop only at an empty page, and skip
  ids already seen (``total`` is approximate and items repeat across pages).
- ``cursor``: the delivery log; send ``next_cursor`` back as ``cursor`` until it is null.
- ``offset``: satellite runs and a lookup's videos take ``offset``; go on while ``has_more``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal

Kind = Literal["pagination", "short_page", "empty_page", "cursor", "offset"]
Params = dict[str, Any]


@dataclass(frozen=True)
class PageStyle:
    kind: Kind
    items: str | None = None  # the list's field inside ``data`` (or the body, for a cursor page)

    def step(self, result: Any, params: Params) -> tuple[list[Any], Params | None]:
        """The items of one page and the parameters of the next (None after the last)."""
        if self.kind == "pagination":
            pagination = result.pagination
            return list(result.data), {"page": pagination.page + 1} if pagination.has_next_page else None
        if self.kind == "cursor":
            cursor = result.next_cursor
            return list(getattr(result, self._field)), {"cursor": cursor} if cursor else None
        data = result.data
        items = list(getattr(data, self._field))
        if self.kind == "short_page":
            return items, {"page": data.page + 1} if len(items) >= data.limit else None
        if self.kind == "empty_page":
            return items, {"page": data.page + 1} if items else None
        return items, {"offset": data.offset + len(items)} if items and data.has_more else None

    @property
    def _field(self) -> str:
        if self.items is None:
            raise ValueError(f"a {self.kind} page names its list field")
        return self.items


def _identity(item: Any) -> Any:
    """An item's id; a creator outlier row is named by ``creator_id`` (it has no ``id``)."""
    if isinstance(item, dict):
        return item.get("id", item.get("creator_id"))
    return getattr(item, "id", None)


class _Unseen:
    """Items not yet yielded, by id (``empty_page`` lists only; §8.3)."""

    def __init__(self, style: PageStyle) -> None:
        self._dedupe = style.kind == "empty_page"
        self._seen: set[Any] = set()

    def __call__(self, item: Any) -> bool:
        if not self._dedupe:
            return True
        identity = _identity(item)
        if identity is None:
            return True
        if identity in self._seen:
            return False
        self._seen.add(identity)
        return True


def iterate(fetch: Callable[..., Any], style: PageStyle) -> Iterator[Any]:
    """Every item of a list, fetching each page as the iteration reaches it."""
    unseen = _Unseen(style)
    params: Params | None = {}
    while params is not None:
        items, params = style.step(fetch(**params), params)
        yield from filter(unseen, items)


async def aiterate(fetch: Callable[..., Awaitable[Any]], style: PageStyle) -> AsyncIterator[Any]:
    """``iterate`` for the async client."""
    unseen = _Unseen(style)
    params: Params | None = {}
    while params is not None:
        items, params = style.step(await fetch(**params), params)
        for item in filter(unseen, items):
            yield item

"""Answers this process keeps between requests, each under the version of what it was built from.

One owner, held by ``Runtime``: every family keeps its rendered bodies and parsed queries here rather
than in module globals. An entry is ``(key, version) -> value``; a lookup with another version misses
(the data moved on), and one rule evicts: least recently used first, past ``max_entries`` in all. A
version is whatever names the data an answer was built from, read afresh on every request (a digest
list's ``version`` column, the hashtag rollup's), so a kept answer is never older than that read.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

_MISSING = object()


class ReadCaches:
    def __init__(self, max_entries: int = 8_192) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[Hashable, tuple[Hashable, Any]] = OrderedDict()

    def lookup(self, key: Hashable, version: Hashable) -> tuple[bool, Any]:
        """(True, value) when ``key`` was kept for ``version``; else (False, None)."""
        entry = self._entries.get(key, _MISSING)
        if entry is _MISSING or entry[0] != version:  # type: ignore[index]
            return False, None
        self._entries.move_to_end(key)
        return True, entry[1]  # type: ignore[index]

    def keep(self, key: Hashable, version: Hashable, value: Any) -> None:
        self._entries[key] = (version, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()

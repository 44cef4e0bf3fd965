"""Answers this process keeps between requests, each under the version of what it was built from.

One owner, held by ``Runtime``: every family keeps its rendered bodies and parsed queries here rather
than in module globals. An entry is ``(key, version) -> value``; a lookup with another version misses
(the data moved on), and one rule evicts: least recently used first, past ``max_entries`` in all, or
past the ``at_most`` a large kind of entry was kept with (its key's first item names the kind). A
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
        # the keys of each kind kept with ``at_most``, least recently used first
        self._kinds: dict[Hashable, OrderedDict[Hashable, None]] = {}

    def lookup(self, key: Hashable, version: Hashable) -> tuple[bool, Any]:
        """(True, value) when ``key`` was kept for ``version``; else (False, None)."""
        entry = self._entries.get(key, _MISSING)
        if entry is _MISSING or entry[0] != version:  # type: ignore[index]
            return False, None
        self._entries.move_to_end(key)
        kind = self._kinds.get(_kind(key))
        if kind is not None and key in kind:
            kind.move_to_end(key)
        return True, entry[1]  # type: ignore[index]

    def keep(self, key: Hashable, version: Hashable, value: Any, *, at_most: int | None = None) -> None:
        """Keep ``value``; ``at_most``: how many entries of this kind to keep, for values too large to
        keep thousands of (a prepared model of an agent's creators)."""
        self._entries[key] = (version, value)
        self._entries.move_to_end(key)
        if at_most is not None:
            capped = self._kinds.setdefault(_kind(key), OrderedDict())
            capped[key] = None
            capped.move_to_end(key)
            while len(capped) > at_most:
                oldest, _ = capped.popitem(last=False)
                self._entries.pop(oldest, None)
        while len(self._entries) > self.max_entries:
            evicted, _ = self._entries.popitem(last=False)
            kind = self._kinds.get(_kind(evicted))
            if kind is not None:
                kind.pop(evicted, None)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self._kinds.clear()


def _kind(key: Hashable) -> Hashable:
    return key[0] if isinstance(key, tuple) and key else key

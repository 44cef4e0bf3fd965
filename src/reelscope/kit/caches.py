"""Answers this process keeps between requests, each under the version of what it was built from.

One owner, held by ``Runtime``: every family keeps its rendered bodies and parsed queries here rather
than in module globals. An entry is ``(key, version) -> value``; a lookup with another version misses
(the data moved on), and one rule evicts: least recently used first, past ``max_entries`` in all, past
``max_bytes`` in all, or past the ``at_most`` a large kind of entry was kept with (its key's first item
names the kind). A version is whatever names the data an answer was built from, read afresh on every
request (a digest list's ``version`` column, the hashtag rollup's), so a kept answer is never older than
that read.

Bytes bound the process's memory, not the count (issue 31: a long life's main process grew 2.8 MB a
minute, filling 8,192 entries with bodies of up to several hundred KB: a digest body is kept per window
position, and the window slides). A value's size is the memory it takes when it is bytes or text (a
text with one character beyond Latin-1 takes 2 or 4 bytes for every character: ``sys.getsizeof``);
anything else is counted as the ``nbytes`` its caller gives, or as ``UNSIZED`` bytes.
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

_MISSING = object()

# what an entry of no stated size is counted as: a parsed query, a small model
UNSIZED = 1_024
# per entry, beyond its value: the key, the version and the dict slots (measured: 300-600 bytes)
OVERHEAD = 512


class ReadCaches:
    def __init__(self, max_entries: int = 8_192, max_bytes: int = 64 * 1024 * 1024) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.bytes = 0
        # key -> (version, value, counted bytes)
        self._entries: OrderedDict[Hashable, tuple[Hashable, Any, int]] = OrderedDict()
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

    def keep(
        self,
        key: Hashable,
        version: Hashable,
        value: Any,
        *,
        at_most: int | None = None,
        nbytes: int | None = None,
    ) -> None:
        """Keep ``value``; ``at_most``: how many entries of this kind to keep, for values too large to
        keep thousands of (a prepared model of an agent's creators); ``nbytes``: the value's size when it
        is neither bytes nor text. A value larger than a quarter of ``max_bytes`` is not kept."""
        size = OVERHEAD + (nbytes if nbytes is not None else _size(value))
        self._drop(key)
        if size > self.max_bytes // 4:
            return
        self._entries[key] = (version, value, size)
        self.bytes += size
        if at_most is not None:
            capped = self._kinds.setdefault(_kind(key), OrderedDict())
            capped[key] = None
            while len(capped) > at_most:
                self._drop(next(iter(capped)))
        while len(self._entries) > self.max_entries or self.bytes > self.max_bytes:
            self._drop(next(iter(self._entries)))

    def _drop(self, key: Hashable) -> None:
        entry = self._entries.pop(key, None)
        if entry is None:
            return
        self.bytes -= entry[2]
        kind = self._kinds.get(_kind(key))
        if kind is not None:
            kind.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        self._entries.clear()
        self._kinds.clear()
        self.bytes = 0


def _kind(key: Hashable) -> Hashable:
    return key[0] if isinstance(key, tuple) and key else key


def _size(value: Any) -> int:
    if isinstance(value, bytes | bytearray | str):
        return sys.getsizeof(value)
    if isinstance(value, memoryview):
        return value.nbytes
    return UNSIZED

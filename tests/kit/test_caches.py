"""The one owner of kept answers (kit/caches.py): versioned entries, least recently used out first."""

from __future__ import annotations

import sys

from reelscope.kit.caches import OVERHEAD, UNSIZED, ReadCaches


class TestReadCaches:
    def test_an_answer_is_found_only_under_its_version(self) -> None:
        caches = ReadCaches()
        caches.keep("k", "v1", b"body")
        assert caches.lookup("k", "v1") == (True, b"body")
        assert caches.lookup("k", "v2") == (False, None)  # the data moved on: rebuild
        caches.keep("k", "v2", b"new")
        assert caches.lookup("k", "v1") == (False, None)
        assert caches.lookup("k", "v2") == (True, b"new")

    def test_a_kept_none_is_an_answer(self) -> None:
        caches = ReadCaches()
        caches.keep("missing", 1, None)
        assert caches.lookup("missing", 1) == (True, None)

    def test_the_least_recently_used_entry_leaves_first(self) -> None:
        caches = ReadCaches(max_entries=2)
        caches.keep("a", 1, "A")
        caches.keep("b", 1, "B")
        assert caches.lookup("a", 1) == (True, "A")  # a is now the most recently used
        caches.keep("c", 1, "C")
        assert caches.lookup("b", 1) == (False, None)
        assert caches.lookup("a", 1) == (True, "A") and caches.lookup("c", 1) == (True, "C")
        assert len(caches) == 2

    def test_a_large_kind_keeps_at_most_its_own_count(self) -> None:
        # prepared models of agents' creators are megabytes each: a few kept, whatever else is kept
        caches = ReadCaches()
        caches.keep("small", 1, "S")
        for agent in ("a", "b", "c"):
            caches.keep(("model", agent), 1, agent.upper(), at_most=2)
        assert caches.lookup(("model", "a"), 1) == (False, None)  # the least recently used of its kind
        assert caches.lookup(("model", "b"), 1) == (True, "B")  # b is now more recent than c
        caches.keep(("model", "d"), 1, "D", at_most=2)
        assert caches.lookup(("model", "c"), 1) == (False, None)
        assert caches.lookup(("model", "b"), 1) == (True, "B") and caches.lookup(("model", "d"), 1) == (
            True,
            "D",
        )
        assert caches.lookup("small", 1) == (True, "S")

    def test_bytes_bound_what_is_kept_whatever_the_count(self) -> None:
        # issue 31: bodies of several hundred KB under 8,192 entries grew a long life's memory by MB a minute
        caches = ReadCaches(max_bytes=10 * (OVERHEAD + sys.getsizeof(b"x" * 1_000)))
        for n in range(25):
            caches.keep(("body", n), 1, b"x" * 1_000)
        assert caches.bytes <= caches.max_bytes
        assert len(caches) == 10
        assert caches.lookup(("body", 14), 1) == (False, None)  # the oldest left
        assert caches.lookup(("body", 24), 1) == (True, b"x" * 1_000)

    def test_a_value_of_stated_size_counts_that_size(self) -> None:
        caches = ReadCaches(max_bytes=8 * 4_096)
        caches.keep("model", 1, object(), nbytes=4_096)
        assert caches.bytes == OVERHEAD + 4_096
        caches.keep("query", 1, object())
        assert caches.bytes == 2 * OVERHEAD + 4_096 + UNSIZED

    def test_replacing_an_entry_counts_only_the_new_value(self) -> None:
        caches = ReadCaches()
        caches.keep("k", 1, b"a" * 500)
        caches.keep("k", 2, b"b" * 100)
        assert caches.bytes == OVERHEAD + sys.getsizeof(b"b" * 100)
        caches.clear()
        assert caches.bytes == 0 and len(caches) == 0

    def test_a_value_too_large_for_a_quarter_of_the_budget_is_not_kept(self) -> None:
        caches = ReadCaches(max_bytes=40_000)
        caches.keep("small", 1, b"s")
        caches.keep("huge", 1, b"h" * 20_000)
        assert caches.lookup("huge", 1) == (False, None)
        assert caches.lookup("small", 1) == (True, b"s")  # nothing was pushed out for it

    def test_an_at_most_kind_evicted_by_bytes_leaves_its_count_too(self) -> None:
        caches = ReadCaches(max_bytes=3 * (OVERHEAD + sys.getsizeof(b"x" * 2_000)))
        caches.keep(("model", "a"), 1, b"a" * 2_000, at_most=2)
        for n in range(3):
            caches.keep(("body", n), 1, b"x" * 2_000)
        assert caches.lookup(("model", "a"), 1) == (False, None)
        caches.keep(("model", "b"), 1, b"b", at_most=1)
        assert caches.lookup(("model", "b"), 1) == (True, b"b")  # "a" no longer counts against the kind

    def test_a_text_counts_the_memory_it_takes(self) -> None:
        """A rendered page with one emoji is stored 4 bytes a character: counting its length let such
        bodies hold four times the budget."""
        caches = ReadCaches(max_bytes=64 * 1024 * 1024)
        page = "\N{THINKING FACE}" + "a" * 99_999
        caches.keep("page", 1, page)
        assert caches.bytes >= OVERHEAD + 4 * len(page)
        assert caches.bytes == OVERHEAD + sys.getsizeof(page)

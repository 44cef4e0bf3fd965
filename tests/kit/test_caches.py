"""The one owner of kept answers (kit/caches.py): versioned entries, least recently used out first."""

from __future__ import annotations

from reelscope.kit.caches import ReadCaches


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

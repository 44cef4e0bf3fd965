# ruff: noqa: S608  (fixed DDL built from constants of this module; no input reaches it)
"""Full-text indexes of hook and sound search (issue 19; ADR 0021), outside the ORM's tables.

* SQLite: an FTS5 external-content table per searched table, kept in step by triggers. ``hooks_fts``
  indexes ``hooks.text_key`` by ``hooks.seq`` (an INTEGER PRIMARY KEY, so rowids are stable);
  ``sounds_fts`` indexes title, owner handle and owner nickname by the sounds' rowid (a VACUUM may
  renumber those: rebuild with ``INSERT INTO sounds_fts(sounds_fts) VALUES ('rebuild')`` after one).
* PostgreSQL: a GIN index over ``to_tsvector('simple', ...)`` of the same columns; queries use the
  exact expression (``HOOK_TSVECTOR``, ``SOUND_TSVECTOR``) so the planner takes the index. A GIN index
  keeps no word positions, so a phrase is checked row by row in the table; ``ix_hooks_fts_pairs``
  indexes each pair of adjacent words of ``text_key`` as one lexeme (the function ``hook_word_pairs``:
  "dont tu as besoin" -> ``dont_tu``, ``tu_as``, ``as_besoin``) so a phrase's rows are found in the
  index (ADR 0035). ``ix_sounds_search_order`` is sound search's order on both databases.

The statements run with ``create_all`` (DDL events below, as the test databases are built) and from the
migration (``STATEMENTS``), so both ways give the same schema. Tokens: the ``unicode61`` tokenizer and
the ``simple`` configuration both split on anything but letters and digits and fold case; neither
stems, so matching is whole-word, as analysis/hooks.normalize splits words.
"""

from __future__ import annotations

from sqlalchemy import DDL, Table, event

from reelscope.models.catalog import Sound
from reelscope.models.hooks import Hook

HOOK_TSVECTOR = "to_tsvector('simple', text_key)"
_SOUND_TEXT = (
    "coalesce(title, '') || ' ' || coalesce(owner_handle, '') || ' ' || coalesce(owner_nickname, '')"
)
SOUND_TSVECTOR = f"to_tsvector('simple', {_SOUND_TEXT})"
# the adjacent pairs of text_key's words (single-space separated letters and digits, never "_") as
# lexemes: the pairs starting at even positions, then those at odd ones (the first word dropped). A
# PL/pgSQL function (never inlined) with a high COST, so the planner knows that testing it row by row
# is dear and finds its rows through the index (it walked a whole btree computing it otherwise)
_PAIRS = r"regexp_replace({words}, '(\S+) (\S+)', '\1_\2', 'g')"
HOOK_PAIRS_FUNCTION = (
    "CREATE OR REPLACE FUNCTION hook_word_pairs(text_key text) RETURNS tsvector LANGUAGE plpgsql "
    "IMMUTABLE STRICT PARALLEL SAFE COST 1000 AS $$ BEGIN RETURN array_to_tsvector(string_to_array("
    + _PAIRS.format(words="text_key")
    + ", ' ') || string_to_array("
    + _PAIRS.format(words=r"regexp_replace(text_key, '^\S+ ?', '')")
    + ", ' ')); END $$"
)
HOOK_PAIRS_TSVECTOR = "hook_word_pairs(text_key)"
# sound search's fields in one lowercased text (a common word's test, row by row: sound/repository.py)
SOUND_FIELDS = f"lower({_SOUND_TEXT})"
# the planner settings of a search's transaction on PostgreSQL (hook and sound search, ADR 0035): a plan
# made for each statement's own words (a generic plan, taken after five runs of a prepared statement,
# does not know whether they match ten rows or half the table), and no parallel workers (starting them
# costs more than these bounded reads gain)
POSTGRESQL_SEARCH_SETTINGS = {"plan_cache_mode": "force_custom_plan", "max_parallel_workers_per_gather": "0"}
_TOKENIZE = 'tokenize = "unicode61 remove_diacritics 0"'

_SOUND_COLUMNS = "title, owner_handle, owner_nickname"
_SOUND_NEW = "new.rowid, new.title, new.owner_handle, new.owner_nickname"
_SOUND_OLD = "'delete', old.rowid, old.title, old.owner_handle, old.owner_nickname"

SQLITE_CREATE: dict[str, tuple[str, ...]] = {
    "hooks": (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS hooks_fts USING fts5(text_key, content='hooks', "
        f"content_rowid='seq', {_TOKENIZE})",
        "CREATE TRIGGER IF NOT EXISTS hooks_fts_insert AFTER INSERT ON hooks BEGIN "
        "INSERT INTO hooks_fts(rowid, text_key) VALUES (new.seq, new.text_key); END",
        "CREATE TRIGGER IF NOT EXISTS hooks_fts_delete AFTER DELETE ON hooks BEGIN "
        "INSERT INTO hooks_fts(hooks_fts, rowid, text_key) VALUES ('delete', old.seq, old.text_key); END",
        "CREATE TRIGGER IF NOT EXISTS hooks_fts_update AFTER UPDATE OF text_key ON hooks "
        "WHEN old.text_key IS NOT new.text_key BEGIN "
        "INSERT INTO hooks_fts(hooks_fts, rowid, text_key) VALUES ('delete', old.seq, old.text_key); "
        "INSERT INTO hooks_fts(rowid, text_key) VALUES (new.seq, new.text_key); END",
    ),
    "sounds": (
        # search's order (usage descending, NULLs last as SQLite sorts them, then id): a common word's
        # matches are found by walking this index instead of sorting them all (sound/repository.py)
        "CREATE INDEX IF NOT EXISTS ix_sounds_search_order ON sounds (usage_count DESC, id)",
        f"CREATE VIRTUAL TABLE IF NOT EXISTS sounds_fts USING fts5({_SOUND_COLUMNS}, content='sounds', "
        f"content_rowid='rowid', {_TOKENIZE})",
        "CREATE TRIGGER IF NOT EXISTS sounds_fts_insert AFTER INSERT ON sounds BEGIN "
        f"INSERT INTO sounds_fts(rowid, {_SOUND_COLUMNS}) VALUES ({_SOUND_NEW}); END",
        "CREATE TRIGGER IF NOT EXISTS sounds_fts_delete AFTER DELETE ON sounds BEGIN "
        f"INSERT INTO sounds_fts(sounds_fts, rowid, {_SOUND_COLUMNS}) VALUES ({_SOUND_OLD}); END",
        f"CREATE TRIGGER IF NOT EXISTS sounds_fts_update AFTER UPDATE OF {_SOUND_COLUMNS} ON sounds "
        "WHEN old.title IS NOT new.title OR old.owner_handle IS NOT new.owner_handle "
        "OR old.owner_nickname IS NOT new.owner_nickname BEGIN "
        f"INSERT INTO sounds_fts(sounds_fts, rowid, {_SOUND_COLUMNS}) VALUES ({_SOUND_OLD}); "
        f"INSERT INTO sounds_fts(rowid, {_SOUND_COLUMNS}) VALUES ({_SOUND_NEW}); END",
    ),
}
SQLITE_DROP: dict[str, tuple[str, ...]] = {
    "hooks": ("DROP TABLE IF EXISTS hooks_fts",),
    "sounds": ("DROP TABLE IF EXISTS sounds_fts",),
}
POSTGRESQL_CREATE: dict[str, tuple[str, ...]] = {
    "hooks": (
        f"CREATE INDEX IF NOT EXISTS ix_hooks_fts ON hooks USING gin ({HOOK_TSVECTOR})",
        HOOK_PAIRS_FUNCTION,
        f"CREATE INDEX IF NOT EXISTS ix_hooks_fts_pairs ON hooks USING gin ({HOOK_PAIRS_TSVECTOR})",
        # the rank order with the words: a common word's matches are found walking it, each row
        # tested by a regular expression on text_key, without reading the table (hook/repository.py)
        "CREATE INDEX IF NOT EXISTS ix_hooks_rank_text ON hooks (rank_score, seq) INCLUDE (text_key)",
    ),
    "sounds": (
        f"CREATE INDEX IF NOT EXISTS ix_sounds_fts ON sounds USING gin ({SOUND_TSVECTOR})",
        # the SQLite index's order, NULLs last (PostgreSQL puts them first in DESC unless told)
        "CREATE INDEX IF NOT EXISTS ix_sounds_search_order ON sounds (usage_count DESC NULLS LAST, id)",
    ),
}
# names that are the full-text indexes' own: schema comparisons skip them (tests/test_migrations.py)
NAMES = frozenset(
    {"ix_hooks_fts", "ix_hooks_fts_pairs", "ix_hooks_rank_text", "ix_sounds_fts", "ix_sounds_search_order"}
    | {f"{t}_fts{s}" for t in ("hooks", "sounds") for s in ("", "_data", "_idx", "_docsize", "_config")}
)


def statements(dialect: str, *, table: str | None = None) -> list[str]:
    """What creates the indexes on ``dialect`` (of one table, or all)."""
    source = SQLITE_CREATE if dialect == "sqlite" else POSTGRESQL_CREATE
    return [s for name, group in source.items() if table in (None, name) for s in group]


def _ddl(statement: str, dialect: str) -> DDL:
    return DDL(statement).execute_if(dialect=dialect)  # type: ignore[no-untyped-call]


def _attach(table: Table) -> None:
    name = table.name
    for statement in SQLITE_CREATE[name]:
        event.listen(table, "after_create", _ddl(statement, "sqlite"))
    for statement in POSTGRESQL_CREATE[name]:
        event.listen(table, "after_create", _ddl(statement, "postgresql"))
    for statement in SQLITE_DROP[name]:
        event.listen(table, "before_drop", _ddl(statement, "sqlite"))


_attach(Hook.__table__)  # type: ignore[arg-type]
_attach(Sound.__table__)  # type: ignore[arg-type]

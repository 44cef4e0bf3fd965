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
* ``hook_texts`` (ADR 0055), what hook search reads: ``hook_texts_fts`` on SQLite (by ``hook_texts.seq``);
  on PostgreSQL the stored vectors ``words`` and ``word_pairs`` (generated columns: a row's test reads
  its vector, and the planner has their statistics) with GIN indexes. The triggers on ``hooks`` that
  keep it, and ``HOOK_TEXTS_FILL`` for a load that went around them, are below.

The statements run with ``create_all`` (DDL events below, as the test databases are built) and from the
migration (``STATEMENTS``), so both ways give the same schema. Tokens: the ``unicode61`` tokenizer and
the ``simple`` configuration both split on anything but letters and digits and fold case; neither
stems, so matching is whole-word, as analysis/hooks.normalize splits words.
"""

from __future__ import annotations

from sqlalchemy import DDL, Table, event

from reelscope.models.catalog import Sound
from reelscope.models.hooks import Hook, HookText

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

# --- hook_texts kept from hooks (ADR 0055) ---------------------------------------------------------------
# Each change of a hook moves its text's row of hook_texts, in the statement that changes the hook: a hook
# joining a text counts one more and is its best if it ranks above the best; one leaving it (deleted, its
# video deleted, or moved to other words) counts one less, the row going at none, and if it was the best
# the best is found again (one seek of ix_hooks_text_key_rank); one whose rank moved is the best if it now
# ranks above it, and if it was the best the best is found again. Search's order: rank_score, then seq,
# both descending (hook/repository._BEST). The same statements serve SQLite's triggers and PostgreSQL's
# trigger function ({row}: new or old). On PostgreSQL a row trigger of a statement changing many hooks
# runs after all of them, so a text whose hooks all went has no best to find until its count reaches 0.
_BEST_OF = (
    "(SELECT seq, rank_score FROM hooks WHERE text_key = {row}.text_key ORDER BY rank_score DESC, seq DESC "
    "LIMIT 1)"
)
_JOIN = (
    "INSERT INTO hook_texts (text_key, usage_count, best_seq, best_rank) "
    "VALUES (new.text_key, 1, new.seq, new.rank_score) ON CONFLICT (text_key) DO UPDATE SET "
    "usage_count = hook_texts.usage_count + 1, "
    "best_seq = CASE WHEN {better} THEN excluded.best_seq ELSE hook_texts.best_seq END, "
    "best_rank = CASE WHEN {better} THEN excluded.best_rank ELSE hook_texts.best_rank END"
).format(better="(excluded.best_rank, excluded.best_seq) > (hook_texts.best_rank, hook_texts.best_seq)")
_LEAVE = (
    "UPDATE hook_texts SET usage_count = usage_count - 1 WHERE text_key = old.text_key",
    "DELETE FROM hook_texts WHERE text_key = old.text_key AND usage_count <= 0",
    "UPDATE hook_texts SET (best_seq, best_rank) = " + _BEST_OF.format(row="old") + " "
    "WHERE text_key = old.text_key AND best_seq = old.seq "
    "AND EXISTS (SELECT 1 FROM hooks WHERE text_key = old.text_key)",
)
_RERANK = (
    "UPDATE hook_texts SET (best_seq, best_rank) = " + _BEST_OF.format(row="new") + " "
    "WHERE text_key = new.text_key "
    "AND (best_seq = new.seq OR (new.rank_score, new.seq) > (best_rank, best_seq))"
)
_MOVED = "old.text_key IS NOT new.text_key"
_RERANKED = "old.text_key IS new.text_key AND old.rank_score IS NOT new.rank_score"


def _sqlite_trigger(name: str, event: str, statements: tuple[str, ...], when: str | None = None) -> str:
    condition = f" WHEN {when}" if when else ""
    body = "".join(f"{statement}; " for statement in statements)
    return f"CREATE TRIGGER IF NOT EXISTS {name} AFTER {event} ON hooks{condition} BEGIN {body}END"


HOOK_TEXTS_SQLITE_TRIGGERS = (
    _sqlite_trigger("hook_texts_join", "INSERT", (_JOIN,)),
    _sqlite_trigger("hook_texts_leave", "DELETE", _LEAVE),
    _sqlite_trigger("hook_texts_move", "UPDATE OF text_key", (*_LEAVE, _JOIN), when=_MOVED),
    _sqlite_trigger("hook_texts_rerank", "UPDATE OF rank_score", (_RERANK,), when=_RERANKED),
)


def _plpgsql(statements: tuple[str, ...]) -> str:
    return "".join(f"{statement}; " for statement in statements)


HOOK_TEXTS_POSTGRESQL_FUNCTION = (
    "CREATE OR REPLACE FUNCTION hook_texts_keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
    f"IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND {_MOVED.replace(' IS NOT ', ' IS DISTINCT FROM ')}) "
    f"THEN {_plpgsql(_LEAVE)}END IF; "
    f"IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND {_MOVED.replace(' IS NOT ', ' IS DISTINCT FROM ')}) "
    f"THEN {_JOIN}; END IF; "
    "IF TG_OP = 'UPDATE' AND old.text_key = new.text_key "
    f"AND old.rank_score IS DISTINCT FROM new.rank_score THEN {_RERANK}; END IF; "
    "RETURN NULL; END $$"
)
# every text's row from the hooks (the migration, and a bulk load that went around the triggers)
HOOK_TEXTS_FILL = (
    "INSERT INTO hook_texts (text_key, usage_count, best_seq, best_rank) "
    "SELECT text_key, n, seq, rank_score FROM (SELECT text_key, seq, rank_score, "
    "count(*) OVER (PARTITION BY text_key) AS n, "
    "row_number() OVER (PARTITION BY text_key ORDER BY rank_score DESC, seq DESC) AS r FROM hooks) AS ranked "
    "WHERE r = 1"
)

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
    "hook_texts": (
        f"CREATE VIRTUAL TABLE IF NOT EXISTS hook_texts_fts USING fts5(text_key, content='hook_texts', "
        f"content_rowid='seq', {_TOKENIZE})",
        "CREATE TRIGGER IF NOT EXISTS hook_texts_fts_insert AFTER INSERT ON hook_texts BEGIN "
        "INSERT INTO hook_texts_fts(rowid, text_key) VALUES (new.seq, new.text_key); END",
        "CREATE TRIGGER IF NOT EXISTS hook_texts_fts_delete AFTER DELETE ON hook_texts BEGIN "
        "INSERT INTO hook_texts_fts(hook_texts_fts, rowid, text_key) "
        "VALUES ('delete', old.seq, old.text_key); END",
        *HOOK_TEXTS_SQLITE_TRIGGERS,
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
    "hook_texts": ("DROP TABLE IF EXISTS hook_texts_fts",),
    "sounds": ("DROP TABLE IF EXISTS sounds_fts",),
}
POSTGRESQL_CREATE: dict[str, tuple[str, ...]] = {
    "hooks": (
        f"CREATE INDEX IF NOT EXISTS ix_hooks_fts ON hooks USING gin ({HOOK_TSVECTOR})",
        HOOK_PAIRS_FUNCTION,
        f"CREATE INDEX IF NOT EXISTS ix_hooks_fts_pairs ON hooks USING gin ({HOOK_PAIRS_TSVECTOR})",
        # the rank order with the words: search walked it, testing each row's text_key by a regular
        # expression, before it read hook_texts (ADR 0055); kept for one release, as the two above
        "CREATE INDEX IF NOT EXISTS ix_hooks_rank_text ON hooks (rank_score, seq) INCLUDE (text_key)",
    ),
    "hook_texts": (
        HOOK_PAIRS_FUNCTION,  # the column below needs it, whichever table is made first
        f"ALTER TABLE hook_texts ADD COLUMN IF NOT EXISTS words tsvector GENERATED ALWAYS AS "
        f"({HOOK_TSVECTOR}) STORED",
        f"ALTER TABLE hook_texts ADD COLUMN IF NOT EXISTS word_pairs tsvector GENERATED ALWAYS AS "
        f"({HOOK_PAIRS_TSVECTOR}) STORED",
        "CREATE INDEX IF NOT EXISTS ix_hook_texts_fts ON hook_texts USING gin (words)",
        "CREATE INDEX IF NOT EXISTS ix_hook_texts_fts_pairs ON hook_texts USING gin (word_pairs)",
        HOOK_TEXTS_POSTGRESQL_FUNCTION,
        "CREATE OR REPLACE TRIGGER hook_texts_keep AFTER INSERT OR DELETE OR UPDATE OF text_key, rank_score "
        "ON hooks FOR EACH ROW EXECUTE FUNCTION hook_texts_keep()",
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
    | {"ix_hook_texts_fts", "ix_hook_texts_fts_pairs", "words", "word_pairs"}
    | {
        f"{t}_fts{s}"
        for t in ("hooks", "hook_texts", "sounds")
        for s in ("", "_data", "_idx", "_docsize", "_config")
    }
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
_attach(HookText.__table__)  # type: ignore[arg-type]
_attach(Sound.__table__)  # type: ignore[arg-type]

"""A PostgreSQL catalog ``factor`` times the size of benchmarks/big_catalog.py's, for the read path at 10M
videos (issue 29 item 4).

Generating 10M videos the way big_catalog.py does (Python rows through SQLite, then a team's worth of
things made through the API, then COPY into PostgreSQL) takes hours on this 2-core machine. The grown
catalog takes PostgreSQL minutes instead: the base catalog's database is copied (``CREATE DATABASE ...
TEMPLATE``) and its catalog tables are multiplied in SQL, each video cloned ``factor - 1`` times:

- ``videos``: a new id (``md5(id:k)`` as a UUID), external id and URL; posted ``k * 37`` minutes earlier
  (the 90 days keep their shape); views, likes, comments, shares, bookmarks and views at 7 days scaled by
  one factor in [0.5, 1.5) drawn from the clone's id (``hashtext``), so the clones do not tie;
  the same creator, sound, caption, hashtags, language and region. Creators post ``factor`` times as
  much: the top one has tens of thousands of videos.
- ``video_hashtags``: each clone keeps its original's hashtags.
- ``hook_texts`` (search's distinct texts, ADR 0055): filled again from every hook.
- ``hooks``: each clone's hook, its views the clone's (so ``hook.refresh`` finds nothing stale), and
  every hook's ``usage_count`` (videos sharing its text) multiplied by ``factor``: each text is now used
  ``factor`` times as often. So are the hook lists' counts (``hook_library.usage_count``, the types' and
  categories' ``hook_count``); their scores, medians and hit rates stand, the clones sharing their
  originals' scores; a library row's ``max_views`` stays its original's (clones have 0.5-1.5x the
  views). Building the lists again in full from 10M hooks would take far longer than the rest.

What a team owns (agents and their 10,000 linked videos, lookups, tracking, trends) is not multiplied:
those reads are bounded by the team's own rows, not by the catalog. The secondary indexes of the three
tables are dropped during the inserts and made again; then the hashtag rollup is rebuilt in full
(timed) and ``VACUUM ANALYZE`` runs. The database is reused while its comment names the base database's
label and the factor.

Run by benchmarks/scale.py ``--grow 10``; importable on its own.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

import asyncpg

from reelscope.models import fulltext

GROWN_LABEL = "reelscope grown catalog x{factor} of: {base}"
TABLES = ("videos", "video_hashtags", "hooks")
# the clone's own draw in [0.5, 1.5): a function of the original id and k, the same for its video and hook
SCALE = "(0.5 + (hashtext({id} || ':' || k) & 1023) / 1024.0)"
NEW_ID = "md5({id} || ':' || k)::uuid::text"
SHIFT = "make_interval(mins => 37 * k)"


async def _columns(conn: asyncpg.Connection, table: str) -> list[str]:
    rows = await conn.fetch(
        "SELECT column_name FROM information_schema.columns WHERE table_name = $1 ORDER BY ordinal_position",
        table,
    )
    return [r[0] for r in rows]


def _select(columns: list[str], overrides: dict[str, str], alias: str) -> str:
    return ", ".join(overrides.get(c, f'{alias}."{c}"') for c in columns)


async def ensure_grown(base_dsn: str, factor: int) -> tuple[str, dict[str, Any]]:
    """The grown database's DSN (built unless a database with its label exists) and what it took."""
    base_name = base_dsn.rsplit("/", 1)[1]
    server = base_dsn.rsplit("/", 1)[0]
    admin = await asyncpg.connect(server + "/postgres")
    try:
        base_label = await admin.fetchval(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", base_name
        )
        if base_label is None:
            raise RuntimeError(f"{base_name} has no catalog label: build it with big_catalog.ensure_postgres")
        name = f"{base_name}_x{factor}"
        label = GROWN_LABEL.format(factor=factor, base=base_label)
        found = await admin.fetchval(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", name
        )
        dsn = f"{server}/{name}"
        if found == label:
            return dsn, {"cached": True}
        started = time.perf_counter()
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        # the base must have no connection open: it is the template
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", base_name
        )
        await admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{base_name}"')
    finally:
        await admin.close()
    timings: dict[str, Any] = {"copy_s": round(time.perf_counter() - started, 1)}
    conn = await asyncpg.connect(dsn)
    try:
        await _grow(conn, factor, timings)
        await conn.execute(f"COMMENT ON DATABASE \"{name}\" IS '{label}'")
    finally:
        await conn.close()
    timings["build_s"] = round(time.perf_counter() - started, 1)
    return dsn, {"cached": False, **timings}


async def _grow(conn: asyncpg.Connection, factor: int, timings: dict[str, Any]) -> None:
    def done(step: str, since: float) -> None:
        timings[f"{step}_s"] = round(time.perf_counter() - since, 1)
        print(f"  grow: {step} {timings[f'{step}_s']} s", flush=True)

    await conn.execute("SET maintenance_work_mem = '1GB'")
    await conn.execute("SET session_replication_role = replica")  # no foreign-key triggers per row
    indexes = await conn.fetch(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = 'public'"
        " AND i.tablename = ANY($1::text[])"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)",
        list(TABLES),
    )
    for index in indexes:
        await conn.execute(f'DROP INDEX "{index["indexname"]}"')

    clones = f"generate_series(1, {factor - 1}) AS k"
    started = time.perf_counter()
    scale = SCALE.format(id="v.id")
    videos = await _columns(conn, "videos")
    overrides = {
        "id": NEW_ID.format(id="v.id"),
        "external_id": "v.external_id || '~c' || k",
        "url": "v.url || '?c=' || k",
        "published_at": f"v.published_at - {SHIFT}",
        "found_at": f"v.found_at - {SHIFT}",
        **{
            c: f"(v.{c} * {scale})::bigint"
            for c in ("views", "likes", "comments", "shares", "bookmarks", "views_at_7d")
        },
    }
    await conn.execute(
        f"INSERT INTO videos ({', '.join(chr(34) + c + chr(34) for c in videos)}) "
        f"SELECT {_select(videos, overrides, 'v')} FROM videos v CROSS JOIN {clones}"
    )
    done("videos", started)

    started = time.perf_counter()
    await conn.execute(
        "INSERT INTO video_hashtags (video_id, hashtag_id) "
        f"SELECT {NEW_ID.format(id='vh.video_id')}, vh.hashtag_id FROM video_hashtags vh CROSS JOIN {clones}"
    )
    done("video_hashtags", started)

    started = time.perf_counter()
    await conn.execute(f"UPDATE hooks SET usage_count = usage_count * {factor}")
    hooks = [c for c in await _columns(conn, "hooks") if c != "seq"]  # new rows take the sequence
    overrides = {
        "id": NEW_ID.format(id="h.id"),
        "video_id": NEW_ID.format(id="h.video_id"),
        "published_at": f"h.published_at - {SHIFT}",
        # exactly the clone video's views: the same expression over the same original id
        "views": f"(h.views * {SCALE.format(id='h.video_id')})::bigint",
    }
    await conn.execute(
        f"INSERT INTO hooks ({', '.join(hooks)}) "
        f"SELECT {_select(hooks, overrides, 'h')} FROM hooks h CROSS JOIN {clones}"
    )
    # no trigger ran for the clones (session_replication_role): search's texts again from every hook,
    # their counts and best hooks (a clone ties its original's rank with a later seq: it is now the best)
    await conn.execute("DELETE FROM hook_texts")
    await conn.execute(fulltext.HOOK_TEXTS_FILL)
    # the hook lists count each text and type factor times as often (the clones share their scores, so
    # medians and hit rates stand); building them again in full from 10M hooks takes far longer here
    await conn.execute(f"UPDATE hook_library SET usage_count = usage_count * {factor}")
    for table in ("hook_type_stats", "hook_category_stats"):
        await conn.execute(f"UPDATE {table} SET hook_count = hook_count * {factor}")
    done("hooks", started)

    started = time.perf_counter()
    await conn.execute("SET session_replication_role = DEFAULT")
    for index in indexes:
        await conn.execute(index["indexdef"])
    done("indexes", started)

    started = time.perf_counter()
    await conn.execute("VACUUM ANALYZE")
    done("vacuum", started)


async def rollup_in_full(url: str) -> float:
    """The hashtag rollup rebuilt from every video (the grown rows were never noted as written)."""
    from reelscope.hashtag import service as hashtag_service
    from reelscope.kit.db import create_database

    db = create_database(url)
    started = time.perf_counter()
    try:
        await hashtag_service.rollup(db, datetime.now(UTC), full=True)
    finally:
        await db.dispose()
    return round(time.perf_counter() - started, 1)

"""``hook_texts`` (ADR 0055) is the hooks grouped by text, whatever changes the hooks: a refresh that
rescores them, a hook moved to other words, a video deleted with its hook, and the migration that
fills it from hooks already there; and search, which reads it, lists what the hooks hold. On SQLite
and PostgreSQL (the catalog of tests/hook/test_endpoints.py)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace
from typing import Any

import pytest
from alembic import command
from sqlalchemy import insert, select, text

from reelscope.analysis import hooks as analysis
from reelscope.hook import service as hook_service
from reelscope.hook.schemas import SearchQuery
from reelscope.kit.clock import ManualClock
from reelscope.kit.migrate import alembic_config
from reelscope.models import Hook
from reelscope.runtime import Runtime
from tests.catalog_builders import ingest
from tests.hook.test_endpoints import ITEMS, Item, catalog, record, vid  # noqa: F401  # the fixture

pytestmark = pytest.mark.both_databases

# each text's count and best hook (rank, then seq, both descending), from the hooks themselves
FROM_HOOKS = text(
    "SELECT text_key, n, seq, rank_score FROM (SELECT text_key, seq, rank_score, "
    "count(*) OVER (PARTITION BY text_key) AS n, "
    "row_number() OVER (PARTITION BY text_key ORDER BY rank_score DESC, seq DESC) AS r FROM hooks) AS ranked "
    "WHERE r = 1 ORDER BY text_key"
)
KEPT = text("SELECT text_key, usage_count, best_seq, best_rank FROM hook_texts ORDER BY text_key")


@pytest.fixture
async def texts_match_hooks(runtime: Runtime) -> Any:
    """A check that ``hook_texts`` holds exactly what the hooks say, its full-text index included."""

    async def check() -> list[Any]:
        async with runtime.db.transaction() as session:  # FTS5's integrity check is written as an insert
            expected = (await session.execute(FROM_HOOKS)).all()
            kept = (await session.execute(KEPT)).all()
            if session.get_bind().dialect.name == "sqlite":  # the FTS5 index against its content table
                await session.execute(
                    text("INSERT INTO hook_texts_fts(hook_texts_fts, rank) VALUES ('integrity-check', 1)")
                )
        assert [tuple(row) for row in kept] == [tuple(row) for row in expected]
        return list(kept)

    return check


async def search_all(runtime: Runtime, q: str) -> list[Any]:
    rows: list[Any] = []
    page = 1
    while True:
        async with runtime.db.transaction(write=False) as session:
            found = await hook_service.search(session, SearchQuery(q=q, limit=100, page=page))
        rows.extend(found.data)
        if not found.pagination.has_next_page:
            return rows
        page += 1


async def hooks_by_text(runtime: Runtime) -> dict[str, tuple[str, int]]:
    """Each text's best hook (its video) and how many hooks share it, from the hooks."""
    async with runtime.db.transaction(write=False) as session:
        rows = (await session.execute(text("SELECT text_key, video_id, rank_score, seq FROM hooks"))).all()
    best: dict[str, tuple[float, int, str]] = {}
    counts: dict[str, int] = {}
    for key, video_id, rank, seq in rows:
        counts[key] = counts.get(key, 0) + 1
        if key not in best or (rank, seq) > best[key][:2]:
            best[key] = (rank, seq, video_id)
    return {key: (best[key][2], counts[key]) for key in best}


class TestKeptFromHooks:
    async def test_after_the_first_refresh(self, catalog: None, texts_match_hooks: Any) -> None:  # noqa: F811
        kept = await texts_match_hooks()
        assert len(kept) == 9  # ten hooks, two with the same words (h2 and x2)

    async def test_a_refresh_that_rescores_a_creators_hooks(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        clock: ManualClock,
        texts_match_hooks: Any,
    ) -> None:
        now = clock.now()
        # coach's median moves (1,000 -> 1,200): every hook of coach's is scored again (set_scores)
        for name, views in (("h3", 5000), ("h4", 1200), ("h6", 1200)):
            item = next(i for i in ITEMS if i.name == name)
            await ingest(runtime, replace(record(item, now), views=views, fetched_at=now))
        before = await texts_match_hooks()
        await hook_service.refresh(runtime.db, now)
        after = await texts_match_hooks()
        assert [row.best_rank for row in after] != [row.best_rank for row in before]

    async def test_a_hook_moved_to_other_words_and_a_new_text(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        clock: ManualClock,
        texts_match_hooks: Any,
    ) -> None:
        now = clock.now()
        # x2 shared h2's words; it now opens with h5's, and h1 with words no hook had
        x2 = next(i for i in ITEMS if i.name == "x2")
        h1 = next(i for i in ITEMS if i.name == "h1")
        await ingest(
            runtime,
            replace(record(x2, now), description="Creatine mistakes!", views=900, fetched_at=now),
            replace(record(h1, now), description="Brand new creatine words", views=31000, fetched_at=now),
        )
        await hook_service.refresh(runtime.db, now)
        kept = {row.text_key: row.usage_count for row in await texts_match_hooks()}
        assert kept["3 creatine mistakes everyone makes"] == 1
        assert kept["creatine mistakes"] == 2
        assert kept["brand new creatine words"] == 1
        assert "why is no one talking about creatine" not in kept

    async def test_a_deleted_video_takes_its_hook_out_of_its_text(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        clock: ManualClock,
        texts_match_hooks: Any,
    ) -> None:
        # h2 is the best of its words (x2 shares them); h1 is alone with its words
        async with runtime.db.transaction() as session:
            for name in ("h2", "h1"):
                await session.execute(text("DELETE FROM videos WHERE id = :id"), {"id": vid(name)})
        kept = {row.text_key: row for row in await texts_match_hooks()}
        shared = kept["3 creatine mistakes everyone makes"]
        assert shared.usage_count == 1
        assert "why is no one talking about creatine" not in kept
        await hook_service.refresh(runtime.db, clock.now())  # coach's scores move without them
        await texts_match_hooks()

    async def test_many_hooks_of_one_text_changed_in_one_statement(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        texts_match_hooks: Any,
    ) -> None:
        """A statement changing several hooks of one text at once (PostgreSQL runs each row's trigger
        after the whole statement): their best and count are still right."""
        async with runtime.db.transaction() as session:
            await session.execute(text("UPDATE hooks SET rank_score = rank_score - 100 WHERE seq % 2 = 0"))
        await texts_match_hooks()
        async with runtime.db.transaction() as session:
            await session.execute(text("UPDATE hooks SET text_key = 'one text for all'"))
        assert len(await texts_match_hooks()) == 1
        async with runtime.db.transaction() as session:
            await session.execute(text("DELETE FROM videos"))
        assert await texts_match_hooks() == []

    @pytest.mark.parametrize("seed", range(4))
    async def test_random_statements_each_changing_many_hooks(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        texts_match_hooks: Any,
        seed: int,
    ) -> None:
        """Statements that each change several hooks at once, as PostgreSQL's row triggers see them at the
        statement's end: words and rank moved together, texts swapped between hooks, a text's best
        leaving it while another joins, hooks deleted and inserted again in one statement."""
        rng = random.Random(seed)
        words = ("mix it", "mix it now", "now mix", "one text", "creatine mistakes")
        deleted: list[dict[str, Any]] = []
        for _ in range(30):
            async with runtime.db.transaction() as session:
                seqs = list((await session.execute(text("SELECT seq FROM hooks"))).scalars())
                chosen = rng.sample(seqs, rng.randint(1, len(seqs))) if seqs else []
                listed = ", ".join(map(str, chosen))
                move = rng.random()
                if chosen and move < 0.6:
                    keys = " ".join(f"WHEN {s} THEN '{rng.choice(words)}'" for s in chosen)
                    ranks = " ".join(f"WHEN {s} THEN {rng.choice((1.0, 2.0, 3.0, -1e9))}" for s in chosen)
                    moved, reranked = f"text_key = CASE seq {keys} END", f"rank_score = CASE seq {ranks} END"
                    change = rng.choice((moved, reranked, f"{moved}, {reranked}"))
                    await session.execute(text(f"UPDATE hooks SET {change} WHERE seq IN ({listed})"))
                elif chosen and move < 0.8:
                    gone = await session.execute(select(Hook.__table__).where(Hook.seq.in_(chosen)))
                    deleted += [dict(row._mapping) for row in gone]
                    await session.execute(text(f"DELETE FROM hooks WHERE seq IN ({listed})"))
                elif deleted:
                    await session.execute(insert(Hook).values(deleted))  # one statement of many rows
                    deleted = []
            await texts_match_hooks()

    async def test_the_migration_fills_it_from_the_hooks_there(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        database_url: str,
        texts_match_hooks: Any,
    ) -> None:
        config = alembic_config(database_url)
        await asyncio.to_thread(command.stamp, config, "head")
        await asyncio.to_thread(command.downgrade, config, "0025_hook_text_rank")
        await asyncio.to_thread(command.upgrade, config, "head")
        await texts_match_hooks()
        # and it is kept from then on (the triggers are back)
        async with runtime.db.transaction() as session:
            await session.execute(text("DELETE FROM videos WHERE id = :id"), {"id": vid("x2")})
        await texts_match_hooks()
        expected = await hooks_by_text(runtime)
        rows = await search_all(runtime, "creatine")
        found = {analysis.normalize(row.hook_text): (row.video_id, row.usage_count) for row in rows}
        assert found == {key: best for key, best in expected.items() if "creatine" in key.split()}


class TestSearchReadsTheHooks:
    async def test_each_text_once_as_its_best_hook_after_changes(
        self,
        catalog: None,  # noqa: F811
        runtime: Runtime,
        clock: ManualClock,
    ) -> None:
        now = clock.now()
        copies = [Item(f"m{i}", 2, 2000 + i, "3 creatine mistakes everyone makes") for i in range(4)]
        await ingest(runtime, *(record(item, now) for item in copies))
        await hook_service.refresh(runtime.db, now)
        h5 = next(i for i in ITEMS if i.name == "h5")
        await ingest(runtime, replace(record(h5, now), description="creatine mistakes again", views=700))
        async with runtime.db.transaction() as session:
            await session.execute(text("DELETE FROM videos WHERE id = :id"), {"id": vid("m3")})
        await hook_service.refresh(runtime.db, now)
        expected = await hooks_by_text(runtime)
        rows = await search_all(runtime, "creatine mistakes")
        found = {analysis.normalize(row.hook_text): (row.video_id, row.usage_count) for row in rows}
        holding = {key for key in expected if {"creatine", "mistakes"} <= set(key.split())}
        assert found == {key: expected[key] for key in holding}
        assert [row.match_type for row in rows] == [
            "contains",
            "contains",
            "similar",
        ]  # h5 left the exact words

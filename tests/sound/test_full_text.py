"""Sound search over the full-text indexes (issue 19 item 3; models/fulltext.py), on both databases."""

from __future__ import annotations

from dataclasses import replace

import httpx
import pytest

from reelscope.catalog import service as catalog_service
from reelscope.kit.clock import ManualClock
from reelscope.runtime import Runtime
from reelscope.sound import repository as sound_repository
from tests.conftest import TeamKey
from tests.sound.test_endpoints import ESPRESSO, Catalog, assert_charged, catalog, ids

pytestmark = pytest.mark.both_databases
__all__ = ["catalog"]  # the catalog fixture of the sound tests


@pytest.mark.parametrize(
    ("q", "expected"),
    [
        ("carpenter sabrina", "a"),  # words in any order, across title, artist and handle
        ("Espresso — Sabrina!!", "a"),  # punctuation ignored
        ("sabr", "a"),  # a word's beginning
        ("lo-fi beat", "c"),
        ("oldies tune", "d"),
        ("anna", "b"),  # "chef_anna" is the words chef and anna
    ],
)
async def test_full_text_matches_words_and_their_beginnings(
    client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, q: str, expected: str
) -> None:
    response = await client.get("/v1/sounds/search", params={"q": q}, headers=team.headers)
    assert_charged(response, "0.10", 10)
    assert ids(response) == [getattr(catalog, expected)]


async def test_not_the_inside_of_a_word(client: httpx.AsyncClient, team: TeamKey, catalog: Catalog) -> None:
    for q in ("spresso", "arpenter", "espresso tune"):
        response = await client.get("/v1/sounds/search", params={"q": q}, headers=team.headers)
        assert ids(response) == [], q


async def test_renamed_sounds_are_found_by_their_new_title(
    client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, runtime: Runtime, clock: ManualClock
) -> None:
    async with runtime.db.transaction() as session:
        await catalog_service.ingest_sounds(
            session, [replace(ESPRESSO, title="Please Please Please")], clock.now()
        )
    assert ids(await client.get("/v1/sounds/search", params={"q": "please"}, headers=team.headers)) == [
        catalog.a
    ]
    assert ids(await client.get("/v1/sounds/search", params={"q": "espresso"}, headers=team.headers)) == []


async def test_many_matches_walk_the_search_order_index(
    client: httpx.AsyncClient, team: TeamKey, catalog: Catalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the path a common word takes on SQLite (more than _MANY matches), here for every query
    monkeypatch.setattr(sound_repository, "_MANY", 0)
    for q, expected in (("espresso", "a"), ("chef anna", "b"), ("beat", "c")):
        response = await client.get("/v1/sounds/search", params={"q": q}, headers=team.headers)
        assert ids(response) == [getattr(catalog, expected)], q
        assert response.json()["pagination"]["total"] == 1


@pytest.mark.parametrize("many", [3, 100], ids=["capped", "exact"])
async def test_a_pager_following_the_total_sees_every_match_once(
    client: httpx.AsyncClient,
    team: TeamKey,
    runtime: Runtime,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    many: int,
) -> None:
    """Past ``_MANY`` matches the total is a lower bound (ADR 0035's departure from §8.3), always beyond
    the page asked for: paging one at a time while ``has_next_page`` holds still reaches every match,
    most used first, none twice; under it the total is exact."""
    anthems = [
        replace(ESPRESSO, external_id=f"s-anthem-{n}", title=f"Stadium anthem {n}", usage_count=100 - n)
        for n in range(7)
    ]
    async with runtime.db.transaction() as session:
        await catalog_service.ingest_sounds(session, anthems, clock.now())
    monkeypatch.setattr(sound_repository, "_MANY", many)
    seen: list[str] = []
    totals: list[int] = []
    for page in range(1, 20):
        response = await client.get(
            "/v1/sounds/search", params={"q": "anthem", "limit": 1, "page": page}, headers=team.headers
        )
        body = response.json()
        seen += ids(response)
        totals.append(body["pagination"]["total"])
        if not body["pagination"]["has_next_page"]:
            break
    titles = [
        (await client.get(f"/v1/sounds/{sound_id}", headers=team.headers)).json()["data"]["title"]
        for sound_id in seen
    ]
    assert titles == [f"Stadium anthem {n}" for n in range(7)]
    if many == 3:
        assert totals[0] == 3 and totals[-1] == 7  # a lower bound that grows as the pager goes on
    else:
        assert set(totals) == {7}


@pytest.mark.parametrize("few", [3, 1000], ids=["walked", "ordered-among-the-matches"])
@pytest.mark.parametrize("q", ["qz", "chant"], ids=["substring", "full-text"])
async def test_pages_of_a_few_matches_are_most_used_first_with_an_exact_total(
    client: httpx.AsyncClient,
    team: TeamKey,
    runtime: Runtime,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    few: int,
    q: str,
) -> None:
    """Fewer than ``_FEW`` matches (a short query's substring scan finds them in one pass; a word's
    count on PostgreSQL tells) are read and the page ordered among them (issue 33 item 4); more take the
    search order. Both give the same pages, most used first (ties by id), and the same total."""
    tied = [
        replace(ESPRESSO, external_id=f"s-qz-{n}", title=f"Qz chant {n}", usage_count=100 - n // 2 * 2)
        for n in range(7)
    ]  # usage counts 100, 100, 98, 98, 96, 96, 94: ties ordered by id
    async with runtime.db.transaction() as session:
        await catalog_service.ingest_sounds(session, tied, clock.now())
    monkeypatch.setattr(sound_repository, "_FEW", few)
    seen: list[str] = []
    for page in range(1, 20):
        response = await client.get(
            "/v1/sounds/search", params={"q": q, "limit": 2, "page": page}, headers=team.headers
        )
        body = response.json()
        assert body["pagination"]["total"] == 7
        seen += ids(response)
        if not body["pagination"]["has_next_page"]:
            break
    sounds = {}
    for sound_id in seen:
        sounds[sound_id] = (await client.get(f"/v1/sounds/{sound_id}", headers=team.headers)).json()["data"]
    assert len(seen) == len(set(seen)) == 7
    assert seen == sorted(seen, key=lambda i: (-sounds[i]["usage_count"], i))
    assert {sounds[i]["title"] for i in seen} == {f"Qz chant {n}" for n in range(7)}

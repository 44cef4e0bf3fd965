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

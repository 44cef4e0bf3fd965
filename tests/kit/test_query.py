"""``parse_query``: one validation per distinct query string; refusals every time (ADR 0014)."""

from __future__ import annotations

import pytest
from fastapi import Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ConfigDict, Field

from reelscope.kit.caches import ReadCaches
from reelscope.kit.query import parse_query


class Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    limit: int = Field(default=50, ge=1)


class Mutable(BaseModel):
    limit: int = 50


@pytest.fixture
def caches() -> ReadCaches:
    return ReadCaches()


def request(query: bytes) -> Request:
    return Request({"type": "http", "method": "GET", "path": "/", "query_string": query, "headers": []})


def test_the_same_query_string_gives_the_same_answer(caches: ReadCaches) -> None:
    first = parse_query(Frozen, request(b"limit=7"), caches)
    again = parse_query(Frozen, request(b"limit=7"), caches)
    assert first.limit == again.limit == 7
    assert parse_query(Frozen, request(b"limit=8"), caches).limit == 8
    assert parse_query(Frozen, request(b""), caches).limit == 50


def test_a_refused_query_string_is_refused_every_time(caches: ReadCaches) -> None:
    for _ in range(2):
        with pytest.raises(RequestValidationError) as refused:
            parse_query(Frozen, request(b"limit=0"), caches)
        assert refused.value.errors()[0]["loc"] == ("query", "limit")
    with pytest.raises(RequestValidationError):
        parse_query(Frozen, request(b"limit=3&offset=2"), caches)


def test_a_model_that_could_change_is_not_kept(caches: ReadCaches) -> None:
    with pytest.raises(TypeError, match="frozen"):
        parse_query(Mutable, request(b"limit=3"), caches)

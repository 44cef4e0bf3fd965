"""JSON columns served as stored: read as their text, serialized once per text (ADR 0062).

A large JSON column (an agent run's analysis, ~90 KB) read through the ORM is parsed into Python objects
on every request, validated by a response model and serialized again: most of a read's time for the
same bytes each time. ``fragment`` reads the column's stored text instead (the query casts it: see
``json_text``) and keeps, in the process's ``ReadCaches``, what the response models made of it, under
that very text as the version: a value written since is another text, so it is never served stale.

The bytes are what Pydantic's response serialization wrote for the column before (stdlib ``json.loads``,
as SQLAlchemy's JSON type reads it, then Pydantic's JSON serializer for ``Any``: NaN as null, integers of
any size), so a client sees no difference; orjson would turn integers past 64 bits into floats.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Hashable
from typing import Any

import orjson
from pydantic import TypeAdapter
from sqlalchemy import Text, cast
from sqlalchemy.sql.elements import ColumnElement

from reelscope.kit.caches import ReadCaches

# Pydantic's serializer for a field typed ``dict[str, Any]`` or ``list[...] | None``: inference, and the
# models' ``ser_json_inf_nan`` ("null"), which ``pydantic_core.to_json`` alone does not apply
_AS_RESPONSE_MODELS_WRITE = TypeAdapter(Any)


def json_text(column: Any) -> ColumnElement[str | None]:
    """The column's stored JSON as text: a cast in SQL (asyncpg would decode the json type on its way)."""
    return cast(column, Text)


def fragment(caches: ReadCaches, key: Hashable, text: str | None) -> orjson.Fragment | None:
    """The stored JSON ``text`` as an orjson fragment of the bytes a response model writes for it, kept
    under ``key`` for this text; None for SQL NULL or a JSON null, as the ORM reads both."""
    if text is None:
        return None
    hit, kept = caches.lookup(key, text)
    if hit:
        return kept  # type: ignore[no-any-return]
    value = json.loads(text)
    serialized = b"null" if value is None else _AS_RESPONSE_MODELS_WRITE.dump_json(value)
    made = None if value is None else orjson.Fragment(serialized)
    # the text is kept too, as the version: both count
    caches.keep(key, text, made, nbytes=len(serialized) + sys.getsizeof(text))
    return made

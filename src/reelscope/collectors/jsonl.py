"""Decoding one JSON line of ``reelscope ingest`` into a normalized record.

A line is either a normalized record (``{"record": "video", ...}``; ``record`` defaults to ``video``,
and may be ``creator``, ``sound``, ``slideshow``, ``ad`` or ``comment``), or a yt-dlp info dict (it has
``extractor_key``). Timestamps without an offset are UTC. The observation time is the record's own
(``fetched_at``, yt-dlp's ``epoch``); only a record without one gets the ingest time. ``region`` is the
feed region of records that do not name their own (``reelscope ingest --region``). Videos and creators
are checked (``collectors/checks.py``) and a line breaking a rule is a ``BadLine`` saying why.
"""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime
from typing import Any

import orjson
from pydantic import TypeAdapter, ValidationError

from reelscope.collectors.base import (
    AdRecord,
    CommentRecord,
    CreatorRecord,
    SlideshowRecord,
    SoundRecord,
    VideoRecord,
)
from reelscope.collectors.checks import InvalidRecord, check_creator, check_video
from reelscope.collectors.ytdlp.mapper import UnmappableInfo, info_to_video

Record = VideoRecord | CreatorRecord | SoundRecord | SlideshowRecord | AdRecord | CommentRecord
KINDS: dict[str, type[Any]] = {
    "video": VideoRecord,
    "creator": CreatorRecord,
    "sound": SoundRecord,
    "slideshow": SlideshowRecord,
    "ad": AdRecord,
    "comment": CommentRecord,
}


class BadLine(ValueError):
    """A line that is not a record; the message says why."""


# what a line can send of a video (``sent`` is ours to set)
_VIDEO_FIELDS = frozenset(f.name for f in dataclasses.fields(VideoRecord)) - {"sent"}
_ADAPTERS: dict[str, TypeAdapter[Any]] = {name: TypeAdapter(kind) for name, kind in KINDS.items()}


def _utc(value: Any) -> Any:
    """Every datetime of a record, nested ones included, made aware (naive means UTC)."""
    if isinstance(value, datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _utc(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return dataclasses.replace(value, **changes)
    if isinstance(value, tuple):
        return tuple(_utc(v) for v in value)
    return value


def parse_line(line: str | bytes, now: datetime, *, region: str | None = None) -> Record:
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        raise BadLine(f"not JSON: {exc}") from None
    if not isinstance(obj, dict):
        raise BadLine("not a JSON object")
    if "extractor_key" in obj or "extractor" in obj:
        try:
            video = info_to_video(obj, now)
        except (UnmappableInfo, TypeError, ValueError, OverflowError) as exc:
            raise BadLine(f"yt-dlp info: {exc}") from None
        return _checked(video, now, region)
    kind_name = obj.pop("record", "video")
    kind = KINDS.get(kind_name) if isinstance(kind_name, str) else None
    if kind is None:
        raise BadLine(f"unknown record {kind_name!r}; use one of {', '.join(KINDS)}")
    obj.setdefault("fetched_at", now.isoformat())
    try:
        record = _ADAPTERS[kind_name].validate_python(obj)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        raise BadLine(f"invalid {kind_name}: {problems}") from None
    result: Record = _utc(record)
    if isinstance(result, VideoRecord):
        # a line may carry only some fields: the others keep what the catalog holds (issue 31)
        sent = frozenset(obj) & _VIDEO_FIELDS
        result = dataclasses.replace(result, sent=None if sent == _VIDEO_FIELDS else sent)
    return _checked(result, now, region)


def _checked(record: Record, now: datetime, region: str | None) -> Record:
    try:
        if isinstance(record, VideoRecord):
            if record.feed_region is None and region is not None:
                sent = None if record.sent is None else record.sent | {"feed_region"}
                record = dataclasses.replace(record, feed_region=region, sent=sent)
            elif record.feed_region is not None:
                record = dataclasses.replace(record, feed_region=record.feed_region.lower())
            check_video(record, now)
        elif isinstance(record, CreatorRecord):
            check_creator(record)
    except InvalidRecord as exc:
        raise BadLine(f"invalid {'video' if isinstance(record, VideoRecord) else 'creator'}: {exc}") from None
    return record

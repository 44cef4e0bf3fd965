"""The deprecated camelCase aliases of satellite responses (spec §1, §9), produced here and nowhere else.

§1: satellite responses "also carry deprecated camelCase aliases of some keys, for example
``publishDate`` for ``publish_date`` and ``hasMore`` for ``has_more``"; §9: they "are removed on
2026-08-03". So the runtime clock decides: before that day every aliased key is sent twice, from that
day on only the snake_case form. Reelscope went live after the date, so a default deployment sends no
alias; a deployment whose clock is set earlier (tests, replays of the past) sends them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import orjson
from fastapi import Response
from pydantic import BaseModel

ALIASES_REMOVED_AT = datetime(2026, 8, 3, tzinfo=UTC)

# the keys that carry an alias: the two the spec names and the other two-word keys clients read most
ALIASED = (
    "publish_date",
    "has_more",
    "run_id",
    "job_id",
    "batch_id",
    "poll_url",
    "created_at",
    "started_at",
    "completed_at",
    "video_count",
    "median_views",
    "outlier_ratio",
    "weighted_score",
    "thumbnail_url",
    "retry_after_seconds",
)
CAMEL = {key: key.split("_")[0] + "".join(part.title() for part in key.split("_")[1:]) for key in ALIASED}


def aliases_on(now: datetime) -> bool:
    return now < ALIASES_REMOVED_AT


def with_aliases(value: Any) -> Any:
    """``value`` with a camelCase sibling after every aliased key, at any depth."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            converted = with_aliases(item)
            out[key] = converted
            if key in CAMEL:
                out[CAMEL[key]] = converted
        return out
    if isinstance(value, list):
        return [with_aliases(item) for item in value]
    return value


def respond(body: BaseModel, now: datetime, *, status_code: int = 200) -> Response:
    """The JSON response of a satellite endpoint: the body, with the aliases while they last."""
    content = body.model_dump(mode="json")
    if aliases_on(now):
        content = with_aliases(content)
    return Response(orjson.dumps(content), status_code=status_code, media_type="application/json")

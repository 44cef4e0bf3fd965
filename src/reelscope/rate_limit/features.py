"""Feature groups of spec §8.1 and the operations that belong to each.

Values are (per minute, per hour, per day); None means no cap in that window. The legacy orbit/comet
limits are not given by the spec beyond "as low as 2 per minute"; ours are documented in
docs/architecture.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    per_minute: int | None
    per_hour: int | None
    per_day: int | None


FEATURE_LIMITS: dict[str, Limits] = {
    "creator_lookup": Limits(5, 100, 1_000),
    "satellite_lookup": Limits(5, 100, 1_000),
    "hashtag_stats": Limits(50, 500, 5_000),
    "video_digests": Limits(50, 500, 5_000),
    "trends": Limits(50, 500, 5_000),
    "emerging_trends": Limits(60, 600, 6_000),
    "legacy_create": Limits(2, 20, 200),
    "legacy_read": Limits(10, 200, 2_000),
    "default": Limits(None, None, 10_000),
}

# the operations with a group of their own, by operation id (the endpoint's name); any other falls under
# the rule of ``feature_of`` (legacy paths, else default)
OPERATION_FEATURES: dict[str, str] = {
    "lookup_creator": "creator_lookup",
    "lookup_sound": "satellite_lookup",
    "lookup_hashtag": "satellite_lookup",
    "create_video_outlier": "satellite_lookup",
    "list_hashtags": "hashtag_stats",
    "list_platform_hashtags": "hashtag_stats",
    "get_hashtag_performance": "hashtag_stats",
    "get_videos_digest": "video_digests",
    "get_platform_videos_digest": "video_digests",
    "list_trends": "trends",
    "get_trends_digest": "trends",
    "list_emerging_trends": "emerging_trends",
}


def feature_of(operation: str, path: str) -> str:
    """The feature group of a /v1 operation: its entry above; else a legacy path's group; else default."""
    if operation in OPERATION_FEATURES:
        return OPERATION_FEATURES[operation]
    if path.startswith(("/v1/orbit", "/v1/comet")):
        return "legacy_create" if operation.startswith("create_") else "legacy_read"
    return "default"

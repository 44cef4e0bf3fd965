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

# /v1 operations by operation id (the endpoint's name); one not listed falls under the rule of
# ``feature_of`` (legacy paths, else default)
OPERATION_FEATURES: dict[str, str] = {
    "get_account_balance": "default",
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
    "list_trend_regions": "default",
    # §4.5 legacy orbit/comet: creates and reads have their own (lower) limits
    "create_orbit": "legacy_create",
    "create_comet": "legacy_create",
    # §4.6 webhooks
    "create_webhook": "default",
    "list_webhooks": "default",
    "get_webhook": "default",
    "update_webhook": "default",
    "delete_webhook": "default",
    "enable_webhook": "default",
    "retry_webhook_delivery": "default",
    "send_webhook_test": "default",
    "list_webhook_deliveries": "default",
    # §4.7 sounds
    "get_sound": "default",
    "get_sound_usage_history": "default",
    "search_sounds": "default",
    "list_trending_sounds": "default",
    "list_breakout_sounds": "default",
    "list_sound_videos": "default",
    "list_creator_sounds": "default",
}


def feature_of(operation: str, path: str) -> str:
    """The feature group of a /v1 operation: its entry above; else a legacy path's group; else default."""
    if operation in OPERATION_FEATURES:
        return OPERATION_FEATURES[operation]
    if path.startswith(("/v1/orbit", "/v1/comet")):
        return "legacy_create" if operation.startswith("create_") else "legacy_read"
    return "default"

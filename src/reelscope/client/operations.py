"""Every operation of the Reelscope API the client serves, generated from ``/openapi.json`` by
``python -m reelscope.client.codegen``; do not edit by hand (tests/client/test_drift.py
checks them).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Operation:
    """One operation of ``/openapi.json``: price in dollars (``x-cost``), or if it varies."""

    name: str
    method: str
    path: str
    summary: str
    description: str
    price_usd: str
    price_varies: bool
    idempotent: bool
    deprecated: bool
    paged: str | None


OPERATIONS: dict[str, Operation] = {
    "get_videos_digest": Operation(
        name="get_videos_digest",
        method="GET",
        path="/v1/videos/digest",
        summary="Get Videos Digest",
        description=(
            "The most-viewed videos of all platforms posted in the last 48 hours, "
            "ranked by views alone.\n\n**Price:** $0.25 (25 credits) per successful "
            "call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_platform_videos_digest": Operation(
        name="get_platform_videos_digest",
        method="GET",
        path="/v1/{platform}/videos/digest",
        summary="Get Platform Videos Digest",
        description=(
            "One platform's own top videos of the last 48 hours, by views.\n\n"
            "**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_hashtags": Operation(
        name="list_hashtags",
        method="GET",
        path="/v1/hashtags",
        summary="List Hashtags",
        description=(
            "The most-used hashtags of all platforms among videos posted in the dates"
            " (billed even if empty).\n\n**Price:** $0.05 (5 credits) per successful "
            "call."
        ),
        price_usd="0.05",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_platform_hashtags": Operation(
        name="list_platform_hashtags",
        method="GET",
        path="/v1/{platform}/hashtags",
        summary="List Platform Hashtags",
        description=(
            "The most-used hashtags of one platform among videos posted in the dates."
            "\n\n**Price:** $0.05 (5 credits) per successful call."
        ),
        price_usd="0.05",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_hashtag_performance": Operation(
        name="get_hashtag_performance",
        method="GET",
        path="/v1/hashtags/{hashtag}/performance",
        summary="Get Hashtag Performance",
        description=(
            "One hashtag's counted videos, views, likes and comments, all platforms "
            "combined (case-insensitive;\nsend a leading # as %23).\n\n**Price:** $0.05 "
            "(5 credits) per successful call."
        ),
        price_usd="0.05",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_account_balance": Operation(
        name="get_account_balance",
        method="GET",
        path="/v1/account/balance",
        summary="Get Account Balance",
        description=(
            "The team's prepaid balance in credits and dollars (free; 1 credit = "
            "$0.01), its auto top-up, and\n(beyond the spec) the calling API key's "
            "daily spending cap with what it was charged today (UTC), or\nnull when "
            "the key has none.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_account_collectors": Operation(
        name="get_account_collectors",
        method="GET",
        path="/v1/account/collectors",
        summary="Get Account Collectors",
        description=(
            "The data sources this server collects from (beyond the spec; free): for "
            "each, what it can do\n(capability → platforms), its state (`ok`, "
            "`rate_limited` until `state_until`, `circuit_open` until\n`state_until`, "
            "`unavailable` with the `reason`), each quota bucket's use in the current"
            " window (and\nthe share background collection may spend), when each "
            "recurring pull is due, and its last success\nand error. The same as "
            "`reelscope collectors status`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_trend_regions": Operation(
        name="list_trend_regions",
        method="GET",
        path="/v1/trends/regions",
        summary="List Trend Regions",
        description=("The trend regions, discovered at runtime (free).\n\n**Price:** free (0 credits)."),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_trends": Operation(
        name="list_trends",
        method="GET",
        path="/v1/trends",
        summary="List Trends",
        description=(
            "Trend groups of a region whose local day falls in the window (default "
            "the last 24 hours).\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_trends_digest": Operation(
        name="get_trends_digest",
        method="GET",
        path="/v1/trends/digest",
        summary="Get Trends Digest",
        description=(
            "Today's trend group of the region, today being the date in the region's "
            "own timezone.\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_emerging_trends": Operation(
        name="list_emerging_trends",
        method="GET",
        path="/v1/trends/emerging",
        summary="List Emerging Trends",
        description=(
            "Trends whose momentum is new or rising, by momentum score; reads "
            "maintained state only.\n\n**Price:** $0.25 (25 credits) per successful "
            "call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_webhooks": Operation(
        name="list_webhooks",
        method="GET",
        path="/v1/webhooks",
        summary="List Webhooks",
        description=(
            "Every webhook of the team, newest first, not paged, `inactive` ones "
            "included (free).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "create_webhook": Operation(
        name="create_webhook",
        method="POST",
        path="/v1/webhooks",
        summary="Create Webhook",
        description=(
            "Create a webhook endpoint (free). At most 5 switched on per team; the "
            "body returned carries the\nsigning secret for the Standard Webhooks "
            "`webhook-signature` header.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_webhook": Operation(
        name="get_webhook",
        method="GET",
        path="/v1/webhooks/{webhook_id}",
        summary="Get Webhook",
        description="One webhook endpoint (free).\n\n**Price:** free (0 credits).",
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "update_webhook": Operation(
        name="update_webhook",
        method="PATCH",
        path="/v1/webhooks/{webhook_id}",
        summary="Update Webhook",
        description=(
            "Change any create field (free); `is_active: false` switches it off and "
            "frees a slot.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "delete_webhook": Operation(
        name="delete_webhook",
        method="DELETE",
        path="/v1/webhooks/{webhook_id}",
        summary="Delete Webhook",
        description=(
            "Delete a webhook (free): it stops receiving events and stays listed as "
            "`inactive`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "enable_webhook": Operation(
        name="enable_webhook",
        method="POST",
        path="/v1/webhooks/{webhook_id}/enable",
        summary="Enable Webhook",
        description=(
            "Re-enable a webhook (free): `status` back to `active`, "
            "`consecutive_failures` reset to 0.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "retry_webhook_delivery": Operation(
        name="retry_webhook_delivery",
        method="POST",
        path="/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
        summary="Retry Webhook Delivery",
        description=(
            "Resend a delivery now with the same `id` (free); 409 for "
            "`payload_too_large`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "send_webhook_test": Operation(
        name="send_webhook_test",
        method="POST",
        path="/v1/webhooks/{webhook_id}/test",
        summary="Send Webhook Test",
        description=(
            "Send a realistic sample message of any event to this webhook (free): "
            "`event` (or `event_type`)\nnames it; `{}` or no body sends "
            "`orbit.run.completed`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "list_webhook_deliveries": Operation(
        name="list_webhook_deliveries",
        method="GET",
        path="/v1/webhooks/{webhook_id}/deliveries",
        summary="List Webhook Deliveries",
        description=(
            "The delivery log, newest first (free). Send `next_cursor` back as "
            "`cursor` (URL-encode `+` as\n`%2B`) until it is null; the last page can "
            "be empty.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="cursor",
    ),
    "search_sounds": Operation(
        name="search_sounds",
        method="GET",
        path="/v1/sounds/search",
        summary="Search Sounds",
        description=(
            "Sounds whose title, artist (owner nickname) or owner handle contains "
            "`q`, case-insensitive; the\nmost used on their platform first.\n\n"
            "**Price:** $0.10 (10 credits) per successful call."
        ),
        price_usd="0.10",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "list_trending_sounds": Operation(
        name="list_trending_sounds",
        method="GET",
        path="/v1/sounds/trending",
        summary="List Trending Sounds",
        description=(
            "Sounds used by catalog videos posted in the last 30 days, by `sort` "
            "descending: `videos_7d`\n(default), `videos_30d`, `usage_count` (the "
            "platform's count) or `video_count`.\n\n**Price:** $0.25 (25 credits) per "
            "successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "list_breakout_sounds": Operation(
        name="list_breakout_sounds",
        method="GET",
        path="/v1/sounds/breakout",
        summary="List Breakout Sounds",
        description=(
            "Sounds taking off: at least `min_recent` catalog videos in 7 days and "
            "`min_baseline` in 90, by\n`breakout_score` = videos_7d x (videos_7d / "
            "videos_90d) descending.\n\n**Price:** $0.25 (25 credits) per successful "
            "call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "list_creator_sounds": Operation(
        name="list_creator_sounds",
        method="GET",
        path="/v1/sounds/by-creator/{platform}/{handle}",
        summary="List Creator Sounds",
        description=(
            "Sounds used in the creator's catalog videos, the most used in the "
            "catalog first. The handle\nmatches case-insensitively, with or without "
            "`@`.\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "get_sound": Operation(
        name="get_sound",
        method="GET",
        path="/v1/sounds/{sound_id}",
        summary="Get Sound",
        description=(
            "One sound (§2.2) with its catalog usage and its `track_resolution` "
            "(status `resolved`,\n`unresolved` or `original_sound`, with a `reason`). "
            "`resolve=true` resolves the licensed track and\nartist: +$0.10 when this "
            "request makes the resolution, nothing more once it is known.\n\n**Price:**"
            " from $0.05 (5 credits) per successful call; options add to it. §4.7: "
            "resolve=true adds $0.10 on a fresh resolution (the handler settles lower"
            " on a cached one)."
        ),
        price_usd="0.05",
        price_varies=True,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_sound_usage_history": Operation(
        name="get_sound_usage_history",
        method="GET",
        path="/v1/sounds/{sound_id}/usage-history",
        summary="Get Sound Usage History",
        description=(
            "The sound's observed usage counts over the last `days` (default 90, at "
            "most 365), oldest first.\n\n**Price:** $0.05 (5 credits) per successful "
            "call."
        ),
        price_usd="0.05",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_sound_videos": Operation(
        name="list_sound_videos",
        method="GET",
        path="/v1/sounds/{sound_id}/videos",
        summary="List Sound Videos",
        description=(
            "The catalog videos using the sound (§2.1 video objects), most viewed "
            "first.\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "get_creator_lookup_status": Operation(
        name="get_creator_lookup_status",
        method="GET",
        path="/v1/satellite/creator/status/{job_id}",
        summary="Get Creator Lookup Status",
        description=(
            "A creator lookup: `processing`, then `completed` with its `result`, or "
            "`failed` with its `error`\n(`finalized` true from then on, §2.6). Free; "
            "poll every `retry_after_seconds`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "lookup_creator": Operation(
        name="lookup_creator",
        method="GET",
        path="/v1/satellite/creator/{platform}/{username}",
        summary="Lookup Creator",
        description=(
            "Start a creator lookup: profile, recent videos, median views, outliers "
            "(`outlier_ratio`,\n`weighted_score`), posting cadence; rising themes with"
            " `trend_analysis`. `include=videos,outliers`\nand `cross_links=true` are "
            "the same request as the include flags they stand for. A repeat within\n6 "
            "hours returns the earlier run, free, with `cached: true` (and no "
            "webhook).\n\n**Price:** from $0.50 (50 credits) per successful call; "
            "options add to it. The price depends on the request's options; see "
            "`X-Cost`."
        ),
        price_usd="0.50",
        price_varies=True,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_sound_lookup_status": Operation(
        name="get_sound_lookup_status",
        method="GET",
        path="/v1/satellite/sounds/status/{job_id}",
        summary="Get Sound Lookup Status",
        description=(
            "A sound lookup's status and, once completed, its result. Free.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "lookup_sound": Operation(
        name="lookup_sound",
        method="GET",
        path="/v1/satellite/sounds/{platform}/{music_id}",
        summary="Lookup Sound",
        description=(
            "Start a sound lookup (tiktok and instagram only): the sound, its usage "
            "over time and the videos\nusing it; `time_windows`, momentum and "
            "resurgence with `trend_analysis`. Cached 6 hours, like every\nlookup.\n\n"
            "**Price:** from $0.50 (50 credits) per successful call; options add to "
            "it. The price depends on the request's options; see `X-Cost`."
        ),
        price_usd="0.50",
        price_varies=True,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_hashtag_lookup_status": Operation(
        name="get_hashtag_lookup_status",
        method="GET",
        path="/v1/satellite/hashtags/status/{job_id}",
        summary="Get Hashtag Lookup Status",
        description=(
            "A hashtag lookup's status and, once completed, its result. Free.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "lookup_hashtag": Operation(
        name="lookup_hashtag",
        method="GET",
        path="/v1/satellite/hashtags/{platform}/{hashtag}",
        summary="Lookup Hashtag",
        description=(
            "Start a hashtag lookup over `depth` videos (`standard`; `deep` about "
            "300; `full` about 500, neither\non instagram), returning `max_videos` of "
            "them by `sort` (`top` or `recent`) with their statistics;\n"
            "`time_windows`, momentum and resurgence with `trend_analysis`. Cached 6 "
            "hours.\n\n**Price:** from $0.50 (50 credits) per successful call; options "
            "add to it. §4.7: +$0.50 trend_analysis; deep +$0.50 (waived with "
            "trend_analysis); full +$1.50."
        ),
        price_usd="0.50",
        price_varies=True,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "create_creator_batch": Operation(
        name="create_creator_batch",
        method="POST",
        path="/v1/satellite/creators/batch",
        summary="Create Creator Batch",
        description=(
            "Look up to 25 creators, as `handles` of one `platform` or as `creators` "
            "`[{platform, username}]`\nof any platforms: $0.50 each ($1.00 with "
            "`include_audience`); a creator looked up by the team in the\nlast 6 hours"
            " is served from that run, free. One webhook per creator.\n\n**Price:** set"
            " by the request. §4.7: $0.50 per creator, up to $1.00 with audience "
            "data; cached repeats settle lower."
        ),
        price_usd="0.00",
        price_varies=True,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_creator_batch": Operation(
        name="get_creator_batch",
        method="GET",
        path="/v1/satellite/creators/batch/{batch_id}",
        summary="Get Creator Batch",
        description=(
            "A batch: each creator's lookup, and `processing` until all are done, "
            "then `completed`,\n`partial_failure` or `failed`. Free.\n\n**Price:** free "
            "(0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "create_video_outlier": Operation(
        name="create_video_outlier",
        method="POST",
        path="/v1/satellite/video-outlier",
        summary="Create Video Outlier",
        description=(
            "How far one video sits above its creator's norm (`outlier_ratio` against"
            " the median views of\ntheir recent posts, `weighted_score`). The video is"
            " `video_id` with `platform`, or its `url`; a\nlink that names no video of"
            " the three platforms, or one sent as `video_id`, is 400\n"
            "`invalid_parameter` and free. Not persisted: poll its status within 24 "
            "hours.\n\n**Price:** $0.50 (50 credits) per successful call."
        ),
        price_usd="0.50",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_video_outlier_status": Operation(
        name="get_video_outlier_status",
        method="GET",
        path="/v1/satellite/video-outlier/status/{job_id}",
        summary="Get Video Outlier Status",
        description=(
            "A video outlier job and its result; 404 once 24 hours have passed (the "
            "poll cache). Free.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_satellite_runs": Operation(
        name="list_satellite_runs",
        method="GET",
        path="/v1/satellite/runs",
        summary="List Satellite Runs",
        description=(
            "The team's creator, sound and hashtag lookups, newest first; `offset` "
            "paging (`page` is a 400),\n`limit` default 25, at most 100. Runs never "
            "expire.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="offset",
    ),
    "get_satellite_run": Operation(
        name="get_satellite_run",
        method="GET",
        path="/v1/satellite/runs/{run_id}",
        summary="Get Satellite Run",
        description=(
            "One past lookup with its result (cached repeats and stalled lookups are "
            "read here, §6.3).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_satellite_run_videos": Operation(
        name="list_satellite_run_videos",
        method="GET",
        path="/v1/satellite/runs/{run_id}/videos",
        summary="List Satellite Run Videos",
        description=(
            "The videos of one past lookup; `offset` paging, `limit` default 25, at "
            "most 200 (400 above).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="offset",
    ),
    "list_tracked_creators": Operation(
        name="list_tracked_creators",
        method="GET",
        path="/v1/tracking/creators",
        summary="List Tracked Creators",
        description=(
            "The team's tracked creators, newest first; `search` matches the handle "
            "or display name.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "create_tracked_creator": Operation(
        name="create_tracked_creator",
        method="POST",
        path="/v1/tracking/creators",
        summary="Create Tracked Creator",
        description=(
            "Track a creator ($0.25, which pays the first cycle, run at once). Later "
            "cycles run on `cadence`\nand cost $0.25 each; `tracking.cycle.completed` "
            "follows every cycle. 404 when the creator does not\nexist, 409 when the "
            "team already tracks them (neither billed).\n\n**Price:** $0.25 (25 "
            "credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_tracked_creator": Operation(
        name="get_tracked_creator",
        method="GET",
        path="/v1/tracking/creators/{id}",
        summary="Get Tracked Creator",
        description=(
            "One tracked creator with its latest snapshot and its pending cycle and "
            "audience jobs (§2.6).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "update_tracked_creator": Operation(
        name="update_tracked_creator",
        method="PATCH",
        path="/v1/tracking/creators/{id}",
        summary="Update Tracked Creator",
        description=(
            "Change `cadence`, or `status`: `active` resumes a paused creator (§3), "
            "`paused` stops cycles.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "delete_tracked_creator": Operation(
        name="delete_tracked_creator",
        method="DELETE",
        path="/v1/tracking/creators/{id}",
        summary="Delete Tracked Creator",
        description=(
            "Stop tracking a creator; its snapshots and posts are deleted with it.\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_tracked_creator_report": Operation(
        name="get_tracked_creator_report",
        method="GET",
        path="/v1/tracking/creators/{id}/report",
        summary="Get Tracked Creator Report",
        description=(
            "The latest cycle's report: snapshot, median views, top and new posts, "
            "outliers found.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_tracked_creator_snapshots": Operation(
        name="list_tracked_creator_snapshots",
        method="GET",
        path="/v1/tracking/creators/{id}/snapshots",
        summary="List Tracked Creator Snapshots",
        description=(
            "Snapshots newest first, between `start_date` and `end_date` (UTC days, "
            "inclusive); `limit`\ndefault 30, at most 365 (400 above, §8.3).\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_tracked_creator_posts": Operation(
        name="list_tracked_creator_posts",
        method="GET",
        path="/v1/tracking/creators/{id}/posts",
        summary="List Tracked Creator Posts",
        description=(
            "The creator's posts seen by cycles and collections, newest first (or "
            "`sort=views`); `limit`\ndefault 50, at most 200 (400 above, §8.3).\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "collect_creator_posts": Operation(
        name="collect_creator_posts",
        method="POST",
        path="/v1/tracking/creators/{id}/posts/collect",
        summary="Collect Creator Posts",
        description=(
            "Collect the creator's latest posts: `depth` standard (50 videos, $0.50),"
            " deep (200, $1.00) or\nfull (500, $2.00). Poll `poll_url`; a collection "
            "that fails for good is refunded.\n\n**Price:** set by the request. §4.7: "
            "standard 50 videos $0.50, deep 200 $1.00, full 500 $2.00 (``depth`` in "
            "the body or query)."
        ),
        price_usd="0.00",
        price_varies=True,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_creator_post_collection": Operation(
        name="get_creator_post_collection",
        method="GET",
        path="/v1/tracking/creators/{id}/posts/collect/{collection_id}",
        summary="Get Creator Post Collection",
        description="A post collection's status and counts (free).\n\n**Price:** free (0 credits).",
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_tracked_creator_post": Operation(
        name="get_tracked_creator_post",
        method="GET",
        path="/v1/tracking/creators/{id}/posts/{post_id}",
        summary="Get Tracked Creator Post",
        description=("One post, by its id here or the platform's video id.\n\n**Price:** free (0 credits)."),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_tracked_creator_posting_cadence": Operation(
        name="get_tracked_creator_posting_cadence",
        method="GET",
        path="/v1/tracking/creators/{id}/posting-cadence",
        summary="Get Tracked Creator Posting Cadence",
        description=(
            "How often and when (UTC weekday and hour) the creator posts, over the "
            "posts seen: `posts_per_week`\ncounts them over the time from the first of"
            " them to now, as creator lookups do.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_tracked_videos": Operation(
        name="list_tracked_videos",
        method="GET",
        path="/v1/tracking/videos",
        summary="List Tracked Videos",
        description=(
            "The team's tracked videos, newest first; `search` matches the video id, "
            "title or creator.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "create_tracked_video": Operation(
        name="create_tracked_video",
        method="POST",
        path="/v1/tracking/videos",
        summary="Create Tracked Video",
        description=(
            "Track a video ($0.25, which pays the first cycle, run at once); later "
            "cycles $0.25 each.\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_tracked_video": Operation(
        name="get_tracked_video",
        method="GET",
        path="/v1/tracking/videos/{id}",
        summary="Get Tracked Video",
        description=(
            "One tracked video with its latest snapshot and pending cycle (§2.6).\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "update_tracked_video": Operation(
        name="update_tracked_video",
        method="PATCH",
        path="/v1/tracking/videos/{id}",
        summary="Update Tracked Video",
        description=(
            "Change `cadence`, or `status` (`active` resumes a paused video, §3).\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "delete_tracked_video": Operation(
        name="delete_tracked_video",
        method="DELETE",
        path="/v1/tracking/videos/{id}",
        summary="Delete Tracked Video",
        description=(
            "Stop tracking a video; its snapshots are deleted with it.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "create_creator_audience_refresh": Operation(
        name="create_creator_audience_refresh",
        method="POST",
        path="/v1/tracking/creators/{id}/audience-refresh",
        summary="Create Creator Audience Refresh",
        description=(
            "Start an audience snapshot ($0.50): the creator's commenters sampled and"
            " their demographics and\ngeography inferred. "
            "`audience.snapshot.completed` when ready; refunded when no audience data"
            " is found\n(`data_source: profile_only`) or the snapshot fails (which "
            "sends nothing).\n\n**Price:** $0.50 (50 credits) per successful call."
        ),
        price_usd="0.50",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "get_creator_audience_refresh": Operation(
        name="get_creator_audience_refresh",
        method="GET",
        path="/v1/tracking/creators/{id}/audience-refresh/{job_id}",
        summary="Get Creator Audience Refresh",
        description=(
            "An audience snapshot job of this creator: status, and the snapshot once "
            "completed (free).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_creator_audience_demographics": Operation(
        name="get_creator_audience_demographics",
        method="GET",
        path="/v1/tracking/creators/{id}/audience-demographics",
        summary="Get Creator Audience Demographics",
        description=(
            "Age brackets and genders of the latest audience snapshot, with pending "
            "audience jobs (§2.6).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_creator_audience_geography": Operation(
        name="get_creator_audience_geography",
        method="GET",
        path="/v1/tracking/creators/{id}/audience-geography",
        summary="Get Creator Audience Geography",
        description=(
            "Countries, cities and languages of the latest audience snapshot, with "
            "pending audience jobs.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_audience_snapshot": Operation(
        name="get_audience_snapshot",
        method="GET",
        path="/v1/audience/snapshot/{job_id}",
        summary="Get Audience Snapshot",
        description=(
            "An audience job's status and, once completed, the snapshot: demographics"
            " (age bracket, gender),\ngeography (country, city, language), "
            "`sample_size`, `confidence_per_signal`, `confidence_level`,\n"
            "`data_source`, `signal_breakdown`. 404 once 24 hours have passed since "
            "it completed.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_agents": Operation(
        name="list_agents",
        method="GET",
        path="/v1/agents",
        summary="List Agents",
        description=(
            "The team's agents, newest first. `count` is the items on this page: stop"
            " at the first page shorter\nthan `limit`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="short_page",
    ),
    "create_agent": Operation(
        name="create_agent",
        method="POST",
        path="/v1/agents",
        summary="Create Agent",
        description=(
            "Create a one-shot or recurring agent and start its first run; returns "
            "the agent with the run's\n`job_id`. Poll `GET /v1/agents/{id}` until "
            "`finalized` is true, or subscribe to\n"
            "`content_research_agent.run.completed`.\n\n**Price:** set by the request. "
            "§4.4: one-shot $0.50 (+$1.00 with Data Intelligence); recurring is free "
            "to create, billed per run."
        ),
        price_usd="0.00",
        price_varies=True,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "suggest_agent_keywords": Operation(
        name="suggest_agent_keywords",
        method="POST",
        path="/v1/agents/suggest-keywords",
        summary="Suggest Agent Keywords",
        description=(
            "Keywords for an agent from an intent (mode `create`, default), a refresh"
            " of current keywords\n(`refresh`) or rising adjacent keywords "
            "(`opportunity`), ranked by what the catalog holds for them\nover the last"
            " 30 days: volume, week-over-week growth and overlap with the seed terms."
            " Free; creates\nnothing.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_agent": Operation(
        name="get_agent",
        method="GET",
        path="/v1/agents/{agent_id}",
        summary="Get Agent",
        description=(
            "The agent with its latest run's `status`, `finalized`, `pending_jobs` "
            "and `analysis_data` (§2.6).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "update_agent": Operation(
        name="update_agent",
        method="PUT",
        path="/v1/agents/{agent_id}",
        summary="Update Agent",
        description=(
            "Change the configuration; sending `keywords` or `exclude_keywords` "
            "replaces the list.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "delete_agent": Operation(
        name="delete_agent",
        method="DELETE",
        path="/v1/agents/{agent_id}",
        summary="Delete Agent",
        description=(
            "Delete the agent (its schedule stops); it is 404 afterwards.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "list_agent_videos": Operation(
        name="list_agent_videos",
        method="GET",
        path="/v1/agents/{agent_id}/videos",
        summary="List Agent Videos",
        description=(
            "The agent's videos with read-time filters; each carries "
            "`intelligence_status`. Stop at an empty\npage; `total` may be "
            "approximate.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="empty_page",
    ),
    "list_agent_slideshows": Operation(
        name="list_agent_slideshows",
        method="GET",
        path="/v1/agents/{agent_id}/slideshows",
        summary="List Agent Slideshows",
        description=(
            "The agent's image carousels, with the same filters as videos.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="empty_page",
    ),
    "list_agent_ads": Operation(
        name="list_agent_ads",
        method="GET",
        path="/v1/agents/{agent_id}/ads",
        summary="List Agent Ads",
        description=(
            "Ads from the ad library (agents with `meta_ads_enabled`); `order_by` "
            "created_at or page_like_count.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="empty_page",
    ),
    "list_agent_creator_outliers": Operation(
        name="list_agent_creator_outliers",
        method="GET",
        path="/v1/agents/{agent_id}/creators/outliers",
        summary="List Agent Creator Outliers",
        description=(
            "Creators whose video here is at least 3x their median views: "
            "`outlier_ratio = views / median`,\n`weighted_score = ln(outlier_ratio) x "
            "ln(median_views)`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="empty_page",
    ),
    "list_agent_sounds": Operation(
        name="list_agent_sounds",
        method="GET",
        path="/v1/agents/{agent_id}/sounds",
        summary="List Agent Sounds",
        description=(
            "Top sounds of the agent's videos, `sort` rising (default) or growth_7d; "
            "each row has a `lifecycle`\nlabel: emerging, rising, stable or declining."
            "\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "list_agent_hashtags": Operation(
        name="list_agent_hashtags",
        method="GET",
        path="/v1/agents/{agent_id}/hashtags",
        summary="List Agent Hashtags",
        description=(
            "Per-hashtag analytics of the agent's videos: counts, views, 7-day growth"
            " and top creators.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "get_agent_benchmarks": Operation(
        name="get_agent_benchmarks",
        method="GET",
        path="/v1/agents/{agent_id}/benchmarks",
        summary="Get Agent Benchmarks",
        description=(
            "Genre norms by follower tier (nano < 10K, micro < 100K, mid < 1M, "
            "macro); not paged.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_agent_affinity": Operation(
        name="get_agent_affinity",
        method="GET",
        path="/v1/agents/{agent_id}/affinity",
        summary="Get Agent Affinity",
        description=(
            "Genre adjacency (beta): the genres of the agent's videos (non-generic "
            "hashtags and content\ncategories) and the pairs that go together on the "
            "same videos or with the same creators, with\nstrength (Ochiai, 0 to 1), "
            "lift and evidence counts; not paged.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_agent_similar_creators": Operation(
        name="get_agent_similar_creators",
        method="GET",
        path="/v1/agents/{agent_id}/creators/{creator_id}/similar",
        summary="Get Agent Similar Creators",
        description=(
            "Similar creators (beta): the agent's creators ranked by likeness to "
            "`creator_id` (the id of the\ncreator lists and the videos' `author_id`): "
            "text similarity of their captions and hashtags, shared\nsounds and "
            "audience-size tier, with the score and what they share; not paged. At "
            "most 25, and only\ncreators who post a word, hashtag or sound in common: "
            "a shared tier alone lists nobody. A creator\nnone of the agent's videos "
            "has is 404.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_latest_agent_analysis": Operation(
        name="get_latest_agent_analysis",
        method="GET",
        path="/v1/agents/{agent_id}/analysis/latest",
        summary="Get Latest Agent Analysis",
        description=(
            "The latest run's AI analysis: `analysis_data` (key_highlight, overview, "
            "themes, viral_tactics,\ntiming_analysis, connecting_thread, "
            "top_10_breakdown, excluded_videos), `trends`, `video_count`,\n`cost_usd`;"
            " `data` is null before the first analysis.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_agent_analyses": Operation(
        name="list_agent_analyses",
        method="GET",
        path="/v1/agents/{agent_id}/analysis",
        summary="List Agent Analyses",
        description="Every run's analysis, newest first.\n\n**Price:** free (0 credits).",
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "get_latest_agent_trends": Operation(
        name="get_latest_agent_trends",
        method="GET",
        path="/v1/agents/{agent_id}/trends/latest",
        summary="Get Latest Agent Trends",
        description=(
            "The newest batch of themes, each with `stable_key`, `status` (new, "
            "rising, steady or fading against\nthe batch before), evidence videos and "
            "engagement stats; empty before the first analysis.\n\n**Price:** free (0 "
            "credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_agent_trends": Operation(
        name="list_agent_trends",
        method="GET",
        path="/v1/agents/{agent_id}/trends",
        summary="List Agent Trends",
        description=(
            "Trend history, newest batch first; filter by `stable_key` and by batch "
            "end with `start_date` and\n`end_date`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "get_agent_hooks": Operation(
        name="get_agent_hooks",
        method="GET",
        path="/v1/agents/{agent_id}/hooks",
        summary="Get Agent Hooks",
        description=(
            "The hooks of the agent's videos, ranked by views, each video once, with "
            "`coverage` counts and an\nexact `pagination.total`. $0.25; free when the "
            "agent has Data Intelligence.\n\n**Price:** $0.25 (25 credits) per "
            "successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "list_agent_runs": Operation(
        name="list_agent_runs",
        method="GET",
        path="/v1/agents/{agent_id}/runs",
        summary="List Agent Runs",
        description=(
            "The agent's runs, newest first; a run that did not start says why in "
            "`error`.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="short_page",
    ),
    "get_agent_run": Operation(
        name="get_agent_run",
        method="GET",
        path="/v1/agents/{agent_id}/runs/{run_id}",
        summary="Get Agent Run",
        description=(
            "One run with its targets, metrics, `finalized` and `pending_jobs`.\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "get_agent_activity": Operation(
        name="get_agent_activity",
        method="GET",
        path="/v1/agents/{agent_id}/activity",
        summary="Get Agent Activity",
        description=(
            "The autopilot's decision log, newest first: what it changed or proposed "
            "after each run and for\neach breaking story (with the reason and "
            "evidence), what the user applied, dismissed or reverted,\nand autonomy "
            "changes. Recurring agents; a one-shot agent's log is empty. Not paged "
            "(newest 200).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_agent_events": Operation(
        name="list_agent_events",
        method="GET",
        path="/v1/agents/{agent_id}/events",
        summary="List Agent Events",
        description=(
            "Breaking stories detected between runs (news scan, corpus bursts), "
            "active ones (candidate,\nconfirmed) first, then dismissed and expired; "
            "each with salience (0 to 10), keywords, the\nkeywords the autopilot added"
            " and evidence. Not paged (newest 200).\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "update_agent_autonomy": Operation(
        name="update_agent_autonomy",
        method="PUT",
        path="/v1/agents/{agent_id}/autonomy",
        summary="Update Agent Autonomy",
        description=(
            "Switch the autopilot (`autopilot`, or the deprecated `autonomy_level`: "
            "`autopilot` or `suggest`)\nand breaking-story detection "
            "(`cognition_enabled`). With the autopilot off the configuration stays\n"
            "exactly as sent and its changes become proposals. Returns the agent.\n\n"
            "**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=False,
        paged=None,
    ),
    "list_agent_proposals": Operation(
        name="list_agent_proposals",
        method="GET",
        path="/v1/agents/{agent_id}/proposals",
        summary="List Agent Proposals",
        description=(
            "Deprecated. The autopilot's changes: open proposals (autopilot off) "
            "first, then those applied\n(by the autopilot or the user), dismissed, "
            "reverted or expired, newest first. Not paged.\n\n**Price:** free (0 "
            "credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=True,
        paged=None,
    ),
    "apply_agent_proposal": Operation(
        name="apply_agent_proposal",
        method="POST",
        path="/v1/agents/{agent_id}/proposals/{proposal_id}/apply",
        summary="Apply Agent Proposal",
        description=(
            "Deprecated. Make a proposed change (within the 15-keyword limit); 409 "
            "unless it is proposed or\nwhen its breaking story has ended.\n\n**Price:** "
            "free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=True,
        paged=None,
    ),
    "dismiss_agent_proposal": Operation(
        name="dismiss_agent_proposal",
        method="POST",
        path="/v1/agents/{agent_id}/proposals/{proposal_id}/dismiss",
        summary="Dismiss Agent Proposal",
        description=(
            "Deprecated. Set a proposed change aside; the autopilot does not offer "
            "its keywords again. 409\nunless it is proposed.\n\n**Price:** free (0 "
            "credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=True,
        paged=None,
    ),
    "revert_agent_proposal": Operation(
        name="revert_agent_proposal",
        method="POST",
        path="/v1/agents/{agent_id}/proposals/{proposal_id}/revert",
        summary="Revert Agent Proposal",
        description=(
            "Deprecated. Undo an applied change, whether the autopilot or the user "
            "made it; keywords the user\nhas set since stay. The autopilot does not "
            "offer its keywords again. 409 unless it is applied.\n\n**Price:** free (0 "
            "credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=True,
        deprecated=True,
        paged=None,
    ),
    "list_hook_types": Operation(
        name="list_hook_types",
        method="GET",
        path="/v1/hooks/types",
        summary="List Hook Types",
        description=(
            "The 17 hook types with how many catalog hooks each has, their "
            "`median_weighted_score` and\n`strong_hit_rate` (the share at 3x or more "
            "their creator's median views), by `sort` descending;\n`visual_hook_types`"
            " lists the 12 visual types. Free.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_hook_categories": Operation(
        name="list_hook_categories",
        method="GET",
        path="/v1/hooks/categories",
        summary="List Hook Categories",
        description=(
            "The category vocabulary with how many catalog hooks each has, the most "
            "first. Free.\n\n**Price:** free (0 credits)."
        ),
        price_usd="0.00",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged=None,
    ),
    "list_trending_hooks": Operation(
        name="list_trending_hooks",
        method="GET",
        path="/v1/hooks/trending",
        summary="List Trending Hooks",
        description=(
            "Hooks of catalog videos posted in the last `window` days (7, 14 or 30), "
            "the highest weighted\nscore first, filtered by platform, category, "
            "hook_type, visual_hook_type, language and min_views.\nThe top 1,000 are "
            "served.\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "search_hooks": Operation(
        name="search_hooks",
        method="GET",
        path="/v1/hooks/search",
        summary="Search Hooks",
        description=(
            "Hooks holding the words of `q` as whole words (punctuation, emoji, line "
            "breaks and case\nignored), in tiers by `match_type`: `exact` (the hook is"
            " `q`), `contains` (the words of `q` in a\nrow), `similar` (its words of "
            "3+ characters anywhere); the best scored first in each tier. One row\nper"
            " distinct hook: videos opening with the same words are one row, the best"
            " scored of them, and\n`usage_count` says how many there are. The top "
            "1,000 are served.\n\n**Price:** $0.25 (25 credits) per successful call."
        ),
        price_usd="0.25",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
    "get_hook_library": Operation(
        name="get_hook_library",
        method="GET",
        path="/v1/hooks/library",
        summary="Get Hook Library",
        description=(
            "Distinct hooks (one per wording and type) with how many catalog videos "
            "use them, by\n`usage_count` (default) or best `weighted_score`, with the "
            "trending filters. With two of platform,\ncategory, language and "
            "visual_hook_type, or min_views, a query that runs too long is a 503.\n\n"
            "**Price:** $0.10 (10 credits) per successful call."
        ),
        price_usd="0.10",
        price_varies=False,
        idempotent=False,
        deprecated=False,
        paged="pagination",
    ),
}

"""Creator watchlist with outlier alerts.

Tracks each creator of a watchlist (once: $0.25 to start tracking, then $0.25 per scheduled check,
spec §4.7) and prints an alert for every recent post far above that creator's median views — the rule
of the ``tracking.outlier_video.detected`` event (§6.3): more than 3 times the median, ranked by
``weighted_score = ln(outlier_ratio) × ln(median_views)``.

    REELSCOPE_API_KEY=reelscope_tkn_… python examples/creator_watchlist.py tiktok:someone youtube:other
"""

from __future__ import annotations

import math
import statistics
import sys
from typing import cast, get_args

from reelscope.client import Reelscope
from reelscope.client.models import Platform

Watchlist = list[tuple[Platform, str]]


def track_all(client: Reelscope, watchlist: Watchlist) -> dict[str, str]:
    """Tracking id → "platform @handle" for every creator of the watchlist, tracking the new ones."""
    tracked = {
        (item.platform, (item.platform_handle or "").lower()): item.id
        for item in client.iter_tracked_creators()
        if item.tracking_type == "creator"
    }
    ids = {}
    for platform, handle in watchlist:
        key = (platform, handle.lstrip("@").lower())
        if key not in tracked:
            tracked[key] = client.create_tracked_creator(platform=platform, handle=handle).data.id
        ids[tracked[key]] = f"{platform} @{key[1]}"
    return ids


def main(client: Reelscope, watchlist: Watchlist, *, threshold: float = 3.0) -> list[str]:
    """One alert per post above ``threshold`` times its creator's median views, strongest first."""
    alerts: list[tuple[float, str]] = []
    for tracking_id, who in track_all(client, watchlist).items():
        posts = list(client.iter_tracked_creator_posts(tracking_id, limit=50))
        views = [post.views for post in posts if post.views > 0]
        if len(views) < 3:
            continue  # too few posts for a median that means anything
        median = statistics.median(views)
        for post in posts:
            ratio = post.views / median
            if ratio > threshold:
                score = math.log(ratio) * math.log(median)
                text = f"{who}: {post.views:,} views, {ratio:.1f}x their median {median:,.0f} — {post.url}"
                alerts.append((score, text))
    return [text for _score, text in sorted(alerts, reverse=True)]


def parse(argument: str) -> tuple[Platform, str]:
    """``platform:handle``, for example ``tiktok:someone``."""
    platform, _, handle = argument.partition(":")
    if platform not in get_args(Platform) or not handle:
        raise SystemExit(f"not platform:handle with a platform of {get_args(Platform)}: {argument}")
    return cast(Platform, platform), handle


if __name__ == "__main__":
    with Reelscope.from_env() as reelscope:
        print("\n".join(main(reelscope, [parse(arg) for arg in sys.argv[1:]])) or "no outliers")

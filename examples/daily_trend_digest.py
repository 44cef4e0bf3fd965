"""Daily trend digest, rendered as Slack-style webhook text.

Reads the day's emerging trends of a region, the most-viewed videos of the last 48 hours and the week's
top hashtags, and prints the JSON body a Slack incoming webhook takes (``{"text": ...}``, mrkdwn).
Costs $0.55 a run: emerging $0.25, digest $0.25, hashtags $0.05 (spec §8.2).

    export REELSCOPE_BASE_URL=http://127.0.0.1:8000 REELSCOPE_API_KEY=reelscope_tkn_…
    python examples/daily_trend_digest.py | curl -s -H 'Content-Type: application/json' -d @- "$SLACK_URL"
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

from reelscope.client import Reelscope


def main(client: Reelscope, *, region: str = "global", today: date | None = None) -> dict[str, str]:
    """The Slack message of today's digest for ``region``."""
    today = today or datetime.now(UTC).date()
    trends = client.list_emerging_trends(region=region, limit=5, top_exemplars=1)
    videos = client.get_videos_digest(limit=5)
    hashtags = client.list_hashtags(
        start_date=(today - timedelta(days=6)).isoformat(),
        end_date=today.isoformat(),
        limit=5,
        order_by="views",
    )
    lines = [f"*Short-form video digest* — {today:%A %d %B} ({region})", "", "*Emerging trends*"]
    lines += [
        f"• {trend.trend.name} — {trend.status}, {trend.views_per_hour:,.0f} views/h" for trend in trends.data
    ] or ["• nothing new or rising today"]
    lines += ["", "*Most viewed in the last 48 hours*"]
    lines += [
        f"• <{video.url}|{(video.description or 'untitled')[:60]}> — {video.views:,} views on {video.type}"
        for video in videos.data
    ] or ["• no videos yet"]
    lines += ["", "*Top hashtags this week*"]
    lines += [
        f"• #{tag.hashtag.lstrip('#')} — {tag.total_views:,} views in {tag.count} videos"
        for tag in hashtags.data
    ]
    spent = sum((result.meta.cost for result in (trends, videos, hashtags)), Decimal(0))
    lines += ["", f"_Reelscope, ${spent} for this digest_"]
    return {"text": "\n".join(lines)}


if __name__ == "__main__":
    with Reelscope.from_env() as reelscope:
        print(json.dumps(main(reelscope), ensure_ascii=False, indent=2))

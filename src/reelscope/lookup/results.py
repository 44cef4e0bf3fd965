"""What a lookup answers, built from connector records (spec §4.7, §6.3 ``results``). Pure: no database,
no clock (``now`` is passed in), so each rule is testable with plain records.

The spec names the parts and leaves their shapes open (§2.9); the shapes here are Reelscope's. Outlier
math is the one rule in ``analysis/outliers.py``.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from reelscope.analysis import audience, cadence, outliers, totals
from reelscope.analysis.audience import Commenter
from reelscope.analysis.text import normalize_hashtag
from reelscope.catalog.service import catalog_id
from reelscope.collectors.base import CommentRecord, CreatorRecord, SoundRecord, VideoRecord
from reelscope.kit.clock import iso

# §4.7 trend_analysis "over time windows": the creator's recent posts against their older ones
THEME_WINDOWS: tuple[tuple[str, timedelta], ...] = (
    ("last_7_days", timedelta(days=7)),
    ("days_8_to_30", timedelta(days=30)),
    ("days_31_to_90", timedelta(days=90)),
)
RECENT = timedelta(days=30)
MIN_THEME_VIDEOS = 2
# hashtag and sound trend_analysis: how fast videos arrive now against before
ACTIVITY_WINDOWS: tuple[tuple[str, timedelta, timedelta], ...] = (
    ("last_24_hours", timedelta(0), timedelta(days=1)),
    ("days_1_to_3", timedelta(days=1), timedelta(days=3)),
    ("days_3_to_7", timedelta(days=3), timedelta(days=7)),
    ("days_7_to_30", timedelta(days=7), timedelta(days=30)),
)
# diversity sampling: one creator's many videos must not make a trend on their own
PER_CREATOR_SAMPLE = 3
RISING_AT, FADING_AT = 1.5, 0.67
TOP_CREATORS = 10


def publish_date(moment: datetime) -> str:
    """§2.1: ``YYYY-MM-DDTHH:MM:SS`` in UTC, no ``Z``."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def video_out(video: VideoRecord) -> dict[str, Any]:
    """One video of a lookup, with the service id the catalog gives it (the same UUID as its row there)."""
    return {
        "id": catalog_id("video", video.platform.value, video.external_id),
        "external_id": video.external_id,
        "url": video.url,
        "platform": video.platform.value,
        "description": video.description,
        "publish_date": publish_date(video.published_at),
        "views": video.views,
        "number_of_likes": video.likes,
        "number_of_comments": video.comments,
        "number_of_shares": video.shares,
        "bookmarks": video.bookmarks,
        "hashtags": list(video.hashtags),
        "thumbnail_url": video.thumbnail_url,
        "duration": video.duration,
        "sound_title": video.sound.title if video.sound else None,
        "author_handle": video.creator.handle if video.creator else None,
    }


def profile_out(creator: CreatorRecord) -> dict[str, Any]:
    return {
        "platform": creator.platform.value,
        "handle": creator.handle,
        "display_name": creator.display_name,
        "platform_user_id": creator.platform_user_id,
        "followers": creator.followers,
        "following": creator.following,
        "total_likes": creator.total_likes,
        "total_views": creator.total_views,
        "video_count": creator.video_count,
        "verified": creator.verified,
        "avatar_url": creator.avatar_url,
        "bio": creator.bio,
        "country": creator.country,
    }


def consistent_profile(creator: CreatorRecord, posts: Sequence[VideoRecord]) -> CreatorRecord:
    """The profile with totals at least what its posts collected add up to (issue 32 item 5): the
    profile and the posts are separate reads, and a viral post can pass a profile total not yet
    updated; an answer showing both must not contradict itself."""
    return replace(
        creator,
        total_views=totals.at_least_sum(creator.total_views, (post.views for post in posts)),
        total_likes=totals.at_least_sum(creator.total_likes, (post.likes for post in posts)),
        video_count=totals.at_least_count(creator.video_count, len(posts)),
    )


def outliers_out(videos: Sequence[VideoRecord], threshold: float) -> list[dict[str, Any]]:
    """The creator's videos at least ``threshold`` times their median views, highest ratio first."""
    by_id = {video.external_id: video for video in videos}
    found = outliers.find_outliers([(v.external_id, v.views) for v in videos], threshold=threshold)
    return [
        {
            **video_out(by_id[o.video_id]),
            "median_views": o.median_views,
            "outlier_ratio": round(o.outlier_ratio, 4),
            "weighted_score": round(o.weighted_score, 4),
        }
        for o in found
    ]


def posting_cadence(published: Sequence[datetime], now: datetime) -> dict[str, Any]:
    """How often the creator posts (``analysis/cadence.py``, the formula tracking uses too), in the
    lookup's keys: weekdays most posted first and UTC hours, each only where something was posted."""
    found = cadence.posting_cadence(published, now)
    ranked = sorted((day for day, n in found.by_weekday.items() if n), key=lambda day: -found.by_weekday[day])
    return {
        "posts_analyzed": found.posts_analyzed,
        "posts_per_week": found.posts_per_week or 0.0,
        "median_gap_hours": found.median_gap_hours,
        "last_posted_at": iso(found.last_post_at),
        "by_weekday": {day: found.by_weekday[day] for day in ranked},
        "by_hour_utc": {str(hour): n for hour, n in found.by_hour.items() if n},
    }


def _window_of(age: timedelta) -> str | None:
    for name, bound in THEME_WINDOWS:
        if age <= bound:
            return name
    return None


def rising_themes(videos: Sequence[VideoRecord], now: datetime) -> dict[str, Any]:
    """The creator's themes (hashtags) over time windows, and those rising: a larger share of the last
    30 days' videos than of the older ones (smoothed, so a theme new this month counts as rising)."""
    windows: dict[str, Counter[str]] = {name: Counter() for name, _ in THEME_WINDOWS}
    sizes: Counter[str] = Counter()
    recent: Counter[str] = Counter()
    older: Counter[str] = Counter()
    recent_n = older_n = 0
    for video in videos:
        age = now - video.published_at
        tags = {normalize_hashtag(tag) for tag in video.hashtags} - {""}
        window = _window_of(age)
        if window is not None:
            sizes[window] += 1
            windows[window].update(tags)
        if age <= RECENT:
            recent_n += 1
            recent.update(tags)
        else:
            older_n += 1
            older.update(tags)
    rising: list[dict[str, Any]] = []
    for theme, count in recent.items():
        if count < MIN_THEME_VIDEOS:
            continue
        recent_share = count / recent_n
        older_share = older[theme] / older_n if older_n else 0.0
        lift = (recent_share + 0.05) / (older_share + 0.05)
        if lift >= RISING_AT:
            rising.append(
                {
                    "theme": theme,
                    "recent_videos": count,
                    "older_videos": older[theme],
                    "recent_share": round(recent_share, 4),
                    "older_share": round(older_share, 4),
                    "lift": round(lift, 3),
                }
            )
    rising.sort(key=lambda row: (-row["lift"], -row["recent_videos"], row["theme"]))
    return {
        "time_windows": [
            {
                "window": name,
                "videos": sizes[name],
                "top_themes": [{"theme": t, "videos": c} for t, c in windows[name].most_common(5)],
            }
            for name, _ in THEME_WINDOWS
        ],
        "rising_themes": rising[:10],
    }


def audience_out(comments: Iterable[CommentRecord]) -> dict[str, Any]:
    """The creator's audience inferred from a comment sample by ``analysis/audience.py`` (as audience
    snapshots are): distinct commenters, not comments, with a confidence per signal. ``countries`` and
    ``languages`` keep the lookup's earlier list form (``{code, share}``, largest first) beside it."""
    sample = list(comments)
    people = [
        Commenter(
            handle=comment.author_handle,
            country=comment.country,
            language=comment.language,
            age_bracket=comment.author_age_bracket,
            gender=comment.author_gender,
        )
        for comment in sample
    ]
    inferred = audience.infer(people, comments_read=len(sample), followers_read=0)

    def listed(found: dict[str, float]) -> list[dict[str, Any]]:
        return [{"code": code, "share": share} for code, share in list(found.items())[:10]]

    return {
        **inferred.as_dict(),
        "countries": listed(inferred.country),
        "languages": listed(inferred.language),
    }


def creator_result(
    profile: CreatorRecord,
    posts: Sequence[VideoRecord],
    *,
    now: datetime,
    max_videos: int,
    include_videos: bool,
    include_outliers: bool,
    outlier_threshold: float,
    trend_analysis: bool,
    cross_platform: list[dict[str, Any]] | None = None,
    audience: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Profile, recent videos, median views, outliers, posting cadence (and rising themes, cross-platform
    links, audience when asked). The median and outliers are over every post collected."""
    median = outliers.median_views(video.views for video in posts)
    result: dict[str, Any] = {
        "profile": profile_out(consistent_profile(profile, posts)),
        "median_views": median,
        "videos_analyzed": len(posts),
        "posting_cadence": posting_cadence([video.published_at for video in posts], now),
    }
    if include_videos:
        result["videos"] = [video_out(video) for video in posts[:max_videos]]
    if include_outliers:
        result["outlier_threshold"] = outlier_threshold
        result["outliers"] = outliers_out(posts, outlier_threshold)
    if trend_analysis:
        result["trend_analysis"] = rising_themes(posts, now)
    if cross_platform is not None:
        result["cross_platform"] = cross_platform
    if audience is not None:
        result["audience"] = audience
    return result


def diversity_sample(
    videos: Sequence[VideoRecord], per_creator: int = PER_CREATOR_SAMPLE
) -> list[VideoRecord]:
    """At most ``per_creator`` videos of each creator, their most viewed, in the original order."""
    by_creator: dict[str, list[VideoRecord]] = defaultdict(list)
    for video in videos:
        by_creator[video.creator.handle if video.creator else video.external_id].append(video)
    kept = {
        id(video)
        for group in by_creator.values()
        for video in sorted(group, key=lambda v: -v.views)[:per_creator]
    }
    return [video for video in videos if id(video) in kept]


@dataclass(frozen=True)
class Activity:
    videos: int
    views: int
    per_day: float


def _activity(videos: Sequence[VideoRecord], now: datetime, start: timedelta, end: timedelta) -> Activity:
    inside = [v for v in videos if start <= now - v.published_at < end]
    days = (end - start).total_seconds() / 86_400
    return Activity(len(inside), sum(v.views for v in inside), len(inside) / days)


def activity_trend(videos: Sequence[VideoRecord], now: datetime) -> dict[str, Any]:
    """§4.7 trend_analysis for sounds and hashtags: ``time_windows``, ``momentum`` and ``resurgence``
    over diversity-sampled videos. Momentum compares the videos per day of the last 3 days with days
    3–30; a resurgence is a recent week at least twice as busy as the weeks before, for something that
    was already in use more than 30 days ago."""
    sampled = diversity_sample(videos)
    windows = []
    for name, start, end in ACTIVITY_WINDOWS:
        activity = _activity(sampled, now, start, end)
        windows.append(
            {
                "window": name,
                "videos": activity.videos,
                "total_views": activity.views,
                "videos_per_day": round(activity.per_day, 3),
            }
        )
    recent = _activity(sampled, now, timedelta(0), timedelta(days=3))
    before = _activity(sampled, now, timedelta(days=3), timedelta(days=30))
    ratio = (recent.per_day + 0.01) / (before.per_day + 0.01)
    status = "rising" if ratio >= RISING_AT else "fading" if ratio <= FADING_AT else "steady"
    week = _activity(sampled, now, timedelta(0), timedelta(days=7))
    earlier = _activity(sampled, now, timedelta(days=7), timedelta(days=30))
    established = any(now - v.published_at > timedelta(days=30) for v in videos)
    return {
        "sampled_videos": len(sampled),
        "time_windows": windows,
        "momentum": {
            "status": status,
            "score": round(min(ratio / (ratio + 1), 1.0), 4),
            "recent_videos_per_day": round(recent.per_day, 3),
            "baseline_videos_per_day": round(before.per_day, 3),
        },
        "resurgence": {
            "detected": established and week.per_day >= 2 * max(earlier.per_day, 1e-9) and week.videos >= 3,
            "recent_videos_per_day": round(week.per_day, 3),
            "previous_videos_per_day": round(earlier.per_day, 3),
        },
    }


def _collection_stats(videos: Sequence[VideoRecord]) -> dict[str, Any]:
    views = [v.views for v in videos]
    creators = Counter(v.creator.handle for v in videos if v.creator)
    return {
        "videos_analyzed": len(videos),
        "total_views": sum(views),
        "avg_views": round(sum(views) / len(views), 2) if views else 0.0,
        "median_views": outliers.median_views(views),
        "total_likes": sum(v.likes for v in videos),
        "top_creators": [{"handle": h, "videos": n} for h, n in creators.most_common(TOP_CREATORS)],
    }


def sound_result(
    sound: SoundRecord, videos: Sequence[VideoRecord], *, now: datetime, max_videos: int, trend_analysis: bool
) -> dict[str, Any]:
    result: dict[str, Any] = {
        "sound": {
            "external_id": sound.external_id,
            "id": catalog_id("sound", sound.platform.value, sound.external_id),
            "title": sound.title,
            "platform": sound.platform.value,
            "duration": sound.duration,
            "cover_url": sound.cover_url,
            "is_original": sound.is_original,
            "usage_count": sound.usage_count,
            "owner_handle": sound.owner_handle,
            "owner_nickname": sound.owner_nickname,
            "is_commerce_music": sound.is_commerce_music,
        },
        "usage_history": [{"at": iso(p.at), "usage_count": p.usage_count} for p in sound.usage],
        **_collection_stats(videos),
        "videos": [video_out(v) for v in videos[:max_videos]],
    }
    if trend_analysis:
        result["trend_analysis"] = activity_trend(videos, now)
    return result


def hashtag_result(
    tag: str,
    videos: Sequence[VideoRecord],
    *,
    now: datetime,
    depth: str,
    sort: str,
    max_videos: int,
    trend_analysis: bool,
) -> dict[str, Any]:
    key = normalize_hashtag(tag)
    related = Counter(t for v in videos for t in {normalize_hashtag(x) for x in v.hashtags} if t and t != key)
    result: dict[str, Any] = {
        "hashtag": key,
        "depth": depth,
        "sort": sort,
        **_collection_stats(videos),
        "related_hashtags": [{"hashtag": t, "videos": n} for t, n in related.most_common(10)],
        "videos": [video_out(v) for v in videos[:max_videos]],
    }
    if trend_analysis:
        result["trend_analysis"] = activity_trend(videos, now)
    return result


def video_outlier_result(
    video: VideoRecord, creator_posts: Sequence[VideoRecord], *, threshold: float = outliers.OUTLIER_AT
) -> dict[str, Any]:
    """How far one video sits above its creator's norm: its views against the median of the creator's
    recent posts (the video itself among them when it is recent)."""
    known = {v.external_id: v for v in creator_posts}
    known[video.external_id] = video
    median = outliers.median_views(v.views for v in known.values())
    scored = outliers.score(video.external_id, video.views, median) if median is not None else None
    return {
        "video": video_out(video),
        "creator_handle": video.creator.handle if video.creator else None,
        "creator_followers": video.creator.followers if video.creator else None,
        "videos_compared": len(known),
        "median_views": median,
        "outlier_ratio": round(scored.outlier_ratio, 4) if scored else None,
        "weighted_score": round(scored.weighted_score, 4) if scored else None,
        "threshold": threshold,
        "is_outlier": bool(scored and scored.outlier_ratio > threshold),  # as find_outliers: strictly over
    }

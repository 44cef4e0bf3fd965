"""Realistic sample payloads (``data``) of every event, laid out as spec §6.3 describes them.

The test-event endpoint sends one of these so a receiver can be built and checked before real work
fires the event. Ids are fresh UUIDs; team-scoped samples carry the caller's team and user.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

from reelscope.kit.clock import iso
from reelscope.kit.ids import new_id
from reelscope.webhook import events

Sample = dict[str, Any]


def _agent_settings(now: datetime, *, recurring: bool) -> Sample:
    return {
        "id": new_id(),
        "name": "Skincare hooks watch",
        "keywords": ["skincare routine", "glass skin"],
        "platforms": ["tiktok", "instagram", "youtube"],
        "cadence": "0 7 * * *" if recurring else None,
        "min_views": 10_000,
        "time_range": "7d",
        "intent": "Find hooks that sell a morning skincare routine",
        "last_run_at": iso(now - timedelta(minutes=18)),
        "next_run_at": iso(now + timedelta(days=1)) if recurring else None,
        "is_active": True,
    }


def _agent_run(team_id: str, user_id: str, now: datetime, *, recurring: bool, key: str) -> Sample:
    theme = {
        "stable_key": "before-after-reveal",
        "name": "Before/after reveal in the first second",
        "why_it_works": "The payoff is promised before the viewer can scroll",
        "tactics": ["split-screen opener", "on-screen countdown"],
        "confidence": 0.82,
        "video_count": 14,
        "evidence_video_ids": [new_id(), new_id()],
    }
    return {
        "run_id": new_id(),
        "team_id": team_id,
        "user_id": user_id,
        "status": "success",
        "started_at": iso(now - timedelta(minutes=18)),
        "completed_at": iso(now),
        "is_recurring": recurring,
        "metrics": {
            "credits_used": 50,
            "execution_time_ms": 1_080_000,
            "videos_linked": 240,
            "videos_inserted": 180,
            "videos_updated": 60,
            "meta_ads_linked": 12,
            "outliers_identified": 9,
            "language_filtered": 7,
            "exclude_keywords_filtered": 3,
            "platforms": {"tiktok": 120, "instagram": 70, "youtube": 50},
        },
        key: _agent_settings(now, recurring=recurring),
        "intent_summary": None,
        "analysis": {
            "id": new_id(),
            "status": "completed",
            "analysis_data": {
                "key_highlight": "Reveal-first hooks outperform tutorials 3 to 1",
                "overview": "Short reveal hooks dominate this week's top videos.",
                "themes": [theme],
                "viral_tactics": ["reveal first", "text overlay with the result"],
                "timing_analysis": "Most outliers were posted between 07:00 and 09:00 local time",
                "connecting_thread": "Visible results before any explanation",
                "top_10_breakdown": {"videos": []},
                "excluded_videos": [],
            },
            "trends": [theme],
            "video_count": 240,
            "cost_usd": 0.42,
        },
        "error": None,
    }


def _agent_event(_team_id: str, _user_id: str, now: datetime) -> Sample:
    return {
        "agent_id": new_id(),
        "agent_name": "Skincare hooks watch",
        "is_recurring": True,
        "event_id": new_id(),
        "title": "Retinol shortage trends after a recall",
        "summary": "News outlets report a recall; creators are posting alternatives.",
        "salience": 7.5,
        "source": "news_scan",
        "status": "confirmed",
        "detected_at": iso(now - timedelta(minutes=40)),
        "confirmed_at": iso(now),
        "expires_at": iso(now + timedelta(days=3)),
        "event_date": None,
        "keywords": ["retinol recall"],
        "keywords_added": ["retinol alternative"],
        "evidence": [
            {
                "title": "Retinol serum recalled",
                "url": "https://news.example/recall",
                "domain": "news.example",
            }
        ],
        "action_taken": "timely_keywords",
        "next_run_at": iso(now + timedelta(hours=6)),
    }


def _lookup(team_id: str, user_id: str, now: datetime) -> Sample:
    return {
        "run_id": new_id(),
        "team_id": team_id,
        "user_id": user_id,
        "status": "success",
        "type": "creator_lookup",
        "platform": "tiktok",
        "started_at": iso(now - timedelta(seconds=45)),
        "completed_at": iso(now),
        "metrics": 0,
        "request": {
            "include_videos": True,
            "max_videos": 20,
            "trend_analysis": False,
            "data_intelligence": False,
        },
        "results": {"creator": {"username": "glowwithmia", "followers": 182_000}, "videos": []},
        "error": None,
    }


def _trends(region: str) -> Callable[[str, str, datetime], Sample]:
    def build(_team_id: str, _user_id: str, now: datetime) -> Sample:
        return {
            "trend_group_id": new_id(),
            "date": (now - timedelta(days=1)).date().isoformat(),
            "region": region,
            "trends": [
                {
                    "trend_id": new_id(),
                    "trend_ranking_id": new_id(),
                    "title": "Glass skin in 3 steps",
                    "description": "Three-step routines promising glass skin overnight",
                    "ranking": 1,
                    "scrape_status": "completed",
                    "exemplar_count": 24,
                    "velocity": {
                        "band": "accelerating",
                        "count_24h_total": 310,
                        "median_views": 48_000,
                        "source": "hashtags",
                        "per_platform": {"tiktok": 220, "instagram": 70, "youtube": 20},
                    },
                    "top_exemplars": [
                        {
                            "video_id": new_id(),
                            "url": "https://www.tiktok.com/@glowwithmia/video/7301234567890123456",
                            "platform": "tiktok",
                            "views": 1_250_000,
                            "thumbnail_url": "https://cdn.example/thumb.jpg",
                            "publish_date": (now - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S"),
                            "author": {"username": "glowwithmia", "avatar_url": None, "verified": False},
                        }
                    ],
                }
            ],
        }

    return build


def _tracking_cycle(_team_id: str, _user_id: str, _now: datetime) -> Sample:
    tracking_id = new_id()
    return {
        "tracking_type": "creator",
        "tracking_id": tracking_id,
        "platform": "tiktok",
        "platform_handle": "glowwithmia",
        "snapshot": {"followers": 182_400, "total_views": 41_200_000, "delta_followers": 400},
        "new_posts_count": 2,
        "report_available": True,
        "dashboard_url": f"/v1/tracking/creators/{tracking_id}/report",
    }


def _tracking_outlier(_team_id: str, _user_id: str, now: datetime) -> Sample:
    tracking_id = new_id()
    return {
        "tracking_type": "creator",
        "tracking_id": tracking_id,
        "platform": "tiktok",
        "platform_handle": "glowwithmia",
        "outlier_videos": [
            {
                "url": "https://www.tiktok.com/@glowwithmia/video/7301234567890123457",
                "title": "I tried the 3-step glass skin routine",
                "views": 640_000,
                "median_views": 52_000,
                "outlier_ratio": 12.31,
                "weighted_score": 27.37,
                "publish_date": (now - timedelta(hours=20)).strftime("%Y-%m-%dT%H:%M:%S"),
            }
        ],
        "creator_median_views": 52_000,
        "dashboard_url": f"/v1/tracking/creators/{tracking_id}/report",
    }


def _tracking_paused(_team_id: str, _user_id: str, _now: datetime) -> Sample:
    tracking_id = new_id()
    return {
        "tracking_type": "video",
        "tracking_id": tracking_id,
        "platform": "youtube",
        "video_url": "https://www.youtube.com/shorts/dQw4w9WgXcQ",
        "reason": "insufficient_credits",
        "pause_reason": "insufficient_credits",
        "dashboard_url": f"/v1/tracking/videos/{tracking_id}/report",
    }


def _audience(_team_id: str, _user_id: str, _now: datetime) -> Sample:
    return {
        "snapshot_id": new_id(),
        "platform": "instagram",
        "handle": "glowwithmia",
        "sample_size": 1200,
        "cost_usd": 0.08,
        "confidence_per_signal": {
            "age": 0.61,
            "gender": 0.74,
            "country": 0.83,
            "city": 0.42,
            "language": 0.9,
        },
        "confidence_level": "medium",
        "data_source": "comments",
        "signal_breakdown": {"comments": 1100, "followers": 100},
    }


_BUILDERS: dict[str, Callable[[str, str, datetime], Sample]] = {
    events.AGENT_RUN_COMPLETED: lambda t, u, n: _agent_run(t, u, n, recurring=False, key="orbit"),
    events.AGENT_EVENT_DETECTED: _agent_event,
    events.LOOKUP_COMPLETED: _lookup,
    events.TRENDS_DAILY_COMPLETED: _trends("global"),
    events.TRENDS_REGION_COMPLETED: _trends("us"),
    events.TRACKING_CYCLE_COMPLETED: _tracking_cycle,
    events.TRACKING_OUTLIER_DETECTED: _tracking_outlier,
    events.TRACKING_PAUSED: _tracking_paused,
    events.AUDIENCE_SNAPSHOT_COMPLETED: _audience,
    events.ORBIT_RUN_COMPLETED: lambda t, u, n: _agent_run(t, u, n, recurring=False, key="orbit"),
    events.COMET_RUN_COMPLETED: lambda t, u, n: _agent_run(t, u, n, recurring=True, key="comet"),
}


def sample_data(event: str, *, team_id: str, user_id: str, now: datetime) -> Sample:
    """The ``data`` of a realistic ``event`` message; trend samples carry no team details (§6.1)."""
    return _BUILDERS[event](team_id, user_id, now)

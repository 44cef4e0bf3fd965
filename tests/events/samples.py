"""One valid ``data`` per event form of §6.3, as producers would build them."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from reelscope.events import schemas

AT = datetime(2026, 11, 21, 12, 0, 30, tzinfo=UTC)
TEAM = "5b0f7c2e-5d1e-4b8e-9c57-2f4f1e0a9d11"
USER = "0d2f3c4b-1a2b-4c3d-8e9f-0a1b2c3d4e5f"


def agent_settings(recurring: bool) -> schemas.AgentSettings:
    return schemas.AgentSettings(
        id="agent-1",
        name="Skincare",
        keywords=["skincare", "retinol"],
        platforms=["tiktok", "instagram"],  # type: ignore[list-item]
        cadence="23 14 * * *" if recurring else None,
        min_views=1000,
        time_range="7d",
        intent="Find what makes retinol videos go viral",
        last_run_at=AT,
        next_run_at=AT if recurring else None,
        is_active=True,
    )


def theme() -> schemas.Theme:
    return schemas.Theme(
        stable_key="before-after",
        name="Before and after",
        why_it_works="Visible proof",
        tactics=["split screen"],
        confidence=0.8,
        video_count=12,
        evidence_video_ids=["v1", "v2"],
    )


def agent_run_success(recurring: bool = False) -> schemas.AgentRunCompleted:
    settings = agent_settings(recurring)
    return schemas.AgentRunCompleted(
        run_id="run-1",
        team_id=TEAM,
        user_id=USER,
        started_at=AT,
        completed_at=AT,
        is_recurring=recurring,
        metrics=schemas.RunMetrics(videos_linked=40, platforms={"tiktok": 30, "instagram": 10}),
        comet=settings if recurring else None,
        orbit=None if recurring else settings,
        analysis=schemas.RunAnalysis(
            id="analysis-1",
            status="completed",
            analysis_data=schemas.AnalysisData(key_highlight="Proof wins", overview="...", themes=[theme()]),
            trends=[theme()],
            video_count=40,
            cost_usd=0.12,
        ),
    )


def agent_run_failed(recurring: bool = True) -> schemas.AgentRunFailed:
    return schemas.AgentRunFailed(
        run_id="run-2",
        team_id=TEAM,
        user_id=USER,
        started_at=AT,
        completed_at=AT,
        content_research_agent=schemas.FailedAgentSettings(
            **{k: v for k, v in agent_settings(recurring).model_dump().items() if k != "is_active"},
            is_recurring=recurring,
            active=True,
        ),
        intent_summary=schemas.IntentSummary(matched=0, total_evaluated=0),
        error=schemas.ErrorInfo(code="collection_failed", message="Every platform failed"),
    )


def lookup(status: str = "success") -> dict[str, Any]:
    return {
        "run_id": "run-3",
        "team_id": TEAM,
        "user_id": USER,
        "status": status,
        "type": "creator_lookup",
        "platform": "tiktok",
        "started_at": AT,
        "completed_at": AT,
        "request": {"include_videos": True, "max_videos": 50},
        "results": {"creator": {"handle": "x"}} if status == "success" else None,
        "error": None if status == "success" else {"code": "not_found", "message": "No such creator"},
    }


def trends() -> schemas.TrendsCompleted:
    return schemas.TrendsCompleted(
        trend_group_id="tg-1",
        date=date(2026, 11, 20),
        region="US",
        trends=[
            schemas.TrendItem(
                trend_id="t1",
                trend_ranking_id="tr1",
                title="Glass skin",
                description="...",
                ranking=1,
                scrape_status="complete",
                exemplar_count=3,
                velocity=schemas.Velocity(
                    band="breaking",
                    count_24h_total=120,
                    median_views=50_000,
                    source="sandbox",
                    per_platform={},
                ),
                top_exemplars=[
                    schemas.TrendExemplar(
                        video_id="v1",
                        url="https://example.com/v1",
                        platform="tiktok",  # type: ignore[arg-type]
                        views=1_000_000,
                        thumbnail_url=None,
                        publish_date=datetime(2026, 11, 19, 8, 30, 0),
                        author=schemas.ExemplarAuthor(username="ana", avatar_url=None, verified=False),
                    )
                ],
            )
        ],
    )


def trends_failed() -> dict[str, Any]:
    return {
        "run_id": "run-4",
        "region": "DE",
        "status": "failed",
        "completed_at": AT,
        "error": {"code": "upstream_error", "message": "Source unavailable"},
    }


SAMPLES: dict[str, list[Any]] = {
    "content_research_agent.run.completed": [agent_run_success(), agent_run_failed()],
    "orbit.run.completed": [agent_run_success(False)],
    "comet.run.completed": [agent_run_success(True)],
    "content_research_agent.event.detected": [
        {
            "agent_id": "agent-1",
            "agent_name": "Skincare",
            "is_recurring": True,
            "event_id": "e1",
            "title": "Retinol recall",
            "summary": "...",
            "salience": 8.5,
            "source": "news_scan",
            "detected_at": AT,
            "confirmed_at": AT,
            "expires_at": AT,
            "keywords": ["retinol recall"],
            "keywords_added": ["retinol recall"],
            "evidence": [{"title": "Recall", "url": "https://news.example/r", "domain": "news.example"}],
            "action_taken": "timely_keywords",
            "next_run_at": AT,
        }
    ],
    "satellite.lookup.completed": [lookup("success"), lookup("failed")],
    "trends.daily.completed": [trends(), trends_failed()],
    "trends.region.completed": [trends(), trends_failed()],
    "tracking.cycle.completed": [
        {
            "tracking_type": "creator",
            "tracking_id": "tc1",
            "platform": "youtube",
            "platform_handle": "@ana",
            "snapshot": {"followers": 1200, "delta_followers": 0, "subscribers": 1200, "total_views": None},
            "new_posts_count": 2,
            "report_available": True,
            "dashboard_url": "https://reelscope.example/tracking/tc1",
        },
        {
            "tracking_type": "video",
            "tracking_id": "tv1",
            "platform": "tiktok",
            "video_url": "https://example.com/v1",
            "snapshot": {"title": "Clip", "views": 5000, "likes": 0},
            "new_posts_count": 0,
            "report_available": False,
            "dashboard_url": "https://reelscope.example/tracking/tv1",
        },
    ],
    "tracking.outlier_video.detected": [
        {
            "tracking_type": "creator",
            "tracking_id": "tc1",
            "platform": "tiktok",
            "platform_handle": "@ana",
            "outlier_videos": [
                {
                    "url": "https://example.com/v9",
                    "title": "Big one",
                    "views": 40_000,
                    "median_views": 10_000,
                    "outlier_ratio": 4.0,
                    "weighted_score": 12.77,
                    "publish_date": datetime(2026, 11, 20, 18, 0),
                }
            ],
            "creator_median_views": 10_000,
            "dashboard_url": "https://reelscope.example/tracking/tc1",
        }
    ],
    "tracking.paused": [
        {
            "tracking_type": "creator",
            "tracking_id": "tc1",
            "platform": "instagram",
            "platform_handle": "@ana",
            "reason": "insufficient_credits",
            "pause_reason": "insufficient_credits",
            "dashboard_url": "https://reelscope.example/tracking/tc1",
        }
    ],
    "audience.snapshot.completed": [
        {
            "snapshot_id": "s1",
            "platform": "tiktok",
            "handle": "@ana",
            "sample_size": 300,
            "cost_usd": 0.04,
            "confidence_per_signal": {
                "age": 0.6,
                "gender": 0.7,
                "country": 0.8,
                "city": 0.3,
                "language": 0.9,
            },
            "confidence_level": "medium",
            "data_source": "comments",
            "signal_breakdown": {"comments": 280, "followers": 20},
        }
    ],
}

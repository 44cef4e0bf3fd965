"""The event catalogue: every §6.2 name, public vs team-scoped, and the §6.3 payloads as sent."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from reelscope.events.catalogue import EVENTS, PUBLIC_EVENTS, EventName
from tests.events import samples

SPEC_EVENTS = {
    "content_research_agent.run.completed",
    "content_research_agent.event.detected",
    "satellite.lookup.completed",
    "trends.daily.completed",
    "trends.region.completed",
    "tracking.cycle.completed",
    "tracking.outlier_video.detected",
    "tracking.paused",
    "audience.snapshot.completed",
    "orbit.run.completed",
    "comet.run.completed",
}


def dump(event: str, data: Any) -> dict[str, Any]:
    kind = EVENTS[event]
    result: dict[str, Any] = kind.payload.dump_python(kind.payload.validate_python(data), mode="json")
    return result


class TestCatalogue:
    def test_it_holds_exactly_the_events_of_the_spec(self) -> None:
        assert set(EVENTS) == SPEC_EVENTS == set(samples.SAMPLES)

    def test_trend_events_are_public_and_the_rest_team_scoped(self) -> None:
        # §6.1: "Trend events are public (no team or user details); the other events are team-scoped"
        assert {"trends.daily.completed", "trends.region.completed"} == PUBLIC_EVENTS

    def test_legacy_names_alias_the_agent_run_event(self) -> None:
        for legacy in ("orbit.run.completed", "comet.run.completed"):
            assert EVENTS[legacy].alias_of is EventName.AGENT_RUN_COMPLETED
            assert EVENTS[legacy].payload is EVENTS["content_research_agent.run.completed"].payload

    @pytest.mark.parametrize(
        ("event", "data"), [(event, data) for event, forms in samples.SAMPLES.items() for data in forms]
    )
    def test_every_sample_payload_validates(self, event: str, data: Any) -> None:
        assert dump(event, data)


class TestPayloadShapes:
    def test_a_successful_one_shot_run_carries_orbit_settings_and_z_timestamps(self) -> None:
        data = dump("content_research_agent.run.completed", samples.agent_run_success(False))
        assert data["status"] == "success" and data["is_recurring"] is False
        assert "orbit" in data and "comet" not in data
        assert data["started_at"] == "2026-11-21T12:00:30Z"
        assert data["metrics"]["platforms"] == {"tiktok": 30, "instagram": 10}
        assert data["analysis"]["trends"][0]["stable_key"] == "before-after"
        assert data["error"] is None

    def test_a_run_must_carry_the_settings_block_of_its_kind(self) -> None:
        one_shot = samples.agent_run_success(False).model_dump()
        with pytest.raises(ValidationError):
            dump("content_research_agent.run.completed", {**one_shot, "is_recurring": True})

    def test_a_failed_run_uses_the_failed_layout(self) -> None:
        data = dump("content_research_agent.run.completed", samples.agent_run_failed())
        assert data["status"] == "failed"
        assert "platforms" not in data["metrics"] and data["metrics"]["youtube_count"] == 0
        assert (
            data["content_research_agent"]["is_recurring"] is True
            and data["content_research_agent"]["active"]
        )
        assert "is_active" not in data["content_research_agent"] and "is_recurring" not in data
        assert data["analysis"] is None
        assert data["error"] == {"code": "collection_failed", "message": "Every platform failed"}

    def test_a_lookup_has_an_error_exactly_when_it_failed(self) -> None:
        with pytest.raises(ValidationError):
            dump("satellite.lookup.completed", {**samples.lookup("success"), "status": "failed"})
        assert dump("satellite.lookup.completed", samples.lookup("failed"))["metrics"] == 0

    def test_trend_payloads_render_dates_as_the_spec_does(self) -> None:
        data = dump("trends.region.completed", samples.trends())
        assert "status" not in data  # trend events include it only on failure
        assert data["date"] == "2026-11-20"
        assert data["trends"][0]["top_exemplars"][0]["publish_date"] == "2026-11-19T08:30:00"
        failed = dump("trends.daily.completed", samples.trends_failed())
        assert failed["status"] == "failed" and failed["error"]["code"] == "upstream_error"

    def test_tracking_snapshots_omit_zero_and_unknown_numbers(self) -> None:
        creator, video = samples.SAMPLES["tracking.cycle.completed"]
        creator_data = dump("tracking.cycle.completed", creator)
        assert creator_data["snapshot"] == {"followers": 1200, "subscribers": 1200}
        assert creator_data["platform_handle"] == "@ana" and "video_url" not in creator_data
        video_data = dump("tracking.cycle.completed", video)
        assert video_data["snapshot"] == {"title": "Clip", "views": 5000}
        assert video_data["video_url"] == "https://example.com/v1" and "platform_handle" not in video_data

    def test_a_video_cycle_needs_its_url_not_a_handle(self) -> None:
        _, video = samples.SAMPLES["tracking.cycle.completed"]
        with pytest.raises(ValidationError):
            dump("tracking.cycle.completed", {**video, "video_url": None, "platform_handle": "@ana"})

    def test_paused_carries_the_same_reason_twice(self) -> None:
        [paused] = samples.SAMPLES["tracking.paused"]
        with pytest.raises(ValidationError):
            dump("tracking.paused", {**paused, "pause_reason": "max_failures_reached"})

    def test_unknown_fields_and_out_of_range_values_are_refused(self) -> None:
        [audience] = samples.SAMPLES["audience.snapshot.completed"]
        with pytest.raises(ValidationError):
            dump("audience.snapshot.completed", {**audience, "team_name": "acme"})
        with pytest.raises(ValidationError):
            dump("audience.snapshot.completed", {**audience, "confidence_level": "certain"})
        [detected] = samples.SAMPLES["content_research_agent.event.detected"]
        with pytest.raises(ValidationError):
            dump("content_research_agent.event.detected", {**detected, "salience": 11})

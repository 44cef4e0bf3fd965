"""The retry rules of §6.1 as a pure function, and the configurable schedule."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from reelscope.webhook.delivery import Claim, next_step
from reelscope.webhook.transport import DeliveryPolicy, Message, Outcome, Result, classify, parse_schedule

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
POLICY = DeliveryPolicy()


def claim(round_attempts: int, hard: int = 0) -> Claim:
    message = Message("https://x/", {}, "whsec_AA==", "d", "tracking.paused", NOW, {})
    return Claim("d", "e", "t", round_attempts, hard, round_attempts, message)


class TestClassify:
    @pytest.mark.parametrize("status", [200, 201, 204, 299])
    def test_2xx_delivered(self, status: int) -> None:
        assert classify(status) is Outcome.DELIVERED

    @pytest.mark.parametrize("status", [408, 429, 500, 503, 599])
    def test_retryable(self, status: int) -> None:
        assert classify(status) is Outcome.RETRYABLE

    @pytest.mark.parametrize("status", [100, 301, 302, 400, 404, 409])
    def test_other(self, status: int) -> None:
        assert classify(status) is Outcome.REJECTED


class TestNextStep:
    def test_retryable_follows_the_schedule_then_dead(self) -> None:
        gaps = [30, 120, 600, 3600, 21600, 86400]
        for done, gap in enumerate(gaps):
            step = next_step(claim(done), Result(Outcome.RETRYABLE, 503), POLICY, NOW)
            assert (step.status, step.next_attempt_at) == ("pending", NOW + timedelta(seconds=gap))
        assert next_step(claim(6), Result(Outcome.RETRYABLE, 503), POLICY, NOW).status == "dead"

    def test_blocked_address_counts_as_a_network_error(self) -> None:
        assert next_step(claim(0), Result(Outcome.BLOCKED), POLICY, NOW).status == "pending"
        assert next_step(claim(6), Result(Outcome.BLOCKED), POLICY, NOW).status == "dead"

    def test_other_answers_get_one_more_try(self) -> None:
        first = next_step(claim(0), Result(Outcome.REJECTED, 404), POLICY, NOW)
        assert (first.status, first.round_hard_failures) == ("pending", 1)
        assert next_step(claim(1, hard=1), Result(Outcome.REJECTED, 404), POLICY, NOW).status == "failed"
        # a 5xx after a 404 keeps retrying; a second 404 later ends it
        assert next_step(claim(1, hard=1), Result(Outcome.RETRYABLE, 500), POLICY, NOW).status == "pending"
        assert next_step(claim(6), Result(Outcome.REJECTED, 400), POLICY, NOW).status == "failed"

    def test_success_and_too_large_are_final(self) -> None:
        assert next_step(claim(3), Result(Outcome.DELIVERED, 200), POLICY, NOW).status == "delivered"
        assert next_step(claim(0), Result(Outcome.TOO_LARGE), POLICY, NOW).status == "payload_too_large"


class TestSchedule:
    def test_default_matches_the_spec(self) -> None:
        assert [int(d.total_seconds()) for d in POLICY.schedule] == [0, 30, 120, 600, 3600, 21600, 86400]
        assert POLICY.max_attempts == 7

    def test_configurable(self) -> None:
        """REELSCOPE_WEBHOOK_RETRY_SCHEDULE sets the gaps and, by its length, the number of attempts."""
        assert parse_schedule("0, 5,10") == (timedelta(0), timedelta(seconds=5), timedelta(seconds=10))

    @pytest.mark.parametrize("text", ["", "30,60", "0,-5", "0,abc"])
    def test_bad_schedules(self, text: str) -> None:
        with pytest.raises(ValueError):
            parse_schedule(text)

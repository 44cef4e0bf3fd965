"""The real child-process path: a hard timeout, and the child's answer on stdout (ADR 0041)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from reelscope.collectors.base import UpstreamError
from reelscope.collectors.ytdlp.client import Ytdlp
from reelscope.kit.clock import ManualClock
from reelscope.kit.platforms import Platform

# a child that says who it is, then never answers
SLEEPER = (
    sys.executable,
    "-c",
    "import os, sys, time; open(sys.argv[1], 'w').write(str(os.getpid())); time.sleep(300)",
)


class TestChild:
    async def test_a_child_that_does_not_answer_is_killed_at_its_timeout(
        self, clock: ManualClock, tmp_path: Path
    ) -> None:
        pid_file = tmp_path / "pid"
        client = Ytdlp(clock=clock, ledger=None, seconds=1.0, command=SLEEPER)

        with pytest.raises(UpstreamError) as raised:
            await client.info(Platform.YOUTUBE, str(pid_file))

        assert raised.value.retryable
        assert "no answer within 1 s" in str(raised.value)
        pid = int(pid_file.read_text())
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # killed and reaped: no such process any more

    async def test_the_child_runs_yt_dlp_and_answers_on_stdout(self, clock: ManualClock) -> None:
        # no network needed: yt-dlp refuses the target before any request
        client = Ytdlp(clock=clock, ledger=None, seconds=60)

        with pytest.raises(UpstreamError) as raised:
            await client.info(Platform.YOUTUBE, "not-a-url")

        assert "not a valid URL" in str(raised.value)

"""Recorded yt-dlp answers (connectors reference §5.5 and variants) served by a fake child process."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from reelscope.collectors.ledger import Ledger
from reelscope.collectors.ytdlp.client import Ytdlp
from reelscope.collectors.ytdlp.connector import YtdlpConnector
from reelscope.kit.clock import ManualClock

# posted 2026-11-20 10:00 UTC, a day before the manual clock's start
POSTED = 1795168800

TIKTOK = {
    "id": "7432109876543210987",
    "title": "Sourdough in 40 seconds #sourdough #baking",
    "description": "Sourdough in 40 seconds #sourdough #baking",
    "uploader": "crumblab",
    "uploader_id": "6901234500011122233",
    "uploader_url": "https://www.tiktok.com/@crumblab",
    "channel": "Crumb Lab",
    "channel_id": "MS4wLjABAAAAcrumbEXAMPLE",
    "timestamp": POSTED,
    "duration": 41,
    "view_count": 391020,
    "like_count": 28410,
    "comment_count": 402,
    "repost_count": 1877,
    "save_count": 3301,
    "track": "original sound - crumblab",
    "artists": ["Crumb Lab"],
    "thumbnail": "https://p16-sign.tiktokcdn-us.com/cover1.jpeg",
    "webpage_url": "https://www.tiktok.com/@crumblab/video/7432109876543210987",
    "extractor": "TikTok",
    "extractor_key": "TikTok",
}
YOUTUBE = {
    "id": "Zt3kQ9vLm0A",
    "title": "Sourdough in 40 seconds #shorts",
    "description": "Crumb shot at the end #baking",
    "channel": "Crumb Lab",
    "channel_id": "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
    "channel_follower_count": 48100,
    "uploader_id": "@crumblab",
    "duration": 41,
    "view_count": 88412,
    "like_count": 3920,
    "comment_count": 57,
    "tags": ["bread", "sourdough"],
    "timestamp": POSTED,
    "media_type": "short",
    "thumbnail": "https://i.ytimg.com/vi/Zt3kQ9vLm0A/maxresdefault.jpg",
    "live_status": "not_live",
    "webpage_url": "https://www.youtube.com/watch?v=Zt3kQ9vLm0A",
    "extractor": "youtube",
    "extractor_key": "Youtube",
}
INSTAGRAM = {
    "id": "DAx7kLmPq2R",
    "title": "Video by crumblab",
    "description": "Sourdough in 40 seconds #sourdough",
    "channel": "crumblab",
    "uploader": "Crumb Lab",
    "uploader_id": "5123456789",
    "timestamp": POSTED,
    "duration": 40.6,
    "view_count": 6120,
    "like_count": 214,
    "comment_count": 9,
    "webpage_url": "https://www.instagram.com/reel/DAx7kLmPq2R/",
    "extractor": "Instagram",
    "extractor_key": "Instagram",
}
BOT_CHECK = (
    "ERROR: [youtube] Zt3kQ9vLm0A: Sign in to confirm you're not a bot. "
    "Use --cookies-from-browser or --cookies"
)


def youtube(video_id: str, **changes: Any) -> dict[str, Any]:
    """The YouTube Short above under another id, with ``changes``."""
    return YOUTUBE | {"id": video_id, "webpage_url": f"https://www.youtube.com/watch?v={video_id}"} | changes


def error(message: str) -> dict[str, Any]:
    """What the child prints when yt-dlp failed (reference §5.5's error record)."""
    return {"error": "DownloadError", "message": message}


@dataclass
class FakeChild:
    """The child process: target → answer (``{"info": …}`` or an error record); the rest are
    "Video unavailable". Every run's arguments are recorded."""

    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    runs: list[list[str]] = field(default_factory=list)

    def serve(self, target: str, answer: dict[str, Any]) -> None:
        self.answers[target] = answer if "error" in answer else {"info": answer}

    async def run(self, argv: Sequence[str]) -> dict[str, Any]:
        self.runs.append(list(argv))
        return self.answers.get(argv[0], error(f"ERROR: [generic] {argv[0]}: Video unavailable"))

    @property
    def targets(self) -> list[str]:
        return [argv[0] for argv in self.runs]


@pytest.fixture
def child() -> FakeChild:
    return FakeChild()


MakeYtdlp = Callable[..., YtdlpConnector]


@pytest.fixture
def make_ytdlp(clock: ManualClock, child: FakeChild) -> MakeYtdlp:
    """A yt-dlp connector whose children are the fake; ``ledger`` None by default (no database)."""

    def make(ledger: Ledger | None = None) -> YtdlpConnector:
        return YtdlpConnector(Ytdlp(clock=clock, ledger=ledger, seconds=5, run=child.run), clock)

    return make


@pytest.fixture
def ytdlp(make_ytdlp: MakeYtdlp) -> YtdlpConnector:
    return make_ytdlp()

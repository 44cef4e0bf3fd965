"""Every operation of the connector protocol, refused: the base of a source that offers only some.

A real source offers a few operations (news offers one, yt-dlp five); the protocol has fourteen, and an
operation a source lacks raises ``Unavailable`` (``base.Connector``). The router never calls an operation
whose capability the source does not declare, so these answers are reached only by a direct call.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from reelscope.collectors.base import (
    AdRecord,
    CommentRecord,
    CreatorRecord,
    HashtagSort,
    NewsItem,
    SlideshowRecord,
    SoundRecord,
    Unavailable,
    VideoRecord,
    VideoStats,
)
from reelscope.kit.platforms import Platform


class Unoffered:
    """Subclasses set ``name`` and override what they offer."""

    name: str

    def _refuse(self, operation: str) -> Unavailable:
        return Unavailable(f"{self.name} does not offer {operation}")

    async def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 100
    ) -> list[VideoRecord]:
        raise self._refuse("search_videos")

    async def video(self, platform: Platform, external_id: str) -> VideoRecord:
        raise self._refuse("video")

    async def video_stats(self, platform: Platform, external_id: str) -> VideoStats:
        raise self._refuse("video_stats")

    async def videos_stats(self, platform: Platform, external_ids: Sequence[str]) -> list[VideoStats]:
        raise self._refuse("videos_stats")

    async def creator(self, platform: Platform, handle: str) -> CreatorRecord:
        raise self._refuse("creator")

    async def creator_posts(self, platform: Platform, handle: str, *, limit: int = 50) -> list[VideoRecord]:
        raise self._refuse("creator_posts")

    async def sound(self, platform: Platform, external_id: str) -> SoundRecord:
        raise self._refuse("sound")

    async def sound_videos(
        self, platform: Platform, external_id: str, *, limit: int = 50
    ) -> list[VideoRecord]:
        raise self._refuse("sound_videos")

    async def hashtag_videos(
        self, platform: Platform, tag: str, *, sort: HashtagSort = "top", limit: int = 50
    ) -> list[VideoRecord]:
        raise self._refuse("hashtag_videos")

    async def slideshows(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, *, limit: int = 50
    ) -> list[SlideshowRecord]:
        raise self._refuse("slideshows")

    async def ads(self, keyword: str, *, limit: int = 50) -> list[AdRecord]:
        raise self._refuse("ads")

    async def comments(
        self, platform: Platform, video_external_id: str, *, limit: int = 100
    ) -> list[CommentRecord]:
        raise self._refuse("comments")

    async def news(self, keywords: Sequence[str], since: datetime, until: datetime) -> list[NewsItem]:
        raise self._refuse("news")

    async def discovery_feed(
        self, platform: Platform, region: str | None, since: datetime, until: datetime
    ) -> list[VideoRecord]:
        raise self._refuse("discovery_feed")

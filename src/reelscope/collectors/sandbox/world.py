"""The sandbox world: a pure function of (seed, time) answering every connector question (ADR 0007).

Every method takes the moment ``at`` it is asked at; nothing is stored between calls except caches of
pure results. Videos appear when posted, their counters grow and freeze a week later; ``ground_truth``
and ``audience_truth`` expose what a detector or an audience estimate should recover.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import numpy as np

from reelscope.collectors.base import (
    AdRecord,
    CommentRecord,
    CreatorRecord,
    HashtagSort,
    NewsItem,
    SlideshowRecord,
    SoundRecord,
    VideoRecord,
    VideoStats,
)
from reelscope.collectors.sandbox import extras, records, trends
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox import sounds as snd
from reelscope.collectors.sandbox.creators import AudienceTruth, audience_truth, creator_records, index_of
from reelscope.collectors.sandbox.vocab import COUNTRY_INDEX, GENERIC_TAGS, TAG_POOLS, THEMES, TOPICS
from reelscope.kit.platforms import Platform

SEARCH_CAP = 20_000  # posts materialised at most when a keyword narrows nothing down


def _strip(tag: str) -> str:
    return tag.strip().lstrip("#").lower()


class World:
    def __init__(self, seed: int) -> None:
        self.seed = seed

    # --- videos ------------------------------------------------------------------------------------

    def videos_between(
        self, platform: Platform, since: datetime, until: datetime, at: datetime, region: str | None = None
    ) -> list[VideoRecord]:
        """Every video posted in [since, min(until, at)), oldest first; ``region`` a country code."""
        if region is not None and region.lower() not in COUNTRY_INDEX:
            return []
        country = None if region is None else COUNTRY_INDEX[region.lower()]
        end = min(until, at).timestamp()
        posts = ps.feed(self.seed, platform, since.timestamp(), end, country)
        return records.videos(self.seed, posts, at)

    def video(self, platform: Platform, external_id: str, at: datetime) -> VideoRecord | None:
        post = ps.locate(self.seed, platform, external_id)
        if post is None or int(post.ts[0]) >= at.timestamp():
            return None
        return records.videos(self.seed, post, at)[0]

    def video_stats(self, platform: Platform, external_id: str, at: datetime) -> VideoStats | None:
        post = ps.locate(self.seed, platform, external_id)
        if post is None or int(post.ts[0]) >= at.timestamp():
            return None
        c = ps.counters(self.seed, post, at.timestamp())
        shares, bookmarks = int(c.shares[0]), int(c.bookmarks[0])
        return VideoStats(
            platform=platform,
            external_id=external_id,
            fetched_at=at,
            views=int(c.views[0]),
            likes=int(c.likes[0]),
            comments=int(c.comments[0]),
            shares=None if shares < 0 else shares,
            bookmarks=None if bookmarks < 0 else bookmarks,
        )

    def videos_stats(self, platform: Platform, external_ids: Sequence[str], at: datetime) -> list[VideoStats]:
        """Counters of many videos at once; ids of no video (or not yet posted) are left out."""
        posts, found = ps.locate_many(self.seed, platform, list(external_ids))
        c = ps.counters(self.seed, posts, at.timestamp())
        t = at.timestamp()
        return [
            VideoStats(
                platform=platform,
                external_id=external,
                fetched_at=at,
                views=views,
                likes=likes,
                comments=comments,
                shares=None if shares < 0 else shares,
                bookmarks=None if bookmarks < 0 else bookmarks,
            )
            for external, posted, views, likes, comments, shares, bookmarks in zip(
                found,
                posts.ts.tolist(),
                c.views.tolist(),
                c.likes.tolist(),
                c.comments.tolist(),
                c.shares.tolist(),
                c.bookmarks.tolist(),
                strict=True,
            )
            if posted < t
        ]

    def _matches(self, keyword: str) -> tuple[set[int], set[int], bool]:
        """Topics and themes whose vocabulary mentions ``keyword``; False when nothing does."""
        kw = keyword.lower().strip()
        topics = {
            i
            for i, t in enumerate(TOPICS)
            if kw in t.name or any(kw in x.lower() for x in (*TAG_POOLS[i], *t.keywords, *t.phrases))
        }
        themes = {
            i
            for i, th in enumerate(THEMES)
            if kw in th.name.lower() or any(kw in x.lower() for x in (*th.tags, *th.phrases))
        }
        return topics, themes, bool(topics or themes)

    def _candidates(self, posts: ps.Posts, topics: set[int], themes: set[int]) -> ps.Posts:
        topic = records.topics_of(self.seed, posts)
        mask = np.isin(topic, list(topics)) if topics else np.zeros(len(posts), dtype=bool)
        theme_hit = np.array([b is not None and b.theme_index in themes for b in posts.burst], dtype=bool)
        return posts.take(np.flatnonzero(mask | theme_hit))

    def search_videos(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, at: datetime, limit: int
    ) -> list[VideoRecord]:
        kw = keyword.lower().strip()
        if not kw:
            return []
        posts = ps.feed(self.seed, platform, since.timestamp(), min(until, at).timestamp())
        topics, themes, narrowed = self._matches(kw)
        posts = (
            self._candidates(posts, topics, themes)
            if narrowed
            else posts.take(np.arange(len(posts))[-SEARCH_CAP:])
        )
        found = [
            i
            for i, text in enumerate(records.texts(self.seed, posts))
            if kw in text.description.lower()
            or kw in (text.transcript or "").lower()
            or any(kw == _strip(t) for t in text.hashtags)
        ]
        return self._most_viewed(posts.take(found), at, limit)

    def hashtag_videos(
        self, platform: Platform, tag: str, at: datetime, sort: HashtagSort, limit: int
    ) -> list[VideoRecord]:
        key = _strip(tag)
        if not key:
            return []
        topics = {i for i, pool in enumerate(TAG_POOLS) if key in (x.lower() for x in pool)}
        themes = {i for i, th in enumerate(THEMES) if key in (x.lower() for x in th.tags)}
        generic = key in GENERIC_TAGS
        window = timedelta(days=3 if generic else 30 if sort == "top" else 7)
        posts = ps.feed(self.seed, platform, (at - window).timestamp(), at.timestamp())
        if not generic:
            posts = self._candidates(posts, topics, themes)
        texts = records.texts(self.seed, posts)
        tagged = [i for i, text in enumerate(texts) if any(_strip(t) == key for t in text.hashtags)]
        posts = posts.take(tagged)
        if sort == "recent":
            return self._first(posts, -posts.ts, at, limit)
        return self._most_viewed(posts, at, limit)

    def _most_viewed(self, posts: ps.Posts, at: datetime, limit: int) -> list[VideoRecord]:
        """Records of the ``limit`` most viewed posts at ``at``, most viewed first."""
        return self._first(posts, -ps.counters(self.seed, posts, at.timestamp()).views, at, limit)

    def _first(self, posts: ps.Posts, rank: hs.I64, at: datetime, limit: int) -> list[VideoRecord]:
        """Records of the ``limit`` posts of lowest ``rank``, ties in batch order (as a stable sort keeps
        them), built only for those: deciding first is what keeps a search cheap."""
        return records.videos(self.seed, posts.take(np.argsort(rank, kind="stable")[:limit]), at)

    # --- creators ----------------------------------------------------------------------------------

    def creator(self, platform: Platform, handle: str, at: datetime) -> CreatorRecord | None:
        idx = index_of(self.seed, platform, handle)
        if idx is None:
            return None
        creators = np.array([idx], dtype=np.int64)
        median = ps.creator_median_views(self.seed, platform, creators)
        return creator_records(self.seed, platform, creators, at, median)[0]

    def creator_posts(
        self, platform: Platform, handle: str, at: datetime, limit: int
    ) -> list[VideoRecord] | None:
        idx = index_of(self.seed, platform, handle)
        if idx is None:
            return None
        posts = ps.creator_posts(self.seed, platform, idx, at.timestamp(), limit)
        return records.videos(self.seed, posts, at)

    def audience_truth(self, platform: Platform, handle: str) -> AudienceTruth | None:
        idx = index_of(self.seed, platform, handle)
        return None if idx is None else audience_truth(self.seed, platform, idx)

    # --- sounds ------------------------------------------------------------------------------------

    def sound(
        self, platform: Platform, external_id: str, at: datetime, history_days: int = 30
    ) -> SoundRecord | None:
        parsed = snd.parse_sound_id(self.seed, platform, external_id)
        if parsed is None:
            return None
        return snd.sound_record(self.seed, platform, *parsed, at, history_days=history_days)

    def sound_videos(
        self, platform: Platform, external_id: str, at: datetime, limit: int
    ) -> list[VideoRecord] | None:
        parsed = snd.parse_sound_id(self.seed, platform, external_id)
        if parsed is None:
            return None
        kind, idx = parsed
        if kind == snd.ORIGINAL:
            posts = ps.creator_posts(self.seed, platform, idx, at.timestamp(), limit * 4)
        else:
            posts = ps.feed(self.seed, platform, (at - timedelta(days=14)).timestamp(), at.timestamp())
        chosen, licensed = snd.choose(
            self.seed, platform, posts.key, (posts.kind == ps.BURST).astype(np.int64)
        )
        if kind == snd.ORIGINAL:
            carries = chosen == snd.ORIGINAL
        elif kind == snd.THEME:
            theme = np.array([b is not None and b.theme_index == idx for b in posts.burst], dtype=bool)
            carries = (chosen == snd.THEME) & theme
        else:
            carries = (chosen == snd.LICENSED) & (licensed == idx)
        return self._most_viewed(posts.take(np.flatnonzero(carries)), at, limit)

    # --- slideshows, ads, comments, news -----------------------------------------------------------

    def slideshows(
        self, platform: Platform, keyword: str, since: datetime, until: datetime, at: datetime, limit: int
    ) -> list[SlideshowRecord]:
        if platform is Platform.YOUTUBE:
            return []
        kw = keyword.lower().strip()
        posts = ps.slot_posts(
            self.seed, platform, ps.SLIDESHOW, since.timestamp(), min(until, at).timestamp()
        )
        topics, _themes, narrowed = self._matches(kw)
        if narrowed:
            posts = self._candidates(posts, topics, set())
        found = [
            s
            for s in records.slideshows(self.seed, posts, at)
            if kw in (s.description or "").lower() or any(kw in p.lower() for p in s.panels)
        ]
        return sorted(found, key=lambda s: s.views, reverse=True)[:limit]

    def ads(self, keyword: str, at: datetime, limit: int) -> list[AdRecord]:
        return extras.ads(self.seed, keyword, at, limit)

    def comments(
        self, platform: Platform, video_external_id: str, at: datetime, limit: int
    ) -> list[CommentRecord] | None:
        video = self.video(platform, video_external_id, at)
        if video is None or video.creator is None:
            return None
        audience = self.audience_truth(platform, video.creator.handle)
        assert audience is not None
        keyword = video.hashtags[0].lstrip("#") if video.hashtags else "this"
        return extras.comments(
            self.seed,
            platform,
            video_external_id,
            video.published_at,
            video.comments,
            audience,
            keyword,
            at,
            limit,
        )

    def news(self, keywords: Sequence[str], since: datetime, until: datetime, at: datetime) -> list[NewsItem]:
        return extras.news(self.seed, keywords, since, until, at)

    # --- truth -------------------------------------------------------------------------------------

    def ground_truth(self, region: str | None, since: datetime, until: datetime) -> list[trends.PlantedTrend]:
        """The planted bursts active in [since, until), for one country or (None / ``global``) all."""
        return trends.ground_truth(self.seed, region, since, until)

"""Turning a batch of posts into normalized records: text, hashtags, sound, creator, per-platform gaps.

All randomness is drawn as columns for the whole batch first; the per-post loop only assembles
strings, so a batch of 100,000 posts costs about a second.
"""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from reelscope.collectors.base import CreatorRecord, SlideshowRecord, SoundRecord, VideoRecord
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox import sounds as snd
from reelscope.collectors.sandbox.creators import creator_records, skeleton
from reelscope.collectors.sandbox.trends import Burst
from reelscope.collectors.sandbox.vocab import (
    COUNTRIES,
    FILLERS,
    GENERIC_TAGS,
    HOOKS,
    NICHES,
    TOPICS,
    TOPICS_BY_NICHE,
)
from reelscope.kit.platforms import Platform

_TOPIC_TABLE = np.array([[*TOPICS_BY_NICHE[n], *TOPICS_BY_NICHE[n]][:3] for n in NICHES], dtype=np.int64)
_TOPIC_COUNT = np.array([len(TOPICS_BY_NICHE[n]) for n in NICHES], dtype=np.int64)
_PLATFORM_DUP = {Platform.INSTAGRAM: 0.15, Platform.TIKTOK: 0.02, Platform.YOUTUBE: 0.0}  # §2.1
_TRANSCRIPT = {Platform.YOUTUBE: 0.7, Platform.TIKTOK: 0.8, Platform.INSTAGRAM: 0.25}


def topics_of(seed: int, posts: ps.Posts) -> hs.I64:
    """Each post's topic index (its creator's niche, one of the niche's topics)."""
    niche = skeleton(seed, posts.platform).niche[posts.creator]
    return _TOPIC_TABLE[
        niche, hs.hash64(seed, posts.key, hs.label("topic")) % _TOPIC_COUNT[niche].astype(np.uint64)
    ]


class _Columns:
    """Every random choice of a batch, drawn at once."""

    def __init__(self, seed: int, posts: ps.Posts) -> None:
        k = posts.key
        sk = skeleton(seed, posts.platform)
        self.topic = topics_of(seed, posts)
        self.picks = [hs.hash64(seed, k, hs.label("pick"), j).tolist() for j in range(6)]
        self.u = {
            name: hs.uniform(seed, k, hs.label(name)).tolist()
            for name in (
                "generic",
                "dup",
                "transcript",
                "dur",
                "upload",
                "region",
                "duet",
                "stitch",
                "comm",
                "shorts",
            )
        }
        self.sound_kind, self.licensed = snd.choose(
            seed, posts.platform, k, (posts.kind == ps.BURST).astype(np.int64)
        )
        self.language = [sk.language[c] for c in posts.creator.tolist()]
        self.country = [COUNTRIES[c].code for c in sk.country[posts.creator].tolist()]


def _creators(seed: int, posts: ps.Posts, at: datetime) -> dict[int, CreatorRecord]:
    unique = np.unique(posts.creator)
    medians = ps.creator_median_views(seed, posts.platform, unique)
    return dict(zip(unique.tolist(), creator_records(seed, posts.platform, unique, at, medians), strict=True))


class _Sounds:
    """Sound records of a batch, built once per distinct sound."""

    def __init__(self, seed: int, platform: Platform, at: datetime) -> None:
        self.seed, self.platform, self.at = seed, platform, at
        self.cache: dict[tuple[int, int], SoundRecord] = {}

    def get(self, kind: int, idx: int) -> SoundRecord:
        found = self.cache.get((kind, idx))
        if found is None:
            found = snd.sound_record(self.seed, self.platform, kind, idx, self.at)
            self.cache[(kind, idx)] = found
        return found

    def original(self, idx: int, creator: CreatorRecord) -> SoundRecord:
        """A creator's original sound, named from the creator record already at hand."""
        found = self.cache.get((snd.ORIGINAL, idx))
        if found is None:
            found = snd.original_sound(self.seed, self.platform, idx, creator, self.at)
            self.cache[(snd.ORIGINAL, idx)] = found
        return found


def _text(
    cols: _Columns, i: int, post_burst: Burst | None, platform: Platform
) -> tuple[str, list[str], str, str]:
    """Hook, hashtags (display form, no ``#``), a spoken phrase pool and the topic keyword."""
    topic = TOPICS[int(cols.topic[i])]
    p = [pick[i] for pick in cols.picks]
    lang = cols.language[i]
    keyword = topic.keywords[p[0] % len(topic.keywords)]
    hooks = HOOKS[lang]
    hook = hooks[p[1] % len(hooks)].format(kw=keyword)
    start = p[2] % len(topic.tags)
    tags = [topic.tags[(start + j) % len(topic.tags)] for j in range(2 + p[3] % 3)]
    phrases = topic.phrases
    if post_burst is not None:
        theme = post_burst.theme
        tags = [*theme.tags[: 1 + p[4] % len(theme.tags)], tags[0]]
        phrases = theme.phrases + phrases[:1]
        hook = (
            theme.phrases[p[4] % len(theme.phrases)].capitalize()
            if lang == "en"
            else f"{hook} #{theme.tags[0]}"
        )
    if cols.u["generic"][i] < 0.4:
        tags.append(GENERIC_TAGS[p[5] % (len(GENERIC_TAGS) - 2)])
    if platform is Platform.YOUTUBE and cols.u["shorts"][i] < 0.5:
        tags.append("shorts")
    phrase = phrases[p[5] % len(phrases)]
    return hook, list(dict.fromkeys(tags)), phrase, keyword


def _transcript(lang: str, hook: str, phrase: str, keyword: str, p: int) -> str:
    fillers = FILLERS[lang]
    a, b = fillers[p % len(fillers)], fillers[(p // 7) % len(fillers)]
    if lang == "en":
        return f"{a}, {hook.lower()}. {phrase}. {b}."
    return f"{a}, {hook.lower()}. {keyword}. {b}."


def videos(seed: int, posts: ps.Posts, at: datetime) -> list[VideoRecord]:
    """The batch as video records, with counters as of ``at``."""
    if len(posts) == 0:
        return []
    platform = posts.platform
    cols = _Columns(seed, posts)
    counters = ps.counters(seed, posts, at.timestamp())
    views, likes, comments = counters.views.tolist(), counters.likes.tolist(), counters.comments.tolist()
    shares, bookmarks = counters.shares.tolist(), counters.bookmarks.tolist()
    creators = _creators(seed, posts, at)
    sounds = _Sounds(seed, platform, at)
    durations = (6 + 54 * np.asarray(cols.u["dur"]) ** 1.5).astype(np.int64).tolist()
    tiktok, youtube, instagram = (
        platform is p for p in (Platform.TIKTOK, Platform.YOUTUBE, Platform.INSTAGRAM)
    )
    out: list[VideoRecord] = []
    for i in range(len(posts)):
        u = {name: column[i] for name, column in cols.u.items()}
        creator = creators[int(posts.creator[i])]
        external = ps.external_id(posts, i)
        hook, tags, phrase, keyword = _text(cols, i, posts.burst[i], platform)
        lang = cols.language[i]
        shown_tags = tuple(f"#{t}" for t in tags) if youtube else tuple(tags)  # §2.1
        description = f"{hook} {' '.join('#' + t for t in tags)}"
        if u["dup"] < _PLATFORM_DUP[platform]:
            description = f"{description}\n{description}"  # §2.1: the caption may appear twice
        transcript = (
            _transcript(lang, hook, phrase, keyword, cols.picks[0][i])
            if u["transcript"] < _TRANSCRIPT[platform]
            else None
        )
        kind = int(cols.sound_kind[i])
        sound = None
        if kind == snd.LICENSED:
            sound = sounds.get(kind, int(cols.licensed[i]))
        elif kind == snd.ORIGINAL:
            sound = sounds.original(int(posts.creator[i]), creator)
        elif kind == snd.THEME:
            burst = posts.burst[i]
            assert burst is not None
            sound = sounds.get(kind, burst.theme_index)
        country = cols.country[i].upper()
        if tiktok:
            upload_region, upload_source = (
                country,
                ("platform_account_region" if u["upload"] < 0.8 else "platform_location_created"),
            )
        elif youtube and u["upload"] < 0.4:
            upload_region, upload_source = country, "inferred_channel_country"
        elif instagram and u["upload"] < 0.1:
            upload_region, upload_source = country, "inferred_caption_language"
        else:
            upload_region, upload_source = None, None
        if youtube:
            url = f"https://www.youtube.com/shorts/{external}"
        elif tiktok:
            url = f"https://www.tiktok.com/@{creator.handle}/video/{external}"
        else:
            url = f"https://www.instagram.com/reel/{ps.shortcode(int(external))}/"
        out.append(
            VideoRecord(
                platform=platform,
                external_id=external,
                url=url,
                published_at=datetime.fromtimestamp(int(posts.ts[i]), UTC),
                fetched_at=at,
                description=description,
                views=views[i],
                likes=likes[i],
                comments=comments[i],
                shares=None if shares[i] < 0 else shares[i],
                bookmarks=None if bookmarks[i] < 0 else bookmarks[i],
                hashtags=shown_tags,
                thumbnail_url=f"https://sandbox.reelscope.local/{platform.value}/thumbs/{external}.jpg",
                duration=None
                if instagram and u["dur"] < 0.85
                else durations[i],  # §2.1: usually null on Reels
                transcript=transcript,
                sound=sound,
                upload_region=upload_region,
                upload_region_source=upload_source,
                is_duet=u["duet"] < 0.05 if tiktok else None,
                is_stitch=u["stitch"] < 0.07 if tiktok else None,
                is_eligible_for_commission=(u["comm"] < 0.6 and (creator.followers or 0) >= 10_000)
                if tiktok
                else None,
                creator=creator,
                region=None if youtube or u["region"] < (0.6 if tiktok else 0.8) else country,
                language=lang,
            )
        )
    return out


def slideshows(seed: int, posts: ps.Posts, at: datetime) -> list[SlideshowRecord]:
    """Carousels (kind 1 posts): panel text instead of a transcript."""
    if len(posts) == 0:
        return []
    platform = posts.platform
    cols = _Columns(seed, posts)
    counters = ps.counters(seed, posts, at.timestamp())
    creators = _creators(seed, posts, at)
    sounds = _Sounds(seed, platform, at)
    out = []
    for i in range(len(posts)):
        hook, tags, _phrase, keyword = _text(cols, i, None, platform)
        topic = TOPICS[int(cols.topic[i])]
        count = 3 + cols.picks[3][i] % 5
        panels = (
            hook,
            *(
                topic.phrases[(cols.picks[2][i] + j) % len(topic.phrases)].capitalize()
                for j in range(count - 2)
            ),
            f"Save this for later: {keyword}",
        )
        external = ps.external_id(posts, i)
        creator = creators[int(posts.creator[i])]
        url = (
            f"https://www.tiktok.com/@{creator.handle}/photo/{external}"
            if platform is Platform.TIKTOK
            else f"https://www.instagram.com/p/{ps.shortcode(int(external))}/"
        )
        shares, bookmarks = int(counters.shares[i]), int(counters.bookmarks[i])
        out.append(
            SlideshowRecord(
                platform=platform,
                external_id=external,
                url=url,
                published_at=datetime.fromtimestamp(int(posts.ts[i]), UTC),
                fetched_at=at,
                description=f"{hook} {' '.join('#' + t for t in tags)}",
                panels=panels,
                image_count=len(panels),
                views=int(counters.views[i]),
                likes=int(counters.likes[i]),
                comments=int(counters.comments[i]),
                shares=None if shares < 0 else shares,
                bookmarks=None if bookmarks < 0 else bookmarks,
                hashtags=tuple(tags),
                thumbnail_url=f"https://sandbox.reelscope.local/{platform.value}/thumbs/{external}.jpg",
                sound=sounds.get(snd.LICENSED, int(cols.licensed[i]))
                if platform is Platform.TIKTOK
                else None,
                creator=creator,
                language=cols.language[i],
            )
        )
    return out

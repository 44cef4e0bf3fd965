"""Turning a batch of posts into normalized records: text, hashtags, sound, creator, per-platform gaps.

All randomness is drawn as columns for the whole batch first; the per-post loop only assembles
strings, so a batch of 100,000 posts costs about a second.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

import numpy as np

from reelscope.collectors.base import CreatorRecord, SlideshowRecord, SoundRecord, VideoRecord
from reelscope.collectors.sandbox import hashing as hs
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox import sounds as snd
from reelscope.collectors.sandbox.creators import creator_records, skeleton
from reelscope.collectors.sandbox.trends import Burst
from reelscope.collectors.sandbox.vocab import (
    BODIES,
    CALLS_TO_ACTION,
    CAPTION_FORMS,
    COUNTRIES,
    FILLERS,
    GENERIC_TAGS,
    HOOKS,
    NICHE_EMOJI,
    NICHES,
    TAG_POOLS,
    TOPIC_WEIGHTS,
    TOPICS,
    TOPICS_BY_NICHE,
    TRANSCRIPT_FORMS,
)
from reelscope.kit.platforms import Platform

_TOPIC_TABLE = np.array([[*TOPICS_BY_NICHE[n], *TOPICS_BY_NICHE[n]][:3] for n in NICHES], dtype=np.int64)
# per niche, the running share of its topics (TOPIC_WEIGHTS over the niche's topics), padded with 1
_TOPIC_CUMULATIVE = np.array(
    [[*hs.cumulative(list(TOPIC_WEIGHTS[: len(TOPICS_BY_NICHE[n])])), 1.0, 1.0][:3] for n in NICHES]
)
_PLATFORM_DUP = {Platform.INSTAGRAM: 0.15, Platform.TIKTOK: 0.02, Platform.YOUTUBE: 0.0}  # §2.1
_TRANSCRIPT = {Platform.YOUTUBE: 0.7, Platform.TIKTOK: 0.8, Platform.INSTAGRAM: 0.25}
# Hashtag usage follows a power law (Zipf): the r-th most used tag of a topic's pool is chosen with
# weight 1 / r ** TAG_ZIPF, generic tags likewise among themselves; with niche sizes (NICHE_WEIGHTS) and
# topic shares that makes the world's rank/frequency of tags a falling line on log-log axes.
TAG_ZIPF = 1.1
TOPIC_TAGS = 5  # tag draws per post (duplicates collapse, so 2 to 5 distinct topic tags)
_POOL_LENGTH = max(len(pool) for pool in TAG_POOLS)
_TAG_CUMULATIVE = np.array(
    [
        [*hs.cumulative([1.0 / (r + 1) ** TAG_ZIPF for r in range(len(pool))])]
        + [1.0] * (_POOL_LENGTH - len(pool))
        for pool in TAG_POOLS
    ]
)
_TAG_FLAT = (_TAG_CUMULATIVE + np.arange(len(TAG_POOLS))[:, None]).ravel()
_GENERIC_CUMULATIVE = hs.cumulative([1.0 / (r + 1) for r in range(len(GENERIC_TAGS) - 2)])
# share of posts with a generic tag
_TAG_SHARE = {Platform.TIKTOK: 0.5, Platform.INSTAGRAM: 0.45, Platform.YOUTUBE: 0.35}


def topics_of(seed: int, posts: ps.Posts) -> hs.I64:
    """Each post's topic index (its creator's niche, one of the niche's topics by TOPIC_WEIGHTS)."""
    niche = skeleton(seed, posts.platform).niche[posts.creator]
    u = hs.uniform(seed, posts.key, hs.label("topic"))
    choice = (u[:, None] >= _TOPIC_CUMULATIVE[niche]).sum(axis=1)
    topic: hs.I64 = _TOPIC_TABLE[niche, np.minimum(choice, 2)]
    return topic


def text_forms(seed: int, posts: ps.Posts) -> tuple[hs.I64, hs.I64]:
    """Each post's caption form and transcript form (indices into CAPTION_FORMS, TRANSCRIPT_FORMS)."""
    caption = hs.pick(seed, len(CAPTION_FORMS), posts.key, hs.label("caption_form"))
    transcript = hs.pick(seed, len(TRANSCRIPT_FORMS), posts.key, hs.label("transcript_form"))
    return caption, transcript


def _topic_tags(seed: int, posts: ps.Posts, topic: hs.I64) -> hs.I64:
    """TOPIC_TAGS draws per post from its topic's pool, Zipf over the pool's order: (posts, draws)."""
    u = np.stack([hs.uniform(seed, posts.key, hs.label("tag"), j) for j in range(TOPIC_TAGS)], axis=1)
    # one searchsorted over every pool at once: pool t's running shares are shifted by t
    offset = topic[:, None].astype(np.float64)
    found = np.searchsorted(_TAG_FLAT, u + offset, side="right")
    return found - topic[:, None] * _POOL_LENGTH


class _TextColumns:
    """The random choices a batch's text is made of (hook, hashtags, caption, transcript), drawn at once."""

    def __init__(self, seed: int, posts: ps.Posts) -> None:
        k = posts.key
        sk = skeleton(seed, posts.platform)
        self.topic = topics_of(seed, posts)
        self.niche = [NICHES[n] for n in sk.niche[posts.creator].tolist()]
        # eight free picks per post, as one tuple per post: the text of a post reads several
        self.picks = list(
            zip(*(hs.hash64(seed, k, hs.label("pick"), j).tolist() for j in range(8)), strict=True)
        )
        self.tags = _topic_tags(seed, posts, self.topic).tolist()
        self.generic = hs.weighted(_GENERIC_CUMULATIVE, hs.uniform(seed, k, hs.label("generic_tag"))).tolist()
        caption_form, transcript_form = text_forms(seed, posts)
        self.caption_form, self.transcript_form = caption_form.tolist(), transcript_form.tolist()
        self.u = {name: hs.uniform(seed, k, hs.label(name)).tolist() for name in _TEXT_UNIFORMS}
        self.language = [sk.language[c] for c in posts.creator.tolist()]


_TEXT_UNIFORMS = ("generic", "dup", "transcript", "shorts")


class _Columns(_TextColumns):
    """Every random choice of a batch, drawn at once."""

    def __init__(self, seed: int, posts: ps.Posts) -> None:
        super().__init__(seed, posts)
        k = posts.key
        sk = skeleton(seed, posts.platform)
        for name in ("dur", "upload", "region", "duet", "stitch", "comm"):
            self.u[name] = hs.uniform(seed, k, hs.label(name)).tolist()
        self.sound_kind, self.licensed = snd.choose(
            seed, posts.platform, k, (posts.kind == ps.BURST).astype(np.int64)
        )
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
            found = snd.kept_sound_record(self.seed, self.platform, kind, idx, self.at)
            self.cache[(kind, idx)] = found
        return found

    def original(self, idx: int, creator: CreatorRecord) -> SoundRecord:
        """A creator's original sound, named from the creator record already at hand."""
        found = self.cache.get((snd.ORIGINAL, idx))
        if found is None:
            found = snd.original_sound(self.seed, self.platform, idx, creator, self.at)
            self.cache[(snd.ORIGINAL, idx)] = found
        return found


def _sentence(text: str) -> str:
    return text if text.endswith(("?", "!", ".")) else f"{text}."


def _text(
    cols: _TextColumns, i: int, post_burst: Burst | None, platform: Platform
) -> tuple[str, list[str], str, str]:
    """Hook, hashtags (display form, no ``#``), a spoken phrase and the topic keyword."""
    topic_index = int(cols.topic[i])
    topic = TOPICS[topic_index]
    pool = TAG_POOLS[topic_index]
    p = cols.picks[i]
    lang = cols.language[i]
    keyword = topic.keywords[p[0] % len(topic.keywords)]
    hooks = HOOKS[lang]
    hook = hooks[p[1] % len(hooks)].format(kw=keyword)
    drawn = list(dict.fromkeys(pool[j] for j in cols.tags[i]))
    tags = drawn[: 2 + p[3] % 4]
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
    if cols.u["generic"][i] < _TAG_SHARE[platform]:
        tags.append(GENERIC_TAGS[cols.generic[i]])
    if platform is Platform.YOUTUBE and cols.u["shorts"][i] < 0.5:
        tags.append("shorts")
    if platform is Platform.INSTAGRAM and cols.u["shorts"][i] < 0.2:
        tags.append("reels")
    phrase = phrases[p[5] % len(phrases)]
    return hook, list(dict.fromkeys(tags)), phrase, keyword


def _caption(cols: _TextColumns, i: int, hook: str, tags: list[str], keyword: str) -> str:
    """The caption in its form (CAPTION_FORMS): the hook alone on the first line, then the rest."""
    lang = cols.language[i]
    p6, p7 = cols.picks[i][6], cols.picks[i][7]
    bodies, ctas, emoji = BODIES[lang], CALLS_TO_ACTION[lang], NICHE_EMOJI[cols.niche[i]]
    caption: str = CAPTION_FORMS[cols.caption_form[i]].format(
        hook=hook,
        body=bodies[p6 % len(bodies)].format(kw=keyword),
        cta=ctas[p7 % len(ctas)],
        emoji=emoji[(p6 // 11) % len(emoji)],
        tags=" ".join("#" + t for t in tags),
    )
    return caption


def _transcript(cols: _TextColumns, i: int, hook: str, phrase: str, keyword: str) -> str:
    """What is said (TRANSCRIPT_FORMS): the hook, after a filler or not, then the topic's words."""
    lang = cols.language[i]
    p0, p6, p7 = cols.picks[i][0], cols.picks[i][6], cols.picks[i][7]
    fillers, bodies, ctas = FILLERS[lang], BODIES[lang], CALLS_TO_ACTION[lang]
    # three different bodies: b, one of b+1 … b+n-2, and b-1 (a topic phrase's stand-in outside English)
    b = p6 // 7
    body = bodies[b % len(bodies)].format(kw=keyword).lower()
    body2 = bodies[(b + 1 + p7 % (len(bodies) - 2)) % len(bodies)].format(kw=keyword).lower()
    native = bodies[(b - 1) % len(bodies)].format(kw=keyword).lower()
    transcript: str = TRANSCRIPT_FORMS[cols.transcript_form[i]].format(
        open=fillers[p0 % len(fillers)],
        hook=_sentence(hook.lower()),
        body=body,
        body2=body2,
        phrase=phrase if lang == "en" else native,
        cta=_sentence(ctas[(p7 // 5) % len(ctas)].lower()),
        close=fillers[3 + (p0 // 7) % 2],
    )
    return transcript


@dataclass(frozen=True, slots=True)
class VideoText:
    """What a video says, as its record carries it: caption, hashtags as shown (§2.1) and transcript."""

    description: str
    hashtags: tuple[str, ...]
    transcript: str | None


def _video_text(cols: _TextColumns, i: int, post_burst: Burst | None, platform: Platform) -> VideoText:
    hook, tags, phrase, keyword = _text(cols, i, post_burst, platform)
    shown_tags = tuple(f"#{t}" for t in tags) if platform is Platform.YOUTUBE else tuple(tags)  # §2.1
    description = _caption(cols, i, hook, tags, keyword)
    if cols.u["dup"][i] < _PLATFORM_DUP[platform]:
        description = f"{description}\n{description}"  # §2.1: the caption may appear twice
    transcript = None
    if cols.u["transcript"][i] < _TRANSCRIPT[platform]:
        transcript = _transcript(cols, i, hook, phrase, keyword)
    return VideoText(description, shown_tags, transcript)


def texts(seed: int, posts: ps.Posts) -> list[VideoText]:
    """The text of each post, exactly as ``videos`` puts it in the records, at a fraction of the cost.

    A post's text depends on the post alone (never on ``at`` or on the rest of the batch), so a
    search decides on text first and builds records only for what it returns.
    """
    cols = _TextColumns(seed, posts)
    return [_video_text(cols, i, burst, posts.platform) for i, burst in enumerate(posts.burst)]


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
    u_dur, u_upload, u_region = cols.u["dur"], cols.u["upload"], cols.u["region"]
    u_duet, u_stitch, u_comm = cols.u["duet"], cols.u["stitch"], cols.u["comm"]
    sound_kind, licensed = cols.sound_kind.tolist(), cols.licensed.tolist()
    region_below = 0.6 if tiktok else 0.8
    thumbs = f"https://sandbox.reelscope.local/{platform.value}/thumbs/"
    out: list[VideoRecord] = []
    for i, (creator_index, posted, burst, external) in enumerate(
        zip(posts.creator.tolist(), posts.ts.tolist(), posts.burst, ps.external_ids(posts), strict=True)
    ):
        creator = creators[creator_index]
        text = _video_text(cols, i, burst, platform)
        kind = sound_kind[i]
        sound = None
        if kind == snd.LICENSED:
            sound = sounds.get(kind, licensed[i])
        elif kind == snd.ORIGINAL:
            sound = sounds.original(creator_index, creator)
        elif kind == snd.THEME:
            assert burst is not None
            sound = sounds.get(kind, burst.theme_index)
        country = cols.country[i].upper()
        if tiktok:
            upload_region, upload_source = (
                country,
                ("platform_account_region" if u_upload[i] < 0.8 else "platform_location_created"),
            )
        elif youtube and u_upload[i] < 0.4:
            upload_region, upload_source = country, "inferred_channel_country"
        elif instagram and u_upload[i] < 0.1:
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
                published_at=datetime.fromtimestamp(posted, UTC),
                fetched_at=at,
                description=text.description,
                views=views[i],
                likes=likes[i],
                comments=comments[i],
                shares=None if shares[i] < 0 else shares[i],
                bookmarks=None if bookmarks[i] < 0 else bookmarks[i],
                hashtags=text.hashtags,
                thumbnail_url=f"{thumbs}{external}.jpg",
                duration=None if instagram and u_dur[i] < 0.85 else durations[i],  # §2.1: null on most Reels
                transcript=text.transcript,
                sound=sound,
                upload_region=upload_region,
                upload_region_source=upload_source,
                is_duet=u_duet[i] < 0.05 if tiktok else None,
                is_stitch=u_stitch[i] < 0.07 if tiktok else None,
                is_eligible_for_commission=(u_comm[i] < 0.6 and (creator.followers or 0) >= 10_000)
                if tiktok
                else None,
                creator=creator,
                region=None if youtube or u_region[i] < region_below else country,
                language=cols.language[i],
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
    for i, external in enumerate(ps.external_ids(posts)):
        hook, tags, _phrase, keyword = _text(cols, i, None, platform)
        topic = TOPICS[int(cols.topic[i])]
        count = 3 + cols.picks[i][3] % 5
        panels = (
            hook,
            *(
                topic.phrases[(cols.picks[i][2] + j) % len(topic.phrases)].capitalize()
                for j in range(count - 2)
            ),
            f"Save this for later: {keyword}",
        )
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

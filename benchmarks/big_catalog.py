"""A catalog of 1,000,000 videos with what every GET of the API reads (issue 33), built once and cached.

``ensure_sqlite()`` returns a SQLite file (and its ``Facts``: the API key of a team that owns things, and
the ids the GETs take) and ``ensure_postgres(catalog, dsn)`` a PostgreSQL database holding the same rows.
Both are cached for the UTC day (the digests cover the last 48 hours of the real clock) under
``$REELSCOPE_BENCH_CACHE`` (default $TMPDIR/reelscope-bench). Used by benchmarks/read_ops.py and
benchmarks/read_path.py; importable by any benchmark that wants the same catalog.

1. ``build_videos``: rows generated with numpy and written with sqlite3's executemany into the Alembic
   schema — 100,000 creators (platform, followers), 30,000 sounds (Zipf-popular within their platform,
   the most used ones with 90 days of usage history), 20,000 hashtags (Zipf, 0-5 per video, plus one
   category word on most videos), ``videos`` videos over 90 days (creators Zipf-prolific, so the top
   one has thousands), captions opened by the sandbox's hook templates and those of
   benchmarks/hooks_search.py filled with words of a 20,000-word Zipf vocabulary in five languages;
   and the ``hooks`` table exactly as ``hook.service.hook_row`` makes it, scored against each creator's
   median, with usage counts.
2. ``fill``: everything a team owns, made through the API in process (Huey's immediate mode, a manual
   clock walked over 14 days, the sandbox world as the source): tracked creators and videos with daily
   cycles, a post collection and an audience snapshot; a one-shot agent with Data Intelligence (10,000
   catalog videos linked), a plain one with ads, a recurring daily one with 14 runs; creator, sound and
   hashtag lookups, a batch and a video outlier (then copied to 1,000 past runs, and 20,000 of other
   teams); two webhooks. Thirty other teams own lookups too. Trends: each region's day groups of the
   90 days, 30 trends a day with 20 exemplars each, merged by ``trend.service.merge_run``.
   Then the hashtag rollup, the digests and the hooks refresh, as first start does.
3. ``ensure_postgres``: the SQLite file's tables copied by COPY into a PostgreSQL database of the same
   schema (secondary indexes dropped during the load and made again), kept by its comment.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import tempfile
import time
from dataclasses import asdict, dataclass, field
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import orjson

from reelscope import models  # noqa: F401
from reelscope.analysis import hooks as analysis_hooks
from reelscope.analysis import outliers
from reelscope.collectors.sandbox.vocab import HOOKS
from reelscope.kit.migrate import upgrade_to_head
from reelscope.models.hooks import UNSCORED

CACHE = Path(os.environ.get("REELSCOPE_BENCH_CACHE") or Path(tempfile.gettempdir()) / "reelscope-bench")
# bump when the generated catalog changes shape, so an old cached file is not reused
GENERATOR = "c1"
PLATFORMS = ("youtube", "tiktok", "instagram")
TAGS = 20_000
CREATORS = 100_000
SOUNDS = 30_000
DAYS = 90
CHUNK = 100_000
SEED = 20240601
LANGUAGES = (("en", 0.6), ("es", 0.12), ("pt", 0.1), ("de", 0.09), ("fr", 0.09))
# more openings, as creators write them (benchmarks/hooks_search.py)
EXTRA_TEMPLATES = (
    "how to make {kw} at home 🔥",
    "{kw} vs the expensive one 👀",
    "me when {kw} finally works 😭",
    "5 {kw} tips nobody tells you",
    "storytime: my first {kw} 💀",
    "before and after {kw} ✨",
    "is {kw} worth the hype?",
    "90% of people get {kw} wrong",
    "if you love {kw} watch this",
    "{kw} at sunset 🌅",
)
COUNTRIES = ("US", "GB", "AU", "CA", "DE", "FR", "ES", "BR", "MX", "IN")


@dataclass
class Facts:
    """What a benchmark needs to call every GET: the owning team's key and the ids its paths take."""

    videos: int
    built_at: str
    api_key: str = ""
    team_id: str = ""
    ids: dict[str, Any] = field(default_factory=dict)
    build: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Catalog:
    path: Path
    facts: Facts

    @property
    def url(self) -> str:
        return f"sqlite+aiosqlite:///{self.path}"


# --- 1. the catalog -----------------------------------------------------------------------------------


def stamps(seconds: np.ndarray) -> list[str]:
    """Unix seconds → SQLite's UtcDateTime text ("YYYY-MM-DD HH:MM:SS.ffffff")."""
    text = np.datetime_as_string((seconds * 1e6).astype("int64").astype("datetime64[us]"), unit="us")
    return [s.replace("T", " ") for s in text.tolist()]


def _vocab(rng: np.random.Generator, n: int) -> list[str]:
    syllables = [a + b for a in "bcdfghjklmnprstvz" for b in ("a", "e", "i", "o", "u", "ai", "ou")]
    words: set[str] = set()
    while len(words) < n:
        k = int(rng.integers(2, 4))
        words.add("".join(syllables[int(i)] for i in rng.integers(0, len(syllables), k)))
    return sorted(words)


def _zipf(n: int, exponent: float) -> np.ndarray:
    weights = 1.0 / np.arange(1, n + 1) ** exponent
    return weights / weights.sum()


@lru_cache(maxsize=200_000)
def _hook_fields(
    description: str, hashtags: tuple[str, ...], duet: bool, stitch: bool
) -> dict[str, Any] | None:
    from reelscope.hook import service as hook_service

    video = SimpleNamespace(
        id="x", creator_id=None, platform="tiktok", language=None, description=description, transcript=None,
        hashtags=list(hashtags), is_duet=duet, is_stitch=stitch, views=0, published_at=None,
    )  # fmt: skip
    row = hook_service.hook_row(video, datetime.now(UTC))
    if row is None:
        return None
    return {k: row[k] for k in ("category", "text", "text_key", "source", "hook_type", "visual_hook_type")}


def hashtag_names() -> list[str]:
    """The generated hashtags, most used first (Zipf): the category words, then Tag0, Tag1, …"""
    category_words = sorted({w for words in analysis_hooks.CATEGORY_KEYWORDS.values() for w in words})
    return category_words + [f"Tag{i}" for i in range(TAGS - len(category_words))]


CREATOR_SQL = (
    "INSERT INTO creators (id, platform, handle, handle_key, display_name, followers, video_count, verified,"
    " country, first_seen_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
)
SOUND_SQL = (
    "INSERT INTO sounds (id, platform, external_id, title, duration, cover_url, is_original, usage_count,"
    " owner_handle, owner_nickname, is_commerce_music, first_seen_at, updated_at)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
VIDEO_SQL = (
    "INSERT INTO videos (id, platform, external_id, url, description, published_at, found_at, fetched_at,"
    " views, likes, comments, shares, bookmarks, views_at_7d, hashtags, thumbnail_url, duration, transcript,"
    " sound_id, sound_external_id, upload_region, upload_region_source, is_duet, is_stitch,"
    " is_eligible_for_commission, creator_id, region, language)"
    " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
HOOK_SQL = (
    "INSERT INTO hooks (seq, id, video_id, creator_id, platform, language, category, text, text_key,"
    " source, hook_type, visual_hook_type, views, published_at, outlier_ratio, weighted_score,"
    " rank_score, usage_count, updated_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
USAGE_SQL = (
    "UPDATE hooks SET usage_count = u.n FROM (SELECT text_key, count(*) AS n FROM hooks GROUP BY text_key"
    " HAVING count(*) > 1) AS u WHERE hooks.text_key = u.text_key"
)


def build_videos(path: Path, videos: int, now: datetime, *, hooks: bool = True) -> dict[str, Any]:
    """The generated catalog of part 1 into a new SQLite file at the current schema."""
    from reelscope.catalog.service import catalog_id

    upgrade_to_head(f"sqlite+aiosqlite:///{path}")
    rng = np.random.default_rng(SEED)
    started = time.perf_counter()
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA cache_size=-400000")
    stamp_now = stamps(np.array([now.timestamp()]))[0]
    now_s = now.timestamp()

    # the catalog's own ids (a UUIDv5 of the source identity), so ingest later finds these rows
    creator_platform = rng.integers(0, 3, CREATORS)
    creator_ids = [
        catalog_id("creator", PLATFORMS[p], f"maker{i}") for i, p in enumerate(creator_platform.tolist())
    ]
    followers = (rng.pareto(1.1, CREATORS) * 2_000).astype(np.int64) + 50
    conn.executemany(
        CREATOR_SQL,
        [
            (cid, PLATFORMS[p], f"maker{i}", f"maker{i}", f"Maker {i}", int(followers[i]), None, i % 50 == 0,
             COUNTRIES[i % len(COUNTRIES)], stamp_now, stamp_now)
            for i, (cid, p) in enumerate(zip(creator_ids, creator_platform.tolist(), strict=True))
        ],
    )  # fmt: skip
    sound_ids = [catalog_id("sound", PLATFORMS[i % 3], f"s{i}") for i in range(SOUNDS)]
    conn.executemany(
        SOUND_SQL,
        [
            (sid, PLATFORMS[i % 3], f"s{i}", f"Sound {i}", None if i % 3 == 0 else 15 + i % 45,
             f"covers/{i}.jpg", i % 2 == 0, None if i % 3 == 0 else i * 7, f"artist{i}", f"Artist {i}",
             i % 5 == 0, stamp_now, stamp_now)
            for i, sid in enumerate(sound_ids)
        ],
    )  # fmt: skip
    # the 300 most used sounds of each platform (by rank) have a daily usage point over the 90 days
    usage = [
        (sound_ids[i], stamps(np.array([now_s - d * 86_400]))[0], 1_000_000 // (i + 1) + (DAYS - d) * 50)
        for i in range(min(900, SOUNDS))
        for d in range(DAYS)
    ]
    conn.executemany("INSERT INTO sound_usage (sound_id, at, usage_count) VALUES (?,?,?)", usage)

    tag_names = hashtag_names()
    tag_ids = [catalog_id("hashtag", name.lower()) for name in tag_names]
    conn.executemany(
        "INSERT INTO hashtags (id, key, display) VALUES (?,?,?)",
        [(tid, name.lower(), name) for tid, name in zip(tag_ids, tag_names, strict=True)],
    )
    tag_weights = _zipf(TAGS, 1.1)
    category_of = {
        c: [tag_names.index(w) for w in words] for c, words in analysis_hooks.CATEGORY_KEYWORDS.items()
    }
    categories = list(category_of)

    vocab = _vocab(rng, 20_000)
    word_weights = _zipf(len(vocab), 1.05)
    templates = [(lang, t) for lang, ts in HOOKS.items() for t in ts] + [("en", t) for t in EXTRA_TEMPLATES]
    by_lang = {lang: [i for i, (l2, _) in enumerate(templates) if l2 == lang] for lang, _ in LANGUAGES}
    lang_names = [lang for lang, _ in LANGUAGES]
    lang_weights = np.array([w for _, w in LANGUAGES])

    # creators by a Zipf law (the top one posts thousands), platform theirs; sounds Zipf within a platform
    creator_weights = _zipf(CREATORS, 0.6)
    video_creator = rng.choice(CREATORS, size=videos, p=creator_weights)
    video_views = (rng.pareto(1.2, videos) * 2_000).astype(np.int64) + 10
    per_platform_sounds = [np.arange(p, SOUNDS, 3) for p in range(3)]
    sound_weights = [_zipf(len(s), 1.0) for s in per_platform_sounds]
    medians: dict[int, float] = {}
    if hooks:
        order = np.argsort(video_creator, kind="stable")
        grouped = np.split(video_views[order], np.flatnonzero(np.diff(video_creator[order])) + 1)
        firsts = video_creator[order][np.r_[0, np.flatnonzero(np.diff(video_creator[order])) + 1]]
        medians = {int(c): float(np.median(g)) for c, g in zip(firsts.tolist(), grouped, strict=True)}

    links_total = hooks_total = 0
    for start in range(0, videos, CHUNK):
        n = min(CHUNK, videos - start)
        creators = video_creator[start : start + n]
        views = video_views[start : start + n]
        plat = creator_platform[creators]
        ids = [catalog_id("video", PLATFORMS[p], str(start + i)) for i, p in enumerate(plat.tolist())]
        published = now_s - rng.random(n) * DAYS * 86_400
        delay = rng.exponential(6 * 3_600, n)
        late = rng.random(n) < 0.03
        delay[late] = 8 * 86_400 + rng.random(int(late.sum())) * 2 * 86_400
        found = np.minimum(published + delay, now_s)
        frozen_known = (now_s - published) >= 7 * 86_400
        likes = views // 20
        comments = views // 200
        counts = rng.integers(0, 5, n)
        tags = rng.choice(TAGS, size=int(counts.sum()), p=tag_weights)
        category = rng.integers(-3, len(categories), n)  # about 1 in 6 without a category word
        category_pick = rng.integers(0, 1000, n)
        has_sound = rng.random(n) < 2 / 3
        sound_pick = [
            rng.choice(len(s), size=n, p=w) for s, w in zip(per_platform_sounds, sound_weights, strict=True)
        ]
        langs = rng.choice(len(lang_names), size=n, p=lang_weights)
        template_pick = rng.integers(0, 1000, n)
        kw_a = rng.choice(len(vocab), size=n, p=word_weights)
        kw_b = rng.choice(len(vocab), size=n, p=word_weights)
        two_words = rng.random(n) < 0.4
        duet = rng.random(n) < 0.03
        stitch = rng.random(n) < 0.03
        pub_text, found_text = stamps(published), stamps(found)
        rows, links, hook_rows = [], [], []
        offset = 0
        for i in range(n):
            p = PLATFORMS[plat[i]]
            k = int(counts[i])
            mine = sorted(set(tags[offset : offset + k].tolist()))
            offset += k
            if category[i] >= 0:
                words = category_of[categories[category[i]]]
                mine = sorted({*mine, words[int(category_pick[i]) % len(words)]})
            shown = [("#" if p == "youtube" else "") + tag_names[t] for t in mine]
            lang = lang_names[int(langs[i])]
            options = by_lang[lang]
            template = templates[options[int(template_pick[i]) % len(options)]][1]
            kw = vocab[int(kw_a[i])] + (" " + vocab[int(kw_b[i])] if two_words[i] else "")
            hook_text = template.format(kw=kw)
            description = hook_text + ("\n" + " ".join("#" + tag_names[t] for t in mine) if mine else "")
            v = int(views[i])
            s = int(per_platform_sounds[plat[i]][sound_pick[plat[i]][i]]) if has_sound[i] else -1
            is_duet, is_stitch = bool(duet[i] and p == "tiktok"), bool(stitch[i] and p == "tiktok")
            vid = ids[i]
            rows.append(
                (vid, p, f"{start + i}", f"https://example.test/{p}/{start + i}", description, pub_text[i],
                 found_text[i], stamp_now, v, int(likes[i]), int(comments[i]),
                 v // 100 if p == "tiktok" else None, None, v if frozen_known[i] else None,
                 orjson.dumps(shown).decode(),
                 f"https://img.test/{start + i}.jpg", 30, None, sound_ids[s] if s >= 0 else None,
                 f"s{s}" if s >= 0 else None, "US", "platform", is_duet, is_stitch, False,
                 creator_ids[int(creators[i])], None if p == "youtube" else "US", lang)
            )  # fmt: skip
            links.extend((vid, tag_ids[t]) for t in mine)
            if not hooks:
                continue
            fields = _hook_fields(description, tuple(shown), is_duet, is_stitch)
            if fields is None:
                continue
            median = medians.get(int(creators[i]))
            scored = outliers.score("", v, median) if median is not None else None
            ratio = round(scored.outlier_ratio, 6) if scored else None
            weighted = round(scored.weighted_score, 6) if scored else None
            hooks_total += 1
            hook_rows.append(
                (hooks_total, catalog_id("hook", vid), vid, creator_ids[int(creators[i])], p, lang,
                 fields["category"], fields["text"], fields["text_key"], fields["source"],
                 fields["hook_type"], fields["visual_hook_type"], v, pub_text[i], ratio, weighted,
                 UNSCORED if weighted is None else weighted, 1, stamp_now)
            )  # fmt: skip
        conn.executemany(VIDEO_SQL, rows)
        links.sort()
        conn.executemany("INSERT INTO video_hashtags (video_id, hashtag_id) VALUES (?,?)", links)
        if hook_rows:
            conn.executemany(HOOK_SQL, hook_rows)
        links_total += len(links)
        conn.commit()
        print(f"  {start + n:,} videos ({time.perf_counter() - started:.0f} s)", flush=True)
    if hooks:
        conn.execute(USAGE_SQL)
        conn.execute("INSERT INTO hooks_fts(hooks_fts) VALUES ('optimize')")
    conn.execute("INSERT INTO sounds_fts(sounds_fts) VALUES ('optimize')")
    conn.execute("ANALYZE")
    conn.commit()
    conn.close()
    return {
        "videos": videos,
        "video_hashtags": links_total,
        "hooks": hooks_total,
        "creators": CREATORS,
        "sounds": SOUNDS,
        "hashtags": TAGS,
        "days": DAYS,
        "videos_s": round(time.perf_counter() - started, 1),
    }


# --- 2. what teams own, through the API ----------------------------------------------------------------

LINKED = 10_000
FILL_DAYS = int(os.environ.get("REELSCOPE_BENCH_FILL_DAYS", "14"))


async def fill(path: Path, now: datetime) -> Facts:
    """Part 2 over the SQLite file at ``path``: see the module's docstring."""
    import httpx
    from sqlalchemy import select, text

    from reelscope.agent import repository as agent_repository
    from reelscope.agent.run import service as run_service
    from reelscope.auth import service as auth_service
    from reelscope.collectors.sandbox.creators import handle_of
    from reelscope.collectors.sandbox.world import World
    from reelscope.config import Settings
    from reelscope.digest import service as digest_service
    from reelscope.hashtag import service as hashtag_service
    from reelscope.hook import service as hook_service
    from reelscope.kit.clock import ManualClock
    from reelscope.kit.platforms import Platform
    from reelscope.main import create_app
    from reelscope.models import AgentVideo, Video
    from reelscope.rate_limit.features import FEATURE_LIMITS
    from reelscope.runtime import build_runtime
    from reelscope.webhook.network import StaticResolver
    from reelscope.worker.context import TaskContext
    from reelscope.worker.dispatcher import dispatch_once
    from reelscope.worker.engine import JobEngine

    started = time.perf_counter()

    def stage(name: str) -> None:
        print(f"  fill: {name} ({time.perf_counter() - started:.0f} s)", flush=True)

    facts = Facts(videos=0, built_at=now.isoformat())
    ids: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="reads-fill-") as data_dir:
        settings = Settings(database_url=f"sqlite+aiosqlite:///{path}", data_dir=Path(data_dir))
        clock = ManualClock(now - timedelta(days=FILL_DAYS))
        runtime = build_runtime(settings, clock)
        runtime.resolver = StaticResolver({"hooks.example.com": ["93.184.216.34"]})
        engine = JobEngine(settings, clock, immediate=True)
        engine.bind(runtime.db)
        runtime.jobs = engine
        world = World(settings.sandbox_seed)
        try:
            async with runtime.db.transaction() as session:
                at = clock.now()
                team = await auth_service.create_team(session, "bench", 10**12, at)
                for feature in FEATURE_LIMITS:
                    await auth_service.set_limits(
                        session, team, feature, per_minute=10**9, per_hour=10**9, per_day=10**9, at=at
                    )
                issued = await auth_service.issue_key(session, team, at)
                others = []
                for i in range(30):
                    other = await auth_service.create_team(session, f"other-{i}", 10**9, at)
                    for feature in FEATURE_LIMITS:
                        await auth_service.set_limits(
                            session, other, feature, per_minute=10**9, per_hour=10**9, per_day=10**9, at=at
                        )
                    others.append((await auth_service.issue_key(session, other, at)).api_key)
            facts.api_key, facts.team_id = issued.api_key, team.id
            headers = {"Authorization": f"Bearer {issued.api_key}"}
            transport = httpx.ASGITransport(app=create_app(runtime=runtime))
            async with httpx.AsyncClient(transport=transport, base_url="http://fill", timeout=600) as client:

                async def call(method: str, url: str, *, key: dict[str, str] = headers, **kw: Any) -> Any:
                    response = await client.request(method, url, headers=key, **kw)
                    if response.status_code >= 300:
                        raise RuntimeError(f"{method} {url}: {response.status_code} {response.text[:300]}")
                    return response.json() if response.content else None

                handles = [handle_of(settings.sandbox_seed, Platform.TIKTOK, i) for i in (11, 12, 13, 123)]
                posts = world.creator_posts(Platform.TIKTOK, handles[3], clock.now(), 50) or []
                post_ids = [p.external_id for p in posts]
                sound = next(p.sound.external_id for p in posts if p.sound is not None)
                tag = max(
                    {t for p in posts for t in p.hashtags}, key=lambda t: sum(t in p.hashtags for p in posts)
                )

                # tracking: three creators and two videos, their daily cycles over FILL_DAYS
                tracked = [
                    (await call("POST", "/v1/tracking/creators", json={"platform": "tiktok", "handle": h}))[
                        "data"
                    ]["id"]
                    for h in handles[:3]
                ]
                tracked_videos = [
                    (await call("POST", "/v1/tracking/videos", json={"platform": "tiktok", "video_id": v}))[
                        "data"
                    ]["id"]
                    for v in post_ids[:2]
                ]
                ids["tracked_creator"], ids["tracked_video"] = tracked[0], tracked_videos[0]
                # research agents: one-shot with Data Intelligence, one-shot with ads, recurring daily
                one_shot = (
                    await call(
                        "POST",
                        "/v1/agents",
                        json={
                            "name": "skincare research",
                            "keywords": ["skincare", "spf", "serum"],
                            "intent": "skincare routines that sell serums",
                            "data_intelligence_enabled": True,
                        },
                    )
                )["data"]
                plain = (
                    await call(
                        "POST",
                        "/v1/agents",
                        json={
                            "name": "running",
                            "keywords": ["running", "marathon"],
                            "meta_ads_enabled": True,
                        },
                    )
                )["data"]
                recurring = (
                    await call(
                        "POST",
                        "/v1/agents",
                        json={
                            "name": "sourdough daily",
                            "keywords": ["sourdough", "baking"],
                            "is_recurring": True,
                            "cadence": "daily",
                        },
                    )
                )["data"]
                ids["agent"], ids["agent_run"] = (
                    one_shot["id"],
                    one_shot.get("run_id") or one_shot.get("job_id"),
                )
                ids["agent_plain"], ids["agent_recurring"] = plain["id"], recurring["id"]
                # webhooks
                for n in range(2):
                    hook = await call(
                        "POST",
                        "/v1/webhooks",
                        json={
                            "url": f"https://hooks.example.com/reelscope/{n}",
                            "enabled_events": ["trends.daily.completed"],
                        },
                    )
                    ids["webhook"] = (hook.get("data") or hook)["id"]

                stage("tracking, agents, webhooks made")
                task_context = TaskContext(settings=settings, clock=clock, db=runtime.db)
                for _ in range(FILL_DAYS):
                    clock.advance(timedelta(days=1))
                    await dispatch_once(task_context)
                    engine.drain()

                stage(f"{FILL_DAYS} days of cycles and recurring runs")
                # lookups, at the end (their results and caches are of now)
                creator = (
                    await call(
                        "GET", f"/v1/satellite/creator/tiktok/{handles[3]}", params={"trend_analysis": "true"}
                    )
                )["data"]
                sound_lookup = (await call("GET", f"/v1/satellite/sounds/tiktok/{sound}"))["data"]
                hashtag_lookup = (await call("GET", f"/v1/satellite/hashtags/tiktok/{tag}"))["data"]
                batch = (
                    await call(
                        "POST",
                        "/v1/satellite/creators/batch",
                        json={
                            "platform": "tiktok",
                            "handles": [
                                handle_of(settings.sandbox_seed, Platform.TIKTOK, i) for i in range(200, 205)
                            ],
                        },
                    )
                )["data"]
                outlier = (
                    await call(
                        "POST",
                        "/v1/satellite/video-outlier",
                        json={"platform": "tiktok", "video_id": post_ids[0]},
                    )
                )["data"]
                ids.update(
                    creator_handle=handles[3], sound_music_id=sound, lookup_hashtag=tag,
                    creator_job=creator["job_id"], sound_job=sound_lookup["job_id"],
                    hashtag_job=hashtag_lookup["job_id"], batch=batch.get("batch_id") or batch.get("id"),
                    outlier_job=outlier["job_id"],
                )  # fmt: skip
                collected = (
                    await call(
                        "POST",
                        f"/v1/tracking/creators/{tracked[0]}/posts/collect",
                        json={"depth": "standard"},
                    )
                )["data"]
                ids["collection"] = collected.get("collection_id") or collected.get("id")
                audience = (await call("POST", f"/v1/tracking/creators/{tracked[0]}/audience-refresh"))[
                    "data"
                ]
                ids["audience_job"] = audience["snapshot_id"]
                for key in others[:10]:  # other teams' lookups: the same questions, their own rows
                    await call(
                        "GET",
                        f"/v1/satellite/creator/tiktok/{handles[3]}",
                        key={"Authorization": f"Bearer {key}"},
                    )

                ids["tracked_post"] = (await call("GET", f"/v1/tracking/creators/{tracked[0]}/posts"))[
                    "data"
                ][0]["id"]
                runs = (await call("GET", f"/v1/agents/{recurring['id']}/runs"))["data"]["runs"]
                ids["agent_run"] = (await call("GET", f"/v1/agents/{one_shot['id']}/runs"))["data"]["runs"][
                    0
                ]["id"]
                ids["recurring_runs"] = len(runs)
                ids["lookup_run"] = (await call("GET", "/v1/satellite/runs"))["data"]["runs"][0]["run_id"]

            stage("lookups made")
            # 10,000 catalog videos linked to the one-shot agent, its analytics recomputed
            async with runtime.db.transaction() as session:
                rows = (
                    await session.execute(
                        select(Video.id, Video.platform, Video.published_at, Video.views)
                        .where(Video.url.like("https://example.test/%"))
                        .order_by(Video.id)
                        .limit(LINKED)
                    )
                ).all()
                await session.execute(
                    AgentVideo.__table__.insert(),
                    [
                        {"agent_id": one_shot["id"], "video_id": r.id, "platform": r.platform,
                         "published_at": r.published_at, "views": r.views, "run_id": ids["agent_run"],
                         "keyword": "skincare", "intelligence_status": "ready", "linked_at": clock.now()}
                        for r in rows
                    ],
                )  # fmt: skip
                agent = await agent_repository.get_agent_any_team(session, one_shot["id"])
                assert agent is not None
                await run_service.refresh_analytics(session, agent, [], clock.now())
                ids["agent_creator"] = (
                    await session.execute(
                        text("SELECT creator_id FROM agent_creators WHERE agent_id = :a LIMIT 1"),
                        {"a": one_shot["id"]},
                    )
                ).scalar()
                # past lookups: the team's copied to 1,000, other teams' to 20,000
                await _copy_lookup_runs(session, team.id, 1_000)
                await _copy_lookup_runs(session, team.id, 20_000, others=True)
            stage("agent linked, lookups copied")
            await _trends(runtime, now)
            stage("trends merged")
            clock.set(now)
            await hashtag_service.rollup(runtime.db, now, full=True)
            await digest_service.refresh(runtime.db, now)
            await hook_service.refresh(runtime.db, now)
            async with runtime.db.transaction(write=False) as session:
                top = await session.execute(
                    text(
                        "SELECT s.id, count(*) AS n FROM videos v JOIN sounds s ON s.id = v.sound_id"
                        " WHERE s.platform = 'tiktok' GROUP BY s.id ORDER BY n DESC LIMIT 1"
                    )
                )
                ids["top_sound"] = top.scalar()
                ids["top_creator"] = (
                    (
                        await session.execute(
                            text(
                                "SELECT c.platform, c.handle FROM videos v"
                                " JOIN creators c ON c.id = v.creator_id"
                                " GROUP BY c.id ORDER BY count(*) DESC LIMIT 1"
                            )
                        )
                    )
                    .one()
                    ._asdict()
                )
                facts.videos = int((await session.execute(text("SELECT count(*) FROM videos"))).scalar() or 0)
        finally:
            await asyncio.to_thread(engine.close)
            await runtime.close()
    ids["hashtag"] = "tag0"
    facts.ids = ids
    facts.build["fill_s"] = round(time.perf_counter() - started, 1)
    return facts


async def _copy_lookup_runs(session: Any, team_id: str, total: int, *, others: bool = False) -> None:
    """Copies of the lookup runs of ``team_id`` (``others``: of every other team) up to ``total`` rows,
    each copy a few minutes older than the last, so a team's list has many pages."""
    from sqlalchemy import text

    info = (await session.execute(text("PRAGMA table_info(lookup_runs)"))).all()
    columns = [row[1] for row in info if row[1] != "id"]
    where = "team_id != :team" if others else "team_id = :team"
    params = {"team": team_id}
    count = text(f"SELECT count(*) FROM lookup_runs WHERE {where}")
    have = int((await session.execute(count, params)).scalar() or 0)
    step = 0
    while have and have < total:
        step += 1
        new_id = (
            "lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||"
            " substr(lower(hex(randomblob(2))), 2) || '-a' || substr(lower(hex(randomblob(2))), 2) || '-' ||"
            " lower(hex(randomblob(6)))"
        )
        # a copy is a run of its own: its own id and job id (no job row: its status route is a 404)
        picked = ", ".join(
            f"datetime({c}, '-{step * 7} minutes')"
            if c in ("created_at", "started_at", "completed_at")
            else (new_id if c == "job_id" else c)
            for c in columns
        )
        await session.execute(
            text(
                f"INSERT INTO lookup_runs (id, {', '.join(columns)}) SELECT {new_id}, {picked}"
                f" FROM lookup_runs WHERE {where} LIMIT :n"
            ),
            {**params, "n": min(have, total - have)},
        )
        have = int((await session.execute(count, params)).scalar() or 0)


async def _trends(runtime: Any, now: datetime) -> None:
    """Each region's day groups over the catalog's days: 30 trends a day, 20 exemplars each, merged as a
    run merges them (``merge_run``), trends carried over from day to day as real ones are."""
    from sqlalchemy import text

    from reelscope.analysis.trends import DetectedTrend
    from reelscope.catalog import reads as catalog_reads
    from reelscope.trend import service as trend_service
    from reelscope.trend.regions import DEFAULT_REGIONS

    rng = np.random.default_rng(SEED + 1)
    for seed_region in DEFAULT_REGIONS:
        async with runtime.db.transaction() as session:
            region = await trend_service.region_or_400(session, seed_region.code)
        for days_back in range(DAYS - 1, -1, -1):
            run_at = (now - timedelta(days=days_back)).replace(minute=0, second=0, microsecond=0)
            async with runtime.db.transaction() as session:
                day_start = run_at - timedelta(hours=24)
                top = (
                    (
                        await session.execute(
                            text(
                                "SELECT id FROM videos WHERE published_at >= :a AND published_at < :b"
                                " ORDER BY views DESC LIMIT 600"
                            ),
                            {
                                "a": day_start.strftime("%Y-%m-%d %H:%M:%S"),
                                "b": run_at.strftime("%Y-%m-%d %H:%M:%S"),
                            },
                        )
                    )
                    .scalars()
                    .all()
                )
                if not top:
                    continue
                snapshots = await catalog_reads.exemplar_snapshots(session, list(top))
                detected = []
                for k in range(30):
                    # a trend lives a few days: its key repeats over neighbouring days
                    key = f"{seed_region.code}-topic-{(DAYS - days_back) // 3 + k}"
                    members = tuple(top[(k * 20) % len(top) : (k * 20) % len(top) + 20])
                    score = float(30 - k + rng.random())
                    detected.append(
                        DetectedTrend(
                            key=key, feature_keys=frozenset({key, f"tag:{key}"}), name=f"Topic {key}",
                            description=f"Videos about {key}", trend_type="hashtag", score=score, z=score,
                            ratio=2.5 + rng.random(), exemplar_ids=members, count_recent=20 + k,
                            median_views=1000 * (30 - k), velocity_band="accelerating",
                            per_platform={"tiktok": 10, "instagram": 5, "youtube": 5},
                        )
                    )  # fmt: skip
                await trend_service.merge_run(session, region, run_at, detected, snapshots)


# --- the cache -----------------------------------------------------------------------------------------


def ensure_sqlite(videos: int = 1_000_000, *, rebuild: bool = False) -> Catalog:
    """The cached catalog of today (UTC), built when missing (about 5-10 minutes at 1M videos)."""
    now = datetime.now(UTC).replace(microsecond=0)
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"catalog-{GENERATOR}-{videos}-{now:%Y%m%d}.db"
    sidecar = path.with_suffix(".json")
    if rebuild or not path.exists() or not sidecar.exists():
        from reelscope.kit.logging import configure_logging

        configure_logging("warning", json=True)
        for stale in CACHE.glob(f"catalog-{GENERATOR}-{videos}-*"):
            stale.unlink()
        partial = path.with_suffix(".building")  # renamed when complete: a killed build is not reused
        partial.unlink(missing_ok=True)
        print(f"building {path} ({videos:,} videos, {DAYS} days)…", flush=True)
        built = build_videos(partial, videos, now)
        facts = asyncio.run(fill(partial, now))
        facts.build = {**built, **facts.build}
        with sqlite3.connect(partial) as conn:
            conn.execute("ANALYZE")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for suffix in ("-wal", "-shm"):
            Path(str(partial) + suffix).unlink(missing_ok=True)
        partial.rename(path)
        sidecar.write_text(json.dumps(asdict(facts), indent=1))
    facts = Facts(**json.loads(sidecar.read_text()))
    return Catalog(path=path, facts=facts)


def upgrade_cached(catalog: Catalog) -> bool:
    """The cached file brought to the current schema (analyzed again if that changed it)."""

    def version() -> str:
        with sqlite3.connect(catalog.path) as conn:
            return str(conn.execute("SELECT version_num FROM alembic_version").fetchone()[0])

    before = version()
    upgrade_to_head(catalog.url)
    if version() == before:
        return False
    with sqlite3.connect(catalog.path) as conn:
        conn.execute("ANALYZE")
    return True


# --- 3. PostgreSQL -------------------------------------------------------------------------------------

PG_LABEL = "reelscope-bench {name}"


def _converter(column: Any) -> Any:
    from sqlalchemy import JSON, Boolean, Date

    from reelscope.kit.db import UtcDateTime

    kind = column.type
    if isinstance(kind, UtcDateTime):
        return lambda v: None if v is None else datetime.fromisoformat(v).replace(tzinfo=UTC)
    if isinstance(kind, Boolean):
        return lambda v: None if v is None else bool(v)
    if isinstance(kind, Date):
        return lambda v: None if v is None else date.fromisoformat(v)
    if isinstance(kind, JSON):
        return lambda v: v
    return None


async def ensure_postgres(catalog: Catalog, dsn: str) -> dict[str, Any]:
    """The catalog's rows in the PostgreSQL database of ``dsn`` (created, or reused when its comment
    names this very file, then brought to the current schema)."""
    import asyncpg

    from reelscope.kit.db import Base

    url = dsn.replace("postgresql://", "postgresql+asyncpg://")
    label = PG_LABEL.format(name=catalog.path.name)
    name = dsn.rsplit("/", 1)[1]
    admin = await asyncpg.connect(dsn.rsplit("/", 1)[0] + "/postgres")
    found = await admin.fetchval(
        "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", name
    )
    if found == label:
        await admin.close()
        await asyncio.to_thread(upgrade_to_head, url)
        conn = await asyncpg.connect(dsn)
        await conn.execute("ANALYZE")
        await conn.close()
        return {"cached": True}
    await admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    # the same schema version as the SQLite file, so the tables' columns match it
    with sqlite3.connect(catalog.path) as lite:
        revision = str(lite.execute("SELECT version_num FROM alembic_version").fetchone()[0])
    await asyncio.to_thread(_upgrade_to, url, revision)
    started = time.perf_counter()
    conn = await asyncpg.connect(dsn)
    tables = [
        t[0]
        for t in await conn.fetch(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename != 'alembic_version'"
        )
    ]
    indexes = await conn.fetch(
        "SELECT i.indexname, i.indexdef FROM pg_indexes i WHERE i.schemaname = 'public'"
        " AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conname = i.indexname)"
    )
    for index in indexes:
        await conn.execute(f'DROP INDEX "{index["indexname"]}"')
    await conn.execute("SET session_replication_role = replica")
    # rows the migrations seed (the trend regions) come from the file like every other
    await conn.execute(f"TRUNCATE {', '.join(tables)}")
    lite = sqlite3.connect(catalog.path)
    copied: dict[str, int] = {}
    for table in tables:
        pg_columns = [
            r[0]
            for r in await conn.fetch(
                "SELECT column_name FROM information_schema.columns WHERE table_name = $1"
                " ORDER BY ordinal_position",
                table,
            )
        ]
        model = Base.metadata.tables.get(table)
        lite_columns = {r[1] for r in lite.execute(f"PRAGMA table_info({table})")}
        columns = [c for c in pg_columns if c in lite_columns]
        converters = [
            (_converter(model.c[c]) if model is not None and c in model.c else None) for c in columns
        ]
        quoted = ", ".join('"' + c + '"' for c in columns)  # a column may be a keyword ("add")
        cursor = lite.execute(f"SELECT {quoted} FROM {table}")
        n = 0
        while batch := cursor.fetchmany(50_000):
            records = [tuple(f(v) if f else v for f, v in zip(converters, row, strict=True)) for row in batch]
            await conn.copy_records_to_table(table, records=records, columns=columns)
            n += len(records)
        copied[table] = n
        print(f"  postgres {table}: {n:,} rows ({time.perf_counter() - started:.0f} s)", flush=True)
    lite.close()
    loaded = time.perf_counter() - started
    await conn.execute("SET session_replication_role = DEFAULT")
    for seq_table, column in (("hooks", "seq"), ("hook_texts", "seq"), ("outbox_events", "sequence")):
        if seq_table in tables:
            await conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{seq_table}', '{column}'),"
                f" coalesce((SELECT max({column}) FROM {seq_table}), 1))"
            )
    await conn.execute("SET maintenance_work_mem = '512MB'")
    for index in indexes:
        await conn.execute(index["indexdef"])
    await conn.execute("VACUUM ANALYZE")
    await conn.execute(f"COMMENT ON DATABASE \"{name}\" IS '{label}'")
    await conn.close()
    await asyncio.to_thread(upgrade_to_head, url)
    return {
        "cached": False,
        "build_s": round(time.perf_counter() - started, 1),
        "load_s": round(loaded, 1),
        "rows": copied,
    }


def _upgrade_to(url: str, revision: str) -> None:
    from alembic import command

    from reelscope.kit.migrate import alembic_config

    command.upgrade(alembic_config(url), revision)

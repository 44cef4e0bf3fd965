"""Similar creators quality (issue 16 item 8, beta): ``analysis.similar`` against the sandbox's truth.

The sandbox knows each creator's niche (every post of a creator is one of its niche's topics). Take the
TikTok videos of 30 days for the topics two agents would collect (keywords spanning several niches),
group them by creator as the agent's creators, and for every creator with at least two videos ask for
its similar creators: precision@5 is the share of the five best that share its niche; chance is the
share of other creators in its niche. Reported for the full score and for each signal alone (text,
sounds, tier), so the weights can be judged, and the mean length of an answer (``mean_rows``).

Run: .venv/bin/python benchmarks/similar_creators.py. Writes benchmarks/results/similar_creators.json.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from meta import machine

from reelscope.agent.run import metrics
from reelscope.analysis import similar
from reelscope.analysis.themes import Doc
from reelscope.collectors.sandbox import posts as ps
from reelscope.collectors.sandbox import records
from reelscope.collectors.sandbox.creators import skeleton
from reelscope.collectors.sandbox.vocab import NICHES, TOPICS
from reelscope.kit.platforms import Platform

SEED = 7
OUT = Path(__file__).parent / "results" / "similar_creators.json"
TIER_RANK = {name: rank for rank, (name, _, _) in enumerate(metrics.TIERS)}
# two agents' worth of topics: each mixes niches that share words (food and fitness meals; tech and
# finance side hustles; beauty and fashion)
CASES = {
    "food_fitness": ["home workout", "running", "protein meals", "sourdough", "quick dinners", "street food"],
    "beauty_fashion_tech": [
        "skincare routine",
        "makeup tutorial",
        "outfit ideas",
        "thrift haul",
        "ai tools",
        "side hustle",
    ],
}
SIGNALS = {
    "score": (similar.TEXT_WEIGHT, similar.SOUND_WEIGHT, similar.TIER_WEIGHT),
    "text only": (1.0, 0.0, 0.0),
    "sounds only": (0.0, 1.0, 0.0),
    "tier only": (0.0, 0.0, 1.0),
}


def creators_of(topics: list[str]) -> tuple[list[similar.CreatorPosts], dict[str, str]]:
    until = datetime(2026, 11, 20, tzinfo=UTC)
    since = until - timedelta(days=30)
    wanted = [i for i, t in enumerate(TOPICS) if t.name in topics]
    posts = ps.slot_posts(SEED, Platform.TIKTOK, ps.VIDEO, since.timestamp(), until.timestamp())
    posts = posts.take(np.flatnonzero(np.isin(records.topics_of(SEED, posts), wanted))[-900:])
    niche_of = skeleton(SEED, Platform.TIKTOK).niche
    docs: dict[str, list[Doc]] = defaultdict(list)
    about: dict[str, Any] = {}
    niche: dict[str, str] = {}
    for i, v in enumerate(records.videos(SEED, posts, until)):
        assert v.creator is not None
        cid = v.creator.handle
        docs[cid].append(
            Doc(
                id=v.external_id,
                text=" ".join(x for x in (v.description, v.transcript) if x),
                hashtags=v.hashtags,
                sound_id=v.sound.external_id if v.sound else None,
                views=v.views,
                likes=v.likes,
                comments=v.comments,
                shares=v.shares,
                published_at=v.published_at,
                duration=v.duration,
                platform=v.platform.value,
            )
        )
        about[cid] = v.creator
        niche[cid] = NICHES[int(niche_of[int(posts.creator[i])])]
    out = []
    for cid, videos in docs.items():
        followers = about[cid].followers
        tier = None if followers is None else metrics.tier_of(followers)
        out.append(
            similar.CreatorPosts(
                cid, cid, "tiktok", followers, tier, None if tier is None else TIER_RANK[tier], videos
            )
        )
    return out, niche


def evaluate(creators: list[similar.CreatorPosts], niche: dict[str, str]) -> dict[str, Any]:
    asked = [c for c in creators if len(c.videos) >= 2]
    result: dict[str, Any] = {"creators": len(creators), "asked": len(asked)}
    others = len(creators) - 1
    result["chance"] = round(
        sum((sum(niche[o.creator_id] == niche[c.creator_id] for o in creators) - 1) / others for c in asked)
        / len(asked),
        4,
    )
    for name, (text, sound, tier) in SIGNALS.items():
        similar.TEXT_WEIGHT, similar.SOUND_WEIGHT, similar.TIER_WEIGHT = text, sound, tier
        hits = shown = rows = 0
        for c in asked:
            found = similar.similar(c.creator_id, creators)
            top = found[:5]
            hits += sum(niche[f["creator_id"]] == niche[c.creator_id] for f in top)
            shown += len(top)
            rows += len(found)
        result[name] = round(hits / shown, 4) if shown else None
        if name == "score":
            # how long the answer is (at most similar.MAX_SIMILAR): issue 31, no padding on tier alone
            result["mean_rows"] = round(rows / len(asked), 2)
    similar.TEXT_WEIGHT, similar.SOUND_WEIGHT, similar.TIER_WEIGHT = SIGNALS["score"]
    return result


def main() -> None:
    cases = {name: evaluate(*creators_of(topics)) for name, topics in CASES.items()}
    result = {
        "benchmark": "similar_creators",
        "machine": machine(),
        "seed": SEED,
        "metric": "precision@5: share of the 5 most similar creators in the asked creator's niche",
        "weights": dict(zip(("text", "sounds", "tier"), SIGNALS["score"], strict=True)),
        "cases": cases,
    }
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(cases, indent=2))


if __name__ == "__main__":
    main()

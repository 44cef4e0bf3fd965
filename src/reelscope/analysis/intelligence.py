"""Per-item Data Intelligence (spec §2.6): the intelligence object of one video or slideshow, computed
locally from the text the catalog holds (caption, transcript or panel text, hashtags, duet/stitch flags).

What the text can tell is filled: language (``lingua``, offline n-gram models shipped in the package,
restricted to ``LANGUAGES``: 0.985 on the sandbox's labelled videos, benchmarks/agent_analysis.py),
sentiment (VADER, English only), keywords and topics, the hook (``analysis/hooks.py``), category,
brand-safety tier, educational and sponsorship cues, calls to action, and a summary made of those facts.
What needs frames or audio (faces, camera, lighting, setting, on-screen text, speaking style, the visual
format) is null: unknown, not guessed. ``visual_hook_type`` is set only when the data shows it (hooks.py).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from lingua import Language, LanguageDetector, LanguageDetectorBuilder
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from reelscope.analysis import hooks
from reelscope.analysis.text import STOPWORDS, normalize_hashtag, words
from reelscope.analysis.themes import GENERIC_TAGS

# the languages told apart: the most used on the three platforms (a short caption is too little text to
# tell 75 languages apart reliably; fewer candidates make it both more accurate and quicker to load)
LANGUAGES = (
    Language.ENGLISH, Language.SPANISH, Language.PORTUGUESE, Language.FRENCH, Language.GERMAN,
    Language.ITALIAN, Language.DUTCH, Language.RUSSIAN, Language.UKRAINIAN, Language.POLISH,
    Language.TURKISH, Language.ARABIC, Language.HINDI, Language.INDONESIAN, Language.JAPANESE,
    Language.KOREAN, Language.CHINESE, Language.VIETNAMESE, Language.THAI, Language.TAGALOG,
    Language.MALAY, Language.SWEDISH, Language.ROMANIAN,
)  # fmt: skip
_detector: LanguageDetector | None = None
_SENTIMENT = SentimentIntensityAnalyzer()

# fields only frames or audio could tell (§2.6), always null here; the slideshow variant omits the
# video-only ones
UNKNOWN_FROM_TEXT = (
    "visual_format",
    "speaking_style",
    "emotional_tone",
    "has_face_visible",
    "camera_perspective",
    "has_onscreen_captions",
    "caption_style",
    "has_text_overlay",
    "text_overlay_purpose",
    "setting",
    "lighting_quality",
)
VIDEO_ONLY = ("visual_format", "camera_perspective", "scene_changed", "visual_hook_type", "speaking_style")
MIN_LANGUAGE_WORDS = 3

# brand-safety cues (English, Spanish, Portuguese, German, French); a hit makes the item that tier
_HIGH_RISK = re.compile(
    r"\b(?:porn|nsfw|nude|nudes|onlyfans|cocaine|heroin|meth|gore|beheading|suicide|kill yourself|kys|"
    r"terrorist|nazi|suicidio|suicídio|selbstmord)\b",
    re.IGNORECASE,
)
_MEDIUM_RISK = re.compile(
    r"\b(?:fuck|fucking|shit|bitch|weed|cannabis|vape|vaping|alcohol|drunk|gambling|casino|bet365|gun|guns|"
    r"fight|blood|sexy|mierda|puta|merda|scheiße|scheisse|merde|putain)\b",
    re.IGNORECASE,
)
_SPONSORED = re.compile(
    r"(?:#(?:ad|ads|sponsored|sponsor|partner|paidpartnership|werbung|anzeige|publi|publicidad|"
    r"publicidade|collab|gifted)\b|\bpaid partnership\b|\bsponsored by\b|\buse (?:my )?code\b|"
    r"\bdiscount code\b|\baffiliate\b|\bcódigo\b|\bcodigo\b|\brabattcode\b|\bcode promo\b)",
    re.IGNORECASE,
)
_EDUCATIONAL = re.compile(
    r"\b(?:how to|tutorial|step by step|tips?|learn|explained|guide|lesson|cómo|como hacer|tutorial|"
    r"consejos|dicas|aprenda|anleitung|tipps|lernen|astuces|apprendre|comment)\b",
    re.IGNORECASE,
)
_EDUCATIONAL_HOOKS = {hooks.TUTORIAL_PROMISE, hooks.LISTICLE, hooks.MISTAKE_WARNING, hooks.SECRET_REVEAL}
# calls to action: (type, cue); the CTA's text is the sentence that holds the cue
_CTAS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "follow",
        re.compile(r"\bfollow (?:me|for|along)\b|\bsígueme\b|\bme segue\b|\bfolg mir\b|\babonne-toi\b", re.I),
    ),
    (
        "part_two",
        re.compile(
            r"\bpart (?:two|2)\b|\bparte (?:dos|dois|2)\b|\bteil (?:zwei|2)\b|\bpartie (?:deux|2)\b", re.I
        ),
    ),
    (
        "comment",
        re.compile(r"\bcomment (?:below|your|if|what)\b|\blet me know\b|\bcomenta\b|\bkommentier", re.I),
    ),
    ("like", re.compile(r"\b(?:like|double tap) (?:this|if|for)\b|\bdale like\b", re.I)),
    (
        "share",
        re.compile(r"\bshare (?:this|with)\b|\btag (?:a|someone|your)\b|\bcomparte\b|\bcompartilhe\b", re.I),
    ),
    ("save", re.compile(r"\bsave (?:this|for later)\b|\bguarda (?:esto|este)\b|\bsalva\b", re.I)),
    ("link_in_bio", re.compile(r"\blink in (?:my )?bio\b|\blink en (?:mi )?bio\b|\blink na bio\b", re.I)),
    ("subscribe", re.compile(r"\bsubscribe\b|\bsuscr[ií]bete\b|\binscreva-se\b|\babonnier", re.I)),
    ("discount_code", re.compile(r"\buse (?:my )?code\b|\bdiscount code\b|\bcódigo\b|\brabattcode\b", re.I)),
    ("shop", re.compile(r"\bshop (?:now|the|my)\b|\bbuy (?:now|it|here)\b|\bcompra (?:ya|aquí)\b", re.I)),
)
_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_MENTION = re.compile(r"(?<!\w)@([\w.]+)")
_FORMAT_OF_HOOK = {
    hooks.TUTORIAL_PROMISE: "tutorial",
    hooks.LISTICLE: "listicle",
    hooks.REVIEW: "review",
    hooks.COMPARISON: "comparison",
    hooks.EXPERIMENT: "challenge_or_experiment",
    hooks.PERSONAL_STORY: "storytime",
    hooks.TRANSFORMATION: "before_after",
    hooks.POV_SETUP: "pov_skit",
    hooks.RELATABLE: "relatable_skit",
}


def _languages() -> LanguageDetector:
    global _detector
    if _detector is None:  # built on first use: loading the models takes a few seconds
        _detector = LanguageDetectorBuilder.from_languages(*LANGUAGES).build()
    return _detector


def language(text: str) -> str | None:
    """ISO 639-1 code of the text, or None under ``MIN_LANGUAGE_WORDS`` words or when no language is
    clearly ahead."""
    cleaned = " ".join(words(text))
    if len(cleaned.split()) < MIN_LANGUAGE_WORDS:
        return None
    found = _languages().detect_language_of(cleaned)
    return None if found is None else found.iso_code_639_1.name.lower()


def sentiment(text: str, lang: str | None) -> str | None:
    """positive | negative | neutral by VADER's compound score (±0.05); English only, else null."""
    if lang != "en" or not text.strip():
        return None
    compound = _SENTIMENT.polarity_scores(text)["compound"]
    return "positive" if compound >= 0.05 else "negative" if compound <= -0.05 else "neutral"


def keywords_of(text: str, hashtags: Sequence[str], limit: int = 8) -> list[str]:
    """Non-generic hashtags first, then content words by frequency (ties alphabetical)."""
    tags = [k for k in dict.fromkeys(normalize_hashtag(t) for t in hashtags) if k and k not in GENERIC_TAGS]
    counts = Counter(w for w in words(text) if len(w) >= 3 and w not in STOPWORDS and not w.isdigit())
    ranked = [w for w, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if w not in tags]
    return (tags + ranked)[:limit]


def brand_safety(text: str) -> str:
    if _HIGH_RISK.search(text):
        return "high_risk"
    if _MEDIUM_RISK.search(text):
        return "medium_risk"
    return "safe"


def ctas(text: str) -> list[dict[str, str]]:
    found: list[dict[str, str]] = []
    seen: set[str] = set()
    for sentence in _SENTENCES.split(text):
        for kind, cue in _CTAS:
            if kind not in seen and cue.search(sentence):
                seen.add(kind)
                found.append({"type": kind, "text": " ".join(sentence.split())[:200]})
    return found


def analyse(
    *,
    caption: str | None,
    transcript: str | None,
    hashtags: Sequence[str],
    is_duet: bool | None = None,
    is_stitch: bool | None = None,
    panels: Sequence[str] | None = None,
) -> dict[str, Any] | None:
    """The §2.6 intelligence object, or None when the item has no text at all (``skipped``). With
    ``panels`` it is the slideshow variant: panel text instead of a transcript, no video-only fields."""
    slideshow = panels is not None
    spoken = " ".join(p for p in panels or () if p) if slideshow else (transcript or "")
    text = " ".join(x for x in (caption, spoken) if x)
    if not words(text) and not hashtags:
        return None
    hook = hooks.extract_hook(transcript=None if slideshow else transcript, caption=caption or spoken)
    hook_type = hooks.classify(hook.text) if hook else None
    lang = language(text)
    keys = keywords_of(text, hashtags)
    category = hooks.categorize(caption, hashtags)
    sponsored = bool(_SPONSORED.search(text) or any(_SPONSORED.search("#" + t.lstrip("#")) for t in hashtags))
    educational = bool(_EDUCATIONAL.search(text)) or hook_type in _EDUCATIONAL_HOOKS
    word_count = len(words(transcript)) if transcript and not slideshow else 0
    result: dict[str, Any] = {
        "primary_topic": keys[0] if keys else None,
        "secondary_topics": keys[1:4],
        "keywords": keys,
        "category": category,
        "content_format": _FORMAT_OF_HOOK.get(hook_type or "") or ("slideshow" if slideshow else None),
        "hook_text": hook.text if hook else None,
        "hook_type": hook_type,
        "visual_hook_type": None
        if slideshow
        else hooks.visual_type(caption, hashtags, is_duet=is_duet, is_stitch=is_stitch),
        "transcript_quality": None if slideshow or not transcript else _transcript_quality(word_count),
        "transcript_word_count": None if slideshow else word_count,
        "language_detected": lang,
        "sentiment": sentiment(text, lang),
        "brand_safety_tier": brand_safety(text + " " + " ".join(hashtags)),
        "is_educational": educational,
        "is_sponsored": sponsored,
        # only handles named in a sponsored post's text: who the post is for, as written
        "brands_mentioned": sorted(set(_MENTION.findall(text))) if sponsored else [],
        "cta_usages": ctas(text),
        "trend_references": None,
        "scene_changed": None,
        **{field: None for field in UNKNOWN_FROM_TEXT},
    }
    result["summary"] = _summary(result, slideshow)
    if slideshow:
        for field in VIDEO_ONLY:
            result.pop(field, None)
    return result


def _transcript_quality(word_count: int) -> str:
    """By spoken words: low (< 8), medium (< 30), high."""
    return "low" if word_count < 8 else "medium" if word_count < 30 else "high"


def _summary(found: dict[str, Any], slideshow: bool) -> str:
    kind = "slideshow" if slideshow else "video"
    parts = [f"A {found['category'] or 'general'} {kind}"]
    if found["language_detected"]:
        parts.append(f"in {found['language_detected']}")
    if found["primary_topic"]:
        parts.append(f"about {found['primary_topic']}")
    line = " ".join(parts)
    if found["hook_text"]:
        line += f', opening with a {found["hook_type"].replace("_", " ")} hook: "{found["hook_text"]}"'
    extras = []
    if found["is_sponsored"]:
        extras.append("sponsored")
    if found["is_educational"]:
        extras.append("educational")
    if found["cta_usages"]:
        extras.append(
            "asks viewers to " + ", ".join(c["type"].replace("_", " ") for c in found["cta_usages"])
        )
    return line + ("; " + "; ".join(extras) if extras else "") + "."

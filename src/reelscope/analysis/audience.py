"""A creator's audience inferred from the people who comment (spec §4.7, §6.3 audience.snapshot.completed).

Pure: commenters in, shares and confidences out. Each distinct commenter counts once (a fan who comments
on ten videos is one person). Per signal:

- age bracket and gender: the share of commenters with each value, among those for whom it is known;
- country: the commenter's locale country; city: where a source gives one;
- language: the main language of the commenter's locale country where we know it (people comment in
  English from everywhere, so one comment's language says less about the language a person lives in
  than their locale does), else the language of their comments.

``confidence = n / (n + 100)`` for the ``n`` commenters that carry the signal: 0.5 at 100, 0.67 at 200,
0.91 at 1,000 (the sampling error of a share falls as 1/sqrt(n); this maps it onto 0-1 without claiming
a statistical meaning). ``confidence_level`` is the weakest of age, gender, country and language: high
from 0.75 (300 commenters), medium from 0.5 (100), low below. No commenter at all is ``profile_only``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

CONFIDENCE_HALF_AT = 100
HIGH, MEDIUM = 0.75, 0.5
COMMENTS, PROFILE_ONLY = "comments", "profile_only"
SIGNALS = ("age", "gender", "country", "city", "language")

# the main language of common locale countries (ISO 3166 alpha-2 → ISO 639-1)
COUNTRY_LANGUAGE: Mapping[str, str] = {
    "US": "en", "GB": "en", "AU": "en", "CA": "en", "IN": "en", "PH": "en", "NG": "en", "IE": "en",
    "NZ": "en", "ZA": "en", "SG": "en", "BR": "pt", "PT": "pt", "MX": "es", "ES": "es", "AR": "es",
    "CO": "es", "CL": "es", "PE": "es", "DE": "de", "AT": "de", "CH": "de", "FR": "fr", "BE": "fr",
    "IT": "it", "NL": "nl", "PL": "pl", "TR": "tr", "RU": "ru", "UA": "uk", "JP": "ja", "KR": "ko",
    "CN": "zh", "TW": "zh", "ID": "id", "VN": "vi", "TH": "th", "SA": "ar", "EG": "ar", "AE": "ar",
}  # fmt: skip


@dataclass(frozen=True)
class Commenter:
    handle: str
    country: str | None = None
    city: str | None = None
    language: str | None = None
    age_bracket: str | None = None
    gender: str | None = None


@dataclass(frozen=True)
class Audience:
    sample_size: int
    data_source: str
    confidence_per_signal: dict[str, float]
    confidence_level: Literal["low", "medium", "high"]
    age: dict[str, float] = field(default_factory=dict)
    gender: dict[str, float] = field(default_factory=dict)
    country: dict[str, float] = field(default_factory=dict)
    city: dict[str, float] = field(default_factory=dict)
    language: dict[str, float] = field(default_factory=dict)
    signal_breakdown: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "sample_size": self.sample_size,
            "data_source": self.data_source,
            "confidence_per_signal": self.confidence_per_signal,
            "confidence_level": self.confidence_level,
            "demographics": {"age": self.age, "gender": self.gender},
            "geography": {"country": self.country, "city": self.city, "language": self.language},
            "signal_breakdown": self.signal_breakdown,
        }


def distinct(commenters: Iterable[Commenter]) -> list[Commenter]:
    """One entry per handle (case-insensitive), the first seen."""
    seen: dict[str, Commenter] = {}
    for commenter in commenters:
        seen.setdefault(commenter.handle.lower(), commenter)
    return list(seen.values())


def shares(values: Iterable[str | None]) -> tuple[dict[str, float], int]:
    """Each known value's share of the known ones, largest first (4 decimals), and how many were known."""
    counts = Counter(value for value in values if value)
    total = sum(counts.values())
    if not total:
        return {}, 0
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return {value: round(count / total, 4) for value, count in ordered}, total


def confidence(known: int) -> float:
    return round(known / (known + CONFIDENCE_HALF_AT), 4) if known > 0 else 0.0


def level(confidences: Mapping[str, float]) -> Literal["low", "medium", "high"]:
    weakest = min(confidences[signal] for signal in ("age", "gender", "country", "language"))
    return "high" if weakest >= HIGH else "medium" if weakest >= MEDIUM else "low"


def language_of(commenter: Commenter) -> str | None:
    if commenter.country and commenter.country.upper() in COUNTRY_LANGUAGE:
        return COUNTRY_LANGUAGE[commenter.country.upper()]
    return commenter.language.lower() if commenter.language else None


def infer(commenters: Iterable[Commenter], *, comments_read: int = 0, followers_read: int = 0) -> Audience:
    people = distinct(commenters)
    if not people:
        return Audience(
            sample_size=0,
            data_source=PROFILE_ONLY,
            confidence_per_signal=dict.fromkeys(SIGNALS, 0.0),
            confidence_level="low",
            signal_breakdown={"comments": comments_read, "followers": followers_read},
        )
    age, age_n = shares(p.age_bracket for p in people)
    gender, gender_n = shares(p.gender for p in people)
    country, country_n = shares(p.country.upper() if p.country else None for p in people)
    city, city_n = shares(p.city for p in people)
    language, language_n = shares(language_of(p) for p in people)
    confidences = {
        "age": confidence(age_n),
        "gender": confidence(gender_n),
        "country": confidence(country_n),
        "city": confidence(city_n),
        "language": confidence(language_n),
    }
    return Audience(
        sample_size=len(people),
        data_source=COMMENTS,
        confidence_per_signal=confidences,
        confidence_level=level(confidences),
        age=age,
        gender=gender,
        country=country,
        city=city,
        language=language,
        signal_breakdown={"comments": comments_read, "followers": followers_read},
    )

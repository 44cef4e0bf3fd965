"""Meta Ad Library archived ads → ``AdRecord`` (connectors reference §4.4).

What a payload may get wrong is absorbed here (§4.2 traps, §10 "type drift"):

- range bounds (``impressions``, ``spend``) are strings (``"10000"``) and may lack an upper bound;
  ``eu_total_reach`` is a number or a string;
- dates come as ``2026-10-01`` or ``2026-09-28T10:15:00+0000``: both are read (a bare date is midnight
  UTC); the start is the delivery start, else the creation time;
- ``ad_snapshot_url`` carries the access token: it is never read, and the stored link is the library's
  ``https://www.facebook.com/ads/library/?id={id}``.

An ad without an id or any date raises ``UnmappableItem``; the connector skips it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reelscope.collectors import coerce
from reelscope.collectors.base import AdRecord

# §4.2: every field all ads have, and those of political/issue (bounds, currency) and EU ads (reach)
FIELDS = (
    "id,ad_creation_time,ad_creative_bodies,ad_creative_link_captions,ad_creative_link_descriptions,"
    "ad_creative_link_titles,ad_delivery_start_time,ad_delivery_stop_time,page_id,page_name,"
    "publisher_platforms,languages,currency,spend,impressions,eu_total_reach"
)
TEXTS = (
    "ad_creative_bodies",
    "ad_creative_link_titles",
    "ad_creative_link_captions",
    "ad_creative_link_descriptions",
)


class UnmappableItem(ValueError):
    """An archived ad lacks what a record needs (an id, a date)."""


def library_url(ad_id: str) -> str:
    return f"https://www.facebook.com/ads/library/?id={ad_id}"


def bounds(value: Any) -> tuple[int, int | None] | None:
    """``{"lower_bound": "10000", "upper_bound": "14999"}`` → (10000, 14999); no upper bound → (lower,
    None); None when there is no lower bound."""
    found = coerce.mapping(value)
    lower = coerce.count(found.get("lower_bound"))
    if lower is None:
        return None
    return lower, coerce.count(found.get("upper_bound"))


def ad_id(item: dict[str, Any]) -> str | None:
    return coerce.digits(item.get("id"))


def to_ad(item: dict[str, Any], keyword: str, fetched_at: datetime) -> AdRecord:
    external_id = ad_id(item)
    if external_id is None:
        raise UnmappableItem("ad without an id")
    start = coerce.moment(item.get("ad_delivery_start_time")) or coerce.moment(item.get("ad_creation_time"))
    if start is None:
        raise UnmappableItem(f"ad {external_id} without a start or creation date")
    texts: dict[str, str] = {}
    for key in TEXTS:
        for entry in coerce.strings(item.get(key)):
            texts.setdefault(entry.lower(), entry)
    return AdRecord(
        external_id=external_id,
        page_id=coerce.digits(item.get("page_id")) or coerce.text(item.get("page_id")) or "",
        page_name=coerce.text(item.get("page_name")) or "",
        bodies=tuple(texts.values()),
        start_date=start,
        fetched_at=fetched_at,
        stop_date=coerce.moment(item.get("ad_delivery_stop_time")),
        publisher_platforms=tuple(p.lower() for p in coerce.strings(item.get("publisher_platforms"))),
        snapshot_url=library_url(external_id),
        keyword=keyword,
        languages=tuple(code.lower() for code in coerce.strings(item.get("languages"))),
        impressions=bounds(item.get("impressions")),
        spend=bounds(item.get("spend")),
        currency=coerce.text(item.get("currency")),
        reach=coerce.count(item.get("eu_total_reach")),
    )

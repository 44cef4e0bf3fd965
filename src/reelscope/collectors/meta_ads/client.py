"""The Meta Ad Library's one call (connectors reference §4.2): ``GET {base}/ads_archive`` through
``collectors/graph.py`` (token, errors → typed errors, usage headers, the ledger's ``calls`` bucket).

The countries searched are ``REELSCOPE_META_ADS_COUNTRIES`` (``ALL``, or ISO codes): commercial ads are
listed only where their delivery reached the EU or the UK in the past year (§4.1), so ``ALL`` finds them
wherever that was. ``ad_snapshot_url`` is never asked for: it embeds the access token (§4.2), and the
library link is rebuilt from the ad's id instead (``mapper.library_url``).
"""

from __future__ import annotations

import json
from typing import Any

from reelscope.collectors import coerce
from reelscope.collectors.graph import GraphAccess, GraphClient, GraphSession, after_cursor
from reelscope.collectors.meta_ads import mapper

SOURCE = "meta_ads"
TOKEN_SETTING = "REELSCOPE_META_ACCESS_TOKEN"  # noqa: S105 (the setting's name)
PERMISSIONS = "the token's app needs Ad Library API access (facebook.com/ads/library/api)"
PAGE_SIZE = 50
SEARCH_TERMS_MAX = 100  # §4.2 [unverified]


def access(token: Any) -> GraphAccess:
    return GraphAccess(SOURCE, token, TOKEN_SETTING, PERMISSIONS)


def countries(setting: str) -> list[str]:
    """``ALL`` or comma-separated two-letter codes → the list sent; anything unreadable falls back to
    ``ALL`` (a typo must not silently narrow the search to nothing)."""
    codes = [code.strip().upper() for code in setting.split(",") if code.strip()]
    if not codes or "ALL" in codes or not all(len(c) == 2 and c.isalpha() for c in codes):
        return ["ALL"]
    return list(dict.fromkeys(codes))


class MetaAdsClient:
    def __init__(self, graph: GraphClient, reached_countries: list[str]) -> None:
        self.graph = graph
        self.reached_countries = reached_countries

    async def archive(
        self, api: GraphSession, keyword: str, after: str | None, *, limit: int = PAGE_SIZE
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of ads matching ``keyword`` (active or not, every ad type) and its ``after`` cursor."""
        params: dict[str, str | int] = {
            "search_terms": keyword[:SEARCH_TERMS_MAX],
            "ad_reached_countries": json.dumps(self.reached_countries),
            "ad_type": "ALL",
            "ad_active_status": "ALL",
            "fields": mapper.FIELDS,
            "limit": limit,
        }
        if after is not None:
            params["after"] = after
        body = await api.get("ads_archive", params, what="ads archive")
        return coerce.items(body.get("data")), after_cursor(body)

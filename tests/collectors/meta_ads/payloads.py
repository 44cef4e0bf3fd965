"""Meta Ad Library payloads: the connectors reference's fixtures (§4.5) and builders of variants."""

from __future__ import annotations

from typing import Any

ADS = {
    "data": [
        {
            "id": "902114477553311", "ad_creation_time": "2026-10-01",
            "ad_delivery_start_time": "2026-10-01",
            "ad_creative_bodies": ["Fresh sourdough delivered by 8am. #sourdough"],
            "ad_creative_link_titles": ["Crumb Lab Bakery"],
            "ad_creative_link_captions": ["crumblab.example"],
            "ad_snapshot_url": "https://www.facebook.com/ads/archive/render_ad/?id=902114477553311&access_token=REDACTED",
            "page_id": "104400998877665", "page_name": "Crumb Lab",
            "publisher_platforms": ["facebook", "instagram"],
            "languages": ["en"], "eu_total_reach": 84210,
        },
        {
            "id": "1288776655443322", "ad_creation_time": "2026-09-28T10:15:00+0000",
            "ad_delivery_start_time": "2026-09-28T10:15:00+0000",
            "ad_delivery_stop_time": "2026-10-03T23:59:00+0000",
            "ad_creative_bodies": ["Support local bakeries on Oct 8"], "page_id": "555000111222",
            "page_name": "Bakers Alliance",
            "ad_snapshot_url": "https://www.facebook.com/ads/archive/render_ad/?id=1288776655443322&access_token=REDACTED",
            "publisher_platforms": ["facebook"], "bylines": "Paid for by Bakers Alliance", "currency": "EUR",
            "spend": {"lower_bound": "200", "upper_bound": "299"},
            "impressions": {"lower_bound": "10000", "upper_bound": "14999"},
            "demographic_distribution": [{"percentage": "0.412", "age": "25-34", "gender": "male"}],
            "delivery_by_region": [{"percentage": "0.633", "region": "Bavaria"}],
        },
    ],
    "paging": {
        "cursors": {"after": "YWZ0ZXIy"},
        "next": "https://graph.facebook.com/v25.0/ads_archive?after=YWZ0ZXIy&limit=2",
    },
}  # fmt: skip

IDENTITY = {
    "error": {
        "message": "Complete the Ad Library API access steps first.", "type": "OAuthException", "code": 10,
        "error_subcode": 2332002, "fbtrace_id": "BqRsTu3",
    }
}  # fmt: skip
THROTTLED = {
    "error": {
        "message": "Rate limit reached for this call.",
        "type": "OAuthException",
        "code": 613,
        "fbtrace_id": "x",
    }
}


def ad(n: int, body: str = "Fresh sourdough delivered by 8am.") -> dict[str, Any]:
    return {
        "id": str(902114477550000 + n),
        "ad_creation_time": "2026-11-01",
        "ad_delivery_start_time": "2026-11-01",
        "ad_creative_bodies": [body],
        "page_id": "104400998877665",
        "page_name": "Crumb Lab",
        "publisher_platforms": ["facebook", "instagram"],
        "languages": ["en"],
    }

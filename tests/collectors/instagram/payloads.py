"""Instagram Graph API payloads: the connectors reference's fixtures (§3.8) and builders of variants."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from reelscope.collectors.ytdlp.mapper import media_id_to_shortcode

ACCOUNT = "17841400000000001"  # our professional account (REELSCOPE_INSTAGRAM_USER_ID)

RECENT_MEDIA = {
    "data": [
        {
            "id": "17912345678901234", "media_type": "VIDEO", "media_product_type": "REELS",
            "caption": "Sourdough in 40 seconds #sourdough #Baking", "comments_count": 9,
            "like_count": 214, "permalink": "https://www.instagram.com/reel/DAx7kLmPq2R/",
            "timestamp": "2026-10-04T16:20:05+0000",
        },
        {
            "id": "17912345678905678", "media_type": "IMAGE", "media_product_type": "FEED",
            "caption": "crumb close-up #sourdough", "comments_count": 2,
            "permalink": "https://www.instagram.com/p/DAx8aBcDe3F/", "timestamp": "2026-10-04T15:02:00+0000",
        },
    ],
    "paging": {
        "cursors": {"after": "QVFIUmFmdGVyMQ"},
        "next": "https://graph.facebook.com/v25.0/17843210987654321/recent_media?after=QVFIUmFmdGVyMQ",
    },
}  # fmt: skip

BUSINESS_DISCOVERY = {
    "business_discovery": {
        "id": "17841400000000777", "username": "crumblab", "name": "Crumb Lab", "biography": "Bread, fast.",
        "followers_count": 48100, "follows_count": 12, "media_count": 311,
        "profile_picture_url": "https://scontent.cdninstagram.com/v/t51.2885-19/crumb.jpg",
        "media": {
            "data": [
                {
                    "id": "17912345678909999", "caption": "Crumb shot in slow motion #sourdough",
                    "comments_count": 4, "media_type": "VIDEO", "media_product_type": "REELS",
                    "view_count": 2210,
                    "permalink": "https://www.instagram.com/reel/DAy2pQrSt4U/",
                    "timestamp": "2026-10-05T08:00:00+0000",
                    "thumbnail_url": "https://scontent.cdninstagram.com/v/t51.2885-15/thumb.jpg",
                }
            ],
            "paging": {"cursors": {"after": "QVFIUzJuZXh0"}},
        },
    },
    "id": "17841400000000777",
}  # fmt: skip

EXPIRED = {
    "error": {
        "message": "Session token has expired.", "type": "OAuthException", "code": 190, "error_subcode": 463,
        "fbtrace_id": "AzYxWvUt1",
    }
}  # fmt: skip
THROTTLED = {
    "error": {
        "message": "Too many calls for this app.",
        "type": "OAuthException",
        "code": 4,
        "fbtrace_id": "AzYx2",
    }
}


def error(code: int, subcode: int | None = None, message: str = "an error") -> dict[str, Any]:
    found: dict[str, Any] = {"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "Az"}
    if subcode is not None:
        found["error_subcode"] = subcode
    return {"error": found}


FIRST_MEDIA_ID = 3472818758777482641  # the reference's DAx7kLmPq2R


def media(
    n: int,
    created: datetime,
    *,
    caption: str = "Sourdough in 40 seconds #sourdough",
    kind: str = "VIDEO",
    product: str | None = "REELS",
    likes: int | None = 100,
    views: int | None = None,
) -> dict[str, Any]:
    """A media object; its permalink's shortcode decodes to ``FIRST_MEDIA_ID + n``."""
    code = media_id_to_shortcode(str(FIRST_MEDIA_ID + n))
    found: dict[str, Any] = {
        "id": str(17912345678900000 + n),
        "caption": caption,
        "comments_count": 3,
        "media_type": kind,
        "permalink": f"https://www.instagram.com/{'reel' if kind == 'VIDEO' else 'p'}/{code}/",
        "timestamp": created.strftime("%Y-%m-%dT%H:%M:%S+0000"),
    }
    if product is not None:
        found["media_product_type"] = product
    if likes is not None:
        found["like_count"] = likes
    if views is not None:
        found["view_count"] = views
    return found


def profile(username: str, user_id: str = "17841400000000777") -> dict[str, Any]:
    return {
        "id": user_id,
        "username": username,
        "name": username.title(),
        "biography": "Bread, fast.",
        "followers_count": 48100,
        "follows_count": 12,
        "media_count": 311,
        "profile_picture_url": "https://scontent.cdninstagram.com/v/t51.2885-19/crumb.jpg",
    }

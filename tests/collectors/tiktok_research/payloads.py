"""TikTok Research API payloads: the connectors reference's fixtures (§2.8) and builders of variants."""

from __future__ import annotations

from datetime import datetime
from typing import Any

TOKEN = {
    "access_token": "clt.7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2dEXAMPLE",
    "expires_in": 7200,
    "token_type": "Bearer",
}

# §2.8's video query answer, as printed (its ids and times are invented independently of each other)
VIDEO_QUERY = {
    "data": {
        "videos": [
            {
                "id": 7432109876543210987, "create_time": 1791130805, "username": "crumblab",
                "region_code": "GB", "video_description": "Sourdough in 40 seconds #sourdough #baking",
                "music_id": 7400011122233344455, "view_count": 391020, "like_count": 28410,
                "comment_count": 402, "share_count": 1877, "favorites_count": 3301,
                "hashtag_names": ["sourdough", "baking"], "video_duration": 41,
                "voice_to_text": "first you fold the dough twice",
                "video_tag": {"type": "Branded", "number": 7},
            },
            {
                "video_id": 7431998877665544332, "create_time": 1791018760, "username": "ovennotes",
                "region_code": "US", "video_description": "why my loaf collapsed",
                "music_id": 7399988877766655544, "view_count": 15230, "like_count": 611, "comment_count": 38,
                "share_count": 12, "favorites_count": 44, "hashtag_names": [], "video_duration": 58,
                "voice_to_text": "",
            },
        ],
        "cursor": 2,
        "search_id": "7432200011122233344",
        "has_more": True,
    },
    "error": {"code": "ok", "message": "", "log_id": "20261004162005A1B2C3D4E5F6A7B8C9"},
}  # fmt: skip

USER_INFO = {
    "data": {
        "display_name": "Crumb Lab", "bio_description": "Bread, fast.",
        "avatar_url": "https://p16-sign.tiktokcdn-us.com/crumb.jpeg", "is_verified": False,
        "follower_count": 48100, "following_count": 12, "likes_count": 1204400, "video_count": 311,
        "bio_url": "https://crumblab.example",
    },
    "error": {"code": "ok", "message": "", "log_id": "20261004162006A1B2C3D4E5F6A7B8D0"},
}  # fmt: skip

QUOTA_SPENT = {
    "data": {},
    "error": {
        "code": "daily_quota_limit_exceeded",
        "message": "Daily request budget spent.",
        "log_id": "20261004235959FFEEDDCCBBAA0001",
    },
}
TOKEN_INVALID = {
    "error": {
        "code": "access_token_invalid",
        "message": "Token missing or expired.",
        "log_id": "20261004180000FF",
    }
}


def error(code: str, message: str = "") -> dict[str, Any]:
    return {"data": {}, "error": {"code": code, "message": message, "log_id": "20261121120000AA"}}


def video_id(created: datetime, n: int = 0) -> str:
    """An id the way TikTok's carry their creation second in the top 32 bits [unverified]."""
    return str((int(created.timestamp()) << 32) | (n & 0xFFFFFFFF))


def video(
    created: datetime,
    n: int = 0,
    *,
    username: str = "crumblab",
    region: str = "GB",
    description: str = "Sourdough in 40 seconds #sourdough #baking",
    hashtags: list[str] | None = None,
    views: int = 1000,
    **extra: Any,
) -> dict[str, Any]:
    """A video query item created at ``created``; its id encodes the time (``video_id``)."""
    return {
        "id": int(video_id(created, n)),
        "create_time": int(created.timestamp()),
        "username": username,
        "region_code": region,
        "video_description": description,
        "music_id": 7400011122233344455,
        "view_count": views,
        "like_count": views // 10,
        "comment_count": views // 100,
        "share_count": views // 200,
        "favorites_count": views // 50,
        "hashtag_names": ["sourdough", "baking"] if hashtags is None else hashtags,
        "video_duration": 41,
        "voice_to_text": "first you fold the dough twice",
        **extra,
    }


def comment(comment_id: int, video: str, created: datetime, text: str = "so crispy!") -> dict[str, Any]:
    return {
        "id": comment_id,
        "video_id": int(video),
        "text": text,
        "like_count": 3,
        "reply_count": 0,
        "parent_comment_id": int(video),
        "create_time": int(created.timestamp()),
    }

# ruff: noqa: E501  (the reference's payloads are kept verbatim, line breaks included)
"""The connectors reference's YouTube payloads (§1.8), verbatim, and builders for the variants the tests
invent (same key names, nesting and JSON types)."""

from __future__ import annotations

import json
from typing import Any

# GET search?part=snippet&type=video&videoDuration=short&order=date&q=sourdough%20%23shorts&maxResults=1
SEARCH = json.loads(
    """
{"kind": "youtube#searchListResponse", "etag": "Xk2pQ0", "nextPageToken": "CAEQAA", "regionCode": "GB",
 "pageInfo": {"totalResults": 412000, "resultsPerPage": 1},
 "items": [{"kind": "youtube#searchResult", "etag": "sr1", "id": {"kind": "youtube#video", "videoId": "Zt3kQ9vLm0A"},
   "snippet": {"publishedAt": "2026-10-04T16:20:05Z", "channelId": "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
     "title": "Sourdough in 40 seconds #shorts", "description": "Crumb shot at the end #baking",
     "thumbnails": {"default": {"url": "https://i.ytimg.com/vi/Zt3kQ9vLm0A/default.jpg", "width": 120, "height": 90}},
     "channelTitle": "Crumb Lab", "liveBroadcastContent": "none", "publishTime": "2026-10-04T16:20:05Z"}}]}
"""
)

# GET videos?part=snippet,statistics,contentDetails&id=Zt3kQ9vLm0A,pL0wN4cR7sE,zzzzzzzzzzz (the third id
# is unknown and so missing; the second has likes hidden and comments off)
VIDEOS = json.loads(
    """
{"kind": "youtube#videoListResponse", "etag": "vl1", "pageInfo": {"totalResults": 2, "resultsPerPage": 2},
 "items": [
  {"kind": "youtube#video", "etag": "v1", "id": "Zt3kQ9vLm0A",
   "snippet": {"publishedAt": "2026-10-04T16:20:05Z", "channelId": "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
     "title": "Sourdough in 40 seconds #shorts", "description": "Crumb shot at the end #baking #Shorts",
     "thumbnails": {"high": {"url": "https://i.ytimg.com/vi/Zt3kQ9vLm0A/hqdefault.jpg", "width": 480, "height": 360},
                    "maxres": {"url": "https://i.ytimg.com/vi/Zt3kQ9vLm0A/maxresdefault.jpg", "width": 1280, "height": 720}},
     "channelTitle": "Crumb Lab", "tags": ["bread", "sourdough"], "categoryId": "26",
     "liveBroadcastContent": "none", "defaultAudioLanguage": "en"},
   "contentDetails": {"duration": "PT41S", "dimension": "2d", "definition": "hd", "caption": "false", "licensedContent": false, "projection": "rectangular"},
   "statistics": {"viewCount": "88412", "likeCount": "3920", "favoriteCount": "0", "commentCount": "57"}},
  {"kind": "youtube#video", "etag": "v2", "id": "pL0wN4cR7sE",
   "snippet": {"publishedAt": "2026-10-03T09:12:40Z", "channelId": "UCm2Bv9Xc4Nz7Qa1Ws8Ed5Rt",
     "title": "Why my loaf collapsed", "description": "", "channelTitle": "Oven Notes", "categoryId": "26", "liveBroadcastContent": "none",
     "thumbnails": {"default": {"url": "https://i.ytimg.com/vi/pL0wN4cR7sE/default.jpg", "width": 120, "height": 90}}},
   "contentDetails": {"duration": "PT2M55S", "dimension": "2d", "definition": "hd", "caption": "true", "licensedContent": false, "projection": "rectangular"},
   "statistics": {"viewCount": "1207", "favoriteCount": "0"}}]}
"""
)

# GET channels?part=snippet,statistics&id=UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx
CHANNELS = json.loads(
    """
{"kind": "youtube#channelListResponse", "etag": "c1", "pageInfo": {"totalResults": 1, "resultsPerPage": 5},
 "items": [{"kind": "youtube#channel", "etag": "c2", "id": "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
   "snippet": {"title": "Crumb Lab", "description": "Bread, fast.", "customUrl": "@crumblab", "publishedAt": "2021-05-06T07:08:09Z",
     "country": "GB", "thumbnails": {"default": {"url": "https://yt3.ggpht.com/crumb=s88", "width": 88, "height": 88}}},
   "statistics": {"viewCount": "5310442", "subscriberCount": "48100", "hiddenSubscriberCount": false, "videoCount": "311"}}]}
"""
)

# HTTP 403: the daily quota is spent (the message is invented; the code matches on reason)
QUOTA_EXCEEDED = json.loads(
    """
{"error": {"code": 403, "message": "Daily quota for this project is used up.",
  "errors": [{"message": "Daily quota for this project is used up.", "domain": "youtube.quota", "reason": "quotaExceeded"}]}}
"""
)


def error(code: int, reason: str, message: str = "Something went wrong.", domain: str = "global") -> Any:
    """An error body of the §1.5 shape."""
    return {
        "error": {
            "code": code,
            "message": message,
            "errors": [{"message": message, "domain": domain, "reason": reason}],
        }
    }


def video(
    video_id: str,
    *,
    published: str = "2026-11-20T10:00:00Z",
    duration: str = "PT30S",
    views: Any = "1000",
    channel: str = "UCq7Rr2Tn8Wb0Yc5Ld3Hs1Kx",
    title: str = "A short",
    live: str = "none",
) -> dict[str, Any]:
    """A videos.list item in the reference's shape."""
    return {
        "kind": "youtube#video",
        "etag": f"e-{video_id}",
        "id": video_id,
        "snippet": {
            "publishedAt": published,
            "channelId": channel,
            "title": title,
            "description": "",
            "channelTitle": "Some channel",
            "categoryId": "22",
            "liveBroadcastContent": live,
            "thumbnails": {"default": {"url": f"https://i.ytimg.com/vi/{video_id}/default.jpg"}},
        },
        "contentDetails": {"duration": duration, "caption": "false"},
        "statistics": {"viewCount": views, "likeCount": "10", "favoriteCount": "0", "commentCount": "2"},
    }


def channel(channel_id: str, handle: str, *, uploads: str | None = None) -> dict[str, Any]:
    """A channels.list item in the reference's shape; ``uploads`` adds part contentDetails."""
    item: dict[str, Any] = {
        "kind": "youtube#channel",
        "etag": f"e-{channel_id}",
        "id": channel_id,
        "snippet": {
            "title": handle.title(),
            "description": "",
            "customUrl": f"@{handle}",
            "thumbnails": {"default": {"url": f"https://yt3.ggpht.com/{handle}=s88"}},
        },
        "statistics": {"viewCount": "100", "subscriberCount": "10", "hiddenSubscriberCount": False},
    }
    if uploads is not None:
        item["contentDetails"] = {"relatedPlaylists": {"likes": "", "uploads": uploads}}
    return item

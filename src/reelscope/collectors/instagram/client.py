"""The Instagram Graph API's calls (connectors reference §3.1-3.3): each is one counted Graph call through
``collectors/graph.py`` (token, errors → typed errors, usage headers), made for the professional account
``REELSCOPE_INSTAGRAM_USER_ID``.

    ig_hashtag_search?user_id&q               a hashtag's id (takes one of the 30 weekly places)
    {hashtag-id}/top_media|recent_media       a page of a hashtag's media (≤ 50, ``after`` cursor)
    {user-id}/recently_searched_hashtags      the hashtags Meta counts this week
    {user-id}?fields=business_discovery…      another professional account's profile and media
    {user-id}?fields=id,username              ours (the cheap check)
"""

from __future__ import annotations

from typing import Any

from reelscope.collectors import coerce
from reelscope.collectors.graph import GraphAccess, GraphClient, GraphSession, after_cursor
from reelscope.collectors.instagram import mapper

SOURCE = "instagram"
TOKEN_SETTING = "REELSCOPE_INSTAGRAM_ACCESS_TOKEN"  # noqa: S105 (the setting's name)
USER_SETTING = "REELSCOPE_INSTAGRAM_USER_ID"
PERMISSIONS = (
    "the token needs instagram_basic, pages_read_engagement and instagram_manage_insights, and hashtag "
    "search the Instagram Public Content Access feature through App Review"
)
HASHTAG_PAGE = 50  # §3.3: hashtag edges give at most 50 a page
CREATOR_PAGE = 25


def access(token: Any) -> GraphAccess:
    return GraphAccess(SOURCE, token, TOKEN_SETTING, PERMISSIONS)


class InstagramClient:
    def __init__(self, graph: GraphClient, user_id: str | None) -> None:
        self.graph = graph
        self.user_id = (user_id or "").strip() or None

    def missing(self) -> str | None:
        """Why no call can be made (no token or no account configured), or None."""
        if (missing := self.graph.missing_token()) is not None:
            return missing
        if self.user_id is None:
            return f"{SOURCE}: no professional account configured (set {USER_SETTING})"
        return None

    @property
    def account(self) -> str:
        assert self.user_id is not None
        return self.user_id

    async def hashtag_id(self, api: GraphSession, name: str) -> str | None:
        body = await api.get("ig_hashtag_search", {"user_id": self.account, "q": name}, what="hashtag search")
        for item in coerce.items(body.get("data")):
            found = coerce.digits(item.get("id")) or coerce.text(item.get("id"))
            if found is not None:
                return found
        return None

    async def hashtag_media(
        self, api: GraphSession, hashtag_id: str, edge: str, after: str | None
    ) -> tuple[list[dict[str, Any]], str | None]:
        """A page of ``top_media`` or ``recent_media`` and its ``after`` cursor."""
        params: dict[str, str | int] = {
            "user_id": self.account,
            "fields": mapper.HASHTAG_MEDIA_FIELDS,
            "limit": HASHTAG_PAGE,
        }
        if after is not None:
            params["after"] = after
        body = await api.get(f"{hashtag_id}/{edge}", params, what=f"hashtag {edge}")
        return coerce.items(body.get("data")), after_cursor(body)

    async def recently_searched(self, api: GraphSession) -> list[tuple[str, str | None]]:
        """(id, name or None) of each hashtag Meta counts this week [unverified: whether names come]."""
        body = await api.get(
            f"{self.account}/recently_searched_hashtags",
            {"fields": "id,name", "limit": 50},
            what="recently searched hashtags",
        )
        found: list[tuple[str, str | None]] = []
        for item in coerce.items(body.get("data")):
            hashtag_id = coerce.digits(item.get("id")) or coerce.text(item.get("id"))
            if hashtag_id is not None:
                name = coerce.text(item.get("name"))
                found.append((hashtag_id, mapper.hashtag_name(name) if name else None))
        return found

    async def business_discovery(
        self, api: GraphSession, username: str, *, media: int = 0, after: str | None = None
    ) -> dict[str, Any]:
        """The ``business_discovery`` object of ``username``: its profile, and ``media`` of its media
        (from ``after``) when asked."""
        wanted = mapper.PROFILE_FIELDS
        if media > 0:
            edge = f"media.after({after}).limit({media})" if after else f"media.limit({media})"
            wanted += f",{edge}{{{mapper.CREATOR_MEDIA_FIELDS}}}"
        body = await api.get(
            self.account,
            {"fields": f"business_discovery.username({username}){{{wanted}}}"},
            what="business discovery",
        )
        return coerce.mapping(body.get("business_discovery"))

    async def me(self, api: GraphSession) -> dict[str, Any]:
        return await api.get(self.account, {"fields": "id,username"}, what="account")

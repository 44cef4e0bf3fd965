"""Every operation of the Reelscope API as a method, generated from ``/openapi.json`` by
``python -m reelscope.client.codegen``; do not edit by hand (tests/client/test_drift.py
checks them). The client people use is ``Reelscope``/``AsyncReelscope`` (clients.py), which adds the waiters.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Literal

from reelscope.client.core import AsyncCore, Call
from reelscope.client.models import (
    ActivityList,
    AdOrder,
    AdPage,
    Affinity,
    AgentCreated,
    AgentHookPage,
    AgentList,
    AgentOut,
    AgentRunList,
    AudienceJobOut,
    AudiencePart,
    AutonomyLevel,
    Balance,
    BatchCreator,
    BatchOut,
    Benchmarks,
    BreakoutSoundOut,
    Cadence,
    Cadences,
    CategoryOut,
    CollectionOut,
    Collector,
    DeliveryLog,
    DeliveryOut,
    Depth,
    EmergingPage,
    Envelope,
    EventList,
    HashtagPerformance,
    HashtagStat,
    HookMatch,
    HookOut,
    HookTypes,
    ItemOrder,
    KeywordSuggestion,
    LibraryHook,
    LibrarySort,
    ListResponse,
    LookupJob,
    LookupRunList,
    NoContent,
    OutlierOrder,
    OutlierPage,
    Page,
    Platform,
    PostOut,
    ProposalList,
    ProposalOut,
    Region,
    ReportOut,
    RunDetail,
    RunOut,
    RunSummary,
    RunVideos,
    SimilarCreators,
    SlideshowPage,
    SnapshotList,
    Sort,
    SoundDetail,
    SoundOrder,
    SoundOut,
    SuggestMode,
    TrackedDetail,
    TrackedOut,
    TrendBatch,
    TrendGroupOut,
    TrendingSort,
    TypeSort,
    UsageHistory,
    VideoOut,
    VideoPage,
    WebhookEndpointOut,
    Window,
)
from reelscope.client.pagination import PageStyle, aiterate


class AsyncOperations(AsyncCore):
    """Each operation an async method; ``iter_*`` per paged list."""

    async def get_videos_digest(
        self,
        *,
        limit: int | None = None,
    ) -> Envelope[list[VideoOut]]:
        """The most-viewed videos of all platforms posted in the last 48 hours, ranked by views alone.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/videos/digest",
                path_params={},
                query={"limit": limit},
                body=None,
                idempotent=False,
            ),
            Envelope[list[VideoOut]],
        )

    async def get_platform_videos_digest(
        self,
        platform: Platform,
        *,
        limit: int | None = None,
    ) -> Envelope[list[VideoOut]]:
        """One platform's own top videos of the last 48 hours, by views.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/{platform}/videos/digest",
                path_params={"platform": platform},
                query={"limit": limit},
                body=None,
                idempotent=False,
            ),
            Envelope[list[VideoOut]],
        )

    async def list_hashtags(
        self,
        *,
        start_date: str | None,
        end_date: str | None,
        limit: int | None = None,
        page: int | None = None,
        order_by: Literal["count", "views"] | None = None,
        sort: Literal["desc", "asc"] | None = None,
    ) -> Envelope[list[HashtagStat]]:
        """The most-used hashtags of all platforms among videos posted in the dates (billed even if
        empty).

        **Price:** $0.05 (5 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/hashtags",
                path_params={},
                query={
                    "start_date": start_date,
                    "end_date": end_date,
                    "limit": limit,
                    "page": page,
                    "order_by": order_by,
                    "sort": sort,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[list[HashtagStat]],
        )

    async def list_platform_hashtags(
        self,
        platform: Platform,
        *,
        start_date: str | None,
        end_date: str | None,
        limit: int | None = None,
        page: int | None = None,
        order_by: Literal["count", "views"] | None = None,
        sort: Literal["desc", "asc"] | None = None,
    ) -> Envelope[list[HashtagStat]]:
        """The most-used hashtags of one platform among videos posted in the dates.

        **Price:** $0.05 (5 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/{platform}/hashtags",
                path_params={"platform": platform},
                query={
                    "start_date": start_date,
                    "end_date": end_date,
                    "limit": limit,
                    "page": page,
                    "order_by": order_by,
                    "sort": sort,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[list[HashtagStat]],
        )

    async def get_hashtag_performance(
        self,
        hashtag: str,
        *,
        start_date: str | None = None,
        end_date: str | None = None,
    ) -> Envelope[HashtagPerformance]:
        """One hashtag's counted videos, views, likes and comments, all platforms combined (case-
        insensitive; send a leading # as %23).

        **Price:** $0.05 (5 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/hashtags/{hashtag}/performance",
                path_params={"hashtag": hashtag},
                query={"start_date": start_date, "end_date": end_date},
                body=None,
                idempotent=False,
            ),
            Envelope[HashtagPerformance],
        )

    async def get_account_balance(
        self,
    ) -> Envelope[Balance]:
        """The team's prepaid balance in credits and dollars (free; 1 credit = $0.01), its auto top-up,
        and (beyond the spec) the calling API key's daily spending cap with what it was charged
        today (UTC), or null when the key has none.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call("GET", "/v1/account/balance", path_params={}, query={}, body=None, idempotent=False),
            Envelope[Balance],
        )

    async def get_account_collectors(
        self,
    ) -> Envelope[list[Collector]]:
        """The data sources this server collects from (beyond the spec; free): for each, what it can do
        (capability → platforms), its state (`ok`, `rate_limited` until `state_until`,
        `circuit_open` until `state_until`, `unavailable` with the `reason`), each quota bucket's
        use in the current window (and the share background collection may spend), when each
        recurring pull is due, and its last success and error. The same as `reelscope collectors
        status`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call("GET", "/v1/account/collectors", path_params={}, query={}, body=None, idempotent=False),
            Envelope[list[Collector]],
        )

    async def list_trend_regions(
        self,
    ) -> Envelope[list[Region]]:
        """The trend regions, discovered at runtime (free).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call("GET", "/v1/trends/regions", path_params={}, query={}, body=None, idempotent=False),
            Envelope[list[Region]],
        )

    async def list_trends(
        self,
        *,
        region: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        limit: int | None = None,
        top_exemplars: int | None = None,
    ) -> Envelope[list[TrendGroupOut]]:
        """Trend groups of a region whose local day falls in the window (default the last 24 hours).

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/trends",
                path_params={},
                query={
                    "region": region,
                    "start_date": start_date,
                    "end_date": end_date,
                    "limit": limit,
                    "top_exemplars": top_exemplars,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[list[TrendGroupOut]],
        )

    async def get_trends_digest(
        self,
        *,
        region: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        limit: int | None = None,
        top_exemplars: int | None = None,
    ) -> Envelope[list[TrendGroupOut]]:
        """Today's trend group of the region, today being the date in the region's own timezone.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/trends/digest",
                path_params={},
                query={
                    "region": region,
                    "start_date": start_date,
                    "end_date": end_date,
                    "limit": limit,
                    "top_exemplars": top_exemplars,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[list[TrendGroupOut]],
        )

    async def list_emerging_trends(
        self,
        *,
        region: str | None = None,
        limit: int | None = None,
        top_exemplars: int | None = None,
    ) -> EmergingPage:
        """Trends whose momentum is new or rising, by momentum score; reads maintained state only.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/trends/emerging",
                path_params={},
                query={"region": region, "limit": limit, "top_exemplars": top_exemplars},
                body=None,
                idempotent=False,
            ),
            EmergingPage,
        )

    async def list_webhooks(
        self,
    ) -> ListResponse[WebhookEndpointOut]:
        """Every webhook of the team, newest first, not paged, `inactive` ones included (free).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call("GET", "/v1/webhooks", path_params={}, query={}, body=None, idempotent=False),
            ListResponse[WebhookEndpointOut],
        )

    async def create_webhook(
        self,
        *,
        url: str,
        enabled_events: list[str],
        headers: dict[str, str] | None = None,
        description: str | None = None,
        is_active: bool | None = None,
    ) -> WebhookEndpointOut:
        """Create a webhook endpoint (free). At most 5 switched on per team; the body returned carries
        the signing secret for the Standard Webhooks `webhook-signature` header.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/webhooks",
                path_params={},
                query={},
                body={
                    "url": url,
                    "enabled_events": enabled_events,
                    "headers": headers,
                    "description": description,
                    "is_active": is_active,
                },
                idempotent=True,
            ),
            WebhookEndpointOut,
        )

    async def get_webhook(
        self,
        webhook_id: str,
    ) -> WebhookEndpointOut:
        """One webhook endpoint (free).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/webhooks/{webhook_id}",
                path_params={"webhook_id": webhook_id},
                query={},
                body=None,
                idempotent=False,
            ),
            WebhookEndpointOut,
        )

    async def update_webhook(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        enabled_events: list[str] | None = None,
        headers: dict[str, str] | None = None,
        description: str | None = None,
        is_active: bool | None = None,
    ) -> WebhookEndpointOut:
        """Change any create field (free); `is_active: false` switches it off and frees a slot.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "PATCH",
                "/v1/webhooks/{webhook_id}",
                path_params={"webhook_id": webhook_id},
                query={},
                body={
                    "url": url,
                    "enabled_events": enabled_events,
                    "headers": headers,
                    "description": description,
                    "is_active": is_active,
                },
                idempotent=True,
            ),
            WebhookEndpointOut,
        )

    async def delete_webhook(
        self,
        webhook_id: str,
    ) -> NoContent:
        """Delete a webhook (free): it stops receiving events and stays listed as `inactive`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "DELETE",
                "/v1/webhooks/{webhook_id}",
                path_params={"webhook_id": webhook_id},
                query={},
                body=None,
                idempotent=True,
            ),
            NoContent,
        )

    async def enable_webhook(
        self,
        webhook_id: str,
    ) -> WebhookEndpointOut:
        """Re-enable a webhook (free): `status` back to `active`, `consecutive_failures` reset to 0.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/webhooks/{webhook_id}/enable",
                path_params={"webhook_id": webhook_id},
                query={},
                body=None,
                idempotent=True,
            ),
            WebhookEndpointOut,
        )

    async def retry_webhook_delivery(
        self,
        webhook_id: str,
        delivery_id: str,
    ) -> DeliveryOut:
        """Resend a delivery now with the same `id` (free); 409 for `payload_too_large`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/retry",
                path_params={"webhook_id": webhook_id, "delivery_id": delivery_id},
                query={},
                body=None,
                idempotent=True,
            ),
            DeliveryOut,
        )

    async def send_webhook_test(
        self,
        webhook_id: str,
        *,
        event: str | None = None,
        event_type: str | None = None,
    ) -> DeliveryOut:
        """Send a realistic sample message of any event to this webhook (free): `event` (or
        `event_type`) names it; `{}` or no body sends `orbit.run.completed`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/webhooks/{webhook_id}/test",
                path_params={"webhook_id": webhook_id},
                query={},
                body={"event": event, "event_type": event_type},
                idempotent=True,
            ),
            DeliveryOut,
        )

    async def list_webhook_deliveries(
        self,
        webhook_id: str,
        *,
        limit: int | None = None,
        cursor: str | None = None,
    ) -> DeliveryLog:
        """The delivery log, newest first (free). Send `next_cursor` back as `cursor` (URL-encode `+`
        as `%2B`) until it is null; the last page can be empty.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/webhooks/{webhook_id}/deliveries",
                path_params={"webhook_id": webhook_id},
                query={"limit": limit, "cursor": cursor},
                body=None,
                idempotent=False,
            ),
            DeliveryLog,
        )

    def iter_webhook_deliveries(
        self,
        webhook_id: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[DeliveryOut]:
        """Every item of ``list_webhook_deliveries``, page after page (cursor style, §8.3)."""

        async def page(**paging: Any) -> DeliveryLog:
            return await self.list_webhook_deliveries(webhook_id, limit=limit, **paging)

        return aiterate(page, PageStyle("cursor", "deliveries"))

    async def search_sounds(
        self,
        *,
        q: str,
        page: int | None = None,
        limit: int | None = None,
    ) -> Page[SoundOut]:
        """Sounds whose title, artist (owner nickname) or owner handle contains `q`, case-insensitive;
        the most used on their platform first.

        **Price:** $0.10 (10 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/search",
                path_params={},
                query={"page": page, "limit": limit, "q": q},
                body=None,
                idempotent=False,
            ),
            Page[SoundOut],
        )

    def iter_search_sounds(
        self,
        *,
        limit: int | None = None,
        q: str,
    ) -> AsyncIterator[SoundOut]:
        """Every item of ``search_sounds``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[SoundOut]:
            return await self.search_sounds(limit=limit, q=q, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def list_trending_sounds(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        sort: TrendingSort | None = None,
        platform: Platform | None = None,
    ) -> Page[SoundOut]:
        """Sounds used by catalog videos posted in the last 30 days, by `sort` descending: `videos_7d`
        (default), `videos_30d`, `usage_count` (the platform's count) or `video_count`.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/trending",
                path_params={},
                query={"page": page, "limit": limit, "sort": sort, "platform": platform},
                body=None,
                idempotent=False,
            ),
            Page[SoundOut],
        )

    def iter_trending_sounds(
        self,
        *,
        limit: int | None = None,
        sort: TrendingSort | None = None,
        platform: Platform | None = None,
    ) -> AsyncIterator[SoundOut]:
        """Every item of ``list_trending_sounds``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[SoundOut]:
            return await self.list_trending_sounds(limit=limit, sort=sort, platform=platform, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def list_breakout_sounds(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        min_recent: int | None = None,
        min_baseline: int | None = None,
        platform: Platform | None = None,
    ) -> Page[BreakoutSoundOut]:
        """Sounds taking off: at least `min_recent` catalog videos in 7 days and `min_baseline` in 90,
        by `breakout_score` = videos_7d x (videos_7d / videos_90d) descending.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/breakout",
                path_params={},
                query={
                    "page": page,
                    "limit": limit,
                    "min_recent": min_recent,
                    "min_baseline": min_baseline,
                    "platform": platform,
                },
                body=None,
                idempotent=False,
            ),
            Page[BreakoutSoundOut],
        )

    def iter_breakout_sounds(
        self,
        *,
        limit: int | None = None,
        min_recent: int | None = None,
        min_baseline: int | None = None,
        platform: Platform | None = None,
    ) -> AsyncIterator[BreakoutSoundOut]:
        """Every item of ``list_breakout_sounds``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[BreakoutSoundOut]:
            return await self.list_breakout_sounds(
                limit=limit, min_recent=min_recent, min_baseline=min_baseline, platform=platform, **paging
            )

        return aiterate(page, PageStyle("pagination"))

    async def list_creator_sounds(
        self,
        platform: Platform,
        handle: str,
        *,
        page: int | None = None,
        limit: int | None = None,
    ) -> Page[SoundOut]:
        """Sounds used in the creator's catalog videos, the most used in the catalog first. The handle
        matches case-insensitively, with or without `@`.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/by-creator/{platform}/{handle}",
                path_params={"platform": platform, "handle": handle},
                query={"page": page, "limit": limit},
                body=None,
                idempotent=False,
            ),
            Page[SoundOut],
        )

    def iter_creator_sounds(
        self,
        platform: Platform,
        handle: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[SoundOut]:
        """Every item of ``list_creator_sounds``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[SoundOut]:
            return await self.list_creator_sounds(platform, handle, limit=limit, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def get_sound(
        self,
        sound_id: str,
        *,
        resolve: bool | None = None,
    ) -> Envelope[SoundDetail]:
        """One sound (§2.2) with its catalog usage and its `track_resolution` (status `resolved`,
        `unresolved` or `original_sound`, with a `reason`). `resolve=true` resolves the licensed
        track and artist: +$0.10 when this request makes the resolution, nothing more once it is
        known.

        **Price:** from $0.05 (5 credits) per successful call; options add to it. §4.7: resolve=true
        adds $0.10 on a fresh resolution (the handler settles lower on a cached one).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/{sound_id}",
                path_params={"sound_id": sound_id},
                query={"resolve": resolve},
                body=None,
                idempotent=False,
            ),
            Envelope[SoundDetail],
        )

    async def get_sound_usage_history(
        self,
        sound_id: str,
        *,
        days: int | None = None,
    ) -> Envelope[UsageHistory]:
        """The sound's observed usage counts over the last `days` (default 90, at most 365), oldest
        first.

        **Price:** $0.05 (5 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/{sound_id}/usage-history",
                path_params={"sound_id": sound_id},
                query={"days": days},
                body=None,
                idempotent=False,
            ),
            Envelope[UsageHistory],
        )

    async def list_sound_videos(
        self,
        sound_id: str,
        *,
        page: int | None = None,
        limit: int | None = None,
    ) -> Page[VideoOut]:
        """The catalog videos using the sound (§2.1 video objects), most viewed first.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/sounds/{sound_id}/videos",
                path_params={"sound_id": sound_id},
                query={"page": page, "limit": limit},
                body=None,
                idempotent=False,
            ),
            Page[VideoOut],
        )

    def iter_sound_videos(
        self,
        sound_id: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[VideoOut]:
        """Every item of ``list_sound_videos``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[VideoOut]:
            return await self.list_sound_videos(sound_id, limit=limit, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def get_creator_lookup_status(
        self,
        job_id: str,
    ) -> Envelope[LookupJob]:
        """A creator lookup: `processing`, then `completed` with its `result`, or `failed` with its
        `error` (`finalized` true from then on, §2.6). Free; poll every `retry_after_seconds`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/creator/status/{job_id}",
                path_params={"job_id": job_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[LookupJob],
        )

    async def lookup_creator(
        self,
        platform: Platform,
        username: str,
        *,
        max_videos: int | None = None,
        include_videos: bool | None = None,
        include_outliers: bool | None = None,
        outlier_threshold: float | None = None,
        include_cross_platform: bool | None = None,
        include_audience: bool | None = None,
        include: list[Literal["videos", "outliers"]] | None = None,
        cross_links: bool | None = None,
        trend_analysis: bool | None = None,
    ) -> Envelope[LookupJob]:
        """Start a creator lookup: profile, recent videos, median views, outliers (`outlier_ratio`,
        `weighted_score`), posting cadence; rising themes with `trend_analysis`.
        `include=videos,outliers` and `cross_links=true` are the same request as the include flags
        they stand for. A repeat within 6 hours returns the earlier run, free, with `cached: true`
        (and no webhook).

        **Price:** from $0.50 (50 credits) per successful call; options add to it. The price depends
        on the request's options; see `X-Cost`.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/creator/{platform}/{username}",
                path_params={"platform": platform, "username": username},
                query={
                    "max_videos": max_videos,
                    "include_videos": include_videos,
                    "include_outliers": include_outliers,
                    "outlier_threshold": outlier_threshold,
                    "include_cross_platform": include_cross_platform,
                    "include_audience": include_audience,
                    "include": include,
                    "cross_links": cross_links,
                    "trend_analysis": trend_analysis,
                },
                body=None,
                idempotent=True,
            ),
            Envelope[LookupJob],
        )

    async def get_sound_lookup_status(
        self,
        job_id: str,
    ) -> Envelope[LookupJob]:
        """A sound lookup's status and, once completed, its result. Free.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/sounds/status/{job_id}",
                path_params={"job_id": job_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[LookupJob],
        )

    async def lookup_sound(
        self,
        platform: Platform,
        music_id: str,
        *,
        max_videos: int | None = None,
        trend_analysis: bool | None = None,
    ) -> Envelope[LookupJob]:
        """Start a sound lookup (tiktok and instagram only): the sound, its usage over time and the
        videos using it; `time_windows`, momentum and resurgence with `trend_analysis`. Cached 6
        hours, like every lookup.

        **Price:** from $0.50 (50 credits) per successful call; options add to it. The price depends
        on the request's options; see `X-Cost`.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/sounds/{platform}/{music_id}",
                path_params={"platform": platform, "music_id": music_id},
                query={"max_videos": max_videos, "trend_analysis": trend_analysis},
                body=None,
                idempotent=True,
            ),
            Envelope[LookupJob],
        )

    async def get_hashtag_lookup_status(
        self,
        job_id: str,
    ) -> Envelope[LookupJob]:
        """A hashtag lookup's status and, once completed, its result. Free.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/hashtags/status/{job_id}",
                path_params={"job_id": job_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[LookupJob],
        )

    async def lookup_hashtag(
        self,
        platform: Platform,
        hashtag: str,
        *,
        depth: Depth | None = None,
        max_videos: int | None = None,
        sort: Literal["top", "recent"] | None = None,
        trend_analysis: bool | None = None,
    ) -> Envelope[LookupJob]:
        """Start a hashtag lookup over `depth` videos (`standard`; `deep` about 300; `full` about 500,
        neither on instagram), returning `max_videos` of them by `sort` (`top` or `recent`) with
        their statistics; `time_windows`, momentum and resurgence with `trend_analysis`. Cached 6
        hours.

        **Price:** from $0.50 (50 credits) per successful call; options add to it. §4.7: +$0.50
        trend_analysis; deep +$0.50 (waived with trend_analysis); full +$1.50.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/hashtags/{platform}/{hashtag}",
                path_params={"platform": platform, "hashtag": hashtag},
                query={
                    "depth": depth,
                    "max_videos": max_videos,
                    "sort": sort,
                    "trend_analysis": trend_analysis,
                },
                body=None,
                idempotent=True,
            ),
            Envelope[LookupJob],
        )

    async def create_creator_batch(
        self,
        *,
        platform: Platform | None = None,
        handles: list[str] | None = None,
        creators: list[BatchCreator] | None = None,
        max_videos: int | None = None,
        include_videos: bool | None = None,
        include_outliers: bool | None = None,
        outlier_threshold: float | None = None,
        include_cross_platform: bool | None = None,
        include_audience: bool | None = None,
        include: list[Literal["videos", "outliers"]] | None = None,
        cross_links: bool | None = None,
    ) -> Envelope[BatchOut]:
        """Look up to 25 creators, as `handles` of one `platform` or as `creators` `[{platform,
        username}]` of any platforms: $0.50 each ($1.00 with `include_audience`); a creator looked
        up by the team in the last 6 hours is served from that run, free. One webhook per creator.

        **Price:** set by the request. §4.7: $0.50 per creator, up to $1.00 with audience data;
        cached repeats settle lower.
        """
        return await self._call(
            Call(
                "POST",
                "/v1/satellite/creators/batch",
                path_params={},
                query={},
                body={
                    "platform": platform,
                    "handles": handles,
                    "creators": creators,
                    "max_videos": max_videos,
                    "include_videos": include_videos,
                    "include_outliers": include_outliers,
                    "outlier_threshold": outlier_threshold,
                    "include_cross_platform": include_cross_platform,
                    "include_audience": include_audience,
                    "include": include,
                    "cross_links": cross_links,
                },
                idempotent=True,
            ),
            Envelope[BatchOut],
        )

    async def get_creator_batch(
        self,
        batch_id: str,
    ) -> Envelope[BatchOut]:
        """A batch: each creator's lookup, and `processing` until all are done, then `completed`,
        `partial_failure` or `failed`. Free.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/creators/batch/{batch_id}",
                path_params={"batch_id": batch_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[BatchOut],
        )

    async def create_video_outlier(
        self,
        *,
        platform: Platform | None = None,
        video_id: str | None = None,
        url: str | None = None,
        outlier_threshold: float | None = None,
    ) -> Envelope[LookupJob]:
        """How far one video sits above its creator's norm (`outlier_ratio` against the median views of
        their recent posts, `weighted_score`). The video is `video_id` with `platform`, or its
        `url`; a link that names no video of the three platforms, or one sent as `video_id`, is 400
        `invalid_parameter` and free. Not persisted: poll its status within 24 hours.

        **Price:** $0.50 (50 credits) per successful call.
        """
        return await self._call(
            Call(
                "POST",
                "/v1/satellite/video-outlier",
                path_params={},
                query={},
                body={
                    "platform": platform,
                    "video_id": video_id,
                    "url": url,
                    "outlier_threshold": outlier_threshold,
                },
                idempotent=True,
            ),
            Envelope[LookupJob],
        )

    async def get_video_outlier_status(
        self,
        job_id: str,
    ) -> Envelope[LookupJob]:
        """A video outlier job and its result; 404 once 24 hours have passed (the poll cache). Free.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/video-outlier/status/{job_id}",
                path_params={"job_id": job_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[LookupJob],
        )

    async def list_satellite_runs(
        self,
        *,
        offset: int | None = None,
        limit: int | None = None,
        type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup"] | None = None,
    ) -> Envelope[LookupRunList]:
        """The team's creator, sound and hashtag lookups, newest first; `offset` paging (`page` is a
        400), `limit` default 25, at most 100. Runs never expire.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/runs",
                path_params={},
                query={"offset": offset, "limit": limit, "type": type},
                body=None,
                idempotent=False,
            ),
            Envelope[LookupRunList],
        )

    def iter_satellite_runs(
        self,
        *,
        limit: int | None = None,
        type: Literal["creator_lookup", "sound_lookup", "hashtag_lookup"] | None = None,
    ) -> AsyncIterator[RunSummary]:
        """Every item of ``list_satellite_runs``, page after page (offset style, §8.3)."""

        async def page(**paging: Any) -> Envelope[LookupRunList]:
            return await self.list_satellite_runs(limit=limit, type=type, **paging)

        return aiterate(page, PageStyle("offset", "runs"))

    async def get_satellite_run(
        self,
        run_id: str,
    ) -> Envelope[RunDetail]:
        """One past lookup with its result (cached repeats and stalled lookups are read here, §6.3).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/runs/{run_id}",
                path_params={"run_id": run_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[RunDetail],
        )

    async def list_satellite_run_videos(
        self,
        run_id: str,
        *,
        offset: int | None = None,
        limit: int | None = None,
    ) -> Envelope[RunVideos]:
        """The videos of one past lookup; `offset` paging, `limit` default 25, at most 200 (400 above).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/satellite/runs/{run_id}/videos",
                path_params={"run_id": run_id},
                query={"offset": offset, "limit": limit},
                body=None,
                idempotent=False,
            ),
            Envelope[RunVideos],
        )

    def iter_satellite_run_videos(
        self,
        run_id: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_satellite_run_videos``, page after page (offset style, §8.3)."""

        async def page(**paging: Any) -> Envelope[RunVideos]:
            return await self.list_satellite_run_videos(run_id, limit=limit, **paging)

        return aiterate(page, PageStyle("offset", "videos"))

    async def list_tracked_creators(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        search: str | None = None,
        status: Literal["active", "paused"] | None = None,
        platform: Platform | None = None,
    ) -> Page[TrackedOut]:
        """The team's tracked creators, newest first; `search` matches the handle or display name.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators",
                path_params={},
                query={
                    "page": page,
                    "limit": limit,
                    "search": search,
                    "status": status,
                    "platform": platform,
                },
                body=None,
                idempotent=False,
            ),
            Page[TrackedOut],
        )

    def iter_tracked_creators(
        self,
        *,
        limit: int | None = None,
        search: str | None = None,
        status: Literal["active", "paused"] | None = None,
        platform: Platform | None = None,
    ) -> AsyncIterator[TrackedOut]:
        """Every item of ``list_tracked_creators``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[TrackedOut]:
            return await self.list_tracked_creators(
                limit=limit, search=search, status=status, platform=platform, **paging
            )

        return aiterate(page, PageStyle("pagination"))

    async def create_tracked_creator(
        self,
        *,
        platform: Platform | None = None,
        handle: str | None = None,
        url: str | None = None,
        cadence: Cadence | None = None,
        scrape_cadence: Cadence | None = None,
        collection_depth: Depth | None = None,
    ) -> Envelope[TrackedDetail]:
        """Track a creator ($0.25, which pays the first cycle, run at once). Later cycles run on
        `cadence` and cost $0.25 each; `tracking.cycle.completed` follows every cycle. 404 when the
        creator does not exist, 409 when the team already tracks them (neither billed).

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "POST",
                "/v1/tracking/creators",
                path_params={},
                query={},
                body={
                    "platform": platform,
                    "handle": handle,
                    "url": url,
                    "cadence": cadence,
                    "scrape_cadence": scrape_cadence,
                    "collection_depth": collection_depth,
                },
                idempotent=True,
            ),
            Envelope[TrackedDetail],
        )

    async def get_tracked_creator(
        self,
        id: str,
    ) -> Envelope[TrackedDetail]:
        """One tracked creator with its latest snapshot and its pending cycle and audience jobs (§2.6).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[TrackedDetail],
        )

    async def update_tracked_creator(
        self,
        id: str,
        *,
        status: Literal["active", "paused"] | None = None,
        cadence: Cadence | None = None,
        scrape_cadence: Cadence | None = None,
    ) -> Envelope[TrackedDetail]:
        """Change `cadence`, or `status`: `active` resumes a paused creator (§3), `paused` stops
        cycles.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "PATCH",
                "/v1/tracking/creators/{id}",
                path_params={"id": id},
                query={},
                body={"status": status, "cadence": cadence, "scrape_cadence": scrape_cadence},
                idempotent=True,
            ),
            Envelope[TrackedDetail],
        )

    async def delete_tracked_creator(
        self,
        id: str,
    ) -> NoContent:
        """Stop tracking a creator; its snapshots and posts are deleted with it.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "DELETE",
                "/v1/tracking/creators/{id}",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=True,
            ),
            NoContent,
        )

    async def get_tracked_creator_report(
        self,
        id: str,
    ) -> Envelope[ReportOut]:
        """The latest cycle's report: snapshot, median views, top and new posts, outliers found.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/report",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[ReportOut],
        )

    async def list_tracked_creator_snapshots(
        self,
        id: str,
        *,
        start_date: str | None = None,
        end_date: str | None = None,
        limit: int | None = None,
    ) -> Envelope[SnapshotList]:
        """Snapshots newest first, between `start_date` and `end_date` (UTC days, inclusive); `limit`
        default 30, at most 365 (400 above, §8.3).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/snapshots",
                path_params={"id": id},
                query={"start_date": start_date, "end_date": end_date, "limit": limit},
                body=None,
                idempotent=False,
            ),
            Envelope[SnapshotList],
        )

    async def list_tracked_creator_posts(
        self,
        id: str,
        *,
        page: int | None = None,
        limit: int | None = None,
        sort: Literal["recent", "views"] | None = None,
    ) -> Page[PostOut]:
        """The creator's posts seen by cycles and collections, newest first (or `sort=views`); `limit`
        default 50, at most 200 (400 above, §8.3).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/posts",
                path_params={"id": id},
                query={"page": page, "limit": limit, "sort": sort},
                body=None,
                idempotent=False,
            ),
            Page[PostOut],
        )

    def iter_tracked_creator_posts(
        self,
        id: str,
        *,
        limit: int | None = None,
        sort: Literal["recent", "views"] | None = None,
    ) -> AsyncIterator[PostOut]:
        """Every item of ``list_tracked_creator_posts``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[PostOut]:
            return await self.list_tracked_creator_posts(id, limit=limit, sort=sort, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def collect_creator_posts(
        self,
        id: str,
        *,
        depth: Depth | None = None,
    ) -> Envelope[CollectionOut]:
        """Collect the creator's latest posts: `depth` standard (50 videos, $0.50), deep (200, $1.00)
        or full (500, $2.00). Poll `poll_url`; a collection that fails for good is refunded.

        **Price:** set by the request. §4.7: standard 50 videos $0.50, deep 200 $1.00, full 500
        $2.00 (``depth`` in the body or query).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/tracking/creators/{id}/posts/collect",
                path_params={"id": id},
                query={},
                body={"depth": depth},
                idempotent=True,
            ),
            Envelope[CollectionOut],
        )

    async def get_creator_post_collection(
        self,
        id: str,
        collection_id: str,
    ) -> Envelope[CollectionOut]:
        """A post collection's status and counts (free).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/posts/collect/{collection_id}",
                path_params={"id": id, "collection_id": collection_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[CollectionOut],
        )

    async def get_tracked_creator_post(
        self,
        id: str,
        post_id: str,
    ) -> Envelope[PostOut]:
        """One post, by its id here or the platform's video id.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/posts/{post_id}",
                path_params={"id": id, "post_id": post_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[PostOut],
        )

    async def get_tracked_creator_posting_cadence(
        self,
        id: str,
    ) -> Envelope[Cadences]:
        """How often and when (UTC weekday and hour) the creator posts, over the posts seen:
        `posts_per_week` counts them over the time from the first of them to now, as creator lookups
        do.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/posting-cadence",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[Cadences],
        )

    async def list_tracked_videos(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        search: str | None = None,
        status: Literal["active", "paused"] | None = None,
        platform: Platform | None = None,
    ) -> Page[TrackedOut]:
        """The team's tracked videos, newest first; `search` matches the video id, title or creator.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/videos",
                path_params={},
                query={
                    "page": page,
                    "limit": limit,
                    "search": search,
                    "status": status,
                    "platform": platform,
                },
                body=None,
                idempotent=False,
            ),
            Page[TrackedOut],
        )

    def iter_tracked_videos(
        self,
        *,
        limit: int | None = None,
        search: str | None = None,
        status: Literal["active", "paused"] | None = None,
        platform: Platform | None = None,
    ) -> AsyncIterator[TrackedOut]:
        """Every item of ``list_tracked_videos``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[TrackedOut]:
            return await self.list_tracked_videos(
                limit=limit, search=search, status=status, platform=platform, **paging
            )

        return aiterate(page, PageStyle("pagination"))

    async def create_tracked_video(
        self,
        *,
        platform: Platform | None = None,
        video_id: str | None = None,
        url: str | None = None,
        cadence: Cadence | None = None,
        scrape_cadence: Cadence | None = None,
        tracking_account_id: str | None = None,
    ) -> Envelope[TrackedDetail]:
        """Track a video ($0.25, which pays the first cycle, run at once); later cycles $0.25 each.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "POST",
                "/v1/tracking/videos",
                path_params={},
                query={},
                body={
                    "platform": platform,
                    "video_id": video_id,
                    "url": url,
                    "cadence": cadence,
                    "scrape_cadence": scrape_cadence,
                    "tracking_account_id": tracking_account_id,
                },
                idempotent=True,
            ),
            Envelope[TrackedDetail],
        )

    async def get_tracked_video(
        self,
        id: str,
    ) -> Envelope[TrackedDetail]:
        """One tracked video with its latest snapshot and pending cycle (§2.6).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/videos/{id}",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[TrackedDetail],
        )

    async def update_tracked_video(
        self,
        id: str,
        *,
        status: Literal["active", "paused"] | None = None,
        cadence: Cadence | None = None,
        scrape_cadence: Cadence | None = None,
    ) -> Envelope[TrackedDetail]:
        """Change `cadence`, or `status` (`active` resumes a paused video, §3).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "PATCH",
                "/v1/tracking/videos/{id}",
                path_params={"id": id},
                query={},
                body={"status": status, "cadence": cadence, "scrape_cadence": scrape_cadence},
                idempotent=True,
            ),
            Envelope[TrackedDetail],
        )

    async def delete_tracked_video(
        self,
        id: str,
    ) -> NoContent:
        """Stop tracking a video; its snapshots are deleted with it.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "DELETE",
                "/v1/tracking/videos/{id}",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=True,
            ),
            NoContent,
        )

    async def create_creator_audience_refresh(
        self,
        id: str,
    ) -> Envelope[AudienceJobOut]:
        """Start an audience snapshot ($0.50): the creator's commenters sampled and their demographics
        and geography inferred. `audience.snapshot.completed` when ready; refunded when no audience
        data is found (`data_source: profile_only`) or the snapshot fails (which sends nothing).

        **Price:** $0.50 (50 credits) per successful call.
        """
        return await self._call(
            Call(
                "POST",
                "/v1/tracking/creators/{id}/audience-refresh",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=True,
            ),
            Envelope[AudienceJobOut],
        )

    async def get_creator_audience_refresh(
        self,
        id: str,
        job_id: str,
    ) -> Envelope[AudienceJobOut]:
        """An audience snapshot job of this creator: status, and the snapshot once completed (free).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/audience-refresh/{job_id}",
                path_params={"id": id, "job_id": job_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[AudienceJobOut],
        )

    async def get_creator_audience_demographics(
        self,
        id: str,
    ) -> Envelope[AudiencePart]:
        """Age brackets and genders of the latest audience snapshot, with pending audience jobs (§2.6).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/audience-demographics",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[AudiencePart],
        )

    async def get_creator_audience_geography(
        self,
        id: str,
    ) -> Envelope[AudiencePart]:
        """Countries, cities and languages of the latest audience snapshot, with pending audience jobs.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/tracking/creators/{id}/audience-geography",
                path_params={"id": id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[AudiencePart],
        )

    async def get_audience_snapshot(
        self,
        job_id: str,
    ) -> Envelope[AudienceJobOut]:
        """An audience job's status and, once completed, the snapshot: demographics (age bracket,
        gender), geography (country, city, language), `sample_size`, `confidence_per_signal`,
        `confidence_level`, `data_source`, `signal_breakdown`. 404 once 24 hours have passed since
        it completed.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/audience/snapshot/{job_id}",
                path_params={"job_id": job_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[AudienceJobOut],
        )

    async def list_agents(
        self,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
    ) -> Envelope[AgentList]:
        """The team's agents, newest first. `count` is the items on this page: stop at the first page
        shorter than `limit`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents",
                path_params={},
                query={"limit": limit, "page": page, "offset": offset},
                body=None,
                idempotent=False,
            ),
            Envelope[AgentList],
        )

    def iter_agents(
        self,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[AgentOut]:
        """Every item of ``list_agents``, page after page (short page style, §8.3)."""

        async def page(**paging: Any) -> Envelope[AgentList]:
            return await self.list_agents(limit=limit, **paging)

        return aiterate(page, PageStyle("short_page", "agents"))

    async def create_agent(
        self,
        *,
        keywords: list[str],
        name: str | None = None,
        is_recurring: bool | None = None,
        intent: str | None = None,
        exclude_keywords: list[str] | None = None,
        platforms: list[Platform] | None = None,
        meta_ads_enabled: bool | None = None,
        data_intelligence_enabled: bool | None = None,
        cadence: str | None = None,
        autopilot: bool | None = None,
        language: str | None = None,
    ) -> Envelope[AgentCreated]:
        """Create a one-shot or recurring agent and start its first run; returns the agent with the
        run's `job_id`. Poll `GET /v1/agents/{id}` until `finalized` is true, or subscribe to
        `content_research_agent.run.completed`.

        **Price:** set by the request. §4.4: one-shot $0.50 (+$1.00 with Data Intelligence);
        recurring is free to create, billed per run.
        """
        return await self._call(
            Call(
                "POST",
                "/v1/agents",
                path_params={},
                query={},
                body={
                    "name": name,
                    "is_recurring": is_recurring,
                    "intent": intent,
                    "keywords": keywords,
                    "exclude_keywords": exclude_keywords,
                    "platforms": platforms,
                    "meta_ads_enabled": meta_ads_enabled,
                    "data_intelligence_enabled": data_intelligence_enabled,
                    "cadence": cadence,
                    "autopilot": autopilot,
                    "language": language,
                },
                idempotent=True,
            ),
            Envelope[AgentCreated],
        )

    async def suggest_agent_keywords(
        self,
        *,
        intent: str | None = None,
        keywords: list[str] | None = None,
        exclude_keywords: list[str] | None = None,
        mode: SuggestMode | None = None,
    ) -> Envelope[KeywordSuggestion]:
        """Keywords for an agent from an intent (mode `create`, default), a refresh of current keywords
        (`refresh`) or rising adjacent keywords (`opportunity`), ranked by what the catalog holds
        for them over the last 30 days: volume, week-over-week growth and overlap with the seed
        terms. Free; creates nothing.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/agents/suggest-keywords",
                path_params={},
                query={},
                body={
                    "intent": intent,
                    "keywords": keywords,
                    "exclude_keywords": exclude_keywords,
                    "mode": mode,
                },
                idempotent=False,
            ),
            Envelope[KeywordSuggestion],
        )

    async def get_agent(
        self,
        agent_id: str,
    ) -> Envelope[AgentOut]:
        """The agent with its latest run's `status`, `finalized`, `pending_jobs` and `analysis_data`
        (§2.6).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[AgentOut],
        )

    async def update_agent(
        self,
        agent_id: str,
        *,
        name: str | None = None,
        intent: str | None = None,
        keywords: list[str] | None = None,
        exclude_keywords: list[str] | None = None,
        platforms: list[Platform] | None = None,
        meta_ads_enabled: bool | None = None,
        data_intelligence_enabled: bool | None = None,
        cadence: str | None = None,
        autopilot: bool | None = None,
        is_active: bool | None = None,
        language: str | None = None,
    ) -> Envelope[AgentOut]:
        """Change the configuration; sending `keywords` or `exclude_keywords` replaces the list.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "PUT",
                "/v1/agents/{agent_id}",
                path_params={"agent_id": agent_id},
                query={},
                body={
                    "name": name,
                    "intent": intent,
                    "keywords": keywords,
                    "exclude_keywords": exclude_keywords,
                    "platforms": platforms,
                    "meta_ads_enabled": meta_ads_enabled,
                    "data_intelligence_enabled": data_intelligence_enabled,
                    "cadence": cadence,
                    "autopilot": autopilot,
                    "is_active": is_active,
                    "language": language,
                },
                idempotent=True,
            ),
            Envelope[AgentOut],
        )

    async def delete_agent(
        self,
        agent_id: str,
    ) -> NoContent:
        """Delete the agent (its schedule stops); it is 404 afterwards.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "DELETE",
                "/v1/agents/{agent_id}",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=True,
            ),
            NoContent,
        )

    async def list_agent_videos(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
        min_views: int | None = None,
        platforms: list[Platform] | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        order_by: ItemOrder | None = None,
        sort: Sort | None = None,
        intent_match: bool | None = None,
    ) -> Envelope[VideoPage]:
        """The agent's videos with read-time filters; each carries `intelligence_status`. Stop at an
        empty page; `total` may be approximate.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/videos",
                path_params={"agent_id": agent_id},
                query={
                    "limit": limit,
                    "page": page,
                    "offset": offset,
                    "min_views": min_views,
                    "platforms": platforms,
                    "start_date": start_date,
                    "end_date": end_date,
                    "order_by": order_by,
                    "sort": sort,
                    "intent_match": intent_match,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[VideoPage],
        )

    def iter_agent_videos(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        min_views: int | None = None,
        platforms: list[Platform] | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        order_by: ItemOrder | None = None,
        sort: Sort | None = None,
        intent_match: bool | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_videos``, page after page (empty page style, §8.3)."""

        async def page(**paging: Any) -> Envelope[VideoPage]:
            return await self.list_agent_videos(
                agent_id,
                limit=limit,
                min_views=min_views,
                platforms=platforms,
                start_date=start_date,
                end_date=end_date,
                order_by=order_by,
                sort=sort,
                intent_match=intent_match,
                **paging,
            )

        return aiterate(page, PageStyle("empty_page", "videos"))

    async def list_agent_slideshows(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
        min_views: int | None = None,
        platforms: list[Platform] | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        order_by: ItemOrder | None = None,
        sort: Sort | None = None,
        intent_match: bool | None = None,
    ) -> Envelope[SlideshowPage]:
        """The agent's image carousels, with the same filters as videos.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/slideshows",
                path_params={"agent_id": agent_id},
                query={
                    "limit": limit,
                    "page": page,
                    "offset": offset,
                    "min_views": min_views,
                    "platforms": platforms,
                    "start_date": start_date,
                    "end_date": end_date,
                    "order_by": order_by,
                    "sort": sort,
                    "intent_match": intent_match,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[SlideshowPage],
        )

    def iter_agent_slideshows(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        min_views: int | None = None,
        platforms: list[Platform] | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
        order_by: ItemOrder | None = None,
        sort: Sort | None = None,
        intent_match: bool | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_slideshows``, page after page (empty page style, §8.3)."""

        async def page(**paging: Any) -> Envelope[SlideshowPage]:
            return await self.list_agent_slideshows(
                agent_id,
                limit=limit,
                min_views=min_views,
                platforms=platforms,
                start_date=start_date,
                end_date=end_date,
                order_by=order_by,
                sort=sort,
                intent_match=intent_match,
                **paging,
            )

        return aiterate(page, PageStyle("empty_page", "slideshows"))

    async def list_agent_ads(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
        order_by: AdOrder | None = None,
        sort: Sort | None = None,
    ) -> Envelope[AdPage]:
        """Ads from the ad library (agents with `meta_ads_enabled`); `order_by` created_at or
        page_like_count.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/ads",
                path_params={"agent_id": agent_id},
                query={"limit": limit, "page": page, "offset": offset, "order_by": order_by, "sort": sort},
                body=None,
                idempotent=False,
            ),
            Envelope[AdPage],
        )

    def iter_agent_ads(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        order_by: AdOrder | None = None,
        sort: Sort | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_ads``, page after page (empty page style, §8.3)."""

        async def page(**paging: Any) -> Envelope[AdPage]:
            return await self.list_agent_ads(agent_id, limit=limit, order_by=order_by, sort=sort, **paging)

        return aiterate(page, PageStyle("empty_page", "ads"))

    async def list_agent_creator_outliers(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
        order_by: OutlierOrder | None = None,
        sort: Sort | None = None,
        platform: Platform | None = None,
    ) -> Envelope[OutlierPage]:
        """Creators whose video here is at least 3x their median views: `outlier_ratio = views /
        median`, `weighted_score = ln(outlier_ratio) x ln(median_views)`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/creators/outliers",
                path_params={"agent_id": agent_id},
                query={
                    "limit": limit,
                    "page": page,
                    "offset": offset,
                    "order_by": order_by,
                    "sort": sort,
                    "platform": platform,
                },
                body=None,
                idempotent=False,
            ),
            Envelope[OutlierPage],
        )

    def iter_agent_creator_outliers(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        order_by: OutlierOrder | None = None,
        sort: Sort | None = None,
        platform: Platform | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_creator_outliers``, page after page (empty page style, §8.3)."""

        async def page(**paging: Any) -> Envelope[OutlierPage]:
            return await self.list_agent_creator_outliers(
                agent_id, limit=limit, order_by=order_by, sort=sort, platform=platform, **paging
            )

        return aiterate(page, PageStyle("empty_page", "creators"))

    async def list_agent_sounds(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
        sort: SoundOrder | None = None,
    ) -> Page[dict[str, Any]]:
        """Top sounds of the agent's videos, `sort` rising (default) or growth_7d; each row has a
        `lifecycle` label: emerging, rising, stable or declining.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/sounds",
                path_params={"agent_id": agent_id},
                query={"limit": limit, "page": page, "offset": offset, "sort": sort},
                body=None,
                idempotent=False,
            ),
            Page[dict[str, Any]],
        )

    def iter_agent_sounds(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        sort: SoundOrder | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_sounds``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[dict[str, Any]]:
            return await self.list_agent_sounds(agent_id, limit=limit, sort=sort, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def list_agent_hashtags(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
    ) -> Page[dict[str, Any]]:
        """Per-hashtag analytics of the agent's videos: counts, views, 7-day growth and top creators.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/hashtags",
                path_params={"agent_id": agent_id},
                query={"limit": limit, "page": page, "offset": offset},
                body=None,
                idempotent=False,
            ),
            Page[dict[str, Any]],
        )

    def iter_agent_hashtags(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_hashtags``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[dict[str, Any]]:
            return await self.list_agent_hashtags(agent_id, limit=limit, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def get_agent_benchmarks(
        self,
        agent_id: str,
    ) -> Envelope[Benchmarks]:
        """Genre norms by follower tier (nano < 10K, micro < 100K, mid < 1M, macro); not paged.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/benchmarks",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[Benchmarks],
        )

    async def get_agent_affinity(
        self,
        agent_id: str,
    ) -> Envelope[Affinity]:
        """Genre adjacency (beta): the genres of the agent's videos (non-generic hashtags and content
        categories) and the pairs that go together on the same videos or with the same creators,
        with strength (Ochiai, 0 to 1), lift and evidence counts; not paged.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/affinity",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[Affinity],
        )

    async def get_agent_similar_creators(
        self,
        agent_id: str,
        creator_id: str,
    ) -> Envelope[SimilarCreators]:
        """Similar creators (beta): the agent's creators ranked by likeness to `creator_id` (the id of
        the creator lists and the videos' `author_id`): text similarity of their captions and
        hashtags, shared sounds and audience-size tier, with the score and what they share; not
        paged. At most 25, and only creators who post a word, hashtag or sound in common: a shared
        tier alone lists nobody. A creator none of the agent's videos has is 404.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/creators/{creator_id}/similar",
                path_params={"agent_id": agent_id, "creator_id": creator_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[SimilarCreators],
        )

    async def get_latest_agent_analysis(
        self,
        agent_id: str,
    ) -> Envelope[dict[str, Any] | None]:
        """The latest run's AI analysis: `analysis_data` (key_highlight, overview, themes,
        viral_tactics, timing_analysis, connecting_thread, top_10_breakdown, excluded_videos),
        `trends`, `video_count`, `cost_usd`; `data` is null before the first analysis.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/analysis/latest",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[dict[str, Any] | None],
        )

    async def list_agent_analyses(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
    ) -> Page[dict[str, Any]]:
        """Every run's analysis, newest first.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/analysis",
                path_params={"agent_id": agent_id},
                query={"limit": limit, "page": page, "offset": offset},
                body=None,
                idempotent=False,
            ),
            Page[dict[str, Any]],
        )

    def iter_agent_analyses(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_analyses``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[dict[str, Any]]:
            return await self.list_agent_analyses(agent_id, limit=limit, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def get_latest_agent_trends(
        self,
        agent_id: str,
    ) -> Envelope[TrendBatch]:
        """The newest batch of themes, each with `stable_key`, `status` (new, rising, steady or fading
        against the batch before), evidence videos and engagement stats; empty before the first
        analysis.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/trends/latest",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[TrendBatch],
        )

    async def list_agent_trends(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
        stable_key: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
    ) -> Page[dict[str, Any]]:
        """Trend history, newest batch first; filter by `stable_key` and by batch end with `start_date`
        and `end_date`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/trends",
                path_params={"agent_id": agent_id},
                query={
                    "limit": limit,
                    "page": page,
                    "offset": offset,
                    "stable_key": stable_key,
                    "start_date": start_date,
                    "end_date": end_date,
                },
                body=None,
                idempotent=False,
            ),
            Page[dict[str, Any]],
        )

    def iter_agent_trends(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        stable_key: str | None = None,
        start_date: str | None = None,
        end_date: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``list_agent_trends``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[dict[str, Any]]:
            return await self.list_agent_trends(
                agent_id,
                limit=limit,
                stable_key=stable_key,
                start_date=start_date,
                end_date=end_date,
                **paging,
            )

        return aiterate(page, PageStyle("pagination"))

    async def get_agent_hooks(
        self,
        agent_id: str,
        *,
        page: int | None = None,
        limit: int | None = None,
        hook_type: str | None = None,
    ) -> AgentHookPage:
        """The hooks of the agent's videos, ranked by views, each video once, with `coverage` counts
        and an exact `pagination.total`. $0.25; free when the agent has Data Intelligence.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/hooks",
                path_params={"agent_id": agent_id},
                query={"page": page, "limit": limit, "hook_type": hook_type},
                body=None,
                idempotent=False,
            ),
            AgentHookPage,
        )

    def iter_agent_hooks(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        hook_type: str | None = None,
    ) -> AsyncIterator[dict[str, Any]]:
        """Every item of ``get_agent_hooks``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> AgentHookPage:
            return await self.get_agent_hooks(agent_id, limit=limit, hook_type=hook_type, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def list_agent_runs(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
        page: int | None = None,
        offset: int | None = None,
    ) -> Envelope[AgentRunList]:
        """The agent's runs, newest first; a run that did not start says why in `error`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/runs",
                path_params={"agent_id": agent_id},
                query={"limit": limit, "page": page, "offset": offset},
                body=None,
                idempotent=False,
            ),
            Envelope[AgentRunList],
        )

    def iter_agent_runs(
        self,
        agent_id: str,
        *,
        limit: int | None = None,
    ) -> AsyncIterator[RunOut]:
        """Every item of ``list_agent_runs``, page after page (short page style, §8.3)."""

        async def page(**paging: Any) -> Envelope[AgentRunList]:
            return await self.list_agent_runs(agent_id, limit=limit, **paging)

        return aiterate(page, PageStyle("short_page", "runs"))

    async def get_agent_run(
        self,
        agent_id: str,
        run_id: str,
    ) -> Envelope[RunOut]:
        """One run with its targets, metrics, `finalized` and `pending_jobs`.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/runs/{run_id}",
                path_params={"agent_id": agent_id, "run_id": run_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[RunOut],
        )

    async def get_agent_activity(
        self,
        agent_id: str,
    ) -> Envelope[ActivityList]:
        """The autopilot's decision log, newest first: what it changed or proposed after each run and
        for each breaking story (with the reason and evidence), what the user applied, dismissed or
        reverted, and autonomy changes. Recurring agents; a one-shot agent's log is empty. Not paged
        (newest 200).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/activity",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[ActivityList],
        )

    async def list_agent_events(
        self,
        agent_id: str,
    ) -> Envelope[EventList]:
        """Breaking stories detected between runs (news scan, corpus bursts), active ones (candidate,
        confirmed) first, then dismissed and expired; each with salience (0 to 10), keywords, the
        keywords the autopilot added and evidence. Not paged (newest 200).

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/events",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[EventList],
        )

    async def update_agent_autonomy(
        self,
        agent_id: str,
        *,
        autonomy_level: AutonomyLevel | None = None,
        cognition_enabled: bool | None = None,
        autopilot: bool | None = None,
    ) -> Envelope[AgentOut]:
        """Switch the autopilot (`autopilot`, or the deprecated `autonomy_level`: `autopilot` or
        `suggest`) and breaking-story detection (`cognition_enabled`). With the autopilot off the
        configuration stays exactly as sent and its changes become proposals. Returns the agent.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "PUT",
                "/v1/agents/{agent_id}/autonomy",
                path_params={"agent_id": agent_id},
                query={},
                body={
                    "autonomy_level": autonomy_level,
                    "cognition_enabled": cognition_enabled,
                    "autopilot": autopilot,
                },
                idempotent=True,
            ),
            Envelope[AgentOut],
        )

    async def list_agent_proposals(
        self,
        agent_id: str,
    ) -> Envelope[ProposalList]:
        """Deprecated. The autopilot's changes: open proposals (autopilot off) first, then those
        applied (by the autopilot or the user), dismissed, reverted or expired, newest first. Not
        paged.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "GET",
                "/v1/agents/{agent_id}/proposals",
                path_params={"agent_id": agent_id},
                query={},
                body=None,
                idempotent=False,
            ),
            Envelope[ProposalList],
        )

    async def apply_agent_proposal(
        self,
        agent_id: str,
        proposal_id: str,
    ) -> Envelope[ProposalOut]:
        """Deprecated. Make a proposed change (within the 15-keyword limit); 409 unless it is proposed
        or when its breaking story has ended.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/agents/{agent_id}/proposals/{proposal_id}/apply",
                path_params={"agent_id": agent_id, "proposal_id": proposal_id},
                query={},
                body=None,
                idempotent=True,
            ),
            Envelope[ProposalOut],
        )

    async def dismiss_agent_proposal(
        self,
        agent_id: str,
        proposal_id: str,
    ) -> Envelope[ProposalOut]:
        """Deprecated. Set a proposed change aside; the autopilot does not offer its keywords again.
        409 unless it is proposed.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/agents/{agent_id}/proposals/{proposal_id}/dismiss",
                path_params={"agent_id": agent_id, "proposal_id": proposal_id},
                query={},
                body=None,
                idempotent=True,
            ),
            Envelope[ProposalOut],
        )

    async def revert_agent_proposal(
        self,
        agent_id: str,
        proposal_id: str,
    ) -> Envelope[ProposalOut]:
        """Deprecated. Undo an applied change, whether the autopilot or the user made it; keywords the
        user has set since stay. The autopilot does not offer its keywords again. 409 unless it is
        applied.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call(
                "POST",
                "/v1/agents/{agent_id}/proposals/{proposal_id}/revert",
                path_params={"agent_id": agent_id, "proposal_id": proposal_id},
                query={},
                body=None,
                idempotent=True,
            ),
            Envelope[ProposalOut],
        )

    async def list_hook_types(
        self,
        *,
        sort: TypeSort | None = None,
    ) -> HookTypes:
        """The 17 hook types with how many catalog hooks each has, their `median_weighted_score` and
        `strong_hit_rate` (the share at 3x or more their creator's median views), by `sort`
        descending; `visual_hook_types` lists the 12 visual types. Free.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call("GET", "/v1/hooks/types", path_params={}, query={"sort": sort}, body=None, idempotent=False),
            HookTypes,
        )

    async def list_hook_categories(
        self,
    ) -> Envelope[list[CategoryOut]]:
        """The category vocabulary with how many catalog hooks each has, the most first. Free.

        **Price:** free (0 credits).
        """
        return await self._call(
            Call("GET", "/v1/hooks/categories", path_params={}, query={}, body=None, idempotent=False),
            Envelope[list[CategoryOut]],
        )

    async def list_trending_hooks(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        platform: Platform | None = None,
        category: str | None = None,
        hook_type: Literal[
            "question",
            "bold_claim",
            "tutorial_promise",
            "pov_setup",
            "curiosity_gap",
            "secret_reveal",
            "mistake_warning",
            "listicle",
            "experiment",
            "personal_story",
            "direct_address",
            "review",
            "comparison",
            "statistic",
            "transformation",
            "relatable",
            "statement",
        ]
        | None = None,
        visual_hook_type: Literal[
            "text_hook",
            "person_speaking_to_camera",
            "voiceover",
            "reaction",
            "duet_split_screen",
            "stitch_reply",
            "green_screen",
            "before_after",
            "demonstration",
            "product_showcase",
            "skit",
            "asmr",
        ]
        | None = None,
        language: str | None = None,
        min_views: int | None = None,
        window: Window | None = None,
    ) -> Page[HookOut]:
        """Hooks of catalog videos posted in the last `window` days (7, 14 or 30), the highest weighted
        score first, filtered by platform, category, hook_type, visual_hook_type, language and
        min_views. The top 1,000 are served.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/hooks/trending",
                path_params={},
                query={
                    "page": page,
                    "limit": limit,
                    "platform": platform,
                    "category": category,
                    "hook_type": hook_type,
                    "visual_hook_type": visual_hook_type,
                    "language": language,
                    "min_views": min_views,
                    "window": window,
                },
                body=None,
                idempotent=False,
            ),
            Page[HookOut],
        )

    def iter_trending_hooks(
        self,
        *,
        limit: int | None = None,
        platform: Platform | None = None,
        category: str | None = None,
        hook_type: Literal[
            "question",
            "bold_claim",
            "tutorial_promise",
            "pov_setup",
            "curiosity_gap",
            "secret_reveal",
            "mistake_warning",
            "listicle",
            "experiment",
            "personal_story",
            "direct_address",
            "review",
            "comparison",
            "statistic",
            "transformation",
            "relatable",
            "statement",
        ]
        | None = None,
        visual_hook_type: Literal[
            "text_hook",
            "person_speaking_to_camera",
            "voiceover",
            "reaction",
            "duet_split_screen",
            "stitch_reply",
            "green_screen",
            "before_after",
            "demonstration",
            "product_showcase",
            "skit",
            "asmr",
        ]
        | None = None,
        language: str | None = None,
        min_views: int | None = None,
        window: Window | None = None,
    ) -> AsyncIterator[HookOut]:
        """Every item of ``list_trending_hooks``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[HookOut]:
            return await self.list_trending_hooks(
                limit=limit,
                platform=platform,
                category=category,
                hook_type=hook_type,
                visual_hook_type=visual_hook_type,
                language=language,
                min_views=min_views,
                window=window,
                **paging,
            )

        return aiterate(page, PageStyle("pagination"))

    async def search_hooks(
        self,
        *,
        q: str,
        page: int | None = None,
        limit: int | None = None,
    ) -> Page[HookMatch]:
        """Hooks holding the words of `q` as whole words (punctuation, emoji, line breaks and case
        ignored), in tiers by `match_type`: `exact` (the hook is `q`), `contains` (the words of `q`
        in a row), `similar` (its words of 3+ characters anywhere); the best scored first in each
        tier. One row per distinct hook: videos opening with the same words are one row, the best
        scored of them, and `usage_count` says how many there are. The top 1,000 are served.

        **Price:** $0.25 (25 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/hooks/search",
                path_params={},
                query={"page": page, "limit": limit, "q": q},
                body=None,
                idempotent=False,
            ),
            Page[HookMatch],
        )

    def iter_search_hooks(
        self,
        *,
        limit: int | None = None,
        q: str,
    ) -> AsyncIterator[HookMatch]:
        """Every item of ``search_hooks``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[HookMatch]:
            return await self.search_hooks(limit=limit, q=q, **paging)

        return aiterate(page, PageStyle("pagination"))

    async def get_hook_library(
        self,
        *,
        page: int | None = None,
        limit: int | None = None,
        platform: Platform | None = None,
        category: str | None = None,
        hook_type: Literal[
            "question",
            "bold_claim",
            "tutorial_promise",
            "pov_setup",
            "curiosity_gap",
            "secret_reveal",
            "mistake_warning",
            "listicle",
            "experiment",
            "personal_story",
            "direct_address",
            "review",
            "comparison",
            "statistic",
            "transformation",
            "relatable",
            "statement",
        ]
        | None = None,
        visual_hook_type: Literal[
            "text_hook",
            "person_speaking_to_camera",
            "voiceover",
            "reaction",
            "duet_split_screen",
            "stitch_reply",
            "green_screen",
            "before_after",
            "demonstration",
            "product_showcase",
            "skit",
            "asmr",
        ]
        | None = None,
        language: str | None = None,
        min_views: int | None = None,
        sort: LibrarySort | None = None,
    ) -> Page[LibraryHook]:
        """Distinct hooks (one per wording and type) with how many catalog videos use them, by
        `usage_count` (default) or best `weighted_score`, with the trending filters. With two of
        platform, category, language and visual_hook_type, or min_views, a query that runs too long
        is a 503.

        **Price:** $0.10 (10 credits) per successful call.
        """
        return await self._call(
            Call(
                "GET",
                "/v1/hooks/library",
                path_params={},
                query={
                    "page": page,
                    "limit": limit,
                    "platform": platform,
                    "category": category,
                    "hook_type": hook_type,
                    "visual_hook_type": visual_hook_type,
                    "language": language,
                    "min_views": min_views,
                    "sort": sort,
                },
                body=None,
                idempotent=False,
            ),
            Page[LibraryHook],
        )

    def iter_hook_library(
        self,
        *,
        limit: int | None = None,
        platform: Platform | None = None,
        category: str | None = None,
        hook_type: Literal[
            "question",
            "bold_claim",
            "tutorial_promise",
            "pov_setup",
            "curiosity_gap",
            "secret_reveal",
            "mistake_warning",
            "listicle",
            "experiment",
            "personal_story",
            "direct_address",
            "review",
            "comparison",
            "statistic",
            "transformation",
            "relatable",
            "statement",
        ]
        | None = None,
        visual_hook_type: Literal[
            "text_hook",
            "person_speaking_to_camera",
            "voiceover",
            "reaction",
            "duet_split_screen",
            "stitch_reply",
            "green_screen",
            "before_after",
            "demonstration",
            "product_showcase",
            "skit",
            "asmr",
        ]
        | None = None,
        language: str | None = None,
        min_views: int | None = None,
        sort: LibrarySort | None = None,
    ) -> AsyncIterator[LibraryHook]:
        """Every item of ``get_hook_library``, page after page (pagination style, §8.3)."""

        async def page(**paging: Any) -> Page[LibraryHook]:
            return await self.get_hook_library(
                limit=limit,
                platform=platform,
                category=category,
                hook_type=hook_type,
                visual_hook_type=visual_hook_type,
                language=language,
                min_views=min_views,
                sort=sort,
                **paging,
            )

        return aiterate(page, PageStyle("pagination"))

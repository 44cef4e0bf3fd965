"""The pricing table: every operation of spec §4 and §8.2, in credits (1 credit = $0.01).

Keys are operation ids (the endpoint function names). A family adds its route here when it is built;
``tests/billing/test_prices.py`` fails if a /v1 route has no entry. Free operations are listed at 0.
A price is *quoted* from the request before any work (the 402 check); a handler may settle on a lower
final amount where the spec makes the price depend on state (``resolve=true`` only on a fresh
resolution, hooks free with Data Intelligence, cached lookup repeats).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import TypeAdapter, ValidationError

Params = Mapping[str, str]
Body = Mapping[str, Any] | None


@dataclass(frozen=True)
class Price:
    base: int
    extra: Callable[[Params, Body], int] | None = None

    def quote(self, params: Params, body: Body) -> int:
        return self.base + (self.extra(params, body) if self.extra else 0)


_BOOL = TypeAdapter(bool)


def _truthy(value: Any) -> bool:
    """The request's own validation decides what counts as true (lax Pydantic: "on", "t", 1, "true"…);
    the quote reads flags the same way, so an enabled option is never quoted at the base price."""
    if value is None:
        return False
    try:
        return _BOOL.validate_python(value)
    except ValidationError:
        return False  # the request itself will be refused with 400


def _flag(params: Params, name: str) -> bool:
    return _truthy(params.get(name))


def _body_flag(body: Body, name: str) -> bool:
    return _truthy(body.get(name)) if body else False


def _trend_analysis(params: Params, _body: Body) -> int:
    return 50 if _flag(params, "trend_analysis") else 0


def _hashtag_lookup(params: Params, _body: Body) -> int:
    """§4.7: +$0.50 trend_analysis; deep +$0.50 (waived with trend_analysis); full +$1.50."""
    trend = _flag(params, "trend_analysis")
    depth = params.get("depth", "standard")
    extra = 50 if trend else 0
    if depth == "deep" and not trend:
        extra += 50
    elif depth == "full":
        extra += 150
    return extra


def _agent_create(_params: Params, body: Body) -> int:
    """§4.4: one-shot $0.50 (+$1.00 with Data Intelligence); recurring is free to create, billed per run."""
    if _body_flag(body, "is_recurring"):
        return 0
    return 50 + (100 if _body_flag(body, "data_intelligence_enabled") else 0)


def _legacy_orbit_create(_params: Params, body: Body) -> int:
    """§4.5: $0.50, $1.50 with data_intelligence_enabled."""
    return 50 + (100 if _body_flag(body, "data_intelligence_enabled") else 0)


BATCH_MAX_HANDLES = 25  # §8.3


def _creator_batch(_params: Params, body: Body) -> int:
    """§4.7: $0.50 per creator, up to $1.00 with audience data; cached repeats settle lower."""
    # `handles` of one platform, or `creators` [{platform, username}] (issue 28): the same price
    listed = [body.get(name) for name in ("handles", "creators")] if body else []
    count = sum(len(names) for names in listed if isinstance(names, list))
    if count > BATCH_MAX_HANDLES:
        return 0  # §4.7: refused with 400 before billing, so never a 402 for an impossible quote
    per_creator = 100 if _body_flag(body, "include_audience") else 50
    return count * per_creator


def _post_collection(params: Params, body: Body) -> int:
    """§4.7: standard 50 videos $0.50, deep 200 $1.00, full 500 $2.00 (``depth`` in the body or query)."""
    depth = body.get("depth") if body else None
    depth = depth if depth is not None else params.get("depth", "standard")
    return {"deep": 100, "full": 200}.get(str(depth), 50)


def _sound_resolve(params: Params, _body: Body) -> int:
    """§4.7: resolve=true adds $0.10 on a fresh resolution (the handler settles lower on a cached one)."""
    return 10 if _flag(params, "resolve") else 0


FREE = Price(0)

# §4.4 agents, with their autopilot reads and the deprecated proposals (still served)
AGENT_PRICES: dict[str, Price] = {
    "create_agent": Price(0, _agent_create),
    "suggest_agent_keywords": FREE,
    "get_agent_hooks": Price(25),
    "list_agents": FREE,
    "get_agent": FREE,
    "update_agent": FREE,
    "delete_agent": FREE,
    "list_agent_videos": FREE,
    "list_agent_slideshows": FREE,
    "list_agent_ads": FREE,
    "list_agent_creator_outliers": FREE,
    "list_agent_sounds": FREE,
    "list_agent_hashtags": FREE,
    "get_agent_benchmarks": FREE,
    "get_agent_affinity": FREE,
    "get_agent_similar_creators": FREE,
    "list_agent_runs": FREE,
    "get_agent_run": FREE,
    "get_latest_agent_analysis": FREE,
    "list_agent_analyses": FREE,
    "get_latest_agent_trends": FREE,
    "list_agent_trends": FREE,
    "get_agent_activity": FREE,
    "list_agent_events": FREE,
    "update_agent_autonomy": FREE,
    "list_agent_proposals": FREE,
    "apply_agent_proposal": FREE,
    "dismiss_agent_proposal": FREE,
    "revert_agent_proposal": FREE,
}
LEGACY_KINDS = ("orbit", "comet")


def legacy_operation(operation: str, kind: str) -> str:
    """An agent operation under a legacy prefix (§4.5): ``list_agent_videos`` → ``list_orbit_videos``,
    ``list_agents`` → ``list_comets`` (agent/legacy.py names its routes so)."""
    if "agent" not in operation:
        raise ValueError(f"{operation!r} is not an agent operation")
    return operation.replace("agent", kind, 1)


# §4.5: every agent operation costs under the legacy prefixes what it costs under /v1/agents, but the
# creates: an orbit is a one-shot agent, a comet a recurring one
LEGACY_PRICES: dict[str, Price] = {
    **{
        legacy_operation(operation, kind): price
        for operation, price in AGENT_PRICES.items()
        if operation not in ("create_agent", "suggest_agent_keywords")
        for kind in LEGACY_KINDS
    },
    "create_orbit": Price(0, _legacy_orbit_create),
    "create_comet": FREE,
    "list_orbits_alias": FREE,
    "list_comets_alias": FREE,
}
JOB_PRICE_AUDIENCE = 50  # JOB_PRICES["audience_snapshot"], also what create_creator_audience_refresh charges

PRICES: dict[str, Price] = {
    # account
    "get_account_balance": FREE,
    "get_account_collectors": FREE,
    # §4.1 digests
    "get_videos_digest": Price(25),
    "get_platform_videos_digest": Price(25),
    # §4.2 hashtags
    "list_hashtags": Price(5),
    "list_platform_hashtags": Price(5),
    "get_hashtag_performance": Price(5),
    # §4.3 trends
    "list_trend_regions": FREE,
    "list_trends": Price(25),
    "get_trends_digest": Price(25),
    "list_emerging_trends": Price(25),
    **AGENT_PRICES,
    **LEGACY_PRICES,
    # §4.7 satellite lookups
    "lookup_creator": Price(50, _trend_analysis),
    "create_creator_batch": Price(0, _creator_batch),
    "create_video_outlier": Price(50),
    "lookup_sound": Price(50, _trend_analysis),
    "lookup_hashtag": Price(50, _hashtag_lookup),
    "get_creator_lookup_status": FREE,
    "get_creator_batch": FREE,
    "get_video_outlier_status": FREE,
    "get_sound_lookup_status": FREE,
    "get_hashtag_lookup_status": FREE,
    "list_satellite_runs": FREE,
    "get_satellite_run": FREE,
    "list_satellite_run_videos": FREE,
    # §4.7 tracking
    "create_tracked_creator": Price(25),
    "create_tracked_video": Price(25),
    "collect_creator_posts": Price(0, _post_collection),
    "list_tracked_creators": FREE,
    "get_tracked_creator": FREE,
    "update_tracked_creator": FREE,
    "delete_tracked_creator": FREE,
    "get_tracked_creator_report": FREE,
    "list_tracked_creator_snapshots": FREE,
    "list_tracked_creator_posts": FREE,
    "get_tracked_creator_post": FREE,
    "get_tracked_creator_posting_cadence": FREE,
    "get_creator_post_collection": FREE,
    "list_tracked_videos": FREE,
    "get_tracked_video": FREE,
    "update_tracked_video": FREE,
    "delete_tracked_video": FREE,
    # §4.7 audience: a snapshot is $0.50 (the job price), refunded for profile_only or a failure
    "create_creator_audience_refresh": Price(JOB_PRICE_AUDIENCE),
    "get_creator_audience_refresh": FREE,
    "get_creator_audience_demographics": FREE,
    "get_creator_audience_geography": FREE,
    "get_audience_snapshot": FREE,
    # §4.7 sounds
    "get_sound": Price(5, _sound_resolve),
    "get_sound_usage_history": Price(5),
    "search_sounds": Price(10),
    "list_trending_sounds": Price(25),
    "list_breakout_sounds": Price(25),
    "list_sound_videos": Price(25),
    "list_creator_sounds": Price(25),
    # §4.7 hooks
    "list_hook_types": FREE,
    "list_hook_categories": FREE,
    "list_trending_hooks": Price(25),
    "search_hooks": Price(25),
    "get_hook_library": Price(10),
    # §4.6 webhooks
    "create_webhook": FREE,
    "list_webhooks": FREE,
    "get_webhook": FREE,
    "update_webhook": FREE,
    "delete_webhook": FREE,
    "enable_webhook": FREE,
    "retry_webhook_delivery": FREE,
    "send_webhook_test": FREE,
    "list_webhook_deliveries": FREE,
}

# Work billed outside a request (ARCHITECTURE §3): debited by the job that does it.
JOB_PRICES: dict[str, int] = {
    "agent_scheduled_run": 50,
    "agent_data_intelligence_run": 100,
    "tracking_cycle": 25,
    "audience_snapshot": JOB_PRICE_AUDIENCE,
}


def price_of(operation: str) -> Price:
    """The price of a /v1 operation. Every /v1 route has an entry (a test checks), free ones at 0."""
    return PRICES[operation]

"""The pricing table against spec §4 and §8.2 (issue 3, deliverable 1).

``SPEC_PRICES`` is the spec's endpoint tables, keyed by method and path (which the spec fixes), with the
credits each request should be quoted. A route that the app registers is checked through its operation
id; a priced operation is also checked under the id the table uses for it before its family exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi import FastAPI

from reelscope.billing.prices import FREE, JOB_PRICES, PRICES
from reelscope.main import create_app
from reelscope.runtime import Runtime


@dataclass(frozen=True)
class SpecPrice:
    method: str
    path: str
    credits: int
    operation: str | None = None  # the table's id for a priced operation whose family may not exist yet
    params: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None


P = SpecPrice
TREND = {"trend_analysis": "true"}
DEEP = {"depth": "deep"}
DI = {"data_intelligence_enabled": True}
# §4.4 the free routes of one agent (its hooks are $0.25)
ONE_AGENT_FREE = [
    ("GET", "/{id}"),
    ("PUT", "/{id}"),
    ("DELETE", "/{id}"),
    ("GET", "/{id}/videos"),
    ("GET", "/{id}/slideshows"),
    ("GET", "/{id}/ads"),
    ("GET", "/{id}/creators/outliers"),
    ("GET", "/{id}/sounds"),
    ("GET", "/{id}/hashtags"),
    ("GET", "/{id}/benchmarks"),
    ("GET", "/{id}/affinity"),
    ("GET", "/{id}/creators/{creator_id}/similar"),
    ("GET", "/{id}/analysis/latest"),
    ("GET", "/{id}/analysis"),
    ("GET", "/{id}/trends/latest"),
    ("GET", "/{id}/trends"),
    ("GET", "/{id}/runs"),
    ("GET", "/{id}/runs/{run_id}"),
    ("GET", "/{id}/activity"),
    ("GET", "/{id}/events"),
    ("GET", "/{id}/proposals"),
    ("POST", "/{id}/proposals/{proposal_id}/apply"),
    ("POST", "/{id}/proposals/{proposal_id}/dismiss"),
    ("POST", "/{id}/proposals/{proposal_id}/revert"),
    ("PUT", "/{id}/autonomy"),
]
SPEC_PRICES: list[SpecPrice] = [
    # §4.1 digests $0.25
    P("GET", "/v1/videos/digest", 25, "get_videos_digest"),
    P("GET", "/v1/{platform}/videos/digest", 25, "get_platform_videos_digest"),
    # §4.2 hashtags $0.05
    P("GET", "/v1/hashtags", 5, "list_hashtags"),
    P("GET", "/v1/{platform}/hashtags", 5, "list_platform_hashtags"),
    P("GET", "/v1/hashtags/{hashtag}/performance", 5, "get_hashtag_performance"),
    # §4.3 trends
    P("GET", "/v1/trends/regions", 0, "list_trend_regions"),
    P("GET", "/v1/trends", 25, "list_trends"),
    P("GET", "/v1/trends/digest", 25, "get_trends_digest"),
    P("GET", "/v1/trends/emerging", 25, "list_emerging_trends"),
    # §4.4 agents: one-shot $0.50, +$1.00 with Data Intelligence; recurring free to create
    P("POST", "/v1/agents", 50, "create_agent", body={"is_recurring": False}),
    P("POST", "/v1/agents", 50, "create_agent", body={}),
    P("POST", "/v1/agents", 150, "create_agent", body={"data_intelligence_enabled": True}),
    P("POST", "/v1/agents", 0, "create_agent", body={"is_recurring": True}),
    P(
        "POST",
        "/v1/agents",
        0,
        "create_agent",
        body={"is_recurring": True, "data_intelligence_enabled": True},
    ),
    P("POST", "/v1/agents/suggest-keywords", 0, "suggest_agent_keywords"),
    P("GET", "/v1/agents/{id}/hooks", 25, "get_agent_hooks"),  # settles at 0 with Data Intelligence
    *(P(method, "/v1/agents" + sub, 0) for method, sub in [("GET", ""), *ONE_AGENT_FREE]),
    # §4.5 legacy: orbit $0.50, $1.50 with Data Intelligence; comet (recurring) free to create; every
    # route of one agent under both prefixes at the agent's price (issue 28)
    P("POST", "/v1/orbit", 50, "create_orbit", body={}),
    P("POST", "/v1/orbit", 150, "create_orbit", body={"data_intelligence_enabled": True}),
    P("POST", "/v1/comet", 0, "create_comet", body={"data_intelligence_enabled": True}),
    *(
        P(method, f"/v1/{legacy}" + sub, 0)
        for legacy in ("orbit", "comet")
        for method, sub in [("GET", ""), ("GET", "/list"), *ONE_AGENT_FREE]
    ),
    *(P("GET", f"/v1/{legacy}/{{id}}/hooks", 25, f"get_{legacy}_hooks") for legacy in ("orbit", "comet")),
    # §4.6 webhooks: free
    P("POST", "/v1/webhooks", 0),
    P("GET", "/v1/webhooks", 0),
    P("GET", "/v1/webhooks/{id}/deliveries", 0),
    # §4.7 account
    P("GET", "/v1/account/balance", 0, "get_account_balance"),
    # §4.7 creator lookup $0.50, +$0.50 with trend_analysis
    P("GET", "/v1/satellite/creator/{platform}/{username}", 50, "lookup_creator"),
    P("GET", "/v1/satellite/creator/{platform}/{username}", 100, "lookup_creator", TREND),
    P("GET", "/v1/satellite/creator/status/{job_id}", 0),
    # batch: $0.50 per creator, $1.00 with audience data
    P("POST", "/v1/satellite/creators/batch", 150, "create_creator_batch", body={"handles": ["a", "b", "c"]}),
    P(
        "POST",
        "/v1/satellite/creators/batch",
        100,
        "create_creator_batch",
        body={
            "creators": [{"platform": "tiktok", "username": "a"}, {"platform": "youtube", "username": "b"}]
        },
    ),
    P(
        "POST",
        "/v1/satellite/creators/batch",
        200,
        "create_creator_batch",
        body={"handles": ["a", "b"], "include_audience": True},
    ),
    P("GET", "/v1/satellite/creators/batch/{batch_id}", 0),
    P("POST", "/v1/satellite/video-outlier", 50, "create_video_outlier"),
    P("GET", "/v1/satellite/video-outlier/status/{job_id}", 0),
    P("GET", "/v1/satellite/sounds/{platform}/{music_id}", 50, "lookup_sound"),
    P("GET", "/v1/satellite/sounds/{platform}/{music_id}", 100, "lookup_sound", {"trend_analysis": "true"}),
    P("GET", "/v1/satellite/sounds/status/{job_id}", 0),
    # hashtag lookup: +$0.50 trend_analysis; deep +$0.50 (waived with trend_analysis); full +$1.50
    P("GET", "/v1/satellite/hashtags/{platform}/{hashtag}", 50, "lookup_hashtag"),
    P("GET", "/v1/satellite/hashtags/{platform}/{hashtag}", 50, "lookup_hashtag", {"depth": "standard"}),
    P("GET", "/v1/satellite/hashtags/{platform}/{hashtag}", 100, "lookup_hashtag", TREND),
    P("GET", "/v1/satellite/hashtags/{platform}/{hashtag}", 100, "lookup_hashtag", {"depth": "deep"}),
    P(
        "GET",
        "/v1/satellite/hashtags/{platform}/{hashtag}",
        100,
        "lookup_hashtag",
        {"depth": "deep", "trend_analysis": "true"},
    ),
    P("GET", "/v1/satellite/hashtags/{platform}/{hashtag}", 200, "lookup_hashtag", {"depth": "full"}),
    P(
        "GET",
        "/v1/satellite/hashtags/{platform}/{hashtag}",
        250,
        "lookup_hashtag",
        {"depth": "full", "trend_analysis": "true"},
    ),
    P("GET", "/v1/satellite/hashtags/status/{job_id}", 0),
    P("GET", "/v1/satellite/runs", 0),
    P("GET", "/v1/satellite/runs/{run_id}", 0),
    P("GET", "/v1/satellite/runs/{run_id}/videos", 0),
    # tracking $0.25 to create; reads and changes free; deep post collection 50/100/200
    P("POST", "/v1/tracking/creators", 25, "create_tracked_creator"),
    P("POST", "/v1/tracking/videos", 25, "create_tracked_video"),
    *(
        P(method, f"/v1/tracking/{kind}" + sub, 0)
        for kind in ("creators", "videos")
        for method, sub in [("GET", ""), ("GET", "/{id}"), ("PATCH", "/{id}"), ("DELETE", "/{id}")]
    ),
    *(
        P("GET", "/v1/tracking/creators/{id}" + sub, 0)
        for sub in [
            "/report",
            "/snapshots",
            "/posts",
            "/posts/{post_id}",
            "/posting-cadence",
            "/audience-demographics",
            "/audience-geography",
            "/audience-refresh/{job_id}",
            "/posts/collect/{collection_id}",
        ]
    ),
    P("POST", "/v1/tracking/creators/{id}/posts/collect", 50, "collect_creator_posts", body={}),
    P("POST", "/v1/tracking/creators/{id}/posts/collect", 50, "collect_creator_posts", {"depth": "standard"}),
    P("POST", "/v1/tracking/creators/{id}/posts/collect", 100, "collect_creator_posts", body=DEEP),
    P("POST", "/v1/tracking/creators/{id}/posts/collect", 200, "collect_creator_posts", {"depth": "full"}),
    P("GET", "/v1/audience/snapshot/{job_id}", 0),
    # sounds: details $0.05 (+$0.10 resolve=true on a fresh resolution), search $0.10, lists $0.25
    P("GET", "/v1/sounds/{sound_id}", 5, "get_sound"),
    P("GET", "/v1/sounds/{sound_id}", 15, "get_sound", {"resolve": "true"}),
    P("GET", "/v1/sounds/{sound_id}/usage-history", 5, "get_sound_usage_history"),
    P("GET", "/v1/sounds/search", 10, "search_sounds", {"q": "x"}),
    P("GET", "/v1/sounds/trending", 25, "list_trending_sounds"),
    P("GET", "/v1/sounds/breakout", 25, "list_breakout_sounds"),
    P("GET", "/v1/sounds/{sound_id}/videos", 25, "list_sound_videos"),
    P("GET", "/v1/sounds/by-creator/{platform}/{handle}", 25, "list_creator_sounds"),
    # hooks: types and categories free, trending and search $0.25, library $0.10
    P("GET", "/v1/hooks/types", 0, "list_hook_types"),
    P("GET", "/v1/hooks/categories", 0, "list_hook_categories"),
    P("GET", "/v1/hooks/trending", 25, "list_trending_hooks"),
    P("GET", "/v1/hooks/search", 25, "search_hooks", {"q": "hook"}),
    P("GET", "/v1/hooks/library", 10, "get_hook_library"),
]


def shape(path: str) -> str:
    """A path with its parameter names erased, so /{id} and /{agent_id} compare equal."""
    return re.sub(r"\{[^}]+\}", "{}", path)


@pytest.fixture
def app(runtime: Runtime) -> FastAPI:
    return create_app(runtime=runtime)


def v1_operations(app: FastAPI) -> dict[tuple[str, str], str]:
    """(method, path shape) → operation id of every /v1 route (the OpenAPI operationId is the route name).

    Read from the OpenAPI document: FastAPI includes routers lazily, so ``app.routes`` is not flat.
    """
    paths: dict[str, dict[str, Any]] = app.openapi()["paths"]
    return {
        (method.upper(), shape(path)): operation["operationId"]
        for path, item in paths.items()
        if path.startswith("/v1")
        for method, operation in item.items()
    }


class TestCoverage:
    def test_every_v1_route_has_an_explicit_price(self, app: FastAPI) -> None:
        operations = v1_operations(app)
        assert operations, "the app registers no /v1 route"
        assert sorted(op for op in operations.values() if op not in PRICES) == []

    def test_registered_routes_are_quoted_as_the_spec_says(self, app: FastAPI) -> None:
        """Every spec operation the app serves, at the spec's price for the given parameters."""
        by_route = v1_operations(app)
        checked = 0
        for spec in SPEC_PRICES:
            operation = by_route.get((spec.method, shape(spec.path)))
            if operation is None:
                continue
            checked += 1
            quoted = PRICES[operation].quote(spec.params, spec.body)
            assert quoted == spec.credits, (spec, operation)
        assert checked >= 1

    def test_priced_operations_are_in_the_table_before_their_family_exists(self) -> None:
        """A family only adds its route: the price of every paid §4 operation is already set."""
        for spec in SPEC_PRICES:
            if spec.operation is None:
                continue
            quoted = PRICES[spec.operation].quote(spec.params, spec.body)
            assert quoted == spec.credits, f"{spec.operation} {spec.params} {spec.body}"

    def test_no_paid_spec_operation_lacks_an_operation_id(self) -> None:
        assert [f"{s.method} {s.path}" for s in SPEC_PRICES if s.credits and s.operation is None] == []


class TestSpotChecks:
    """§8.2's summary line by line."""

    def test_summary_prices(self) -> None:
        assert PRICES["get_videos_digest"].quote({}, None) == 25
        assert PRICES["list_trends"].quote({}, None) == 25
        assert PRICES["list_emerging_trends"].quote({}, None) == 25
        assert PRICES["list_hashtags"].quote({}, None) == 5
        assert PRICES["create_agent"].quote({}, {"name": "x"}) == 50
        assert PRICES["create_agent"].quote({}, {"data_intelligence_enabled": True}) == 150
        assert PRICES["create_tracked_creator"].quote({}, None) == 25
        assert PRICES["lookup_creator"].quote({}, None) == 50
        assert PRICES["search_sounds"].quote({}, None) == 10
        assert PRICES["get_hook_library"].quote({}, None) == 10

    def test_work_billed_outside_a_request(self) -> None:
        """Recurring runs $0.50 (+$1.00 Data Intelligence), tracking cycles $0.25, audience $0.50."""
        assert JOB_PRICES == {
            "agent_scheduled_run": 50,
            "agent_data_intelligence_run": 100,
            "tracking_cycle": 25,
            "audience_snapshot": 50,
        }

    def test_flags_must_be_true_to_add(self) -> None:
        assert PRICES["lookup_creator"].quote({"trend_analysis": "false"}, None) == 50
        assert PRICES["create_agent"].quote({}, {"data_intelligence_enabled": False}) == 50
        assert PRICES["get_sound"].quote({"resolve": "0"}, None) == 5

    def test_free_operations_are_listed_at_zero(self) -> None:
        assert PRICES["get_account_balance"] == FREE
        assert PRICES["list_trend_regions"].quote({}, None) == 0


class TestFlagsAreReadLikeTheRequest:
    """A paid option enabled in any spelling the request's validation accepts is quoted with it."""

    def test_query_flags(self) -> None:
        from reelscope.billing.prices import price_of

        for spelling in ("true", "on", "1", "yes", "t", "True"):
            assert price_of("lookup_creator").quote({"trend_analysis": spelling}, None) == 100
        for spelling in ("false", "off", "0", "no", "maybe"):
            assert price_of("lookup_creator").quote({"trend_analysis": spelling}, None) == 50

    def test_body_flags(self) -> None:
        from reelscope.billing.prices import price_of

        for value in (True, "true", 1):
            assert price_of("create_agent").quote({}, {"data_intelligence_enabled": value}) == 150
            assert price_of("create_agent").quote({}, {"is_recurring": value}) == 0

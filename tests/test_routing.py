"""Route order (ADR 0014): the hottest families are matched first, so no earlier template may take a
path that belongs to a later route. Starlette tries routes in order and the first full match wins."""

from __future__ import annotations

import re

import pytest
from fastapi.routing import APIRoute

from reelscope.api import FAMILIES
from reelscope.kit.schemas import CONTRACT_ERRORS
from reelscope.main import create_app


def _sample_path(template: str) -> str:
    """A concrete path for a route template: a real platform for {platform}, a word elsewhere."""
    path = template.replace("{platform}", "tiktok")
    return re.sub(r"\{[^}]+\}", "sample", path)


def _routes() -> list[APIRoute]:
    return [route for family in FAMILIES for route in family.routes if isinstance(route, APIRoute)]


class TestRouteOrder:
    def test_every_route_is_the_first_to_match_its_own_paths(self) -> None:
        routes = _routes()
        assert len(routes) >= 19
        for route in routes:
            path = _sample_path(route.path)
            for method in route.methods:
                first = next(
                    r for r in routes if method in r.methods and r.path_regex.fullmatch(path) is not None
                )
                assert first is route, f"{method} {path} is taken by {first.path} before {route.path}"

    def test_the_paid_reads_come_first(self) -> None:
        names = [route.name for route in _routes()]
        assert names[:5] == [
            "get_videos_digest",
            "get_platform_videos_digest",
            "list_hashtags",
            "list_platform_hashtags",
            "get_hashtag_performance",
        ]


class TestFlatRoutes:
    def test_each_family_route_is_a_route_of_the_app_under_v1(self) -> None:
        # not an included router walked per request (api.include_v1): the same route, declared again
        app_routes = [r for r in create_app().routes if isinstance(r, APIRoute) and r.path.startswith("/v1/")]
        family_routes = _routes()
        assert [(r.path, r.methods, r.name) for r in app_routes] == [
            ("/v1" + r.path, r.methods, r.name) for r in family_routes
        ]
        for app_route, family_route in zip(app_routes, family_routes, strict=True):
            assert type(app_route) is type(family_route)  # the contract's route class, read-only or not
            assert app_route.tags == family_route.tags
            assert app_route.openapi_extra == family_route.openapi_extra
            assert set(app_route.responses) == {*family_route.responses, *CONTRACT_ERRORS}

    def test_apps_share_the_routes_and_refuse_dependency_overrides(self) -> None:
        # built once per process (ADR 0036): a second app gets the very same route objects, and since
        # they belong to no app, an override could not reach them: setting one fails instead
        first, second = create_app(), create_app()
        v1 = [r for r in first.routes if isinstance(r, APIRoute) and r.path.startswith("/v1/")]
        assert all(any(r is other for other in second.routes) for r in v1)
        with pytest.raises(TypeError):
            second.dependency_overrides[_sample_path] = _sample_path

"""The API map: every family's router under /v1, nothing else."""

from __future__ import annotations

from fastapi import FastAPI

from reelscope.account.endpoints import router as account_router
from reelscope.digest.endpoints import router as digest_router
from reelscope.hashtag.endpoints import router as hashtag_router
from reelscope.kit.schemas import CONTRACT_ERRORS, errors
from reelscope.trend.endpoints import router as trend_router
from reelscope.webhook.endpoints import router as webhook_router

PREFIX = "/v1"

# Routes are matched in order, one template at a time, so the most called paid reads come first
# (ADR 0014). A template placed earlier must not match another route's paths: tests/test_routing.py
# resolves every route's own path and checks it lands on that route.
FAMILIES = (digest_router, hashtag_router, account_router, trend_router, webhook_router)


def include_v1(app: FastAPI) -> None:
    """Each family straight into the app under /v1: FastAPI walks every level of nested routers on
    each request, and a /v1 router holding the families was one more (ADR 0014)."""
    for family in FAMILIES:
        app.include_router(family, prefix=PREFIX, responses=errors(*CONTRACT_ERRORS))

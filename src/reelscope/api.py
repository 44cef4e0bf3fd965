"""The API map: every family's router under /v1, nothing else."""

from __future__ import annotations

from fastapi import APIRouter, Security

from reelscope.account.endpoints import router as account_router
from reelscope.contract import ContractRoute, bearer_scheme
from reelscope.digest.endpoints import router as digest_router
from reelscope.hashtag.endpoints import router as hashtag_router
from reelscope.kit.schemas import CONTRACT_ERRORS, errors
from reelscope.trend.endpoints import router as trend_router
from reelscope.webhook.endpoints import router as webhook_router

v1 = APIRouter(
    prefix="/v1",
    route_class=ContractRoute,
    dependencies=[Security(bearer_scheme)],
    responses=errors(*CONTRACT_ERRORS),
)
v1.include_router(account_router)
v1.include_router(trend_router)
v1.include_router(webhook_router)
v1.include_router(digest_router)
v1.include_router(hashtag_router)

"""Lookup fixtures: the job engine in Huey's immediate mode (a lookup's job runs when the request that
started it commits) and handles of creators that exist in the sandbox world."""

from __future__ import annotations

import pytest

from reelscope.collectors.sandbox.creators import handle_of
from reelscope.kit.platforms import Platform
from reelscope.runtime import Runtime
from reelscope.worker.engine import JobEngine


@pytest.fixture(autouse=True)
def engine(jobs: JobEngine) -> JobEngine:
    return jobs


@pytest.fixture
def handle(runtime: Runtime) -> "HandleOf":
    seed = runtime.settings.sandbox_seed

    def of(platform: Platform = Platform.TIKTOK, index: int = 123) -> str:
        return handle_of(seed, platform, index)

    return of


class HandleOf:
    def __call__(self, platform: Platform = Platform.TIKTOK, index: int = 123) -> str: ...

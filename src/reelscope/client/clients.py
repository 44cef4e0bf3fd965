"""``Reelscope`` and ``AsyncReelscope``: every operation (generated), plus helpers that wait.

Each ``wait_for_*`` polls a free status read until the resource is done (waiting.py), sleeping through
the client's ``sleep`` (injectable, so tests never sleep). ``max_wait`` bounds the seconds slept in
total; past it ``WaitTimeout`` is raised and the work goes on server-side — poll again, or listen for
its webhook (§8.4 recommends webhooks first).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from reelscope.client.async_api import AsyncOperations
from reelscope.client.base import ApiModel, Envelope
from reelscope.client.errors import WaitTimeout
from reelscope.client.models import AgentOut, AudienceJobOut, BatchOut, CollectionOut, LookupJob, RunOut
from reelscope.client.sync_api import SyncOperations
from reelscope.client.waiting import (
    AGENT_POLL_SECONDS,
    DEFAULT_POLL_SECONDS,
    is_done,
    lookup_status_operation,
    poll_delay,
)

R = TypeVar("R", bound=Envelope[Any])


class Reelscope(SyncOperations):
    """The blocking client.

    >>> with Reelscope("http://127.0.0.1:8000", api_key) as client:
    ...     videos = client.get_videos_digest(limit=10)
    ...     videos.data[0].views, videos.meta.cost
    """

    def _wait(self, read: Callable[[], R], default: float, max_wait: float | None) -> R:
        waited = 0.0
        while True:
            result = read()
            if is_done(result.data):
                return result
            delay = poll_delay(result.data, default)
            if max_wait is not None and waited + delay > max_wait:
                raise WaitTimeout(f"not finalized after waiting {waited:g} s: {_describe(result.data)}")
            self.sleep(delay)
            waited += delay

    def wait_for_agent(self, agent_id: str, *, max_wait: float | None = None) -> Envelope[AgentOut]:
        """The agent once its latest run and that run's secondary jobs are finalized (§2.6)."""
        return self._wait(lambda: self.get_agent(agent_id), AGENT_POLL_SECONDS, max_wait)

    def wait_for_agent_run(
        self, agent_id: str, run_id: str, *, max_wait: float | None = None
    ) -> Envelope[RunOut]:
        """One run once finalized: ``status`` completed, partial_failure or failed, analysis done (§3)."""
        return self._wait(lambda: self.get_agent_run(agent_id, run_id), AGENT_POLL_SECONDS, max_wait)

    def wait_for_lookup(self, job: LookupJob, *, max_wait: float | None = None) -> Envelope[LookupJob]:
        """A creator, sound, hashtag or video-outlier lookup (as its start returned it) once finalized."""
        status: Callable[[str], Envelope[LookupJob]] = getattr(self, lookup_status_operation(job.type))
        return self._wait(lambda: status(job.job_id), DEFAULT_POLL_SECONDS, max_wait)

    def wait_for_creator_batch(self, batch_id: str, *, max_wait: float | None = None) -> Envelope[BatchOut]:
        """A batch creator lookup once every creator's lookup is finalized."""
        return self._wait(lambda: self.get_creator_batch(batch_id), DEFAULT_POLL_SECONDS, max_wait)

    def wait_for_post_collection(
        self, tracking_id: str, collection_id: str, *, max_wait: float | None = None
    ) -> Envelope[CollectionOut]:
        """A tracked creator's deep post collection once completed, failed or expired."""
        return self._wait(
            lambda: self.get_creator_post_collection(tracking_id, collection_id),
            DEFAULT_POLL_SECONDS,
            max_wait,
        )

    def wait_for_audience_snapshot(
        self, job_id: str, *, max_wait: float | None = None
    ) -> Envelope[AudienceJobOut]:
        """An audience snapshot job once completed, failed or expired."""
        return self._wait(lambda: self.get_audience_snapshot(job_id), DEFAULT_POLL_SECONDS, max_wait)


class AsyncReelscope(AsyncOperations):
    """The asyncio client; the same methods, awaited."""

    async def _wait(self, read: Callable[[], Awaitable[R]], default: float, max_wait: float | None) -> R:
        waited = 0.0
        while True:
            result = await read()
            if is_done(result.data):
                return result
            delay = poll_delay(result.data, default)
            if max_wait is not None and waited + delay > max_wait:
                raise WaitTimeout(f"not finalized after waiting {waited:g} s: {_describe(result.data)}")
            await self.sleep(delay)
            waited += delay

    async def wait_for_agent(self, agent_id: str, *, max_wait: float | None = None) -> Envelope[AgentOut]:
        """The agent once its latest run and that run's secondary jobs are finalized (§2.6)."""
        return await self._wait(lambda: self.get_agent(agent_id), AGENT_POLL_SECONDS, max_wait)

    async def wait_for_agent_run(
        self, agent_id: str, run_id: str, *, max_wait: float | None = None
    ) -> Envelope[RunOut]:
        """One run once finalized: ``status`` completed, partial_failure or failed, analysis done (§3)."""
        return await self._wait(lambda: self.get_agent_run(agent_id, run_id), AGENT_POLL_SECONDS, max_wait)

    async def wait_for_lookup(self, job: LookupJob, *, max_wait: float | None = None) -> Envelope[LookupJob]:
        """A creator, sound, hashtag or video-outlier lookup (as its start returned it) once finalized."""
        status: Callable[[str], Awaitable[Envelope[LookupJob]]] = getattr(
            self, lookup_status_operation(job.type)
        )
        return await self._wait(lambda: status(job.job_id), DEFAULT_POLL_SECONDS, max_wait)

    async def wait_for_creator_batch(
        self, batch_id: str, *, max_wait: float | None = None
    ) -> Envelope[BatchOut]:
        """A batch creator lookup once every creator's lookup is finalized."""
        return await self._wait(lambda: self.get_creator_batch(batch_id), DEFAULT_POLL_SECONDS, max_wait)

    async def wait_for_post_collection(
        self, tracking_id: str, collection_id: str, *, max_wait: float | None = None
    ) -> Envelope[CollectionOut]:
        """A tracked creator's deep post collection once completed, failed or expired."""
        return await self._wait(
            lambda: self.get_creator_post_collection(tracking_id, collection_id),
            DEFAULT_POLL_SECONDS,
            max_wait,
        )

    async def wait_for_audience_snapshot(
        self, job_id: str, *, max_wait: float | None = None
    ) -> Envelope[AudienceJobOut]:
        """An audience snapshot job once completed, failed or expired."""
        return await self._wait(lambda: self.get_audience_snapshot(job_id), DEFAULT_POLL_SECONDS, max_wait)


def _describe(data: ApiModel) -> str:
    return f"status {getattr(data, 'status', '?')}, pending jobs {getattr(data, 'pending_jobs', None) or []}"

"""The audience snapshot job: sample a creator's commenters and infer their audience (analysis/audience)."""

from __future__ import annotations

from typing import Any

from reelscope.analysis.audience import PROFILE_ONLY, Commenter, distinct, infer
from reelscope.audience.service import EVENT, SNAPSHOT_TASK
from reelscope.billing import usage
from reelscope.collectors.base import Connector, Unavailable
from reelscope.collectors.guard import UNAVAILABLE, UPSTREAM_ERROR, SourceFailed, guarded
from reelscope.collectors.registry import build_sources
from reelscope.dashboard import service as dashboard_service
from reelscope.events import service as events_service
from reelscope.events.schemas import AudienceSnapshotCompleted
from reelscope.kit.platforms import Platform
from reelscope.worker import JobFailed, TaskContext, task

POSTS_READ = 30  # the creator's latest posts whose comments are read, the most commented first
COMMENTS_PER_POST = 100
ENOUGH = 1000  # distinct commenters: stop reading once this many are known
SOURCE_COST_USD = 0.0  # what the snapshot cost the service at its sources (the sandbox is free)


async def sample(connector: Connector, platform: Platform, handle: str) -> tuple[list[Commenter], int, int]:
    """Distinct commenters of the creator's recent posts, comments read, and the creator's followers.
    ``SourceFailed`` when the source cannot say (collectors/guard.py)."""
    creator = await guarded(connector.creator(platform, handle))
    posts = await guarded(connector.creator_posts(platform, handle, limit=POSTS_READ))
    people: list[Commenter] = []
    read = 0
    for post in sorted(posts, key=lambda p: (-p.comments, p.external_id)):
        if post.comments <= 0:
            continue
        for comment in await guarded(connector.comments(platform, post.external_id, limit=COMMENTS_PER_POST)):
            read += 1
            people.append(
                Commenter(
                    handle=comment.author_handle,
                    country=comment.country,
                    language=comment.language,
                    age_bracket=comment.author_age_bracket,
                    gender=comment.author_gender,
                )
            )
        people = distinct(people)
        if len(people) >= ENOUGH:
            break
    return people, read, creator.followers or 0


@task(SNAPSHOT_TASK)
async def snapshot(ctx: TaskContext, *, item_id: str, platform: str, handle: str, **_: Any) -> dict[str, Any]:
    assert ctx.job is not None and ctx.job.team_id is not None
    try:
        connector = build_sources(ctx.settings, ctx.clock, ctx.db)
        people, read, _followers = await sample(connector, Platform(platform), handle)
    except Unavailable:
        raise JobFailed(UPSTREAM_ERROR, UNAVAILABLE, retry=False) from None
    except SourceFailed as failure:  # the vendor's text stays in the logs (collectors/guard.py)
        raise JobFailed(failure.code, failure.message, retry=failure.retryable) from failure
    # followers are not sampled (no follower list is read): signal_breakdown.followers is 0
    audience = infer(people, comments_read=read, followers_read=0)
    result = {"snapshot_id": ctx.job.id, "platform": platform, "handle": handle, **audience.as_dict()}
    async with ctx.db.transaction() as session:
        if audience.data_source == PROFILE_ONLY:
            # §6.3: no audience data found → the charge is refunded (same reference as a give-up refund)
            await usage.refund(
                session, ctx.job.team_id, ctx.job.charged_credits, f"job:{ctx.job.id}", ctx.now()
            )
        await events_service.publish(
            session,
            EVENT,
            AudienceSnapshotCompleted(
                snapshot_id=ctx.job.id,
                platform=Platform(platform),
                handle=handle,
                sample_size=audience.sample_size,
                cost_usd=SOURCE_COST_USD,
                confidence_per_signal=audience.confidence_per_signal,
                confidence_level=audience.confidence_level,
                data_source=audience.data_source,
                signal_breakdown=audience.signal_breakdown,
            ),
            ctx.job.team_id,
            at=ctx.now(),
        )
        # the page shows the latest completed snapshot: this one, once the job completes
        await dashboard_service.draw_ahead(session, ctx.job.team_id, "creator", item_id)
        await ctx.complete(session, result)
    return {"sample_size": audience.sample_size, "data_source": audience.data_source}

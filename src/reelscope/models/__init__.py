"""Every SQLAlchemy model, imported here so Alembic and create_all see the whole schema."""

from reelscope.models.account import ApiKey, RateLimitOverride, Team, User
from reelscope.models.billing import LedgerEntry

__all__ = ["ApiKey", "LedgerEntry", "RateLimitOverride", "Team", "User"]

# jobs, schedules and the event outbox (worker, jobs, schedules, events)
from reelscope.models.events import OutboxEvent
from reelscope.models.jobs import Job, Schedule

__all__ += ["Job", "OutboxEvent", "Schedule"]

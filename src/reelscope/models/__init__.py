"""Every SQLAlchemy model, imported here so Alembic and create_all see the whole schema."""

from reelscope.models.account import ApiKey, RateLimitOverride, Team, User
from reelscope.models.billing import LedgerEntry
from reelscope.models.webhook import WebhookAttempt, WebhookDelivery, WebhookEndpoint

__all__ = [
    "ApiKey",
    "LedgerEntry",
    "RateLimitOverride",
    "Team",
    "User",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
]

"""Every SQLAlchemy model, imported here so Alembic and create_all see the whole schema.

One line per model file, re-exported with ``X as X`` so each family appends a line without touching others.
"""

from reelscope.models import fulltext as fulltext
from reelscope.models.account import ApiKey as ApiKey
from reelscope.models.account import RateLimitOverride as RateLimitOverride
from reelscope.models.account import Team as Team
from reelscope.models.account import User as User
from reelscope.models.agent import Agent as Agent
from reelscope.models.agent import AgentActivity as AgentActivity
from reelscope.models.agent import AgentAd as AgentAd
from reelscope.models.agent import AgentChange as AgentChange
from reelscope.models.agent import AgentCreator as AgentCreator
from reelscope.models.agent import AgentEvent as AgentEvent
from reelscope.models.agent import AgentHashtag as AgentHashtag
from reelscope.models.agent import AgentRun as AgentRun
from reelscope.models.agent import AgentSlideshow as AgentSlideshow
from reelscope.models.agent import AgentSound as AgentSound
from reelscope.models.agent import AgentTrend as AgentTrend
from reelscope.models.agent import AgentVideo as AgentVideo
from reelscope.models.billing import LedgerEntry as LedgerEntry
from reelscope.models.catalog import Ad as Ad
from reelscope.models.catalog import Comment as Comment
from reelscope.models.catalog import Creator as Creator
from reelscope.models.catalog import Hashtag as Hashtag
from reelscope.models.catalog import Slideshow as Slideshow
from reelscope.models.catalog import Sound as Sound
from reelscope.models.catalog import SoundUsage as SoundUsage
from reelscope.models.catalog import Video as Video
from reelscope.models.catalog import VideoHashtag as VideoHashtag
from reelscope.models.catalog import ViewSnapshot as ViewSnapshot
from reelscope.models.events import OutboxCursor as OutboxCursor
from reelscope.models.events import OutboxEvent as OutboxEvent
from reelscope.models.hooks import Hook as Hook
from reelscope.models.idempotency import IdempotencyRecord as IdempotencyRecord
from reelscope.models.jobs import Job as Job
from reelscope.models.jobs import Schedule as Schedule
from reelscope.models.lookup import LookupBatch as LookupBatch
from reelscope.models.lookup import LookupRun as LookupRun
from reelscope.models.read_path import DigestList as DigestList
from reelscope.models.read_path import HashtagDaily as HashtagDaily
from reelscope.models.read_path import ReadVersion as ReadVersion
from reelscope.models.sounds import SoundResolution as SoundResolution
from reelscope.models.tracking import TrackedItem as TrackedItem
from reelscope.models.tracking import TrackedPost as TrackedPost
from reelscope.models.tracking import TrackingSnapshotRow as TrackingSnapshotRow
from reelscope.models.trends import Trend as Trend
from reelscope.models.trends import TrendGroup as TrendGroup
from reelscope.models.trends import TrendRanking as TrendRanking
from reelscope.models.trends import TrendReading as TrendReading
from reelscope.models.trends import TrendRegion as TrendRegion
from reelscope.models.trends import TrendRun as TrendRun
from reelscope.models.webhook import WebhookAttempt as WebhookAttempt
from reelscope.models.webhook import WebhookDelivery as WebhookDelivery
from reelscope.models.webhook import WebhookEndpoint as WebhookEndpoint

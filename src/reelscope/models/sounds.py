"""What the sound family keeps of its own: resolutions of sounds to licensed tracks (ADR 0020) and the
counts of the catalog's videos using each sound, kept by ``sound.refresh`` (ADR 0038)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Float, ForeignKey, Index, Integer, String, Text, text
from sqlalchemy.orm import Mapped, mapped_column

from reelscope.kit.db import Base, UtcDateTime


class SoundResolution(Base):
    """A sound's track resolution, made once (``GET /v1/sounds/{id}?resolve=true``) and kept: its
    existence is what makes a later resolve a cached one (§4.7 charges +$0.10 only when fresh)."""

    __tablename__ = "sound_resolutions"

    sound_id: Mapped[str] = mapped_column(ForeignKey("sounds.id", ondelete="CASCADE"), primary_key=True)
    # resolved or unresolved (an original sound needs no resolution and is never stored)
    status: Mapped[str] = mapped_column(String(16))
    track_title: Mapped[str | None] = mapped_column(String(500))
    artist: Mapped[str | None] = mapped_column(String(300))
    reason: Mapped[str | None] = mapped_column(Text)
    resolved_at: Mapped[datetime] = mapped_column(UtcDateTime)


class SoundStats(Base):
    """The catalog's videos using one sound, counted by ``sound.refresh`` as of its run (a sound no
    video uses has no row): ``videos_7d`` … ``videos_90d`` by posting time from then (§4.7).

    Each list of the sound family is one walk of an index below, in the list's order (ties by sound
    id), so a page reads its own rows and no more (ADR 0038). ``usage_rank`` is the platform's
    ``usage_count`` with -1 for an unknown one (YouTube's), so "unknown last" is a plain descending
    order; ``breakout_score`` is videos_7d x videos_7d / videos_90d, 0 without a recent video."""

    __tablename__ = "sound_stats"

    sound_id: Mapped[str] = mapped_column(ForeignKey("sounds.id", ondelete="CASCADE"), primary_key=True)
    platform: Mapped[str] = mapped_column(String(16))
    usage_rank: Mapped[int] = mapped_column(BigInteger)
    video_count: Mapped[int] = mapped_column(Integer)
    videos_7d: Mapped[int] = mapped_column(Integer)
    videos_30d: Mapped[int] = mapped_column(Integer)
    videos_90d: Mapped[int] = mapped_column(Integer)
    breakout_score: Mapped[float] = mapped_column(Float)


# trending lists only sounds with a video in 30 days, breakout only those with one in 7: partial indexes
# of those rows (a query names the same condition as a literal, sound/repository.py, so both planners
# take them), each carrying the platform so its filter is checked in the index
_TRENDING = text("videos_30d > 0")
_BREAKOUT = text("videos_7d > 0")
for _name, _keys in (
    ("videos_7d", (SoundStats.videos_7d.desc(),)),
    ("videos_30d", (SoundStats.videos_30d.desc(), SoundStats.videos_7d.desc())),
    ("usage_count", (SoundStats.usage_rank.desc(), SoundStats.videos_7d.desc())),
    ("video_count", (SoundStats.video_count.desc(), SoundStats.videos_7d.desc())),
):
    Index(
        f"ix_sound_stats_{_name}",
        *_keys,
        SoundStats.sound_id,
        SoundStats.platform,
        sqlite_where=_TRENDING,
        postgresql_where=_TRENDING,
    )
Index(
    "ix_sound_stats_breakout",
    SoundStats.breakout_score.desc(),
    SoundStats.videos_7d.desc(),
    SoundStats.sound_id,
    SoundStats.platform,
    SoundStats.videos_90d,
    sqlite_where=_BREAKOUT,
    postgresql_where=_BREAKOUT,
)

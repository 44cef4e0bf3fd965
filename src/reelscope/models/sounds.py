"""What the sound family keeps of its own: resolutions of sounds to licensed tracks (ADR 0020)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey, String, Text
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

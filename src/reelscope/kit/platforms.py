"""The three source platforms (spec preamble): lowercase names in paths and enumerated values."""

from __future__ import annotations

from enum import StrEnum


class Platform(StrEnum):
    YOUTUBE = "youtube"  # Shorts only
    TIKTOK = "tiktok"
    INSTAGRAM = "instagram"  # Reels

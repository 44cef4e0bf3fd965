"""API key format and hashing (spec §5.1)."""

from __future__ import annotations

import hashlib
import re
import secrets

KEY_PREFIX = "reelscope_tkn_"
_KEY_BODY = re.compile(r"[A-Za-z0-9_-]{32,256}")


def generate_key() -> str:
    # 32 random bytes → 43 URL-safe characters after the prefix
    return KEY_PREFIX + secrets.token_urlsafe(32)


def hash_key(key: str) -> str:
    """Keys carry 256 bits of entropy, so a fast digest is enough; no salt or KDF needed (ADR 0002)."""
    return hashlib.sha256(key.encode()).hexdigest()


def has_prefix(key: str) -> bool:
    return key.startswith(KEY_PREFIX)


def is_well_formed(key: str) -> bool:
    return has_prefix(key) and _KEY_BODY.fullmatch(key[len(KEY_PREFIX) :]) is not None


def display_prefix(key: str) -> str:
    return key[: len(KEY_PREFIX) + 6]

"""Instagram's hashtag budget: 30 unique hashtags per professional account in any 7 days (connectors
reference §3.4; issue 27 item 2; ADR 0045).

A hashtag holds one of the 30 places from its first search until 7 days later; searching it again within
those days is free and does not restart them. So the budget is a set of (hashtag, when its 7 days began),
not a counter that resets at an instant like the ledger's buckets: it lives in its own table
(``instagram_hashtags``), shared by every process, per account. A place is taken before the search is
sent (as the ledger counts a page before it is sent) and given back only when the search surely did not
happen (refused, throttled, failed in transit); a hashtag Instagram answered is kept, found or not.

The hashtag's id, once known, is kept with it (a name's id never changes): a repeat within the 7 days
needs no ``ig_hashtag_search`` call at all.

Taking a place is one write transaction that first serializes the account's budget (an advisory lock on
PostgreSQL; SQLite's write transactions are serial already), so two workers never both take the 30th.
Without a database nothing is counted (as the ledger counts nothing then).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, delete, func, select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from reelscope.collectors.base import RateLimited
from reelscope.kit.clock import Clock
from reelscope.kit.db import Database
from reelscope.kit.logging import get_logger
from reelscope.models.collectors import InstagramHashtag

log = get_logger(__name__)

LIMIT = 30
WINDOW = timedelta(days=7)


@dataclass(frozen=True)
class Place:
    """A hashtag's place among the 30: its id when known; ``taken_at`` when this call took the place
    (None: it was held already, the search is free), and what it replaced (to give it back)."""

    name: str
    hashtag_id: str | None
    taken_at: datetime | None = None
    replaced: datetime | None = None


@dataclass(frozen=True)
class Usage:
    used: int
    limit: int
    # when the earliest place frees (None when none is held)
    frees_at: datetime | None


class HashtagBudget:
    def __init__(self, db: Database | None, clock: Clock, account: str) -> None:
        self.db = db
        self.clock = clock
        self.account = account

    async def held(self, name: str) -> bool:
        """Whether ``name`` holds a place now (its search is free)."""
        if self.db is None:
            return False
        async with self.db.transaction(write=False) as session:
            counted_at = await session.scalar(select(InstagramHashtag.counted_at).where(*self._row(name)))
        return counted_at is not None and counted_at > self.clock.now() - WINDOW

    async def take(self, name: str) -> Place:
        """``name``'s place: held already (free), or taken now; ``RateLimited`` until the earliest place
        frees when 30 other hashtags hold them."""
        if self.db is None:
            return Place(name, None)
        now = self.clock.now()
        async with self.db.transaction() as session:
            await self._serialize(session)
            row = await session.get(InstagramHashtag, (self.account, name))
            if row is not None and row.counted_at > now - WINDOW:
                return Place(name, row.hashtag_id)
            held = list(
                await session.scalars(
                    select(InstagramHashtag.counted_at)
                    .where(
                        InstagramHashtag.account == self.account,
                        InstagramHashtag.counted_at > now - WINDOW,
                        InstagramHashtag.name != name,
                    )
                    .order_by(InstagramHashtag.counted_at)
                )
            )
            if len(held) >= LIMIT:
                frees_at = held[len(held) - LIMIT] + WINDOW
                raise RateLimited(
                    f"instagram hashtags: {len(held)} unique hashtags searched in the last 7 days (at most "
                    f"{LIMIT}); the next place frees at {frees_at.isoformat()}",
                    retry_at=frees_at,
                )
            if row is None:
                session.add(InstagramHashtag(account=self.account, name=name, counted_at=now))
                return Place(name, None, taken_at=now)
            replaced, row.counted_at = row.counted_at, now
            return Place(name, row.hashtag_id, taken_at=now, replaced=replaced)

    async def give_back(self, place: Place) -> None:
        """The search of a place just taken did not happen: the place is free again."""
        if self.db is None or place.taken_at is None:
            return
        mine = (*self._row(place.name), InstagramHashtag.counted_at == place.taken_at)
        async with self.db.transaction() as session:
            if place.replaced is None:
                await session.execute(delete(InstagramHashtag).where(*mine))
            else:
                await session.execute(update(InstagramHashtag).where(*mine).values(counted_at=place.replaced))

    async def remember_id(self, name: str, hashtag_id: str) -> None:
        if self.db is None:
            return
        async with self.db.transaction() as session:
            await session.execute(
                update(InstagramHashtag).where(*self._row(name)).values(hashtag_id=hashtag_id)
            )

    async def reconcile(self, searched: Iterable[tuple[str, str | None]]) -> int:
        """Meta's list of this week's hashtags (``recently_searched_hashtags``: (id, name or None)) added
        to ours: one we lack, or hold no longer, takes a place from now (when it began is not said: now
        is the cautious guess). Returns how many were added."""
        if self.db is None:
            return 0
        now = self.clock.now()
        added = 0
        async with self.db.transaction() as session:
            await self._serialize(session)
            rows = {
                row.name: row
                for row in await session.scalars(
                    select(InstagramHashtag).where(InstagramHashtag.account == self.account)
                )
            }
            by_id = {row.hashtag_id: row for row in rows.values() if row.hashtag_id}
            for hashtag_id, name in searched:
                row = by_id.get(hashtag_id) or rows.get(name or f"#{hashtag_id}")
                if row is None:
                    session.add(
                        InstagramHashtag(
                            account=self.account, name=name or f"#{hashtag_id}", hashtag_id=hashtag_id,
                            counted_at=now,
                        )
                    )  # fmt: skip
                    added += 1
                elif row.counted_at <= now - WINDOW:
                    row.counted_at = now
                    added += 1
        if added:
            log.info("instagram.hashtags_reconciled", added=added)
        return added

    async def usage(self) -> Usage | None:
        """Places held now and when the earliest frees (None without a database)."""
        if self.db is None:
            return None
        now = self.clock.now()
        async with self.db.transaction(write=False) as session:
            used, earliest = (
                await session.execute(
                    select(func.count(), func.min(InstagramHashtag.counted_at)).where(
                        InstagramHashtag.account == self.account, InstagramHashtag.counted_at > now - WINDOW
                    )
                )
            ).one()
        return Usage(used=used, limit=LIMIT, frees_at=earliest + WINDOW if earliest is not None else None)

    def _row(self, name: str) -> tuple[ColumnElement[bool], ...]:
        return (InstagramHashtag.account == self.account, InstagramHashtag.name == name)

    async def _serialize(self, session: AsyncSession) -> None:
        """One budget change at a time per account (PostgreSQL; SQLite's writers are serial anyway)."""
        assert self.db is not None
        if self.db.engine.dialect.name != "postgresql":
            return
        digest = hashlib.sha256(f"instagram_hashtags:{self.account}".encode()).digest()
        key = int.from_bytes(digest[:8], "big", signed=True)  # PostgreSQL's bigint
        await session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})

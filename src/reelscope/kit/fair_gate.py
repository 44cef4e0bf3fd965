"""A gate of a few slots whose waiters are served in turn by owner (issue 33, ADR 0040).

``asyncio.Semaphore`` serves its waiters in arrival order: a team that sends fifty slow reads at once
would hold every slot for the next fifty turns while another team's one read waited behind them all.
``FairGate`` keeps one queue per owner and hands a freed slot to the owner whose turn it is, round
robin, so an owner waits for at most one turn of each other owner already waiting, however many
requests they queued.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager


class FairGate:
    """At most ``slots`` holders at once; waiters served round robin by owner, in arrival order within
    an owner. One event loop only (its futures belong to the loop that first waits)."""

    def __init__(self, slots: int) -> None:
        if slots < 1:
            raise ValueError("a gate needs at least one slot")
        self._free = slots
        # owners with waiters, in the order of their turns; each one's waiters in arrival order
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def waiting(self) -> int:
        return sum(len(queue) for queue in self._waiting.values())

    @asynccontextmanager
    async def slot(self, owner: str) -> AsyncIterator[None]:
        await self._acquire(owner)
        try:
            yield
        finally:
            self._release()

    async def _acquire(self, owner: str) -> None:
        if self._free > 0 and not self._waiting:
            self._free -= 1
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        queue = self._waiting.get(owner)
        if queue is None:
            queue = self._waiting[owner] = deque()
        queue.append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release()  # given the slot, then cancelled before it could run: pass it on
            else:
                self._forget(owner, turn)
            raise

    def _release(self) -> None:
        while self._waiting:
            owner, queue = next(iter(self._waiting.items()))
            turn = queue.popleft()
            if queue:
                self._waiting.move_to_end(owner)  # this owner's next waiter goes to the back of the round
            else:
                del self._waiting[owner]
            if not turn.done():
                turn.set_result(None)
                return
        self._free += 1

    def _forget(self, owner: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(owner)
        if queue is None:
            return
        try:
            queue.remove(turn)
        except ValueError:
            return
        if not queue:
            del self._waiting[owner]

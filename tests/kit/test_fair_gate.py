"""The fair gate: a few slots, waiters served in turn by owner (ADR 0040)."""

from __future__ import annotations

import asyncio

import pytest

from reelscope.kit.fair_gate import FairGate


class Holders:
    """Tasks that take a slot of the gate, note it, and hold it until told to leave."""

    def __init__(self, gate: FairGate) -> None:
        self.gate = gate
        self.order: list[str] = []
        self.leave: dict[str, asyncio.Event] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}

    async def _hold(self, owner: str, name: str) -> None:
        async with self.gate.slot(owner):
            self.order.append(name)
            await self.leave[name].wait()

    async def come(self, owner: str, name: str) -> None:
        self.leave[name] = asyncio.Event()
        self.tasks[name] = asyncio.create_task(self._hold(owner, name))
        await asyncio.sleep(0)  # let it reach the gate

    async def go(self, name: str) -> None:
        self.leave[name].set()
        await self.tasks[name]
        for _ in range(3):  # let the next holder note its turn
            await asyncio.sleep(0)


class TestFairGate:
    async def test_an_owner_with_one_request_waits_one_turn_not_behind_every_request_of_another(
        self,
    ) -> None:
        holders = Holders(FairGate(1))
        for name in ("a1", "a2", "a3", "a4"):
            await holders.come("team-a", name)
        await holders.come("team-b", "b1")
        for name in ("a1", "a2", "b1", "a3", "a4"):
            await holders.go(name)
        assert holders.order == ["a1", "a2", "b1", "a3", "a4"]

    async def test_no_more_than_its_slots_hold_at_once(self) -> None:
        gate = FairGate(2)
        holders = Holders(gate)
        for name in ("a1", "a2", "a3"):
            await holders.come("team-a", name)
        assert holders.order == ["a1", "a2"]
        assert gate.waiting == 1
        await holders.go("a1")
        assert holders.order == ["a1", "a2", "a3"]
        for name in ("a2", "a3"):
            await holders.go(name)

    async def test_a_cancelled_waiter_takes_no_turn(self) -> None:
        gate = FairGate(1)
        holders = Holders(gate)
        await holders.come("team-a", "a1")
        await holders.come("team-b", "b1")
        await holders.come("team-c", "c1")
        holders.tasks["b1"].cancel()
        with pytest.raises(asyncio.CancelledError):
            await holders.tasks["b1"]
        assert gate.waiting == 1
        await holders.go("a1")
        assert holders.order == ["a1", "c1"]
        await holders.go("c1")
        # every slot is free again: a newcomer gets one at once
        await holders.come("team-d", "d1")
        assert holders.order[-1] == "d1"
        await holders.go("d1")

    def test_a_gate_needs_a_slot(self) -> None:
        with pytest.raises(ValueError):
            FairGate(0)

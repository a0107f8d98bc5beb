"""WorkSlots: a limit on pages working at once, pages back from a pause served first."""

from __future__ import annotations

import asyncio

import pytest

from pytest_visioneval.pages.work_slots import WorkSlots


def test_at_most_the_limit_hold_a_slot_at_once() -> None:
    async def scenario() -> int:
        slots, holding, most = WorkSlots(2), 0, 0

        async def work() -> None:
            nonlocal holding, most
            await slots.take()
            holding += 1
            most = max(most, holding)
            await asyncio.sleep(0.01)
            holding -= 1
            slots.give()

        await asyncio.gather(*(work() for _ in range(7)))
        return most

    assert asyncio.run(scenario()) == 2


def test_a_page_back_from_its_pause_goes_before_pages_not_yet_started() -> None:
    async def scenario() -> list[str]:
        slots, order = WorkSlots(1), []
        await slots.take()  # held by a page about to pause
        new = [asyncio.create_task(_take_then_note(slots, f"new {i}", order)) for i in range(3)]
        await asyncio.sleep(0)  # the new pages are queued first
        slots.give()  # the pause starts: "new 0" works meanwhile
        back = asyncio.create_task(_take_then_note(slots, "back", order, returning=True))
        await asyncio.gather(*new, back)
        return order

    assert asyncio.run(scenario()) == ["new 0", "back", "new 1", "new 2"]


async def _take_then_note(slots: WorkSlots, name: str, order: list[str], returning: bool = False) -> None:
    await slots.take(returning=returning)
    order.append(name)
    await asyncio.sleep(0.01)
    slots.give()


def test_a_waiter_cancelled_keeps_no_slot_and_loses_none() -> None:
    async def scenario() -> int:
        slots = WorkSlots(1)
        await slots.take()
        waiting = asyncio.create_task(slots.take())
        await asyncio.sleep(0)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        slots.give()
        # Exactly one slot again: one taker gets it at once (none was lost), a second one waits (none was kept).
        await asyncio.wait_for(slots.take(), 1)
        second = asyncio.create_task(slots.take())
        await asyncio.sleep(0.01)
        blocked = int(not second.done())
        slots.give()
        await second
        slots.give()
        return blocked

    assert asyncio.run(scenario()) == 1


def test_a_waiter_cancelled_as_it_is_handed_a_slot_passes_it_on() -> None:
    async def scenario() -> bool:
        slots = WorkSlots(1)
        await slots.take()
        first = asyncio.create_task(slots.take())
        second = asyncio.create_task(slots.take())
        await asyncio.sleep(0)
        slots.give()  # handed to the first waiter...
        first.cancel()  # ...which is cancelled before it runs
        with pytest.raises(asyncio.CancelledError):
            await first
        await asyncio.wait_for(second, 1)  # the slot went on to the second
        return second.done()

    assert asyncio.run(scenario())


def test_the_limit_must_be_positive() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        WorkSlots(0)

"""calls/budget.py: the run-wide spending ledger, in memory, in a shared file, and under a race between processes."""

from __future__ import annotations

import json
import math
import multiprocessing
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.calls.budget import (
    CHARS_PER_TOKEN,
    DEFAULT_OUTPUT_TOKENS,
    INPUT_IMAGE_TOKENS,
    OUTPUT_IMAGE_TOKENS,
    BudgetFileWarning,
    BudgetLedger,
    CallHint,
)
from pytest_visioneval.calls.usage import Prices

# USD: 2.50 per million input tokens, 10 per million output tokens, 4 cents per image, a tenth of a cent per call.
PRICES = Prices(
    {
        "openai:vision": {"input_per_million": 2.5, "output_per_million": 10.0, "per_image": 0.04, "per_call": 0.001},
        "openai:text": {"input_per_million": 1.0, "output_per_million": 4.0},
    }
)


@pytest.fixture(params=["memory", "file"])
def ledger_path(request: pytest.FixtureRequest, tmp_path: Path) -> Path | None:
    """Each single-ledger test runs against the in-memory ledger and the file-backed one."""
    return None if request.param == "memory" else tmp_path / "run" / "budget.json"


# -- reserve, settle, release ------------------------------------------------------


def test_reserve_within_the_limit_and_refuse_beyond_it(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(1.0, ledger_path)
    first = ledger.reserve("openai:vision", 0.4)
    second = ledger.reserve("openai:vision", 0.6)  # 0.4 + 0.6 == 1.0: exactly at the limit still fits
    assert first is not None and first.amount == 0.4 and first.model == "openai:vision"
    assert second is not None and second.key != first.key
    assert ledger.state()["held"] == pytest.approx(1.0)
    assert ledger.reserve("openai:vision", 0.01) is None
    state = ledger.state()
    assert state["exhausted"] is True and state["refused"] == 1
    assert state["held"] == pytest.approx(1.0) and state["open"] == 2  # a refusal holds nothing


def test_float_sums_that_reach_the_limit_exactly_fit(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(1.0, ledger_path)
    assert all(ledger.reserve("openai:text", 0.1) is not None for _ in range(10))  # 0.1 * 10 is not 1.0 in floats
    assert ledger.reserve("openai:text", 1e-6) is None


def test_exhaustion_sticks_even_for_calls_that_would_fit(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(1.0, ledger_path)
    big = ledger.reserve("openai:vision", 0.6)
    assert big is not None
    assert ledger.reserve("openai:vision", 0.6) is None  # 1.2 > 1.0: refused, and the ledger is exhausted
    assert ledger.reserve("openai:text", 0.01) is None  # 0.61 would fit, but new calls have stopped
    ledger.settle(big, 0.0)  # even with everything handed back
    assert ledger.state()["spent"] == 0 and ledger.state()["held"] == 0
    assert ledger.reserve("openai:text", 0.0) is None
    state = ledger.state()
    assert state["exhausted"] is True and state["refused"] == 3


def test_settle_books_the_actual_cost_and_releases_the_hold(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(1.0, ledger_path)
    a = ledger.reserve("openai:vision", 0.5)
    b = ledger.reserve("openai:vision", 0.3)
    assert a is not None and b is not None
    ledger.settle(a, 0.2)  # cheaper than held
    state = ledger.state()
    assert state["spent"] == pytest.approx(0.2)
    assert state["held"] == pytest.approx(0.3) and state["open"] == 1
    # The freed 0.3 is usable again: 0.2 spent + 0.3 held + 0.5 = 1.0
    c = ledger.reserve("openai:vision", 0.5)
    assert c is not None
    ledger.settle(b, 0.45)  # dearer than held: the actual cost is what counts
    ledger.settle(c, 0.1)
    state = ledger.state()
    assert state["spent"] == pytest.approx(0.75) and state["held"] == 0 and state["open"] == 0
    assert state["calls"]["openai:vision"]["count"] == 3
    assert state["calls"]["openai:vision"]["cost"] == pytest.approx(0.75)


def test_settle_with_no_cost_books_an_unbilled_call(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(1.0, ledger_path)
    failed = ledger.reserve("openai:vision", 0.5)
    free = ledger.reserve("openai:vision", 0.5)
    assert failed is not None and free is not None
    ledger.settle(failed, None)
    ledger.settle(free, 0)
    state = ledger.state()
    assert state["spent"] == 0 and state["held"] == 0
    assert state["calls"]["openai:vision"] == {"count": 0, "cost": 0.0, "unbilled": 2, "by_multiplier": {}}
    # Unbilled calls are no evidence of what a billed one costs: the estimate stays price-based.
    assert ledger.estimate("openai:text", PRICES, CallHint(max_output_tokens=250)) == pytest.approx(0.001)


def test_release_hands_the_hold_back_and_books_nothing(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(1.0, ledger_path)
    r = ledger.reserve("openai:vision", 0.6)
    other = ledger.reserve("openai:vision", 0.3)
    assert r is not None and other is not None
    ledger.release(r)
    state = ledger.state()
    assert state["spent"] == 0 and state["calls"] == {}
    assert state["held"] == pytest.approx(0.3) and state["open"] == 1
    ledger.release(r)  # a second release of the same hold changes nothing
    assert ledger.state()["held"] == pytest.approx(0.3)
    assert ledger.reserve("openai:vision", 0.7) is not None  # the 0.6 is free again: 0.3 + 0.7 == 1.0


def test_release_then_reserve_again() -> None:
    ledger = BudgetLedger(1.0, None)
    r = ledger.reserve("openai:vision", 0.9)
    assert r is not None
    ledger.release(r)
    assert ledger.state()["held"] == 0
    again = ledger.reserve("openai:vision", 0.9)  # the whole budget is free again
    assert again is not None
    assert ledger.state()["exhausted"] is False and ledger.state()["refused"] == 0


def test_a_settled_hold_settled_again_books_the_money_again() -> None:
    """A hold settled twice is a caller's bug; booking twice over-counts, which is the safe side."""
    ledger = BudgetLedger(1.0, None)
    r = ledger.reserve("openai:vision", 0.3)
    assert r is not None
    ledger.settle(r, 0.2)
    ledger.settle(r, 0.2)
    state = ledger.state()
    assert state["spent"] == pytest.approx(0.4) and state["held"] == 0


@pytest.mark.parametrize("bad", [-0.01, math.nan, math.inf, True, "0.1"])
def test_estimates_and_costs_must_be_sums_of_money(bad: Any) -> None:
    ledger = BudgetLedger(1.0, None)
    with pytest.raises(ValueError, match="estimate"):
        ledger.reserve("openai:vision", bad)
    r = ledger.reserve("openai:vision", 0.1)
    assert r is not None
    with pytest.raises(ValueError, match="actual cost"):
        ledger.settle(r, bad)
    assert ledger.state()["held"] == pytest.approx(0.1)  # nothing changed


@pytest.mark.parametrize("bad", [-1.0, math.nan, math.inf])
def test_the_limit_must_be_a_sum_of_money(bad: float) -> None:
    with pytest.raises(ValueError, match="cost limit"):
        BudgetLedger(bad, None)


def test_a_zero_limit_refuses_every_priced_call() -> None:
    ledger = BudgetLedger(0.0, None)
    assert ledger.reserve("openai:vision", 0.001) is None
    assert ledger.state()["exhausted"] is True


# -- estimates ---------------------------------------------------------------------


def test_constants() -> None:
    assert (CHARS_PER_TOKEN, INPUT_IMAGE_TOKENS, DEFAULT_OUTPUT_TOKENS, OUTPUT_IMAGE_TOKENS) == (4, 1600, 4096, 6240)


def test_first_estimate_from_the_prices(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(10.0, ledger_path)
    hint = CallHint(input_chars=4001, input_images=2, output_images=1, max_output_tokens=500)
    # input: ceil(4001 / 4) = 1001 text tokens + 2 * 1600 image tokens = 4201 tokens * $2.50/M = 0.0105025
    # output: 500 tokens * $10/M = 0.005; one image asked for: 0.04; the call: 0.001
    assert ledger.estimate("openai:vision", PRICES, hint) == pytest.approx(0.0565025, abs=1e-12)


def test_first_estimate_without_max_output_tokens_uses_the_default_guess() -> None:
    ledger = BudgetLedger(10.0, None)
    # No output cap, no image asked for: 4096 output tokens * $4/M = 0.016384; 400 chars = 100 tokens * $1/M = 0.0001
    assert ledger.estimate("openai:text", PRICES, CallHint(input_chars=400)) == pytest.approx(0.016484, abs=1e-12)
    # Two images asked for: (4096 + 2 * 6240) = 16576 output tokens * $10/M = 0.16576, + 2 * 0.04 + 0.001
    two_images = CallHint(output_images=2)
    assert ledger.estimate("openai:vision", PRICES, two_images) == pytest.approx(0.24676, abs=1e-12)
    # An empty hint still costs the default output and the per-call price
    assert ledger.estimate("openai:vision", PRICES, CallHint()) == pytest.approx(0.04196, abs=1e-12)


def test_an_unpriced_model_has_no_estimate(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(10.0, ledger_path)
    assert ledger.estimate("openai:unknown", PRICES, CallHint(input_chars=100)) is None
    assert ledger.estimate("openai:vision", Prices(), CallHint()) is None


def test_the_multiplier_scales_the_price_based_estimate() -> None:
    ledger = BudgetLedger(10.0, None)
    hint = CallHint(input_chars=4001, input_images=2, output_images=1, max_output_tokens=500)
    assert ledger.estimate("openai:vision", PRICES, hint, multiplier=0.5) == pytest.approx(0.02825125, abs=1e-12)
    with pytest.raises(ValueError, match="multiplier"):
        ledger.estimate("openai:vision", PRICES, hint, multiplier=0)


def test_estimate_from_the_mean_of_settled_calls(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(10.0, ledger_path)
    hint = CallHint(input_chars=4001, input_images=2, output_images=1, max_output_tokens=500)
    for actual in (0.02, 0.03, 0.07):
        r = ledger.reserve("openai:vision", 0.1)
        assert r is not None
        ledger.settle(r, actual)
    assert ledger.estimate("openai:vision", PRICES, hint) == pytest.approx(0.04)  # (0.02 + 0.03 + 0.07) / 3
    # The mean is per model: another model still starts from its prices (1 text token + 500 out at $4/M)
    assert ledger.estimate("openai:text", PRICES, CallHint(input_chars=1, max_output_tokens=500)) == pytest.approx(
        0.002001, abs=1e-12
    )


def test_batched_and_direct_calls_are_averaged_apart() -> None:
    ledger = BudgetLedger(10.0, None)
    hint = CallHint(input_chars=4001, input_images=2, output_images=1, max_output_tokens=500)
    direct = ledger.reserve("openai:vision", 0.1)
    assert direct is not None
    ledger.settle(direct, 0.06)
    # No batched call settled yet: the batch estimate is the prices times the multiplier, not the direct mean.
    assert ledger.estimate("openai:vision", PRICES, hint, multiplier=0.5) == pytest.approx(0.02825125, abs=1e-12)
    for actual in (0.01, 0.02):
        batched = ledger.reserve("openai:vision", 0.05, multiplier=0.5)
        assert batched is not None and batched.multiplier == 0.5
        ledger.settle(batched, actual)
    # The batch mean is already billed money: the multiplier is not applied to it again.
    assert ledger.estimate("openai:vision", PRICES, hint, multiplier=0.5) == pytest.approx(0.015)
    assert ledger.estimate("openai:vision", PRICES, hint) == pytest.approx(0.06)
    calls = ledger.state()["calls"]["openai:vision"]
    assert calls["count"] == 3 and calls["cost"] == pytest.approx(0.09)
    assert calls["by_multiplier"] == {
        "1.0": {"count": 1, "cost": pytest.approx(0.06)},
        "0.5": {"count": 2, "cost": pytest.approx(0.03)},
    }


@pytest.mark.parametrize(
    "fields", [{"input_chars": -1}, {"input_images": 1.5}, {"output_images": True}, {"max_output_tokens": -5}]
)
def test_a_hint_holds_counts(fields: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="non-negative integer"):
        CallHint(**fields)


# -- state ------------------------------------------------------------------------


def test_state(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(2.0, ledger_path)
    assert ledger.state() == {
        "limit": 2.0,
        "spent": 0.0,
        "held": 0.0,
        "open": 0,
        "calls": {},
        "exhausted": False,
        "refused": 0,
    }
    a = ledger.reserve("openai:vision", 0.5)
    b = ledger.reserve("openai:text", 0.25)
    assert a is not None and b is not None
    ledger.settle(a, 0.4)
    assert ledger.reserve("openai:vision", 5.0) is None
    state = ledger.state()
    assert state == {
        "limit": 2.0,
        "spent": pytest.approx(0.4),
        "held": pytest.approx(0.25),
        "open": 1,
        "calls": {
            "openai:vision": {
                "count": 1,
                "cost": pytest.approx(0.4),
                "unbilled": 0,
                "by_multiplier": {"1.0": {"count": 1, "cost": pytest.approx(0.4)}},
            }
        },
        "exhausted": True,
        "refused": 1,
    }
    state["calls"]["openai:vision"]["count"] = 99  # a copy: changing it changes nothing in the ledger
    assert ledger.state()["calls"]["openai:vision"]["count"] == 1


# -- the shared file ----------------------------------------------------------------


def test_two_ledgers_on_one_path_see_each_others_spending(tmp_path: Path) -> None:
    path = tmp_path / "budget.json"
    one, two = BudgetLedger(1.0, path), BudgetLedger(1.0, path)
    r = one.reserve("openai:vision", 0.7)
    assert r is not None
    assert two.state()["held"] == pytest.approx(0.7)
    assert two.reserve("openai:vision", 0.4) is None  # 0.7 held by the other one
    assert one.state()["exhausted"] is True  # and the refusal stops the other one too
    one.settle(r, 0.3)
    state = two.state()
    assert state["spent"] == pytest.approx(0.3) and state["held"] == 0
    assert two.estimate("openai:vision", PRICES, CallHint()) == pytest.approx(0.3)  # the other one's settled call
    two.release(r)  # settled already: nothing to release
    assert one.state()["spent"] == pytest.approx(0.3)


def test_the_file_holds_the_ledger(tmp_path: Path) -> None:
    path = tmp_path / "budget.json"
    ledger = BudgetLedger(1.0, path)
    r = ledger.reserve("openai:vision", 0.25)
    assert r is not None
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["version"] == 1 and document["limit"] == 1.0
    assert document["spent"] == 0.0 and document["held"] == 0.25
    assert document["holds"] == {r.key: {"model": "openai:vision", "amount": 0.25, "multiplier": 1.0}}
    assert document["exhausted"] is False and document["refused"] == 0
    assert (tmp_path / "budget.json.lock").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["budget.json", "budget.json.lock"]  # no temporary left behind


def test_a_missing_or_empty_file_is_a_fresh_ledger(tmp_path: Path) -> None:
    path = tmp_path / "budget.json"
    path.write_text("  \n", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger = BudgetLedger(1.0, path)
        assert ledger.state()["spent"] == 0
        path.unlink()
        assert ledger.reserve("openai:vision", 0.5) is not None


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b"\xff\xfe\x00",
        b"[1, 2, 3]",
        b'{"version": 1, "spent": "lots", "holds": {}, "calls": {}, "exhausted": false, "refused": 0}',
        b'{"version": 1, "spent": 0.5, "holds": {}, "calls": {}, "exhausted": false, "refused": -1}',
        b'{"version": 1, "spent": NaN, "holds": {}, "calls": {}, "exhausted": false, "refused": 0}',
        b'{"version": 2, "spent": 0.5, "holds": {}, "calls": {}, "exhausted": false, "refused": 0}',
    ],
)
def test_a_damaged_file_is_set_aside_with_a_warning(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "budget.json"
    path.write_bytes(content)
    ledger = BudgetLedger(1.0, path)
    with pytest.warns(BudgetFileWarning, match="could not be read"):
        assert ledger.reserve("openai:vision", 0.9) is not None  # counted afresh
    assert (tmp_path / "budget.json.damaged").read_bytes() == content  # kept for inspection
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ledger.state()["held"] == pytest.approx(0.9)  # the fresh file reads back without a warning


def test_threads_of_one_process_share_the_ledger(ledger_path: Path | None) -> None:
    ledger = BudgetLedger(2.0, ledger_path)
    granted: list[float] = []
    lock = threading.Lock()

    def work(offset: int) -> None:
        for i in range(30):
            amount = 0.011 * (1 + (offset + i) % 4)
            r = ledger.reserve("openai:text", amount)
            if r is not None:
                with lock:
                    granted.append(r.amount)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    state = ledger.state()
    assert math.fsum(granted) <= 2.0 + 1e-9
    assert state["held"] == pytest.approx(math.fsum(granted))  # no lost update
    assert state["open"] == len(granted) and state["refused"] == 8 * 30 - len(granted)
    assert math.fsum(granted) > 2.0 - 0.044  # the budget was used up to the last call that fit


# -- processes racing for one file --------------------------------------------------

PROCESSES = 8
ATTEMPTS = 40


def _reserve_in_a_process(path: str, limit: float, worker: int, barrier: Any, out: str) -> None:
    ledger = BudgetLedger(limit, Path(path))
    barrier.wait(30)
    granted = []
    for i in range(ATTEMPTS):
        r = ledger.reserve(f"openai:model-{worker % 2}", 0.013 * (1 + (worker + i) % 5))
        if r is not None:
            granted.append(r.amount)
    Path(out).write_text(json.dumps(granted), encoding="utf-8")


def _reserve_and_settle_in_a_process(path: str, worker: int, barrier: Any, out: str) -> None:
    ledger = BudgetLedger(1000.0, Path(path))
    barrier.wait(30)
    paid = []
    for i in range(ATTEMPTS):
        r = ledger.reserve("openai:vision", 0.5)
        assert r is not None
        if i % 4 == 3:
            ledger.release(r)
        else:
            actual = 0.001 * (worker + 1) + 0.0001 * i
            ledger.settle(r, actual)
            paid.append(actual)
    Path(out).write_text(json.dumps(paid), encoding="utf-8")


def _race(tmp_path: Path, target: Any, args: tuple[Any, ...]) -> list[list[float]]:
    context = multiprocessing.get_context("spawn")
    barrier = context.Barrier(PROCESSES)
    outs = [tmp_path / f"worker-{n}.json" for n in range(PROCESSES)]
    processes = [context.Process(target=target, args=(*args, n, barrier, str(outs[n]))) for n in range(PROCESSES)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(60)
    assert [p.exitcode for p in processes] == [0] * PROCESSES
    return [json.loads(out.read_text(encoding="utf-8")) for out in outs]


def test_processes_reserving_at_once_never_hold_more_than_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "budget.json"
    limit = 3.0
    results = _race(tmp_path, _reserve_in_a_process, (str(path), limit))
    granted = [amount for worker in results for amount in worker]
    total = math.fsum(granted)
    state = BudgetLedger(limit, path).state()
    assert total <= limit + 1e-9
    assert total > limit - 0.065  # the limit was reached: refusals began only once the largest call no longer fit
    assert state["held"] == pytest.approx(total)  # every grant is in the file: no process overwrote another's
    assert state["open"] == len(granted)
    assert state["refused"] == PROCESSES * ATTEMPTS - len(granted) and state["exhausted"] is True
    assert 0 < len(granted) < PROCESSES * ATTEMPTS


def test_processes_settling_at_once_lose_no_booking(tmp_path: Path) -> None:
    path = tmp_path / "budget.json"
    results = _race(tmp_path, _reserve_and_settle_in_a_process, (str(path),))
    paid = [amount for worker in results for amount in worker]
    state = BudgetLedger(1000.0, path).state()
    assert len(paid) == PROCESSES * ATTEMPTS * 3 // 4
    assert state["spent"] == pytest.approx(math.fsum(paid), abs=1e-12)
    assert state["calls"]["openai:vision"]["count"] == len(paid)
    assert state["held"] == 0 and state["open"] == 0
    assert state["refused"] == 0 and state["exhausted"] is False

"""calls/usage.py: token names per API, prices, unpriced models, and the run's totals."""

from __future__ import annotations

import itertools
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.calls.usage import (
    CaseUsage,
    Prices,
    current_usage,
    merge_round_usage,
    merge_usage,
    total_usage,
    usage_scope,
)

PRICES_YAML = """\
openai:gpt-4o:
  input_per_million: 2.5
  output_per_million: 10
openai:gpt-image-1:
  input_per_million: 5
  output_per_million: 40
  per_image: 0.04
judge:flat:
  per_call: 0.001
"""


@pytest.fixture
def prices(tmp_path: Path) -> Prices:
    path = tmp_path / "prices.yaml"
    path.write_text(PRICES_YAML)
    return Prices.load(path)


# -- token names ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("usage", "tokens"),
    [
        ({"prompt_tokens": 12, "completion_tokens": 34, "total_tokens": 46}, (12, 34, 0)),  # Chat Completions
        ({"input_tokens": 12, "output_tokens": 34, "total_tokens": 46}, (12, 34, 0)),  # Responses
        ({"input_tokens": 10, "output_tokens": 100, "images": 2}, (10, 100, 2)),  # Images
        ({"prompt_tokens": 7.0, "output_tokens": None, "images": None}, (7, 0, 0)),
        ({"prompt_tokens": True, "completion_tokens": "34"}, (0, 0, 0)),  # not numbers
        ({}, (0, 0, 0)),
    ],
    ids=["chat", "responses", "images", "float-and-none", "not-numbers", "empty"],
)
def test_token_names_of_each_api(usage: dict[str, Any], tokens: tuple[int, int, int]) -> None:
    book = CaseUsage()
    book.book("model", "m", usage, Prices(), cached=False)
    entry = book.as_dict()["model"]
    assert (entry["input_tokens"], entry["output_tokens"], entry["images"]) == tokens
    assert entry["calls"] == 1


def test_chat_names_win_when_both_are_present() -> None:
    book = CaseUsage()
    book.book(
        "judge",
        "j",
        {"prompt_tokens": 3, "input_tokens": 99, "completion_tokens": 4, "output_tokens": 99},
        Prices(),
        cached=False,
    )
    assert (book.as_dict()["judge"]["input_tokens"], book.as_dict()["judge"]["output_tokens"]) == (3, 4)


# -- prices ------------------------------------------------------------------------------
def test_prices_from_yaml(prices: Prices) -> None:
    assert prices.table["openai:gpt-4o"] == {"input_per_million": 2.5, "output_per_million": 10.0}
    assert prices.cost("openai:gpt-4o", 1_000_000, 500_000, 0) == pytest.approx(2.5 + 5.0)
    assert prices.cost("openai:gpt-image-1", 100, 1000, 2) == pytest.approx(100 * 5 / 1e6 + 1000 * 40 / 1e6 + 2 * 0.04)
    assert prices.cost("judge:flat", 10_000, 10_000, 0) == pytest.approx(0.001)
    assert prices.cost("openai:unknown", 10, 10, 1) is None


def test_prices_from_json(tmp_path: Path) -> None:
    path = tmp_path / "prices.json"
    path.write_text(json.dumps({"openai:gpt-4o": {"input_per_million": 2.5}}))
    assert Prices.load(path).cost("openai:gpt-4o", 2_000_000, 0, 0) == pytest.approx(5.0)


def test_an_empty_prices_file_prices_nothing(tmp_path: Path) -> None:
    path = tmp_path / "prices.yaml"
    path.write_text("")
    assert Prices.load(path).table == {}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("- a\n- b\n", "expected a mapping"),
        ("openai:gpt-4o: 3\n", "must be a mapping"),
        ("openai:gpt-4o:\n  per_token: 1\n", "keys among"),
        ("openai:gpt-4o:\n  per_image: cheap\n", "must be numbers"),
        ("openai:gpt-4o:\n  per_image:\n", "must be numbers"),
    ],
    ids=["list", "number", "unknown-key", "not-a-number", "empty-value"],
)
def test_bad_prices_files_are_value_errors(tmp_path: Path, text: str, message: str) -> None:
    # ValueError is what --eval-prices turns into a usage error (call_options.py).
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(ValueError, match=message):
        Prices.load(path)


def test_cost_is_booked_per_call(prices: Prices) -> None:
    book = CaseUsage()
    book.book("model", "openai:gpt-image-1", {"input_tokens": 10, "output_tokens": 100, "images": 2}, prices, cached=False)
    book.book("judge", "openai:gpt-4o", {"prompt_tokens": 1000, "completion_tokens": 200}, prices, cached=False)
    book.book("judge", "judge:flat", {"prompt_tokens": 1000, "completion_tokens": 200}, prices, cached=False)
    result = book.as_dict()
    assert list(result) == ["judge", "model"]
    assert result["model"]["cost"] == pytest.approx(10 * 5 / 1e6 + 100 * 40 / 1e6 + 0.08)
    assert result["judge"]["cost"] == pytest.approx(1000 * 2.5 / 1e6 + 200 * 10 / 1e6 + 0.001)
    assert result["judge"]["calls"] == 2 and result["judge"]["input_tokens"] == 2000


# -- unpriced and cached ---------------------------------------------------------------------
def test_unpriced_models_are_listed_never_free(prices: Prices) -> None:
    book = CaseUsage()
    book.book("model", "openai:gpt-4o", {"prompt_tokens": 1_000_000}, prices, cached=False)
    book.book("model", "local:mystery", {"prompt_tokens": 1_000_000}, prices, cached=False)
    book.book("model", "local:mystery", {"prompt_tokens": 5}, prices, cached=False)
    book.book("judge", "local:other", {}, Prices(), cached=False)
    result = book.as_dict()
    assert result["model"]["unpriced"] == ["local:mystery"]
    assert result["model"]["cost"] == pytest.approx(2.5)  # only the priced model's share
    assert result["model"]["input_tokens"] == 2_000_005  # the unpriced calls still count their tokens
    assert result["judge"]["unpriced"] == ["local:other"]
    total = total_usage([{"uid": "s/a", "usage": result}])
    assert total["total"]["unpriced"] == ["local:mystery", "local:other"]
    assert total["total"]["cost"] == pytest.approx(2.5)


def test_cached_calls_count_apart_and_cost_nothing(prices: Prices) -> None:
    book = CaseUsage()
    book.book("model", "openai:gpt-4o", {"prompt_tokens": 1_000_000, "completion_tokens": 10}, prices, cached=True)
    book.book("model", "local:mystery", {"prompt_tokens": 10}, prices, cached=True)
    entry = book.as_dict()["model"]
    assert entry == {
        "calls": 0,
        "failed": 0,
        "cached": 2,
        "retries": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "images": 0,
        "batched": 0,
        "batch_failed": 0,
        "seconds": 0.0,
        "cost": 0.0,
        "unpriced": [],
    }


def test_retries_and_seconds() -> None:
    book = CaseUsage()
    book.retried("model")
    book.retried("model")
    book.add_seconds("model", 0.25)
    book.add_seconds("model", 0.5)
    entry = book.as_dict()["model"]
    assert (entry["retries"], entry["seconds"], entry["calls"]) == (2, 0.75, 0)


def test_booking_from_many_threads_loses_nothing() -> None:
    book = CaseUsage()

    def work() -> None:
        for _ in range(500):
            book.book("model", "m", {"input_tokens": 1, "output_tokens": 2}, Prices(), cached=False)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    entry = book.as_dict()["model"]
    assert (entry["calls"], entry["input_tokens"], entry["output_tokens"]) == (2000, 2000, 4000)


# -- scopes ------------------------------------------------------------------------------
def test_usage_scope_books_to_the_case_and_restores() -> None:
    outside = current_usage()
    with usage_scope() as case_a:
        assert current_usage() is case_a
        mine = CaseUsage()
        with usage_scope(mine) as case_b:
            assert case_b is mine and current_usage() is mine
        assert current_usage() is case_a
    assert current_usage() is outside
    assert case_a is not outside


# -- totals ------------------------------------------------------------------------------
def record(uid: str, **kinds: dict[str, Any]) -> dict[str, Any]:
    return {"uid": uid, "nodeid": f"suite.eval.yaml::{uid}", "usage": kinds}


RECORDS = [
    record(
        "s/a",
        model={"calls": 1, "retries": 1, "input_tokens": 10, "output_tokens": 100, "images": 1, "seconds": 0.1, "cost": 0.1},
        judge={"calls": 2, "input_tokens": 5, "output_tokens": 7, "seconds": 0.2, "cost": 0.2, "unpriced": ["j:x"]},
    ),
    record("s/b", model={"calls": 0, "cached": 1, "seconds": 0.0, "cost": 0.0, "unpriced": []}),
    record(
        "s/c",
        model={
            "calls": 1,
            "input_tokens": 20,
            "output_tokens": 200,
            "images": 2,
            "seconds": 0.3,
            "unpriced": ["m:z"],
            "cost": 0.3,
        },
        judge={"calls": 1, "retries": 2, "seconds": 0.7, "cost": 1e-17, "unpriced": ["j:a", "j:x"]},
    ),
    {"uid": "s/d", "nodeid": "x", "usage": {}},
    {"uid": "s/e", "nodeid": "y"},  # a record with no usage at all (e.g. a plain Python test)
]


def test_total_usage_sums_per_kind_and_overall() -> None:
    total = total_usage(RECORDS)
    assert list(total["kinds"]) == ["judge", "model"]
    model, judge, overall = total["kinds"]["model"], total["kinds"]["judge"], total["total"]
    assert (model["calls"], model["cached"], model["retries"], model["images"]) == (2, 1, 1, 3)
    assert (model["input_tokens"], model["output_tokens"]) == (30, 300)
    assert model["seconds"] == pytest.approx(0.4) and model["cost"] == pytest.approx(0.4)
    assert model["unpriced"] == ["m:z"]
    assert (judge["calls"], judge["retries"], judge["input_tokens"]) == (3, 2, 5)
    assert judge["unpriced"] == ["j:a", "j:x"]
    assert (overall["calls"], overall["cached"], overall["retries"], overall["images"]) == (5, 1, 3, 3)
    assert (overall["input_tokens"], overall["output_tokens"]) == (35, 307)
    assert overall["seconds"] == pytest.approx(1.3) and overall["cost"] == pytest.approx(0.6)
    assert overall["unpriced"] == ["j:a", "j:x", "m:z"]


def test_total_usage_does_not_depend_on_record_order() -> None:
    expected = json.dumps(total_usage(RECORDS), sort_keys=False)
    for order in itertools.permutations(RECORDS):
        assert json.dumps(total_usage(order), sort_keys=False) == expected


def test_total_usage_of_nothing() -> None:
    total = total_usage([])
    assert total["kinds"] == {}
    assert total["total"]["calls"] == 0 and total["total"]["cost"] == 0.0 and total["total"]["unpriced"] == []


def test_a_batched_call_costs_its_batch_share_of_the_price(prices: Prices) -> None:
    book = CaseUsage()
    direct = book.book("model", "openai:gpt-4o", {"prompt_tokens": 1_000_000}, prices, cached=False)
    batched = book.book("model", "openai:gpt-4o", {"prompt_tokens": 1_000_000}, prices, cached=False, batched=True)
    assert direct is not None and batched == pytest.approx(direct * 0.5)
    book.failed_request("model", batched=True)
    entry = book.as_dict()["model"]
    assert (entry["calls"], entry["batched"], entry["failed"], entry["batch_failed"]) == (3, 2, 1, 1)
    assert entry["cost"] == pytest.approx(direct * 1.5)
    own = Prices({"m": {"per_call": 1.0, "batch_multiplier": 0.25}})
    assert own.cost("m", 0, 0, 0, batched=True) == pytest.approx(0.25)


def test_usage_of_two_rounds_adds_up() -> None:
    first = {"model": {"calls": 1, "batched": 1, "cost": 0.02, "seconds": 0.5, "unpriced": []}}
    second = {"model": {"cached": 1, "unpriced": ["x"]}, "judge": {"calls": 1, "cost": 0.01, "unpriced": []}}
    merged = merge_usage(first, second)
    assert merged["model"]["calls"] == 1 and merged["model"]["cached"] == 1 and merged["model"]["batched"] == 1
    assert merged["model"]["cost"] == pytest.approx(0.02) and merged["model"]["unpriced"] == ["x"]
    assert merged["judge"]["calls"] == 1


def test_a_later_round_does_not_count_the_calls_of_earlier_rounds_as_cached() -> None:
    # Round 1 made 1 model call (1 was already cached before the run); round 2 hits both in the cache.
    round1 = {"model": {"calls": 1, "cached": 1, "batched": 1, "unpriced": []}}
    round2 = {"model": {"cached": 2, "unpriced": []}, "judge": {"calls": 1, "batched": 1, "unpriced": []}}
    merged = merge_round_usage(round1, round2)
    assert (merged["model"]["calls"], merged["model"]["cached"]) == (1, 1)
    # A failed request of round 1 was not cached, so a hit of round 2 is a real one.
    failed = {"judge": {"calls": 1, "failed": 1, "unpriced": []}}
    assert merge_round_usage(failed, {"judge": {"cached": 1, "unpriced": []}})["judge"]["cached"] == 1

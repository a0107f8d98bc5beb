"""Provider batches and the budget end to end, against the local server's files and batches endpoints.

Each case makes one image generation and one judge call (the judge grades
the generated image, so it can only be asked once the generation has come
back). The server answers batch lines with the same replies it gives direct
requests, so a batched run must end with exactly the scores of a direct one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from pytest_visioneval.report.results_json import results_schema
from pytest_visioneval.testing import FakeOpenAIServer
from tests.conftest import read_json
from tests.plugin.test_calls_end_to_end import GEN, JUDGE, MODEL, answers, case_of, suite_yaml

EXIT_NOT_EVALUATED = 6
PRICES = f"{MODEL}: {{per_image: 0.04}}\n{JUDGE}: {{per_call: 0.01}}\n"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-batches")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAIServer(text_reply=answers) as fake:
        yield fake


def setup_suite(pytester: pytest.Pytester, count: int) -> None:
    root = pytester.path / "cases"
    root.mkdir(exist_ok=True)
    (root / "calls.eval.yaml").write_text(suite_yaml(count))
    (pytester.path / "prices.yaml").write_text(PRICES)


def run(pytester: pytest.Pytester, server: FakeOpenAIServer, out: str, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "cases",
        f"--model={MODEL}",
        f"--model-base-url={server.base_url}",
        f"--judge={JUDGE}",
        f"--judge-base-url={server.base_url}",
        f"--eval-output-dir={out}",
        f"--eval-results={out}.json",
        "--eval-prices=prices.yaml",
        "-p",
        "no:randomly",
        *args,
    )


def document(pytester: pytest.Pytester, out: str) -> dict[str, Any]:
    doc: dict[str, Any] = read_json(pytester.path / f"{out}.json")
    jsonschema.validate(doc, results_schema())
    return doc


def case_metrics(doc: dict[str, Any]) -> dict[str, dict[str, float]]:
    return {r["uid"]: {m["name"]: m["value"] for m in r["metrics"]} for r in doc["cases"]}


def direct_requests(server: FakeOpenAIServer) -> list[str]:
    return [r.path for r in server.requests if r.path.endswith(("/images/generations", "/chat/completions"))]


@pytest.mark.slow
def test_a_100_case_batched_run_submits_resumes_and_ends_with_the_direct_scores(
    pytester: pytest.Pytester, server: FakeOpenAIServer
) -> None:
    setup_suite(pytester, 100)
    direct = run(pytester, server, "direct")
    assert direct.ret == 0, direct.stdout.str()[-2000:]
    server.reset()
    server.hold_batches()

    # 1. Submit: nothing is called directly, every case waits, and the exit status says so.
    first = run(pytester, server, "batched", "--eval-batch=both")
    assert first.ret == EXIT_NOT_EVALUATED, first.stdout.str()[-3000:]
    assert direct_requests(server) == []
    doc = document(pytester, "batched")
    assert doc["not_evaluated"]["by_reason"] == {"batch": 100}
    assert [b["requests"] for b in doc["batches"]["open"]] == [100]
    assert doc["usage"]["total"]["calls"] == 0
    assert doc["thresholds"] == [] and doc["exit"]["status"] == EXIT_NOT_EVALUATED
    first.stdout.fnmatch_lines(["*NOT EVALUATED: 100 case(s) wait on provider batches (1 open)*"])
    batch_id = doc["batches"]["open"][0]["id"]

    # 2. Interrupted while the batch is still running: a second invocation submits nothing twice.
    second = run(pytester, server, "batched", "--eval-batch=both")
    assert second.ret == EXIT_NOT_EVALUATED
    assert len(server.batches) == 1 and direct_requests(server) == []
    second.stdout.fnmatch_lines([f"*{batch_id}: in_progress, 0/100 done (model)*"])

    # 3. The generations came back: they are graded as far as they can be, the judge calls go out in a new batch.
    server.release_batches()
    third = run(pytester, server, "batched", "--eval-batch=both")
    assert third.ret == EXIT_NOT_EVALUATED
    doc = document(pytester, "batched")
    assert doc["usage"]["kinds"]["model"]["batched"] == 100
    assert doc["usage"]["kinds"]["model"]["cost"] == pytest.approx(100 * 0.04 * 0.5)  # batch price: half
    assert [b["kinds"] for b in doc["batches"]["open"]] == [["judge"]]
    assert len(server.batches) == 2 and direct_requests(server) == []
    judged = {case_of(line) for line in server.batch_lines if line.path.endswith("/chat/completions")}
    assert judged == set()  # not yet: the judge batch has only been submitted

    # 4. The judgements came back: every case is graded, with the direct run's scores, at batch prices.
    fourth = run(pytester, server, "batched", "--eval-batch=both")
    assert fourth.ret == 0, fourth.stdout.str()[-3000:]
    doc = document(pytester, "batched")
    assert "not_evaluated" not in doc
    assert case_metrics(doc) == case_metrics(document(pytester, "direct"))
    assert doc["aggregates"]["overall"] == document(pytester, "direct")["aggregates"]["overall"]
    assert doc["usage"]["kinds"]["judge"]["batched"] == 100
    assert doc["usage"]["kinds"]["judge"]["cost"] == pytest.approx(100 * 0.01 * 0.5)
    assert document(pytester, "direct")["usage"]["total"]["cost"] == pytest.approx(100 * 0.05)
    assert direct_requests(server) == []
    assert len(server.batch_lines) == 200
    fourth.stdout.fnmatch_lines(["*judge: 100 calls (0 failed; 100 in provider batches at batch prices)*"])


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["n0", "n2"])
def test_batch_wait_submits_waits_and_grades_in_one_command(
    pytester: pytest.Pytester, server: FakeOpenAIServer, workers: list[str]
) -> None:
    setup_suite(pytester, 6)
    assert run(pytester, server, "direct").ret == 0
    server.reset()
    server.batch_delay = 0.3
    result = run(pytester, server, "waited", "--eval-batch=both", "--eval-batch-wait=60", "--eval-batch-poll=0.1", *workers)
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert direct_requests(server) == []
    assert len(server.batches) == 2  # the generations, then the judgements of what they made
    doc = document(pytester, "waited")
    assert case_metrics(doc) == case_metrics(document(pytester, "direct"))
    assert doc["usage"]["total"]["batched"] == 12
    assert doc["usage"]["total"]["cached"] == 0  # the rounds' own replies are not counted again as cache hits
    assert {r["status"] for r in doc["cases"]} == {"passed"}


def test_batch_wait_that_runs_out_leaves_the_cases_not_evaluated(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    setup_suite(pytester, 3)
    server.hold_batches()
    result = run(pytester, server, "short", "--eval-batch=model", "--eval-batch-wait=0.5", "--eval-batch-poll=0.1")
    assert result.ret == EXIT_NOT_EVALUATED
    result.stdout.fnmatch_lines(["*--eval-batch-wait ran out with batches still open*"])
    assert document(pytester, "short")["not_evaluated"]["by_reason"] == {"batch": 3}


def test_a_request_that_fails_inside_a_batch_is_retried_in_the_next_batch(
    pytester: pytest.Pytester, server: FakeOpenAIServer
) -> None:
    setup_suite(pytester, 4)
    failed: list[str] = []

    def first_try_of_case_3(line: dict[str, Any]) -> bool:
        hit = line["url"] == GEN and "case-3" in json.dumps(line["body"]) and not failed
        if hit:
            failed.append(line["custom_id"])
        return hit

    server.batch_fail_when(first_try_of_case_3, 500)
    result = run(pytester, server, "retried", "--eval-batch=model", "--eval-batch-wait=60", "--eval-batch-poll=0.05")
    assert result.ret == 0, result.stdout.str()[-3000:]
    usage = document(pytester, "retried")["usage"]["kinds"]["model"]
    assert (usage["batched"], usage["batch_failed"], usage["retries"]) == (5, 1, 1)
    generations = [line for line in server.batch_lines if line.path.endswith(GEN)]
    assert sorted(case_of(line) for line in generations) == [1, 2, 3, 3, 4]
    assert direct_requests(server).count("/v1/chat/completions") == 4  # the judge was not batched: called directly
    assert GEN not in direct_requests(server)


def test_a_failure_retried_directly_and_one_that_cannot_succeed(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    setup_suite(pytester, 3)
    server.batch_fail_when(lambda line: "case-2" in json.dumps(line["body"]), 500)
    result = run(
        pytester,
        server,
        "direct-retry",
        "--eval-batch=model",
        "--eval-batch-retry=direct",
        "--eval-batch-wait=60",
        "--eval-batch-poll=0.05",
    )
    assert result.ret == 0, result.stdout.str()[-3000:]
    assert [case_of(r) for r in server.requests if r.path == GEN] == [2]  # retried at once, at the direct price
    usage = document(pytester, "direct-retry")["usage"]["kinds"]["model"]
    assert usage["cost"] == pytest.approx(2 * 0.04 * 0.5 + 0.04)

    server.reset()
    (pytester.path / "cases" / "calls.eval.yaml").write_text(suite_yaml(3).replace("draw case-", "paint case-"))
    server.batch_fail_when(lambda line: "case-2" in json.dumps(line["body"]), 400)
    result = run(pytester, server, "bad", "--eval-batch=model", "--eval-batch-wait=60", "--eval-batch-poll=0.05")
    assert result.ret == 1
    by_uid = {r["uid"]: r for r in document(pytester, "bad")["cases"]}
    assert by_uid["calls/c2"]["status"] == "error"
    assert "request failed inside batch" in by_uid["calls/c2"]["error"] and "HTTP 400" in by_uid["calls/c2"]["error"]
    assert by_uid["calls/c1"]["status"] == by_uid["calls/c3"]["status"] == "passed"


def test_the_budget_stops_new_calls_at_the_right_point(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    setup_suite(pytester, 10)
    # A case costs 0.04 (image) + 0.01 (judge); cases run one at a time, so 4 fit in 0.2 and the 5th would not.
    result = run(pytester, server, "budget", "--eval-max-cost=0.2")
    assert result.ret == EXIT_NOT_EVALUATED, result.stdout.str()[-3000:]
    doc = document(pytester, "budget")
    status = {r["uid"]: r["status"] for r in doc["cases"]}
    assert [status[f"calls/c{n}"] for n in range(1, 11)] == ["passed"] * 4 + ["skipped"] * 6
    assert [c["uid"] for c in doc["not_evaluated"]["cases"]] == sorted(f"calls/c{n}" for n in range(5, 11))
    assert doc["not_evaluated"]["by_reason"] == {"budget": 6}
    assert doc["budget"]["spent"] == pytest.approx(0.2) and doc["budget"]["exhausted"]
    assert doc["usage"]["total"]["cost"] == pytest.approx(0.2)
    assert len(server.requests) == 8
    result.stdout.fnmatch_lines(["*budget $0.2000: $0.2000 spent; reached: 6 call(s) refused*", "*--eval-max-cost reached*"])


def test_a_budget_needs_prices_and_batching_needs_the_cache(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    setup_suite(pytester, 1)
    (pytester.path / "prices.yaml").write_text(f"{MODEL}: {{per_image: 0.04}}\n")  # the judge has no price
    result = run(pytester, server, "unpriced", "--eval-max-cost=1")
    assert result.ret == 1
    record = document(pytester, "unpriced")["cases"][0]
    assert record["status"] == "error" and "openai:judge-model has no price" in record["error"]
    refused = run(pytester, server, "nocache", "--eval-batch=both", "--eval-cache=off")
    assert refused.ret == 4
    refused.stderr.fnmatch_lines(["*--eval-batch needs the call cache*"])


def test_a_judge_reply_that_fails_its_schema_is_asked_again_in_the_next_batch(
    pytester: pytest.Pytester, server: FakeOpenAIServer
) -> None:
    setup_suite(pytester, 3)
    assert run(pytester, server, "direct").ret == 0
    server.reset()
    # The first judge reply for case 2 is cut in half: not JSON. A direct run asks again at once; a batched one
    # asks again in the next batch, showing the judge its rejected reply, and ends with the same scores.
    server.truncate_replies(1, when=lambda request: request.path.endswith("/chat/completions") and case_of(request) == 2)
    result = run(pytester, server, "reasked", "--eval-batch=judge", "--eval-batch-wait=60", "--eval-batch-poll=0.05")
    assert result.ret == 0, result.stdout.str()[-3000:]
    doc = document(pytester, "reasked")
    assert case_metrics(doc) == case_metrics(document(pytester, "direct"))
    judge = doc["usage"]["kinds"]["judge"]
    assert (judge["calls"], judge["batched"], judge["batch_failed"]) == (4, 4, 1)
    lines = [line for line in server.batch_lines if line.path.endswith("/chat/completions")]
    assert sorted(case_of(line) for line in lines) == [1, 2, 2, 3]
    assert [len(line.json["messages"]) for line in lines if case_of(line) == 2] == [2, 4]  # type: ignore[index]
    assert len(server.batches) == 2


def test_a_batched_call_collected_in_the_same_run_is_counted_once_against_the_budget(
    pytester: pytest.Pytester, server: FakeOpenAIServer
) -> None:
    # Issue 38: the hold of a batched call stayed in the ledger after its reply was booked, so a run costing
    # $0.125 saw $0.10 spent + $0.10 held against $0.20 and refused its last calls.
    setup_suite(pytester, 5)
    server.batch_delay = 0.1
    args = ("--eval-batch=both", "--eval-batch-wait=60", "--eval-batch-poll=0.05", "--eval-max-cost=0.2")
    result = run(pytester, server, "held", *args)
    assert result.ret == 0, result.stdout.str()[-3000:]
    doc = document(pytester, "held")
    assert {r["status"] for r in doc["cases"]} == {"passed"}
    assert doc["usage"]["total"]["cost"] == pytest.approx(5 * 0.05 * 0.5)
    budget = doc["budget"]
    assert (budget["spent"], budget["held"], budget["open"], budget["refused"]) == (pytest.approx(0.125), 0, 0, 0)
    assert "held (in flight" not in result.stdout.str()
    # The batch lines name /v1/...; the base URL already ends in /v1: the endpoint says it once.
    assert sorted(b["endpoint"] for b in doc["batches"]["ended"]) == [
        server.base_url.rstrip("/") + "/chat/completions",
        server.base_url.rstrip("/") + "/images/generations",
    ]

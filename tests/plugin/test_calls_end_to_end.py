"""The call layer end to end: faults, the call cache, resuming, concurrency and secrets.

Every suite here makes one image generation and one judge call per case,
against :class:`FakeOpenAIServer` through the real ``openai`` SDK. The server
records each request (which case it was for, its status and times), so the
tests count exactly what was paid for.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.testing import FakeOpenAIServer, RecordedRequest
from tests.conftest import read_json

SECRET = "sk-test-SECRET-4242"
URL_SECRET = "sk-url-SECRET-7777"
MODEL = "openai:img-model"
JUDGE = "openai:judge-model"
GEN, CHAT = "/v1/images/generations", "/v1/chat/completions"
QUESTIONS = ["Is there a box?", "Is the box centred?", "Is the background white?"]


def suite_yaml(count: int) -> str:
    cases = "".join(f"  - id: c{i}\n    prompt: draw case-{i}\n" for i in range(1, count + 1))
    return (
        "suite: calls\n"
        "defaults:\n"
        "  task: image_generation\n"
        "  params: {size: 32x32}\n"
        "  graders:\n"
        "    - use: image\n"
        "    - use: checklist\n"
        f"      options: {{min_score: 0, questions: {json.dumps(QUESTIONS)}}}\n"
        f"cases:\n{cases}"
    )


def case_of(request: RecordedRequest) -> int:
    """The case a request is for (its prompt, or the judge's view of it, names ``case-N``)."""
    found = re.findall(r"case-(\d+)", json.dumps(request.json or {}))
    assert found, request.path
    return int(found[0])


def answers(request: RecordedRequest) -> str:
    """Judge answers that differ between cases but never between runs: the scores are comparable."""
    n = case_of(request)
    yes = (True, n % 2 == 0, n % 3 == 0)
    return json.dumps(
        {"answers": [{"id": i, "reason": f"looked at {i}", "answer": "yes" if y else "no"} for i, y in enumerate(yes, 1)]}
    )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAIServer(text_reply=answers) as fake:
        yield fake


def write_suite(pytester: pytest.Pytester, count: int) -> None:
    root = pytester.path / "cases"
    root.mkdir(exist_ok=True)
    (root / "calls.eval.yaml").write_text(suite_yaml(count))


def run(pytester: pytest.Pytester, server: FakeOpenAIServer, *args: str) -> pytest.RunResult:
    return pytester.runpytest(
        "cases",
        f"--model={MODEL}",
        f"--model-base-url={server.base_url}",
        f"--judge={JUDGE}",
        f"--judge-base-url={server.base_url}",
        "--eval-output-dir=out",
        "--eval-results=results.json",
        *args,
    )


def records(pytester: pytest.Pytester) -> dict[int, dict[str, Any]]:
    document = read_json(pytester.path / "results.json")
    return {int(r["case_id"][1:]): r for r in document["cases"]}


def scores(pytester: pytest.Pytester) -> dict[int, dict[str, float]]:
    return {n: {m["name"]: m["value"] for m in r["metrics"]} for n, r in records(pytester).items()}


def paid(server: FakeOpenAIServer) -> set[tuple[str, int]]:
    """(endpoint, case) of every request the server answered successfully."""
    return {(r.path, case_of(r)) for r in server.requests if r.status == 200}


def check_accounting(pytester: pytest.Pytester, server: FakeOpenAIServer, count: int, cause: str) -> dict[int, dict[str, Any]]:
    """Every case passed or is an error naming ``cause``; the totals add up; no case passed without its replies.

    Returns the records by case number.
    """
    by_case = records(pytester)
    assert sorted(by_case) == list(range(1, count + 1))
    statuses = [r["status"] for r in by_case.values()]
    assert statuses.count("passed") + statuses.count("error") == count, statuses
    suite = read_json(pytester.path / "results.json")["aggregates"]["suites"]["calls"]
    assert (suite["cases"], suite["passed"], suite["errors"]) == (count, statuses.count("passed"), statuses.count("error"))
    assert suite["pass_rate"] == pytest.approx(statuses.count("passed") / count)  # errors are in the denominator
    # The usage counts every request the server saw: failed attempts and re-asks too.
    usage = read_json(pytester.path / "results.json")["usage"]["total"]
    assert usage["calls"] == len(server.requests), (usage, len(server.requests))
    answered = paid(server)
    for n, record in by_case.items():
        if record["status"] == "passed":
            # A pass rests on a real image and a real verdict for this very case.
            assert (GEN, n) in answered and (CHAT, n) in answered, n
            assert record["error"] is None and len(record["metrics"]) >= 3
        else:
            assert cause in record["error"], record["error"]
    # Each failed request was asked again, or its case is an error: nothing failed silently.
    for i, request in enumerate(server.requests):
        if request.status != 200:
            n = case_of(request)
            later = [r for r in server.requests[i + 1 :] if r.path == request.path and case_of(r) == n]
            assert later or by_case[n]["status"] == "error", (request.path, n, request.status)
    return by_case


def retries(pytester: pytest.Pytester) -> int:
    return read_json(pytester.path / "results.json")["usage"]["total"]["retries"]


# -- 1. faults ----------------------------------------------------------------------------------------------------


def test_a_burst_of_429s_is_waited_out_as_the_server_asks(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]
) -> None:
    write_suite(pytester, 4)
    server.fail_next(5, status=429, retry_after="0.05")
    result = run(pytester, server, "--model-max-retries=5", *xdist_args)
    result.assert_outcomes(passed=4)  # at most 5 faults for any call, and 5 retries allowed: every case gets through
    check_accounting(pytester, server, 4, cause="HTTP 429")
    statuses = [r.status for r in server.requests]
    assert statuses.count(429) == 5 and statuses.count(200) == 8 and len(statuses) == 13
    assert retries(pytester) == 5
    if not xdist_args:  # one request at a time: each retry follows its 429 after about retry-after, not the backoff
        gaps = [after.received - (before.answered or 0.0) for before, after in pairwise(server.requests) if before.status == 429]
        assert len(gaps) == 5 and min(gaps) >= 0.04, gaps
        assert sum(gaps) < 2.0, gaps  # the own backoff would have waited 0.5 + 1 + 2 + 4 + 8 s (x0.75 at least)


def test_a_500_on_every_fifth_call_is_retried_with_backoff(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]
) -> None:
    write_suite(pytester, 6)
    server.fail_every(5, status=500)
    run(pytester, server, *xdist_args)
    by_case = check_accounting(pytester, server, 6, cause="HTTP 500 from the API after 3 attempt(s)")
    statuses = [r.status for r in server.requests]
    assert [r.number for r in server.requests if r.status == 500] == [r.number for r in server.requests if r.number % 5 == 0]
    assert statuses.count(500) >= 2
    errors = [n for n, r in by_case.items() if r["status"] == "error"]
    # Every fault was retried but the last of each call that gave up (3 attempts, 2 retries).
    assert retries(pytester) == statuses.count(500) - len(errors)
    if not xdist_args:  # sequential: a retry never lands on the next fifth request, so every case passes
        assert errors == [] and len(statuses) == 14  # 12 calls + the 5th and the 10th request


def test_replies_slower_than_the_timeout_are_retried_then_an_error(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]
) -> None:
    write_suite(pytester, 3)
    first_seen: set[int] = set()

    def latency(request: RecordedRequest) -> float:
        if request.path != GEN:
            return 0.0
        n = case_of(request)
        if n == 2 or (n == 3 and n not in first_seen):  # case 2 always slow, case 3 only the first time
            first_seen.add(n)
            return 1.0
        return 0.0

    server.latency = latency
    result = run(pytester, server, "--model-timeout=0.3", "--model-max-retries=1", *xdist_args)
    result.assert_outcomes(passed=2, errors=1)
    by_case = check_accounting(pytester, server, 3, cause="ModelError: openai:img-model: request timed out after 2 attempt(s)")
    assert [n for n, r in by_case.items() if r["status"] == "error"] == [2]
    assert "request timed out after 2 attempt(s)" in result.stdout.str()
    counts = {n: sum(1 for r in server.calls_to(GEN) if case_of(r) == n) for n in (1, 2, 3)}
    assert counts == {1: 1, 2: 2, 3: 2}
    assert [case_of(r) for r in server.calls_to(CHAT)].count(2) == 0  # no image, nothing to judge
    assert by_case[3]["usage"]["model"]["retries"] == 1


def test_judge_replies_cut_in_half_are_asked_again_or_are_an_error(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]
) -> None:
    write_suite(pytester, 4)

    def cut(request: RecordedRequest) -> bool:  # case 2: every reply cut; case 3: only the first
        n = case_of(request)
        return n == 2 or (n == 3 and "That reply was rejected" not in json.dumps(request.json))

    server.truncate_replies(when=cut)
    result = run(pytester, server, "--judge-retries=1", *xdist_args)
    result.assert_outcomes(passed=3, errors=1)
    by_case = check_accounting(pytester, server, 4, cause="JudgeOutputError: judge openai:judge-model gave no valid reply")
    assert by_case[2]["status"] == "error" and "in 2 attempt(s)" in by_case[2]["error"]
    judged = {n: [r for r in server.calls_to(CHAT) if case_of(r) == n] for n in (1, 2, 3, 4)}
    assert {n: len(v) for n, v in judged.items()} == {1: 1, 2: 2, 3: 2, 4: 1}
    assert [r.truncated for r in judged[3]] == [True, False] and all(r.truncated for r in judged[2])
    assert "That reply was rejected" in json.dumps(judged[3][1].json["messages"][-1])
    assert by_case[3]["status"] == "passed" and scores(pytester)[3]["checklist.score"] == pytest.approx(2 / 3)
    result.stdout.fnmatch_lines(["calls * 4 * 3 * 0 * 1 * 75.0%*"])  # the compact summary's row


# -- 2. the cache ---------------------------------------------------------------------------------------------------


def cache_entries(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.json")) if folder.exists() else []


@pytest.mark.slow
def test_the_cache_answers_a_second_run_alone(pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]) -> None:
    write_suite(pytester, 4)
    # Without xdist one case at a time; with two workers, four calls in flight across them.
    extra = [*xdist_args, "--eval-concurrency=4"] if xdist_args else []
    run(pytester, server, "--eval-cache=on", *extra).assert_outcomes(passed=4)
    assert server.counts() == {GEN: 4, CHAT: 4}
    first = scores(pytester)
    cache = pytester.path / "out" / "cache"
    assert len(cache_entries(cache / "model")) == 4 and len(cache_entries(cache / "judge")) == 4

    server.reset()
    run(pytester, server, "--eval-cache=on", *extra).assert_outcomes(passed=4)
    assert server.requests == []
    assert scores(pytester) == first
    usage = read_json(pytester.path / "results.json")["usage"]["total"]
    assert (usage["calls"], usage["cached"]) == (0, 8)

    server.reset()
    run(pytester, server, "--eval-cache=off", *extra).assert_outcomes(passed=4)
    assert server.counts() == {GEN: 4, CHAT: 4}
    assert scores(pytester) == first

    server.reset()
    fresh = pytester.path / "fresh-cache"
    run(pytester, server, "--eval-cache=read", f"--eval-cache-dir={fresh}", *extra).assert_outcomes(passed=4)
    assert server.counts() == {GEN: 4, CHAT: 4}
    assert cache_entries(fresh) == []  # read only: nothing written


# -- 3. resuming ----------------------------------------------------------------------------------------------------


def test_an_interrupted_run_loses_nothing_already_paid_for(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]
) -> None:
    write_suite(pytester, 6)
    server.fail_when(lambda r: r.path == GEN and case_of(r) in (3, 5), status=500, retry_after="0")
    # -x stops at the first broken case; cases evaluated ahead meanwhile are paid for and must be kept.
    first = run(pytester, server, "-x", "--model-max-retries=1", "--eval-concurrency=2", *xdist_args)
    assert first.ret != 0
    outcomes = first.parseoutcomes()
    assert outcomes.get("errors", 0) >= 1 and outcomes.get("passed", 0) >= 2
    kept = paid(server)
    assert {(GEN, 1), (CHAT, 1), (GEN, 2), (CHAT, 2)} <= kept  # what pytest reached before the error
    assert (GEN, 3) not in kept and sum(1 for r in server.calls_to(GEN) if case_of(r) == 3) == 2

    server.reset()  # healthy again
    run(pytester, server).assert_outcomes(passed=6)
    again = [(r.path, case_of(r)) for r in server.requests]
    assert len(again) == len(set(again))  # each missing call made once
    assert set(again).isdisjoint(kept)  # nothing paid for is asked again
    assert set(again) | kept == {(path, n) for path in (GEN, CHAT) for n in range(1, 7)}
    assert {(GEN, 3), (CHAT, 3)} <= set(again)  # failures were never cached


# -- 4. concurrency -------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_calls_overlap_up_to_the_limit_and_never_beyond(
    pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]
) -> None:
    latency, limit = 0.3, 4
    write_suite(pytester, 8)
    server.latency = latency
    run(pytester, server, f"--eval-concurrency={limit}", *xdist_args).assert_outcomes(passed=8)
    assert len(server.requests) == 16
    # Overlap is counted, not timed: a loaded CI machine stretches wall time, never the count of calls the
    # server held at once.
    assert 2 <= server.max_in_flight <= limit, server.max_in_flight
    # The server's own count agrees with the times it recorded.
    events = sorted([(r.received, 1) for r in server.requests] + [(r.answered or 0.0, -1) for r in server.requests])
    level = peak = 0
    for _, step in events:
        level += step
        peak = max(peak, level)
    assert peak <= limit
    # Without xdist the process's own semaphore is the limit; under xdist the workers took their slots from
    # the controller's slot server. Neither made slot files.
    assert list((pytester.path / "out").glob("*/.slots")) == []

    server.reset()  # the same run again: all from the cache, in any order the threads ask
    run(pytester, server, f"--eval-concurrency={limit}", *xdist_args).assert_outcomes(passed=8)
    assert server.requests == []


# -- 5. secrets -----------------------------------------------------------------------------------------------------


def test_the_api_key_is_written_nowhere(pytester: pytest.Pytester, server: FakeOpenAIServer, xdist_args: list[str]) -> None:
    write_suite(pytester, 2)
    # The judge's endpoint carries a second key in its userinfo (the SDK's HTTP client sends it as basic auth).
    judge_url = server.base_url.replace("http://", f"http://user:{URL_SECRET}@")
    result = pytester.runpytest(
        "cases",
        f"--model={MODEL}",
        f"--model-base-url={server.base_url}",
        f"--judge={JUDGE}",
        f"--judge-base-url={judge_url}",
        "--eval-output-dir=out",
        "--eval-results=results.json",
        "--eval-cache=on",
        "--eval-report=report.html",
        "--eval-snapshot=all",
        "--snapshot-update",
        "--junitxml=junit.xml",
        *xdist_args,
    )
    result.assert_outcomes(passed=2)
    # Both keys were used...
    assert {r.headers["authorization"] for r in server.calls_to(GEN)} == {f"Bearer {SECRET}"}
    assert {r.headers["authorization"] for r in server.calls_to(CHAT)} == {basic_auth("user", URL_SECRET)}
    files = [p for p in pytester.path.rglob("*") if p.is_file()]
    names = {p.name for p in files}
    assert {"results.json", "report.html", "junit.xml", "provenance.json"} <= names
    calls_kept = [p for p in files if p.suffix == ".json" and "cache" in p.parts and "grade" not in p.parts]
    assert len(calls_kept) == 4  # (a slow grade may be kept too: run/grade_memo.py)
    assert any("__eval_snapshots__" in p.parts for p in files)
    # ...and kept nowhere: not as text, not as the header that carried it.
    for secret in (SECRET, URL_SECRET, basic_auth("user", URL_SECRET).split()[1]):
        assert [str(p) for p in files if secret.encode() in p.read_bytes()] == [], secret
        assert secret not in result.stdout.str() + result.stderr.str()
    argv = read_json(pytester.path / "results.json")["run"]["argv"]
    assert f"--judge-base-url={server.base_url.replace('http://', 'http://[REDACTED]@')}" in argv  # redacted, not dropped


def basic_auth(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

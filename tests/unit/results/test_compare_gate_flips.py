"""results/compare.py and report/compare_text.py: gates that flip inside a case that failed in both runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cli import main as dispatcher
from pytest_visioneval.report.compare_text import pair_lines
from pytest_visioneval.results.compare import Settings, compare_pair, sides_of


def gate(name: str, passed: bool, reason: str = "", gating: bool = True) -> dict[str, Any]:
    return {"name": name, "passed": passed, "reason": reason, "gating": gating}


def case(uid: str, status: str, gates: list[dict[str, Any]]) -> dict[str, Any]:
    return {"uid": uid, "suite": uid.split("/")[0], "protocol": "generic", "status": status, "gates": gates, "metrics": []}


def doc(cases: list[dict[str, Any]], model: str) -> dict[str, Any]:
    return {"run": {"id": model, "model": model}, "cases": cases, "benchmarks": {}}


def compared() -> dict[str, Any]:
    # posters/a fails in both runs, for another reason each time: no case flip, two gate flips.
    a = doc(
        [
            case("posters/a", "failed", [gate("text.text_present", False, "missing 'SALE'"), gate("image.decodes", True)]),
            case("posters/b", "passed", [gate("text.text_present", True), gate("look", True)]),
        ],
        "old",
    )
    b = doc(
        [
            case("posters/a", "failed", [gate("text.text_present", True), gate("image.decodes", False, "0 bytes")]),
            case("posters/b", "passed", [gate("text.text_present", True), gate("look", False, "too dark", gating=False)]),
        ],
        "new",
    )
    first, second = sides_of([("old.json", a), ("new.json", b)])
    return compare_pair(first, second, Settings(resamples=200))


def test_gate_flips_are_found_where_the_case_outcome_did_not_change() -> None:
    comparison = compared()
    assert comparison["flips"] == []
    assert comparison["gate_flips"] == [
        {
            "case": "posters/a",
            "suite": "posters",
            "gate": "image.decodes",
            "kind": "pass->fail",
            "gating": True,
            "why": "0 bytes",
        },
        {"case": "posters/b", "suite": "posters", "gate": "look", "kind": "pass->fail", "gating": False, "why": "too dark"},
        {
            "case": "posters/a",
            "suite": "posters",
            "gate": "text.text_present",
            "kind": "fail->pass",
            "gating": True,
            "why": "missing 'SALE'",
        },
    ]


def test_the_terminal_shows_gate_flips_and_labels_each_side() -> None:
    lines = pair_lines(compared(), {"confidence": 0.95, "alpha": 0.05, "min_pairs": 10})
    assert lines[0] == "== new.json (B)  vs  old.json (A) =="
    assert "flips: none (no case changed between pass, fail and error)" in lines
    start = lines.index("gate flips (3): 2 pass->fail, 1 fail->pass")
    assert lines[start + 1 : start + 4] == [
        "  posters/a image.decodes      pass->fail  0 bytes",
        "  posters/b look (not gating)  pass->fail  too dark",
        "  posters/a text.text_present  fail->pass  missing 'SALE'",
    ]


def test_gates_only_one_run_has_are_no_flip() -> None:
    a = doc([case("s/a", "passed", [gate("x", True)])], "old")
    b = doc([case("s/a", "passed", [gate("y", False)])], "new")
    first, second = sides_of([("a.json", a), ("b.json", b)])
    assert compare_pair(first, second, Settings(resamples=50))["gate_flips"] == []


def test_the_command_prints_gate_flips_where_no_case_flipped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = doc([case("posters/a", "failed", [gate("text.text_present", False, "missing 'SALE'"), gate("look", True)])], "old")
    b = doc([case("posters/a", "failed", [gate("text.text_present", True), gate("look", False, "too dark")])], "new")
    for name, document in (("a.json", a), ("b.json", b)):
        (tmp_path / name).write_text(json.dumps({"schema": "pytest-visioneval/results", **document}))
    assert dispatcher.main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--resamples", "50"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "== b.json (B)  vs  a.json (A) ==" in lines
    assert "flips: none (no case changed between pass, fail and error)" in lines
    start = lines.index("gate flips (2): 1 pass->fail, 1 fail->pass")
    assert lines[start + 1 : start + 3] == [
        "  posters/a look               pass->fail  too dark",
        "  posters/a text.text_present  fail->pass  missing 'SALE'",
    ]

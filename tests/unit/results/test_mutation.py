"""results/mutation.py: the self-test summed up per suite."""

from __future__ import annotations

from typing import Any

from pytest_visioneval.report.terminal import mutation_lines
from pytest_visioneval.results.mutation import mutation_summary


def mutant(name: str, broken: bool, caught: bool, gates: list[str] | None = None, error: str | None = None) -> dict[str, Any]:
    return {
        "name": name,
        "broken": broken,
        "description": f"the {name} mutant",
        "caught": caught,
        "failed_gates": [{"name": g, "reason": f"{g} failed"} for g in gates or []],
        "error": error,
    }


def record(suite: str, uid: str, *mutants: dict[str, Any], baseline: bool = True) -> dict[str, Any]:
    mutation = {"baseline_passed": baseline, "mutants": list(mutants), "not_applicable": [{"name": "typo", "reason": "-"}]}
    return {"suite": suite, "uid": uid, "mutation": mutation}


def test_counts_score_misses_and_brittle_gates() -> None:
    records = [
        record("ui", "ui/a", mutant("transparent", True, True, ["image.not_blank"]), mutant("typo", True, False)),
        record("ui", "ui/b", mutant("transparent", True, True, ["image.not_blank"]), mutant("jpeg_q85", False, True, ["text.x"])),
        record("logo", "logo/a", mutant("jpeg_q85", False, False), baseline=False),
        {"suite": "plain", "uid": "plain/a"},  # no self-test: not listed
    ]
    summary = mutation_summary(records)["suites"]
    assert list(summary) == ["logo", "ui"]
    ui = summary["ui"]
    assert (ui["cases"], ui["broken"], ui["caught"], ui["legitimate"], ui["legitimate_passed"]) == (2, 3, 2, 1, 0)
    assert ui["score"] == 2 / 3
    assert ui["missed"] == [{"case": "ui/a", "mutant": "typo", "description": "the typo mutant"}]
    assert ui["brittle"] == [
        {"case": "ui/b", "mutant": "jpeg_q85", "description": "the jpeg_q85 mutant", "failed": "text.x: text.x failed"}
    ]
    assert ui["not_applicable"] == {"typo": 2}
    assert summary["logo"]["score"] is None and summary["logo"]["baselines_failed"] == ["logo/a"]


def test_terminal_lines_name_each_miss() -> None:
    summary = mutation_summary(
        [record("ui", "ui/a", mutant("typo", True, False), mutant("shift_1px", False, True, error="boom"))]
    )
    lines = mutation_lines(summary)
    assert lines[1].split() == ["suite", "cases", "broken", "caught", "score", "legitimate", "passed"]
    assert lines[2].split() == ["ui", "1", "0/1", "0.0%", "0/1"]
    assert "  MISSED ui/a: typo (the typo mutant)" in lines
    assert "  BRITTLE ui/a: shift_1px failed boom" in lines
    assert mutation_lines({"suites": {}}) == []

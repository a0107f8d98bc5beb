from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy import stats

from pytest_visioneval.cli.agreement import cohen_kappa, compute, main

RESULTS = {
    "cases": [
        {
            "uid": f"s/c{i}",
            "gates": [{"name": "rubric.verdict", "passed": passed}],
            "metrics": [{"name": "score.goal", "value": value}],
        }
        for i, (passed, value) in enumerate([(True, 4.0), (True, 3.0), (False, 1.0), (False, 2.0), (True, 5.0)])
    ]
}


def test_cohen_kappa_matches_a_worked_example() -> None:
    # 10 items: both yes 4, both no 3, a yes/b no 2, a no/b yes 1 -> po 0.7, pe 0.6*0.5+0.4*0.5 = 0.5, kappa 0.4
    a = [True] * 6 + [False] * 4
    b = [True] * 4 + [False] * 2 + [True] + [False] * 3
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([True, True], [True, True]) is None  # undefined, not 1.0 or 0.0


def test_binary_and_numeric_agreement() -> None:
    labels = [
        {"case": f"s/c{i}", "name": "rubric.verdict", "label": v} for i, v in enumerate(["yes", "pass", "no", "yes", "true"])
    ]
    human_scores = [5, 3, 1, 2, 4]
    labels += [{"case": f"s/c{i}", "name": "score.goal", "label": str(v)} for i, v in enumerate(human_scores)]
    labels.append({"case": "s/missing", "name": "score.goal", "label": "3"})
    by_name = {a.name: a for a in compute(RESULTS, labels)}
    verdict = by_name["rubric.verdict"]
    assert (verdict.kind, verdict.n, verdict.unmatched) == ("binary", 5, 0)
    assert verdict.accuracy == pytest.approx(4 / 5)
    assert verdict.kappa == pytest.approx(cohen_kappa([True, True, False, True, True], [True, True, False, False, True]))
    goal = by_name["score.goal"]
    assert (goal.kind, goal.n, goal.unmatched) == ("numeric", 5, 1)
    judge = [4.0, 3.0, 1.0, 2.0, 5.0]
    assert goal.pearson == pytest.approx(stats.pearsonr(human_scores, judge).statistic)
    assert goal.spearman == pytest.approx(0.9)  # ranks differ by 1 on two items: 1 - 6*2/(5*24)
    assert goal.kendall == pytest.approx(stats.kendalltau(human_scores, judge).statistic)


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r.json").write_text(json.dumps(RESULTS))
    (tmp_path / "l.csv").write_text("case,name,label\ns/c0,rubric.verdict,yes\ns/c2,rubric.verdict,yes\n")
    assert main([str(tmp_path / "r.json"), str(tmp_path / "l.csv")]) == 0
    out = capsys.readouterr().out
    assert "rubric.verdict" in out and "0.500" in out
    (tmp_path / "bad.csv").write_text("uid,label\n")
    with pytest.raises(SystemExit, match="missing column"):
        main([str(tmp_path / "r.json"), str(tmp_path / "bad.csv")])

"""The agreement command: judged values against human labels, with intervals, raters and floors."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy import stats

from pytest_visioneval.cli.agreement import cohen_kappa, compute, main, read_labels
from pytest_visioneval.results.agreement import Label, LabelError, Settings

VERDICTS = [True, True, False, False, True]
GOALS = [4.0, 3.0, 1.0, 2.0, 5.0]
RESULTS = {
    "cases": [
        {
            "uid": f"s/c{i}",
            "suite": "s",
            "gates": [{"name": "rubric.verdict", "passed": passed}],
            "metrics": [{"name": "score.goal", "value": value}, {"name": "check.q1", "value": float(passed)}],
        }
        for i, (passed, value) in enumerate(zip(VERDICTS, GOALS, strict=True))
    ]
}
FAST = Settings(resamples=200)


def _labels(name: str, values: list[str], rater: str = "") -> list[Label]:
    return [Label(f"s/c{i}", name, v, rater, f"labels.csv:{i + 2}") for i, v in enumerate(values)]


def test_cohen_kappa_matches_a_worked_example() -> None:
    # 10 items: both yes 4, both no 3, a yes/b no 2, a no/b yes 1 -> po 0.7, pe 0.6*0.5+0.4*0.5 = 0.5, kappa 0.4
    a = [True] * 6 + [False] * 4
    b = [True] * 4 + [False] * 2 + [True] + [False] * 3
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa([True, True], [True, True]) is None  # undefined, not 1.0 or 0.0


def test_binary_and_numeric_agreement_with_intervals() -> None:
    labels = _labels("rubric.verdict", ["yes", "pass", "no", "yes", "true"])
    human_scores = [5, 3, 1, 2, 4]
    labels += _labels("score.goal", [str(v) for v in human_scores])
    labels.append(Label("s/missing", "score.goal", "3"))
    by_name = {a.name: a for a in compute(RESULTS, labels, FAST)}
    verdict = by_name["rubric.verdict"]
    assert (verdict.kind, verdict.n, verdict.unmatched) == ("binary", 5, 0)
    assert verdict.stats["accuracy"].value == pytest.approx(4 / 5)
    assert verdict.stats["kappa"].value == pytest.approx(cohen_kappa([True, True, False, True, True], VERDICTS))
    accuracy = verdict.stats["accuracy"]
    assert accuracy.low is not None and accuracy.high is not None and accuracy.low <= 0.8 <= accuracy.high
    assert accuracy.low < accuracy.high  # five cases cannot pin it down
    goal = by_name["score.goal"]
    assert (goal.kind, goal.n, goal.unmatched) == ("numeric", 5, 1)
    assert goal.stats["pearson"].value == pytest.approx(stats.pearsonr(human_scores, GOALS).statistic)
    assert goal.stats["spearman"].value == pytest.approx(0.9)  # ranks differ by 1 on two items: 1 - 6*2/(5*24)
    assert goal.stats["kendall"].value == pytest.approx(stats.kendalltau(human_scores, GOALS).statistic)
    # The same inputs give the same intervals (a fixed seed).
    again = {a.name: a for a in compute(RESULTS, labels, FAST)}
    assert again["score.goal"].stats == goal.stats


def test_numeric_labels_that_are_all_zero_or_one_stay_numeric_against_a_metric() -> None:
    # check.q1 is a metric (0/1 values); human 0/1 numbers are numbers: correlations, not kappa.
    (row,) = compute(RESULTS, _labels("check.q1", ["1", "1", "0", "1", "1"]), FAST)
    assert row.kind == "numeric" and set(row.stats) == {"pearson", "spearman", "kendall"}
    # Declared binary, the same labels give accuracy and kappa.
    (declared,) = compute(RESULTS, _labels("check.q1", ["1", "1", "0", "1", "1"]), Settings(resamples=200, kinds={"*": "binary"}))
    assert declared.kind == "binary" and declared.stats["accuracy"].value == pytest.approx(0.8)


def test_a_label_that_is_neither_yes_no_nor_a_number_is_an_error_naming_its_line() -> None:
    labels = _labels("score.goal", ["4", "unsure", "1", "2", "5"])
    with pytest.raises(LabelError, match=r"labels.csv:3: label 'unsure' for 'score.goal' \(case s/c1\)"):
        compute(RESULTS, labels, FAST)
    with pytest.raises(LabelError, match="labels.csv:3: label '3' for 'rubric.verdict' is not yes/no"):
        compute(RESULTS, _labels("rubric.verdict", ["yes", "3", "no", "no", "yes"]), FAST)


def test_several_raters_give_alpha_a_consensus_and_a_human_ceiling() -> None:
    # Three raters on the verdicts: two agree with the judge everywhere, one differs on two cases.
    labels = _labels("rubric.verdict", ["yes", "yes", "no", "no", "yes"], "ann")
    labels += _labels("rubric.verdict", ["yes", "yes", "no", "no", "yes"], "bob")
    labels += _labels("rubric.verdict", ["no", "yes", "no", "yes", "yes"], "cy")
    (row,) = compute(RESULTS, labels, FAST)
    assert row.raters == 3 and row.n == 5 and row.ties == 0
    assert row.stats["accuracy"].value == pytest.approx(1.0)  # the majority is the judge's answer each time
    table = np.array([[1, 1, 0, 0, 1], [1, 1, 0, 0, 1], [0, 1, 0, 1, 1]], dtype=float)
    assert row.alpha is not None
    assert row.alpha.value == pytest.approx(krippendorff.alpha(reliability_data=table, level_of_measurement="nominal"))
    # Ceiling: ann and bob each against the other two's majority (ties left out), cy against ann+bob.
    accuracy = row.ceiling["accuracy"]
    assert accuracy.value is not None and accuracy.low == pytest.approx(0.6) and accuracy.high == pytest.approx(1.0)


def test_groups_per_suite_and_a_tie_without_consensus() -> None:
    results = {"cases": [*RESULTS["cases"], {"uid": "t/d0", "suite": "t", "gates": [{"name": "rubric.verdict", "passed": True}]}]}
    labels = _labels("rubric.verdict", ["yes", "yes", "no", "no", "yes"], "ann")
    labels += [Label("t/d0", "rubric.verdict", "yes", "ann"), Label("t/d0", "rubric.verdict", "no", "bob")]
    rows = compute(results, labels, FAST)
    assert [(r.group, r.n, r.ties) for r in rows] == [("all", 5, 1), ("suite=s", 5, 0), ("suite=t", 0, 1)]


def test_command_line_table_json_floor_and_bad_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "r.json").write_text(json.dumps(RESULTS))
    (tmp_path / "l.csv").write_text("case,name,label\n" + "".join(f"s/c{i},rubric.verdict,{v}\n" for i, v in enumerate("yynny")))
    args = [str(tmp_path / "r.json"), str(tmp_path / "l.csv"), "--resamples", "200"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "rubric.verdict [all] binary: n=5, unmatched 0" in out and "accuracy 1.000" in out
    assert main([*args, "--floor", "kappa=0.9"]) == 0
    (tmp_path / "l.csv").write_text("case,name,label\n" + "".join(f"s/c{i},rubric.verdict,{v}\n" for i, v in enumerate("ynnyy")))
    assert main([*args, "--floor", "rubric.verdict:accuracy=0.9"]) == 1
    assert "BELOW FLOOR rubric.verdict: judge-human accuracy 0.600 < 0.9 over 5 case(s)" in capsys.readouterr().out
    assert main([*args, "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["agreement"][0]["stats"]["accuracy"]["value"] == pytest.approx(0.6)
    (tmp_path / "bad.csv").write_text("uid,label\n")
    assert main([str(tmp_path / "r.json"), str(tmp_path / "bad.csv")]) == 2
    assert "missing column(s) case, name" in capsys.readouterr().err
    (tmp_path / "odd.csv").write_text("case,name,label\ns/c0,score.goal,4\ns/c1,score.goal,maybe\n")
    assert main([str(tmp_path / "r.json"), str(tmp_path / "odd.csv")]) == 2
    assert f"{tmp_path / 'odd.csv'}:3: label 'maybe'" in capsys.readouterr().err


def test_read_labels_keeps_raters_and_lines(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("case,name,label,rater\ns/c0,score.goal,4,ann\ns/c0,score.goal,5,bob\n")
    assert read_labels(path) == [
        Label("s/c0", "score.goal", "4", "ann", f"{path}:2"),
        Label("s/c0", "score.goal", "5", "bob", f"{path}:3"),
    ]

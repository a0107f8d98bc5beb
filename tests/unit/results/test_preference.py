"""results/preference.py and agreement over a pairwise document: people say which output is better, a/b/tie."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest

from pytest_visioneval.cli.agreement import main
from pytest_visioneval.results.agreement import Label, LabelError, Settings, cohen_kappa, compute, nominal_kappa
from pytest_visioneval.results.pairwise import Judgement, document_id, summarize
from pytest_visioneval.results.pairwise import Settings as PairSettings
from pytest_visioneval.results.preference import judged_preferences, pair_name, preference_value

# The judge's verdicts on six cases between runs "red" and "blue" (the last one could not be judged).
OUTCOMES = ["a", "a", "b", "tie", "b", "error"]
NAME = pair_name("red", "blue")
FAST = Settings(resamples=200)


def case(i: int) -> str:
    return f"{'s' if i < 3 else 't'}/c{i}"  # three cases in suite s, three in t


def pairwise_document() -> dict[str, Any]:
    judgements = [
        Judgement(0, 1, case(i), case(i)[0], {"outcome": o, "inconsistent": False, "answers": []}) for i, o in enumerate(OUTCOMES)
    ]
    document = summarize(["red", "blue"], judgements, PairSettings(resamples=50))
    runs = [{"name": n, "run_id": f"run-{n}", "model": n, "cases": 6} for n in ("red", "blue")]
    judge = {"name": "openai:j", "instructions": {"source": "default"}}
    return {"id": document_id(runs, judge), **document, "runs": runs, "judge": judge}


def labels(values: list[str], rater: str = "") -> list[Label]:
    return [Label(case(i), NAME, v, rater, f"l.csv:{i + 2}") for i, v in enumerate(values)]


def test_verdicts_are_a_three_step_scale_and_an_error_is_no_verdict() -> None:
    values, sides = judged_preferences(pairwise_document())
    assert sides == {NAME: ("red", "blue")}
    assert [values.get((case(i), NAME)) for i in range(6)] == [1.0, 1.0, 0.0, 0.5, 0.0, None]


@pytest.mark.parametrize(
    ("text", "value"),
    [("a", 1.0), ("B", 0.0), ("tie", 0.5), (" Tie ", 0.5), ("red", 1.0), ("blue", 0.0), ("maybe", None), ("", None)],
)
def test_a_label_is_a_b_tie_or_the_preferred_runs_name(text: str, value: float | None) -> None:
    assert preference_value(text, ("red", "blue")) == value


def test_nominal_kappa_matches_a_worked_example_and_is_binary_kappa_on_two_answers() -> None:
    # 6 items over a/tie/b, agreeing on 4: po 24/36; marginals x (a 3, tie 1, b 2), y (a 2, tie 3, b 1)
    # pe = (3*2 + 1*3 + 2*1) / 36 = 11/36; kappa = (24 - 11) / (36 - 11) = 0.52
    x = [1.0, 1.0, 1.0, 0.5, 0.0, 0.0]
    y = [1.0, 1.0, 0.5, 0.5, 0.0, 0.5]
    assert nominal_kappa(x, y) == pytest.approx(0.52)
    two = ([1.0, 1.0, 0.0, 0.0, 1.0], [1.0, 0.0, 0.0, 1.0, 1.0])
    assert nominal_kappa(*two) == pytest.approx(cohen_kappa([v == 1 for v in two[0]], [v == 1 for v in two[1]]))
    assert nominal_kappa([1.0, 1.0], [1.0, 1.0]) is None  # every answer the same: undefined


def test_agreement_of_people_with_the_pairwise_judge() -> None:
    # The person agrees on c0, c2, c3; prefers B on c1 and calls c4 a tie; labels c5, which the judge could not decide.
    (overall, *per_suite) = compute(pairwise_document(), labels(["a", "blue", "b", "tie", "tie", "a"]), FAST)
    assert (overall.name, overall.kind, overall.n, overall.unmatched) == (NAME, "preference", 5, 1)
    assert overall.stats["accuracy"].value == pytest.approx(3 / 5)
    human, judge = [1.0, 0.0, 0.0, 0.5, 0.5], [1.0, 1.0, 0.0, 0.5, 0.0]
    assert overall.stats["kappa"].value == pytest.approx(nominal_kappa(human, judge))
    assert 0 < overall.stats["kappa"].value < 3 / 5  # chance agreement taken out
    assert [(r.group, r.n) for r in per_suite] == [("suite=s", 3), ("suite=t", 2)]


def test_a_second_rater_gives_the_majority_alpha_on_an_ordinal_scale_and_a_split_is_left_out() -> None:
    ann = labels(["a", "a", "b", "tie", "b"], "ann")
    bob = labels(["a", "b", "b", "a", "b"], "bob")
    cy = labels(["a", "a", "b", "b", "b"], "cy")
    (row, *_) = compute(pairwise_document(), ann + bob + cy, FAST)
    assert (row.raters, row.n, row.ties) == (3, 4, 1)  # c3: a, tie, b - no answer has a majority
    assert row.stats["accuracy"].value == pytest.approx(1.0)
    table = np.array([[1, 1, 0, 0.5, 0], [1, 0, 0, 1, 0], [1, 1, 0, 0, 0]], dtype=float)
    assert row.alpha is not None
    assert row.alpha.value == pytest.approx(krippendorff.alpha(reliability_data=table, level_of_measurement="ordinal"))


def test_a_label_that_is_no_preference_names_its_line_and_the_answers() -> None:
    with pytest.raises(
        LabelError, match=r"l.csv:3: label 'better' for 'pairwise red vs blue' is not a, b or tie \(or red or blue\)"
    ):
        compute(pairwise_document(), labels(["a", "better"]), FAST)


def test_the_command_reads_a_pairwise_document(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pairwise.json").write_text(json.dumps(pairwise_document()))
    rows = "".join(f"{case(i)},{NAME},{v}\n" for i, v in enumerate(["a", "b", "b", "tie", "tie"]))
    (tmp_path / "l.csv").write_text("case,name,label\n" + rows)
    args = [str(tmp_path / "pairwise.json"), str(tmp_path / "l.csv"), "--resamples", "200", "--by", "none"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"{NAME} [all] preference: n=5, unmatched 0" in out and "accuracy 0.600" in out
    assert main([*args, "--floor", "accuracy=0.8"]) == 1
    assert f"BELOW FLOOR {NAME}: judge-human accuracy 0.600 < 0.8 over 5 case(s)" in capsys.readouterr().out


def test_the_document_id_follows_the_runs_and_the_judge() -> None:
    runs = [{"name": "red", "run_id": "r1", "model": "red", "cases": 6}]
    judge = {"name": "openai:j", "instructions": {"source": "default"}}
    same = document_id([dict(r) for r in runs], dict(judge))
    assert document_id(runs, judge) == same and same.startswith("pairwise-")
    assert document_id([{**runs[0], "run_id": "r2"}], judge) != same
    assert document_id(runs, {**judge, "name": "openai:k"}) != same

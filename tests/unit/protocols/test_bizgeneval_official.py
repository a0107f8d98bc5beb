"""bizgeneval parity with the official harness (GitHub microsoft/BizGenEval): the dataset, the scores, the averages.

The official scoring is evaluation/summarize.py: ``_compute_scores`` (lines 79-124) turns each item's judged
answers into ``max(0, 1 - alpha x errors)`` - alpha 0.1 over all 20 questions, 0.2 over the 10 of
``easy_qidxs`` or ``hard_qidxs`` (``main``, lines 196-198) - and skips an item without a result file (lines
88-90); ``_aggregate_by_key`` (lines 127-139) averages per domain or dimension; ``_build_grouped_csv`` /
``_make_row`` (lines 156-175) write those group means and, as "Average", the mean of the group means over
``domain_order`` (line 202) or ``dimension_order`` (line 203). :func:`official_summary` below follows those
rules in our own code, and our protocol must give the same numbers on the 0-100 scale.

The tests on the real dataset read ``../shared/data/bizgeneval.jsonl`` (the official file, MIT) and are
skipped when it is not there.
"""

from __future__ import annotations

import argparse
import json
import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders.base import Metric
from pytest_visioneval.graders.outcome import CaseEvaluation
from pytest_visioneval.importers import bizgeneval as importer
from pytest_visioneval.protocols.bizgeneval import DIMENSIONS, DOMAINS, PROTOCOL
from pytest_visioneval.protocols.case_files import load_case_file
from pytest_visioneval.protocols.scoring import protocol_scores

OFFICIAL_DATA = Path(__file__).resolve().parents[3].parent / "shared" / "data" / "bizgeneval.jsonl"
needs_official_data = pytest.mark.skipif(
    not OFFICIAL_DATA.is_file(),
    reason=f"the official BizGenEval dataset is not at {OFFICIAL_DATA} (see ../shared/data/README.md)",
)
# summarize.py lines 202-203: the column order of the two tables (and so of the "Average").
DOMAIN_ORDER = ("slides", "webpage", "poster", "chart", "scientific_figure")
DIMENSION_ORDER = ("layout", "attribute", "text", "knowledge")


# -- the official rules, restated ---------------------------------------------------------------------


def official_summary(rows: Sequence[Mapping[str, Any]], results: Mapping[str, Mapping[int, bool]]) -> dict[str, Any]:
    """The official tables from the rows and each item's answers (``results[id][question] = True/False``).

    An item missing from ``results`` had no result file and is skipped (summarize.py lines 88-90). A
    question counts as right only when its result is True (line 110). Returns, per split (easy, hard, all),
    the group means and the "Average" of each table, as fractions (the CSV's scale; the paper prints x100).
    """
    splits = {"all": (None, 0.1), "easy": ("easy_qidxs", 0.2), "hard": ("hard_qidxs", 0.2)}
    out: dict[str, Any] = {}
    for split, (key, alpha) in splits.items():
        per: dict[str, dict[str, list[float]]] = {"domain": defaultdict(list), "dimension": defaultdict(list)}
        for row in rows:
            answers = results.get(str(row["id"]))
            if answers is None:
                continue
            indexes = row[key] if key else range(1, len(row["questions"]) + 1)
            errors = sum(1 for j in indexes if answers.get(j) is not True)
            score = max(0.0, 1.0 - alpha * errors)
            per["domain"][row["domain"]].append(score)
            per["dimension"][row["dimension"]].append(score)
        for field, order in (("domain", DOMAIN_ORDER), ("dimension", DIMENSION_ORDER)):
            means = {g: sum(v) / len(v) for g, v in per[field].items()}
            present = [means[g] for g in order if g in means]
            out[(split, field)] = {"groups": means, "average": sum(present) / len(present)}
    return out


# -- our side: the protocol's per-case scores and the aggregate ------------------------------------------


def evaluation(case: CaseSpec, answers: Mapping[int, bool]) -> CaseEvaluation:
    """What one judge pass answering ``answers`` leaves: ``checklist.q<N>`` = 1.0 for yes, 0.0 for no."""
    metrics = tuple(Metric(f"checklist.q{j}", 1.0 if yes else 0.0) for j, yes in answers.items())
    return CaseEvaluation(case, (), (), metrics, ())


def record(case: CaseSpec, answers: Mapping[int, bool] | None) -> dict[str, Any]:
    """A case's record as the controller sees it; ``None`` answers: the case errored (no judgement)."""
    base = {"uid": case.uid, "protocol": "bizgeneval", "fields": dict(case.fields)}
    if answers is None:
        return {**base, "status": "error", "metrics": []}
    scores = PROTOCOL.case_scores(case, evaluation(case, answers))
    assert scores is not None
    return {**base, "status": "passed", "metrics": [{"name": f"bizgeneval.{k}", "value": v} for k, v in scores.items()]}


def synthetic_answers(row_id: int, rng: random.Random) -> dict[int, bool] | None:
    """Deterministic, varied answers for one item: 0-14 wrong questions, and about one item in nine errored."""
    if rng.random() < 0.11:
        return None
    wrong = set(rng.sample(range(1, 21), rng.choice([0, 0, 1, 2, 3, 4, 6, 9, 14])))
    return {j: j not in wrong for j in range(1, 21) if not (j in wrong and row_id % 5 == 0)}  # some left unanswered


# -- always: a small hand-computed case ---------------------------------------------------------------------


def small_records() -> list[dict[str, Any]]:
    def rec(uid: str, domain: str, dimension: str, easy: float, hard: float, all_: float) -> dict[str, Any]:
        metrics = [{"name": f"bizgeneval.{k}", "value": v} for k, v in (("easy", easy), ("hard", hard), ("all", all_))]
        fields = {"domain": domain, "dimension": dimension}
        return {"uid": uid, "protocol": "bizgeneval", "status": "passed", "fields": fields, "metrics": metrics}

    return [
        rec("b/1", "chart", "text", 100, 80, 90),
        rec("b/2", "chart", "layout", 60, 0, 30),
        rec("b/3", "chart", "layout", 80, 20, 50),
        rec("b/4", "slides", "text", 40, 40, 40),
        {"uid": "b/5", "protocol": "bizgeneval", "status": "error", "fields": {"domain": "slides", "dimension": "text"}},
    ]


def test_official_average_is_the_mean_of_the_group_means() -> None:
    """summarize.py ``_make_row`` (lines 161-175): Average = mean of the per-group means; the errored case has no
    result file and is skipped (``_load_result`` returns None, line 89)."""
    result = protocol_scores(small_records())["bizgeneval"]
    assert result["compat"] == "official" and result["scored"] == 4 and result["errored"] == ["b/5"]
    # by domain: chart (100+60+80)/3 = 80, slides 40 -> 60; the mean over cases would be 70
    assert result["scores"]["easy"]["mean"] == pytest.approx(70.0)
    headline = result["headline"]
    assert headline["easy"] == pytest.approx((80 + 40) / 2)
    assert headline["hard"] == pytest.approx(((80 + 0 + 20) / 3 + 40) / 2)
    assert headline["all"] == pytest.approx(((90 + 30 + 50) / 3 + 40) / 2)
    # by dimension: text (100+40)/2 = 70, layout (60+80)/2 = 70
    assert headline["easy_by_dimension"] == pytest.approx(70.0)
    assert headline["hard_by_dimension"] == pytest.approx(((80 + 40) / 2 + (0 + 20) / 2) / 2)
    assert set(headline) == {f"{s}{x}" for s in ("easy", "hard", "all") for x in ("", "_by_dimension")}


def test_improved_reports_the_mean_over_cases_with_errors_as_zero() -> None:
    records = small_records()
    for rec in records:
        rec["fields"]["compat"] = "improved"
    result = protocol_scores(records)["bizgeneval"]
    assert result["scored"] == 5
    assert result["headline"] == {"easy": pytest.approx(56.0), "hard": pytest.approx(28.0), "all": pytest.approx(42.0)}


def test_the_small_case_agrees_with_the_restated_official_rules() -> None:
    """The same five items through :func:`official_summary`: one easy question per 20-point step."""
    rows = []
    results: dict[str, dict[int, bool]] = {}
    easy, hard = list(range(1, 11)), list(range(11, 21))
    for i, (domain, dimension, easy_wrong, hard_wrong) in enumerate(
        [("chart", "text", 0, 1), ("chart", "layout", 2, 5), ("chart", "layout", 1, 4), ("slides", "text", 3, 3)]
    ):
        rows.append(
            {"id": i, "domain": domain, "dimension": dimension, "questions": ["q"] * 20, "easy_qidxs": easy, "hard_qidxs": hard}
        )
        results[str(i)] = {j: not (j <= easy_wrong or 10 < j <= 10 + hard_wrong) for j in range(1, 21)}
    rows.append(
        {"id": 4, "domain": "slides", "dimension": "text", "questions": ["q"] * 20, "easy_qidxs": easy, "hard_qidxs": hard}
    )
    official = official_summary(rows, results)
    headline = protocol_scores(small_records())["bizgeneval"]["headline"]
    for split in ("easy", "hard", "all"):
        assert headline[split] == pytest.approx(100 * official[(split, "domain")]["average"])
        assert headline[f"{split}_by_dimension"] == pytest.approx(100 * official[(split, "dimension")]["average"])


# -- on the official dataset ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def official_rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in OFFICIAL_DATA.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> dict[str, CaseSpec]:
    """The official file imported whole, every case file loaded back; cases by their official id."""
    parser = argparse.ArgumentParser()
    importer.add_arguments(parser)
    out = tmp_path_factory.mktemp("bizgeneval-official")
    written = importer.run(parser.parse_args([str(OFFICIAL_DATA), str(out)]))
    cases = [case for path in written for case in load_case_file(path).cases]
    return {case.id: case for case in cases}


@needs_official_data
@pytest.mark.slow
def test_all_400_official_rows_import_with_every_field_kept(
    official_rows: list[dict[str, Any]], imported: dict[str, CaseSpec]
) -> None:
    assert len(official_rows) == 400 and len(imported) == 400
    for row in official_rows:
        case = imported[str(row["id"])]  # the official ids are 0..399 and stay the case ids
        assert case.prompt == row["prompt"]
        fields = case.fields
        assert (fields["domain"], fields["dimension"]) == (row["domain"], row["dimension"])
        assert fields["questions"] == row["questions"]
        assert fields["easy_qidxs"] == row["easy_qidxs"] and fields["hard_qidxs"] == row["hard_qidxs"]
        assert fields["eval_tag"] == row["eval_tag"]
        # empty values ("" or null: 120 rows have no aspect ratio, 220 no reference size) are left out
        assert fields.get("aspect_ratio", "") == row["aspect_ratio"]
        wh = row["reference_image_wh"]
        assert fields.get("reference_image_wh") == ([int(v) for v in wh.split("x")] if wh else None)
        assert case.tags == (row["domain"], row["dimension"]) and case.task == "image_generation"
    # the grid of the paper: 5 domains x 4 dimensions x 20, and the five official prompt tags
    cells = {(c.fields["domain"], c.fields["dimension"]) for c in imported.values()}
    assert cells == {(d, m) for d in DOMAINS for m in DIMENSIONS}
    assert {c.fields["eval_tag"] for c in imported.values()} == {"attribute", "layout", "text", "text1", "knowledge"}
    # the stricter text prompt serves the 40 chart and scientific-figure text rows
    strict = {c.id for c in imported.values() if c.fields["eval_tag"] == "text1"}
    assert len(strict) == 40
    assert {imported[i].fields["domain"] for i in strict} == {"chart", "scientific_figure"}


@needs_official_data
def test_scores_on_the_official_rows_equal_the_official_summary(
    official_rows: list[dict[str, Any]], imported: dict[str, CaseSpec]
) -> None:
    """400 synthetic judgements on the real rows (their own easy/hard split, domain and dimension), about one in
    nine errored: our per-case scores and the official averages agree with summarize.py to float precision."""
    rng = random.Random(13)
    answers = {str(row["id"]): synthetic_answers(row["id"], rng) for row in official_rows}
    records = [record(imported[str(row["id"])], answers[str(row["id"])]) for row in official_rows]
    result = protocol_scores(records)["bizgeneval"]
    official = official_summary(official_rows, {k: v for k, v in answers.items() if v is not None})

    errored = sum(v is None for v in answers.values())
    assert 20 < errored < 80 and result["scored"] == 400 - errored and len(result["errored"]) == errored
    for split in ("easy", "hard", "all"):
        for field in ("domain", "dimension"):
            ours = {g: stats[split]["mean"] for g, stats in result["groups"][field].items()}
            assert ours == pytest.approx({g: 100 * m for g, m in official[(split, field)]["groups"].items()}, abs=1e-9)
        assert result["headline"][split] == pytest.approx(100 * official[(split, "domain")]["average"], abs=1e-9)
        assert result["headline"][f"{split}_by_dimension"] == pytest.approx(
            100 * official[(split, "dimension")]["average"], abs=1e-9
        )
    # With cases left out unevenly the published figure is not the mean over cases.
    assert not math.isclose(result["headline"]["hard"], result["scores"]["hard"]["mean"], abs_tol=1e-6)


@needs_official_data
def test_with_every_case_scored_both_averages_equal_the_mean_over_cases(
    official_rows: list[dict[str, Any]], imported: dict[str, CaseSpec]
) -> None:
    """80 rows per domain and 100 per dimension: the two official "Average" columns and the plain mean agree."""
    rng = random.Random(7)
    records = []
    for row in official_rows:
        wrong = set(rng.sample(range(1, 21), rng.randint(0, 8)))
        records.append(record(imported[str(row["id"])], {j: j not in wrong for j in range(1, 21)}))
    result = protocol_scores(records)["bizgeneval"]
    for split in ("easy", "hard", "all"):
        mean = result["scores"][split]["mean"]
        assert result["headline"][split] == pytest.approx(mean)
        assert result["headline"][f"{split}_by_dimension"] == pytest.approx(mean)

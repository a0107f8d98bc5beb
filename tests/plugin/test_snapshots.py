"""Snapshot baselines (--eval-snapshot, syrupy): per-model folders, tolerance, and what --snapshot-update may delete."""

from __future__ import annotations

import json
import re
from fnmatch import fnmatch
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders import Gate, Metric
from pytest_visioneval.graders.outcome import CaseEvaluation, GateOutcome
from pytest_visioneval.plugin.snapshots import ScoresSnapshotExtension
from tests.conftest import draw_png, read_json

COLORS = {"first": (200, 30, 30), "second": (30, 200, 30), "third": (30, 30, 200)}


@pytest.fixture(autouse=True)
def _inner_runs_are_not_xdist_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """syrupy knows an xdist worker by $PYTEST_XDIST_WORKER. When this suite runs with -n, the
    in-process inner runs inherit it, and syrupy would then skip its summary and unused-snapshot handling."""
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)


def draw_outputs(pytester: pytest.Pytester, folder: str = "outputs") -> Path:
    """Replay outputs identical to the references: every gate passes, similarity.score is 1."""
    out = pytester.path / folder / "demo"
    for case, color in COLORS.items():
        draw_png(out / f"{case}.png", color=color)
    return out


def run(pytester: pytest.Pytester, model: str, *args: str, kind: str = "all") -> pytest.RunResult:
    return pytester.runpytest("cases", f"--model=replay:{model}", f"--eval-snapshot={kind}", *args)


def model_dir(pytester: pytest.Pytester, model: str) -> Path:
    return pytester.path / "cases" / "__eval_snapshots__" / "demo.eval" / f"replay_{model}"


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def touch_pixel(path: Path, xy: tuple[int, int] = (0, 0)) -> None:
    with Image.open(path) as opened:
        img = opened.convert("RGB")
    img.putpixel(xy, (0, 0, 0))
    img.save(path)


def test_update_writes_one_file_per_case_and_kind_in_the_models_folder(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    out = draw_outputs(pytester)
    result = run(pytester, "outputs", "--snapshot-update", *xdist_args)
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*6 snapshots generated.*"])
    folder = model_dir(pytester, "outputs")
    assert sorted(files_under(folder)) == [f"{case}.{kind}" for case in COLORS for kind in ("image-0.png", "scores.json")]
    scores = read_json(folder / "second.scores.json")
    assert scores == {
        "case": "demo/second",
        "gates": {
            "image.decodes": True,
            "image.fills_canvas": True,
            "image.not_blank": True,
            "image.size": True,
            "similarity.match": True,
        },
        "metrics": {
            "similarity.changed_content": 0.0,
            "similarity.faded_areas": 0.0,
            "similarity.mean_delta_e": 0.0,
            "similarity.score": 1.0,
            "similarity.softened_content": 0.0,
        },
        "tolerance": 1e-6,
    }
    assert (folder / "second.image-0.png").read_bytes() == (out / "second.png").read_bytes()
    assert not (pytester.path / "cases" / "__snapshots__").exists()
    assert "Can not relate snapshot" not in result.stdout.str()  # syrupy's name warning is expected and silenced

    again = run(pytester, "outputs", *xdist_args)
    again.assert_outcomes(passed=3)
    again.stdout.fnmatch_lines(["*6 snapshots passed.*"])
    assert again.ret == pytest.ExitCode.OK


def test_missing_snapshot_fails_and_says_how_to_create_it(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    draw_outputs(pytester)
    result = run(pytester, "outputs", *xdist_args, kind="scores")
    result.assert_outcomes(failed=3)
    result.stdout.fnmatch_lines(
        ["*snapshot cases/__eval_snapshots__/demo.eval/replay_outputs/first.scores.json does not exist yet;*--snapshot-update*"]
    )
    assert not model_dir(pytester, "outputs").exists()


@pytest.mark.slow
def test_metric_moved_beyond_tolerance_fails_with_the_metric_and_delta(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    out = draw_outputs(pytester)
    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="scores").assert_outcomes(passed=3)
    stored = model_dir(pytester, "outputs") / "first.scores.json"
    baseline = stored.read_bytes()
    touch_pixel(out / "first.png")  # similarity drops a little; every gate still passes

    result = run(pytester, "outputs", *xdist_args, kind="scores")
    result.assert_outcomes(passed=2, failed=1)
    assert stored.read_bytes() == baseline  # a plain run never writes

    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="scores").assert_outcomes(passed=3)
    moved = read_json(stored)["metrics"]["similarity.score"]
    assert 0.99 < moved < 1.0
    text = result.stdout.str()
    assert "snapshot cases/__eval_snapshots__/demo.eval/replay_outputs/first.scores.json differs:" in text
    assert f"metric similarity.score moved by {moved - 1.0:+.6g} (1 -> {moved:.6g}), tolerance 1e-06" in text
    assert "flipped" not in text


def test_gate_flip_fails_and_names_the_gate(pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]) -> None:
    out = draw_outputs(pytester)
    run(pytester, "outputs", "--snapshot-update", *xdist_args).assert_outcomes(passed=3)
    draw_png(out / "second.png", size=(10, 10))

    result = run(pytester, "outputs", *xdist_args)
    result.assert_outcomes(passed=2, failed=1)
    text = result.stdout.str()
    assert "image.size: second.png is 10x10, expected 64x48" in text  # the gate failure itself
    assert "gate image.size flipped: passed -> failed" in text  # and the regression against the baseline
    assert "second.image-0.png (second.png) differs:" in text
    assert "size changed: 64x48 -> 10x10" in text


@pytest.mark.slow
def test_metric_move_within_the_stored_tolerance_passes_and_update_keeps_that_tolerance(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    out = draw_outputs(pytester)
    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="scores").assert_outcomes(passed=3)
    stored = model_dir(pytester, "outputs") / "first.scores.json"
    scores = read_json(stored)
    scores["tolerance"] = 0.01  # widened by hand, in review
    stored.write_text(json.dumps(scores))
    touch_pixel(out / "first.png")

    result = run(pytester, "outputs", *xdist_args, kind="scores")
    result.assert_outcomes(passed=3)

    scores["tolerance"] = 1e-5  # too tight for this move
    stored.write_text(json.dumps(scores))
    run(pytester, "outputs", *xdist_args, kind="scores").stdout.fnmatch_lines(
        ["*metric similarity.score moved by -*, tolerance 1e-05"]
    )
    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="scores").assert_outcomes(passed=3)
    updated = read_json(stored)
    assert updated["metrics"]["similarity.score"] < 1.0
    assert updated["tolerance"] == 1e-5


@pytest.mark.slow
def test_update_with_one_model_leaves_another_models_snapshots_untouched(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    draw_outputs(pytester, "model_a")
    out_b = draw_outputs(pytester, "model_b")
    run(pytester, "model_a", "--snapshot-update", *xdist_args).assert_outcomes(passed=3)
    model_a = files_under(model_dir(pytester, "model_a"))
    assert len(model_a) == 6
    touch_pixel(out_b / "first.png")
    del_b = out_b / "third.png"
    del_b.unlink()  # model B cannot produce "third": an error, not a deletion of A's "third"

    result = run(pytester, "model_b", "--snapshot-update", *xdist_args)
    result.assert_outcomes(passed=2, errors=1, failed=1)  # failed: visioneval::thresholds, unconfirmed by the error
    assert files_under(model_dir(pytester, "model_a")) == model_a
    model_b = files_under(model_dir(pytester, "model_b"))
    assert sorted(model_b) == ["first.image-0.png", "first.scores.json", "second.image-0.png", "second.scores.json"]
    assert model_b["first.image-0.png"] != model_a["first.image-0.png"]

    # A --snapshot-update run that compares nothing (syrupy's default extension scans
    # __snapshots__ folders and deletes files it does not know) leaves them alone too.
    plain = pytester.runpytest("cases", "--model=replay:model_a", "--snapshot-update", *xdist_args)
    plain.assert_outcomes(passed=3)
    assert files_under(model_dir(pytester, "model_a")) == model_a
    assert files_under(model_dir(pytester, "model_b")) == model_b


def test_case_that_errors_during_update_keeps_its_snapshots(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    out = draw_outputs(pytester)
    run(pytester, "outputs", "--snapshot-update", *xdist_args).assert_outcomes(passed=3)
    before = files_under(model_dir(pytester, "outputs"))
    (out / "third.png").unlink()

    result = run(pytester, "outputs", "--snapshot-update", *xdist_args)
    result.assert_outcomes(passed=2, errors=1, failed=1)  # failed: visioneval::thresholds, unconfirmed by the error
    assert "ModelError: no replayed output for demo/third" in result.stdout.str()
    assert "deleted" not in result.stdout.str().lower()
    assert files_under(model_dir(pytester, "outputs")) == before

    (out / "first.png").unlink()
    (out / "second.png").unlink()  # now every case errors: nothing is compared at all
    run(pytester, "outputs", "--snapshot-update", *xdist_args).assert_outcomes(errors=3, failed=1)  # + visioneval::thresholds
    assert files_under(model_dir(pytester, "outputs")) == before


@pytest.mark.slow
def test_snapshots_of_a_removed_case_are_unused_and_update_deletes_only_this_models(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    draw_outputs(pytester, "model_a")
    draw_outputs(pytester, "model_b")
    run(pytester, "model_a", "--snapshot-update", *xdist_args).assert_outcomes(passed=3)
    run(pytester, "model_b", "--snapshot-update", *xdist_args).assert_outcomes(passed=3)
    model_a = files_under(model_dir(pytester, "model_a"))
    case_file = demo_suite / "demo.eval.yaml"
    text = case_file.read_text()
    case_file.write_text(text[: text.index("  - id: third")])

    result = run(pytester, "model_b", *xdist_args)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*4 snapshots passed. 2 snapshots unused.*"])
    assert result.ret != pytest.ExitCode.OK  # syrupy fails a run with unused snapshots

    result = run(pytester, "model_b", "--snapshot-update", *xdist_args)
    result.stdout.fnmatch_lines(["*2 unused snapshots deleted.*"])
    assert sorted(files_under(model_dir(pytester, "model_b"))) == [
        "first.image-0.png",
        "first.scores.json",
        "second.image-0.png",
        "second.scores.json",
    ]
    assert files_under(model_dir(pytester, "model_a")) == model_a


def test_png_snapshot_detects_a_changed_image_but_not_a_re_encoding(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    out = draw_outputs(pytester)
    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="png").assert_outcomes(passed=3)
    assert sorted(files_under(model_dir(pytester, "outputs"))) == [f"{case}.image-0.png" for case in COLORS]
    with Image.open(out / "second.png") as img:
        img.load()
    img.save(out / "second.png", compress_level=0)  # other bytes, same pixels
    touch_pixel(out / "third.png", (40, 30))

    result = run(pytester, "outputs", *xdist_args, kind="png")
    result.assert_outcomes(passed=2, failed=1)
    text = result.stdout.str()
    assert "third.image-0.png (third.png) differs:" in text
    assert "1 of 3072 pixels differ (largest channel difference 200)" in text
    assert "scores.json" not in text
    assert not re.search(r"second\.image-0\.png.*differs", text)


@pytest.mark.slow
def test_png_baseline_without_a_matching_output_fails_and_update_removes_it(
    pytester: pytest.Pytester, demo_suite: Path, xdist_args: list[str]
) -> None:
    draw_outputs(pytester)
    two = pytester.path / "outputs" / "demo" / "first"
    draw_png(two / "a.png", color=COLORS["first"])
    draw_png(two / "b.png", color=COLORS["first"])
    (pytester.path / "outputs" / "demo" / "first.png").unlink()  # "first" replays the two files of its folder
    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="png").assert_outcomes(passed=3)
    folder = model_dir(pytester, "outputs")
    assert (folder / "first.image-1.png").read_bytes() == (two / "b.png").read_bytes()
    (two / "b.png").unlink()

    result = run(pytester, "outputs", *xdist_args, kind="png")
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(["*first.image-1.png has no image to compare: the case produced 1*"])
    run(pytester, "outputs", "--snapshot-update", *xdist_args, kind="png").assert_outcomes(passed=3)
    assert not (folder / "first.image-1.png").exists()
    assert (folder / "first.image-0.png").exists()


def test_without_the_option_nothing_is_compared(pytester: pytest.Pytester, demo_suite: Path) -> None:
    draw_outputs(pytester)
    result = pytester.runpytest("cases", "--model=replay:outputs", "--snapshot-update")
    result.assert_outcomes(passed=3)
    assert not (pytester.path / "cases" / "__eval_snapshots__").exists()


def test_bad_option_values_are_usage_errors(pytester: pytest.Pytester, demo_suite: Path) -> None:
    result = pytester.runpytest("cases", "--eval-snapshot=jpeg")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--eval-snapshot: invalid choice: 'jpeg'*"])
    pytester.makeini("[pytest]\nvisioneval_snapshot = everything\n")
    result = pytester.runpytest("cases")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*visioneval_snapshot must be one of scores, png, all, got 'everything'*"])


def test_ini_setting_turns_snapshots_on(pytester: pytest.Pytester, demo_suite: Path) -> None:
    draw_outputs(pytester)
    pytester.makeini(
        "[pytest]\nfilterwarnings = ignore::pytest.PytestAssertRewriteWarning\n"
        "visioneval_model = replay:outputs\nvisioneval_snapshot = scores\n"
    )
    pytester.runpytest("cases", "--snapshot-update").assert_outcomes(passed=3)
    assert sorted(files_under(model_dir(pytester, "outputs"))) == [f"{case}.scores.json" for case in COLORS]


def _scores(gates: dict[str, bool], metrics: dict[str, float], tolerance: object = 1e-6) -> str:
    return json.dumps({"case": "demo/x", "gates": gates, "metrics": metrics, "tolerance": tolerance})


@pytest.mark.parametrize(
    ("stored", "received", "expected"),
    [
        (_scores({"a.ok": True}, {"m": 0.5}), _scores({"a.ok": True}, {"m": 0.5000009}), []),
        (
            _scores({"a.ok": True}, {"m": 0.5}),
            _scores({"a.ok": True}, {"m": 0.500002}),
            ["metric m moved by +2e-06 (0.5 -> 0.500002), tolerance 1e-06"],
        ),
        (_scores({"a.ok": True}, {}), _scores({"a.ok": True, "b.ok": False}, {}), ["gate b.ok: new (failed)"]),
        (_scores({"a.ok": True}, {"m": 1.0}), _scores({}, {}), ["gate a.ok: gone (was passed)", "metric m: gone (was 1)"]),
        (_scores({}, {}, tolerance=-1), _scores({}, {}), ["the stored tolerance must be a number >= 0, got -1"]),
        ("{not json", _scores({}, {}), ["the stored scores are not readable (JSONDecodeError: *"]),
    ],
    ids=["within", "beyond", "new-gate", "gone", "bad-tolerance", "unreadable"],
)
def test_score_differences(stored: str, received: str, expected: list[str]) -> None:
    lines = ScoresSnapshotExtension().differences(stored, received)
    assert len(lines) == len(expected), lines
    assert all(fnmatch(line, pattern) for line, pattern in zip(lines, expected, strict=True)), lines


def test_scores_leave_out_timings_and_store_rounded_values() -> None:
    case = CaseSpec(suite="web", id="page", protocol="generic", task="html_generation", source=Path("x.eval.yaml"), line=1)
    evaluation = CaseEvaluation(
        case,
        artifacts=(),
        gates=(GateOutcome(Gate("html.parses", True, ""), gating=False),),
        metrics=(Metric("render.seconds", 0.57), Metric("html.alt_coverage", 2 / 3), Metric("x.delta", -1e-12)),
    )
    assert ScoresSnapshotExtension.scores(evaluation) == {
        "case": "web/page",
        "gates": {"html.parses": True},
        "metrics": {"html.alt_coverage": 0.6666666667, "x.delta": 0.0},
        "tolerance": 1e-6,
    }
    assert '"x.delta": 0.0' in ScoresSnapshotExtension().serialize(evaluation)

"""report/view_text.py: lines fitted to a width without cutting anything."""

from __future__ import annotations

from pytest_visioneval.report.view_text import fit_lines, fit_table, left_table, wrap_line


def test_a_line_that_fits_is_left_alone() -> None:
    assert wrap_line("  FAIL a.b: mean 0.5 < 0.9", 80) == ["  FAIL a.b: mean 0.5 < 0.9"]
    assert wrap_line("x" * 300, None) == ["x" * 300]


def test_a_long_line_wraps_at_spaces_with_a_hanging_indent_and_loses_nothing() -> None:
    line = "  FAIL demo.similarity.score: mean 0.970982 < 0.999 (short by 0.028)  [cases/demo.eval.yaml:12]"
    wrapped = wrap_line(line, 80)
    assert wrapped == ["  FAIL demo.similarity.score: mean 0.970982 < 0.999 (short by 0.028)", "      [cases/demo.eval.yaml:12]"]
    assert " ".join(w.strip() for w in wrapped) == " ".join(line.split())


def test_an_interval_is_never_split() -> None:
    line = "suite demo: 3 cases, 3 passed, 0 failed, 0 errors; pass rate 100.0% [43.9, 100.0]"  # 81 characters
    assert wrap_line(line, 80) == ["suite demo: 3 cases, 3 passed, 0 failed, 0 errors; pass rate 100.0%", "    [43.9, 100.0]"]


def test_a_word_wider_than_the_width_stays_whole_on_its_own_line() -> None:
    path = "/tmp/" + "a" * 120 + "/results.json"  # a path is copied: broken in two it could not be pasted
    assert fit_lines([f"against the baseline {path} (changes only)"], 60) == [
        "against the baseline",
        f"    {path}",
        "    (changes only)",
    ]


def test_fit_table_keeps_a_table_that_fits_and_lays_out_one_that_does_not() -> None:
    rows = [("metric", "mean", "95% CI", "n"), ("similarity.score", "0.9710", "[0.9375, 0.9895]", "3"), ("x", "1.0000", "", "3")]
    assert fit_table(rows, 80) == left_table(rows)
    narrow = fit_table(rows, 40)
    assert narrow == ["  similarity.score: mean 0.9710, 95% CI", "      [0.9375, 0.9895], n 3", "  x: mean 1.0000, n 3"]
    assert all(len(line) <= 40 for line in narrow)

"""report/markdown.py: the summary a reviewer reads in the pull request, as GitHub-flavoured Markdown."""

from __future__ import annotations

import re
from typing import Any

from pytest_visioneval.report.markdown import COMMENT_LIMIT, Table, cell, code, diff_summary, fit, run_summary
from pytest_visioneval.results.baseline import Delta

# A cell boundary in a GFM table row: a pipe that no backslash escapes.
_BOUNDARY = re.compile(r"(?<!\\)\|")


def cells(row: str) -> list[str]:
    """The cells of one table row as GitHub splits it (leading and trailing pipes are the row's edges)."""
    assert row.startswith("| ") and row.endswith(" |"), row
    return [c.strip() for c in _BOUNDARY.split(row[1:-1])]


def tables(text: str) -> list[list[list[str]]]:
    """Every table of ``text``: its rows (header first, the delimiter row left out) split into cells."""
    found: list[list[list[str]]] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("|---") and index > 0:
            rows = [cells(lines[index - 1])]
            for row in lines[index + 1 :]:
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            found.append(rows)
    return found


def assert_tables_render(text: str) -> None:
    """Each row has as many cells as its header: a pipe in a cell would have added one."""
    for rows in tables(text):
        widths = {len(row) for row in rows}
        assert widths == {len(rows[0])}, rows


def case(uid: str, status: str, gates: list[dict[str, Any]] | None = None, error: str | None = None) -> dict[str, Any]:
    return {"uid": uid, "suite": uid.split("/")[0], "status": status, "gates": gates or [], "error": error, "model": "m"}


def suite(cases: int, passed: int, failed: int, errors: int = 0, gates: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "cases": cases,
        "passed": passed,
        "failed": failed,
        "errors": errors,
        "pass_rate": passed / cases,
        "gates": gates or {},
    }


WRONG_SIZE = "blue.png is 256x256, expected 256x128"


def failing_run() -> dict[str, Any]:
    """A run of two suites: a failed gate in one, a missed threshold in the other."""
    size_gate = {"passed": 1, "evaluated": 2}
    return {
        "run": {"id": "run-7", "model": "openai:m"},
        "aggregates": {
            "overall": suite(4, 3, 1),
            "suites": {"logos": suite(2, 1, 1, gates={"image.size": size_gate}), "pages": suite(2, 2, 0)},
        },
        "thresholds": [
            {"suite": "logos", "metric": "image.size", "min": 1.0, "max": None, "observed": 0.5, "passed": False,
             "status": "missed", "message": "logos.image.size: pass rate 0.5 < 1"},
            {"suite": "pages", "metric": "similarity.score", "min": 0.9, "max": None, "observed": 0.97, "passed": True,
             "status": "met", "message": "pages.similarity.score: mean 0.97 >= 0.9"},
        ],
        "exit": {"status": 1, "reasons": ["1 case(s) failed a gate or assertion", "1 threshold(s) missed"], "warnings": []},
        "cases": [
            case("logos/red", "passed"),
            case("logos/blue", "failed", [{"name": "image.size", "passed": False, "reason": WRONG_SIZE}]),
            case("pages/a", "passed"),
            case("pages/b", "passed"),
        ],
    }  # fmt: skip


def deltas() -> list[Delta]:
    return [
        Delta("pages", "html.renders", 1.0, 1.0, True, 0.01),
        Delta("pages", "similarity.score", 0.90, 0.97, True, 0.01),  # improved
        Delta("logos", "ocr.text_found", None, 1.0, True, 0.01),  # new
        Delta("logos", "similarity.score", 1.0, 0.9, True, 0.01, interval=(-0.2, 0.0), paired=2),  # regressed
    ]


def test_a_failing_run_says_why_with_regressions_first() -> None:
    text = run_summary(failing_run(), deltas(), "baseline.json")
    lines = text.splitlines()
    assert lines[0] == "## visioneval: ❌ failed (exit status 1)"
    assert "**4 cases**: 3 passed, 1 failed, 0 errors · model `openai:m` · run `run-7`" in lines
    assert "- 1 case(s) failed a gate or assertion" in lines and "- 1 threshold(s) missed" in lines
    # The sections in the order a reviewer reads them.
    headings = [line for line in lines if line.startswith("### ")]
    assert headings == ["### Thresholds", "### Suites", "### Against the baseline `baseline.json`", "### Failed cases"]
    thresholds, suites, baseline, failed = tables(text)
    assert thresholds[1] == ["❌ missed", "`logos.image.size`", ">= 1", "0.5", "logos.image.size: pass rate 0.5 < 1"]
    assert thresholds[2][0] == "✅ met"
    assert suites[1] == ["❌", "`logos`", "2", "1", "1", "0", "50.0%", "image.size (1)"]
    assert suites[2][:2] == ["✅", "`pages`"]
    assert "**1 regression(s)** · 3 of 4 values changed past their tolerance or were added or removed" in lines
    assert [row[0] for row in baseline[1:]] == ["🔴 REGRESSED", "🆕 new", "🟢 improved"]  # unchanged ones left out
    assert baseline[1] == [
        "🔴 REGRESSED", "`logos`", "`similarity.score`", "1", "0.9", "-0.1", "0.01 (higher is better)", "[-0.2, +0] over 2 cases"
    ]  # fmt: skip
    assert failed[1:] == [["`logos/blue`", "❌ failed", "image.size: blue.png is 256x256, expected 256x128"]]
    assert_tables_render(text)


def test_a_passing_run_without_baseline_has_no_baseline_or_case_section() -> None:
    document = {
        "run": {"id": "r", "model": "reference"},
        "aggregates": {"overall": suite(2, 2, 0), "suites": {"logos": suite(2, 2, 0)}},
        "thresholds": [],
        "exit": {"status": 0, "reasons": [], "warnings": ["judge changed"]},
        "cases": [case("logos/a", "passed"), case("logos/b", "passed")],
    }
    text = run_summary(document)
    assert text.startswith("## visioneval: ✅ passed (exit status 0)\n")
    assert "- ⚠️ judge changed" in text
    assert "### Thresholds" not in text and "baseline" not in text and "### Failed cases" not in text


def test_errors_come_after_failures_and_say_their_error() -> None:
    document = failing_run()
    document["cases"].append(case("logos/crash", "error", error="ModelError: 500 from the server"))
    [*_, failed] = tables(run_summary(document))
    assert [row[1] for row in failed[1:]] == ["❌ failed", "💥 error"]
    assert failed[2][2] == "ModelError: 500 from the server"


def test_cells_escape_pipes_newlines_and_markup() -> None:
    assert cell("a | b") == "a \\| b"
    assert cell("two\nlines") == "two lines"
    assert cell("<img src=x onerror=alert(1)>") == "&lt;img src=x onerror=alert(1)>"
    assert cell("<https://example.com> </b> <!-- x -->") == "&lt;https://example.com> &lt;/b> &lt;!-- x -->"
    assert cell("0.5 < 1 and 2 > 1") == "0.5 < 1 and 2 > 1"  # no tag: left readable
    assert cell("C:\\path|x") == "C:\\\\path\\|x"  # an existing backslash cannot swallow the pipe's escape
    assert code("a`b|c") == "`a'b\\|c`"
    assert len(cell("x" * 1000)) == 300 and cell("x" * 1000).endswith("…")
    document = failing_run()
    document["cases"][1]["uid"] = "logos/a|b"
    document["cases"][1]["gates"][0]["reason"] = "line one | with a pipe\nline two <b>bold</b>"
    text = run_summary(document)
    assert_tables_render(text)
    [*_, failed] = tables(text)
    assert failed[1] == ["`logos/a\\|b`", "❌ failed", "image.size: line one \\| with a pipe line two &lt;b>bold&lt;/b>"]


def test_a_huge_run_fits_a_comment_cut_by_whole_rows_with_a_note() -> None:
    document = failing_run()
    reason = "the output differs from the reference in many places " * 4
    document["cases"] = [
        case(f"logos/case-{i:05d}", "failed", [{"name": "image.size", "passed": False, "reason": reason}]) for i in range(5000)
    ]
    text = run_summary(document, deltas() * 500, "baseline.json")
    assert len(text) <= COMMENT_LIMIT
    assert_tables_render(text)  # every row kept is whole
    lines = text.splitlines()
    assert any(re.fullmatch(r"_… \d+ more cases not shown \(the results JSON has them all\)\._", line) for line in lines)
    assert any(re.fullmatch(r"_… \d+ more values not shown \(the results JSON has them all\)\._", line) for line in lines)
    # Worst first survives the cut: the first cases and the regressions are kept.
    assert "| `logos/case-00000` |" in text
    [*_, baseline, failed] = tables(text)
    assert baseline[1][0] == "🔴 REGRESSED"
    # As many rows as fit: fewer than all, but not needlessly few.
    assert 20 <= len(failed) - 1 < 5000
    assert text == run_summary(document, deltas() * 500, "baseline.json")  # the same input, the same cut


def test_text_beyond_any_table_is_cut_by_whole_lines() -> None:
    blocks = [f"line {i} " + "x" * 90 for i in range(2000)]
    text = fit(blocks, limit=10_000)
    assert len(text) <= 10_000
    assert text.endswith("_… the summary was cut here to fit a comment; the results JSON has it all._\n")
    kept = [line for line in text.splitlines() if line.startswith("line ")]
    assert all(len(line) == len(blocks[int(line.split()[1])]) for line in kept)  # none cut mid-line


def test_a_table_lists_every_row_when_it_fits() -> None:
    table = Table(("a", "b"), [("1", "2"), ("3", "4")], "things")
    assert table.lines() == ["| a | b |", "|---|---|", "| 1 | 2 |", "| 3 | 4 |"]
    assert table.lines(1)[-1] == "_… 1 more things not shown (the results JSON has them all)._"


def test_diff_summary_verdicts() -> None:
    text = diff_summary(deltas(), "before.json", "after.json", ["compared model by model: a"])
    assert text.splitlines()[0] == "## visioneval diff: ❌ 1 regression(s)"
    assert "`before.json` → `after.json`" in text and "- compared model by model: a" in text
    assert tables(text)[0][1][0] == "🔴 REGRESSED"
    calm = diff_summary([Delta("s", "m", 1.0, 1.0, True, 0.01)], "a.json", "b.json")
    assert calm.splitlines()[0] == "## visioneval diff: ✅ no regressions"
    assert "**no regressions** · 0 of 1 values changed" in calm and "|" not in calm

"""``--markdown FILE`` on ``merge``, ``diff`` and ``compare``: the same verdict as the terminal, as Markdown."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.cli import main as dispatcher
from tests.unit.report.html_documents import case, document_of
from tests.unit.report.test_markdown import assert_tables_render, tables

WRONG_SIZE = {"name": "image.size", "passed": False, "reason": "a.png is 64x64, expected 64x48", "gating": True}


def records(score: float, failed: tuple[int, ...] = (), count: int = 12) -> list[dict[str, Any]]:
    """``count`` cases of suite ``demo``, each scoring ``score`` (a little spread, as real scores are)."""
    found = []
    for index in range(count):
        metric = {"name": "sim.score", "value": round(score - 0.01 * (index % 3), 4), "reason": "", "higher_is_better": True}
        status = "failed" if index in failed else "passed"
        gates = [WRONG_SIZE] if index in failed else []
        found.append(case(f"demo/c{index:02d}", status, [], metrics=[metric], gates=gates))
    return found


def write(folder: Path, name: str, cases: list[dict[str, Any]]) -> Path:
    path = folder / name
    path.write_text(json.dumps(document_of(cases, folder)), encoding="utf-8")
    return path


def test_diff_writes_the_regressions_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path, "before.json", records(0.9))
    after = write(tmp_path, "after.json", records(0.7, failed=(3,)))
    summary = tmp_path / "summary.md"
    assert dispatcher.main(["diff", str(before), str(after), "--markdown", str(summary)]) == 1
    assert "regression(s):" in capsys.readouterr().out  # the terminal says the same as before
    text = summary.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "## visioneval diff: ❌ 2 regression(s)"
    assert "`before.json` → `after.json`" in text
    [table] = tables(text)
    # Regressions first; the gate that only the failing case recorded is new.
    assert [(row[0], row[2]) for row in table[1:]] == [
        ("🔴 REGRESSED", "`pass_rate`"),
        ("🔴 REGRESSED", "`sim.score`"),
        ("🆕 new", "`image.size`"),
    ]
    score = next(row for row in table if row[2] == "`sim.score`")
    assert score[3:7] == ["0.89", "0.69", "-0.2", "0.01 (higher is better)"]
    assert_tables_render(text)


def test_diff_without_regressions(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = write(tmp_path, "before.json", records(0.9))
    summary = tmp_path / "summary.md"
    assert dispatcher.main(["diff", str(before), str(before), "--markdown", str(summary)]) == 0
    text = summary.read_text(encoding="utf-8")
    assert text.splitlines()[0] == "## visioneval diff: ✅ no regressions"
    assert "**no regressions**" in text and not tables(text)


def test_compare_writes_pass_rates_and_worse_metrics_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path, "a.json", records(0.9))
    b = write(tmp_path, "b.json", records(0.7, failed=(0, 1, 2, 3, 4, 5)))
    summary = tmp_path / "cmp.md"
    assert dispatcher.main(["compare", str(a), str(b), "--markdown", str(summary)]) == 0
    text = summary.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "## visioneval compare: ❌ 3 significant regression(s)"
    assert "- b.json vs a.json: overall pass rate 100.0% -> 50.0% (McNemar p=0.0312 < 0.05)" in lines
    assert "### `b.json` (B) vs `a.json` (A)" in lines
    rates, metrics, flips = tables(text)
    assert rates[1] == ["`overall`", "12", "100.0%", "50.0%", "-50.0%", "p=0.0312"]
    assert metrics[1] == ["🔴 worse", "`demo`", "`sim.score`", "12", "0.89", "0.69", "-0.2", "[-0.2, -0.2]"]
    assert flips[1:] == [[f"`demo/c0{i}`", "pass->fail", "image.size: a.png is 64x64, expected 64x48"] for i in range(6)]
    assert_tables_render(text)


def test_merge_writes_the_verdict_of_all_shards(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = records(0.9, failed=(7,))
    one = write(tmp_path, "shard-1.json", cases[:6])
    two = write(tmp_path, "shard-2.json", cases[6:])
    summary = tmp_path / "merged.md"
    argv = ["merge", str(tmp_path / "merged.json"), str(one), str(two), "--fail-under", "demo.sim.score=0.95"]
    assert dispatcher.main([*argv, "--markdown", str(summary)]) == 1
    text = summary.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "## visioneval merge: ❌ failed (exit status 1)"
    assert lines[2].startswith("**12 cases**: 11 passed, 1 failed, 0 errors · model `reference`")
    assert lines[2].endswith("· merged from 2 results")
    thresholds, suites, failed = tables(text)
    assert thresholds[1][:4] == ["❌ missed", "`demo.sim.score`", ">= 0.95", "0.89"]
    assert suites[1] == ["❌", "`demo`", "12", "11", "1", "0", "91.7%", "image.size (1)"]
    assert failed[1:] == [["`demo/c07`", "❌ failed", "image.size: a.png is 64x64, expected 64x48"]]
    assert_tables_render(text)


def test_markdown_limit_cuts_long_tables_by_whole_rows(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wide = [
        case(f"s{i:03d}/a", "passed", [], metrics=[{"name": "sim.score", "value": 0.9, "higher_is_better": True}])
        for i in range(300)
    ]
    worse = [{**c, "metrics": [{"name": "sim.score", "value": 0.5, "higher_is_better": True}]} for c in wide]
    before, after = write(tmp_path, "before.json", wide), write(tmp_path, "after.json", worse)
    summary = tmp_path / "summary.md"
    assert dispatcher.main(["diff", str(before), str(after), "--markdown", str(summary), "--markdown-limit", "5000"]) == 1
    text = summary.read_text(encoding="utf-8")
    assert len(text) <= 5000
    assert "**300 regression(s)**" in text
    [table] = tables(text)
    assert 5 <= len(table) - 1 < 300
    assert text.rstrip().endswith(f"_… {300 - (len(table) - 1)} more values not shown (the results JSON has them all)._")
    assert_tables_render(text)
    with pytest.raises(SystemExit):
        dispatcher.main(["diff", str(before), str(after), "--markdown", str(summary), "--markdown-limit", "10"])
    assert "--markdown-limit: expected at least 1000 characters, got 10" in capsys.readouterr().err

"""docs/ci.md's GitHub Actions workflow: valid YAML, every option it passes is one the commands know, and the
summary reaches the job's summary page and the pull request through the call cache it keeps."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml

from pytest_visioneval.cli import main as dispatcher
from pytest_visioneval.plugin import markdown_option

CI_MD = Path(__file__).resolve().parents[3] / "docs" / "ci.md"


def workflow() -> dict[str, Any]:
    text = CI_MD.read_text(encoding="utf-8")
    section = text[text.index("## A GitHub Actions workflow") :]
    block = re.search(r"^```yaml\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert block is not None
    return yaml.safe_load(block[1])


def steps(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in document["jobs"].values() for step in job["steps"]]


def command_lines(document: dict[str, Any], program: str) -> list[list[str]]:
    """Each ``program ...`` command of the run steps, as words (GitHub expressions kept as one word)."""
    found = []
    for step in steps(document):
        run = " ".join(str(step.get("run", "")).split())
        for part in re.split(r"\|\||&&|;|\n", run):
            words = shlex.split(re.sub(r"\$\{\{.*?\}\}", "X", part))
            if words[:1] == [program]:
                found.append(words)
    return found


def flags(words: list[str]) -> set[str]:
    return {word.split("=")[0] for word in words if word.startswith("--")}


def test_the_visioneval_commands_use_options_they_have(capsys: pytest.CaptureFixture[str]) -> None:
    commands = command_lines(workflow(), "visioneval")
    assert {words[1] for words in commands} == {"merge", "diff"}
    for words in commands:
        with pytest.raises(SystemExit):
            dispatcher.main([words[1], "--help"])
        known = capsys.readouterr().out
        assert flags(words) >= {"--markdown", "--markdown-limit"}
        for flag in flags(words):
            assert flag in known, f"visioneval {words[1]} has no {flag}"


def test_the_run_writes_the_markdown_and_the_summary_page_and_comment_get_it(pytester: pytest.Pytester) -> None:
    document = workflow()
    [run] = command_lines(document, "pytest")
    known = "\n".join(pytester.runpytest("--eval-help-all").outlines)
    pending = {markdown_option.OPTION}  # declared by plugin/markdown_option.py, wired by plugin/hooks.py
    for flag in flags(run) - pending:
        assert flag in known or flag == "--junitxml", f"pytest has no {flag}"
    assert "--eval-markdown" in run
    scripts = "\n".join(str(step.get("run", "")) for step in steps(document))
    assert scripts.count('>> "$GITHUB_STEP_SUMMARY"') == 2  # each shard, then the merged verdict
    assert 'gh pr comment "$PR" --body-file comment.md --edit-last || gh pr comment "$PR" --body-file comment.md' in scripts
    gate = document["jobs"]["gate"]
    assert gate["permissions"]["pull-requests"] == "write"
    uploads = [s for s in gate["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert "report.html" in uploads[0]["with"]["path"]


def test_the_call_cache_is_kept_between_runs_keyed_on_the_case_files() -> None:
    [cache] = [s for s in steps(workflow()) if str(s.get("uses", "")).startswith("actions/cache")]
    # The plugin's default cache folder: <eval-output-dir>/cache, the output dir being .visioneval.
    assert cache["with"]["path"] == ".visioneval/cache"
    assert "hashFiles('cases/**'" in cache["with"]["key"]
    assert cache["with"]["key"].startswith(cache["with"]["restore-keys"])
    assert "is a separate feature" not in CI_MD.read_text(encoding="utf-8")

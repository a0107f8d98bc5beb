"""checklist-draft: a judge turns each prompt into yes/no questions, written into the case file for review."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.cli.checklist_draft import drafted_questions, main
from pytest_visioneval.graders.checklist import ChecklistGrader
from pytest_visioneval.protocols.case_files import load_case_file
from pytest_visioneval.testing import FakeOpenAIServer

CASE_FILE = """\
# Flyers for the spring sale (kept as written)
suite: flyers
defaults:
  task: image_generation
  graders:
    - use: image   # every output must decode
cases:
  - id: sale
    prompt: "A flyer for a bakery's spring sale: the words 'SPRING SALE' in red at the top, three loaves below."
  - id: plain
    prompt: A plain blue square.
    graders:
      - use: image
        name: own
"""
DRAFT = {
    "questions": [
        {"text": "Is the text SPRING SALE shown?", "depends_on": []},
        {"text": "Is the text  SPRING SALE red?", "depends_on": [1]},
        {"text": "Are there exactly three loaves?", "depends_on": [3, 5]},  # itself and a later one: dropped
    ]
}


def test_dependencies_on_itself_or_later_questions_are_dropped() -> None:
    assert drafted_questions(DRAFT) == [
        {"text": "Is the text SPRING SALE shown?"},
        {"text": "Is the text SPRING SALE red?", "depends_on": [1]},
        {"text": "Are there exactly three loaves?"},
    ]


def test_drafts_are_written_into_the_case_file_keeping_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    path = tmp_path / "flyers.eval.yaml"
    path.write_text(CASE_FILE)
    with FakeOpenAIServer() as server:
        server.queue_replies(json.dumps(DRAFT), json.dumps({"questions": [{"text": "Is the square blue?", "depends_on": []}]}))
        judge = ["--judge=openai:drafter", f"--judge-base-url={server.base_url}"]
        assert main([str(path), *judge]) == 0
        asked = [r.json for r in server.requests]
    assert len(asked) == 2 and "SPRING SALE" in json.dumps(asked[0]["messages"])
    text = path.read_text()
    assert text.startswith("# Flyers for the spring sale (kept as written)\n")
    assert "- use: image   # every output must decode" in text
    assert "# DRAFT by openai:drafter on" in text
    suite = load_case_file(path, tmp_path)  # the file is still a valid case file
    sale, plain = suite.cases
    drafted = next(g for g in sale.graders if g.name == "drafted_checklist")
    assert drafted.use == "checklist"
    assert drafted.options["questions"][1] == {"text": "Is the text SPRING SALE red?", "depends_on": [1]}
    assert ChecklistGrader(drafted.options).parents == {2: (1,)}
    assert [g.name for g in plain.graders][-2:] == ["own", "drafted_checklist"]
    out = capsys.readouterr().out
    assert "Q2. Is the text SPRING SALE red?  (after Q1)" in out
    # Run again: both cases have a draft already and are left alone (no request made).
    with FakeOpenAIServer() as server:
        assert main([str(path), "--judge=openai:drafter", f"--judge-base-url={server.base_url}"]) == 0
        assert server.requests == []
    assert "already has 'drafted_checklist'" in capsys.readouterr().out


def test_dry_run_writes_nothing_and_an_unknown_case_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-local")
    path = tmp_path / "flyers.eval.yaml"
    path.write_text(CASE_FILE)
    with FakeOpenAIServer() as server:
        server.queue_replies(json.dumps(DRAFT))
        args = [str(path), "--judge=openai:drafter", f"--judge-base-url={server.base_url}"]
        assert main([*args, "--case", "sale", "--dry-run"]) == 0
        with pytest.raises(SystemExit, match="no case nope"):
            main([*args, "--case", "nope"])
    assert path.read_text() == CASE_FILE

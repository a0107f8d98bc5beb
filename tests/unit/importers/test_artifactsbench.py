"""artifactsbench importer: the official task file (JSON array or JSONL) -> validated case files, one per class."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

from pytest_visioneval.importers import IMPORTERS
from pytest_visioneval.importers import artifactsbench as importer
from pytest_visioneval.importers.__main__ import main
from pytest_visioneval.protocols.case_files import load_case_file

DATA = Path(__file__).resolve().parents[2] / "data" / "importers" / "artifactsbench"
SAMPLE = DATA / "sample.json"
ANSWERS = DATA / "answers.jsonl"


def parse(*argv: Any) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    importer.add_arguments(parser)
    return parser.parse_args([str(a) for a in argv])


def sample_rows() -> list[dict[str, Any]]:
    return json.loads(SAMPLE.read_text(encoding="utf-8"))


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def test_registered() -> None:
    assert IMPORTERS["artifactsbench"] == "artifactsbench"


def test_sample_becomes_one_validated_case_file_per_class(tmp_path: Path) -> None:
    written = importer.run(parse(SAMPLE, tmp_path / "out"))
    assert [p.name for p in written] == ["game-development.eval.yaml", "svg-generation.eval.yaml"]
    suites = {p.name: load_case_file(p) for p in written}

    games = suites["game-development.eval.yaml"]
    assert games.name == "artifactsbench-game-development" and games.protocol == "artifactsbench"
    assert [c.id for c in games.cases] == ["101", "103"]
    memory = games.cases[0]
    assert memory.task == "html_generation" and memory.reference is None and memory.render is not None
    assert memory.prompt is not None and memory.prompt.startswith("Create a memory card matching game")
    assert memory.fields["class"] == "Game Development" and memory.fields["difficulty"] == "medium"
    assert memory.fields["index"] == 101 and len(memory.fields["checklist"]) == 10
    assert "extra_note" not in games.cases[1].fields  # other keys of a row are ignored
    judge = next(g for g in memory.graders if g.use == "checklist_points")
    assert judge.options["items"] == sample_rows()[0]["checklist"]

    svg = suites["svg-generation.eval.yaml"]
    weather, chart = svg.cases
    assert weather.prompt is not None and weather.prompt.startswith("用 SVG 画")  # non-ASCII kept as is
    assert weather.fields["difficulty"] == "easy"  # "Simple" in the data
    assert weather.fields["checklist"] == json.loads(sample_rows()[1]["checklist"])  # a checklist stored as a JSON string
    assert chart.id == "svg-104" and chart.prompt is not None and chart.prompt.endswith("\nUse only inline SVG.")


def test_jsonl_gives_the_same_cases_and_limit_cuts(tmp_path: Path) -> None:
    source = write_jsonl(tmp_path / "tasks.jsonl", sample_rows())
    from_jsonl = importer.run(parse(source, tmp_path / "a"))
    from_json = importer.run(parse(SAMPLE, tmp_path / "b"))
    for left, right in zip(from_jsonl, from_json, strict=True):
        assert left.read_text(encoding="utf-8").replace("tasks.jsonl", "sample.json") == right.read_text(encoding="utf-8")
    limited = importer.run(parse(source, tmp_path / "c", "--limit", 1))
    assert [p.name for p in limited] == ["game-development.eval.yaml"]
    assert [c.id for c in load_case_file(limited[0]).cases] == ["101"]


def test_answers_become_a_replay_folder(tmp_path: Path) -> None:
    importer.run(parse(SAMPLE, tmp_path / "out", "--answers", ANSWERS))
    replay = tmp_path / "out" / "replay"
    assert sorted(str(p.relative_to(replay)) for p in replay.rglob("*.md")) == [
        "artifactsbench-game-development/101.md",
        "artifactsbench-svg-generation/svg-104.md",
    ]
    assert (replay / "artifactsbench-game-development" / "101.md").read_text().startswith("```html")


def test_instructions_file_is_copied_and_used(tmp_path: Path) -> None:
    prompt = tmp_path / "official-judge.md"
    prompt.write_text("my own copy of the judge prompt")
    written = importer.run(parse(SAMPLE, tmp_path / "out", "--instructions-file", prompt))
    assert (tmp_path / "out" / "official-judge.md").read_text() == "my own copy of the judge prompt"
    case = load_case_file(written[0]).cases[0]
    assert next(g for g in case.graders if g.use == "checklist_points").options["instructions_file"] == "official-judge.md"


def test_rows_without_index_are_numbered_and_odd_indexes_cleaned(tmp_path: Path) -> None:
    rows = sample_rows()[:2]
    del rows[0]["index"]
    rows[1]["index"] = "web/7 b"
    written = importer.run(parse(write_jsonl(tmp_path / "t.jsonl", rows), tmp_path / "out"))
    cases = [c for p in written for c in load_case_file(p).cases]
    assert [c.id for c in cases] == ["row-1", "web-7-b"]
    assert cases[1].description == "official index: web/7 b"


def test_classes_without_latin_letters_get_a_stable_file_name() -> None:
    names = importer.suite_names(["游戏开发", "Web App", "web-app"])
    assert names["Web App"] == "web-app" and names["web-app"] == "web-app-2"
    assert names["游戏开发"].startswith("class-") and names["游戏开发"] == importer.suite_names(["游戏开发"])["游戏开发"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda r: r.update(checklist=json.loads(r["checklist"])[:9]),
            r"tasks.jsonl:2 \(index 102\): 'checklist' must hold 10 items .*got 9",
        ),
        (lambda r: r.update(checklist="not json"), r":2 \(index 102\): 'checklist' is a string that does not hold a JSON list"),
        (
            lambda r: r.update(difficulty="extreme"),
            r":2 \(index 102\): unknown difficulty 'extreme'; expected one of easy, medium, hard",
        ),
        (lambda r: r.pop("question"), r":2 \(index 102\): missing question"),
        (lambda r: r.update({"class": "  "}), r":2 \(index 102\): 'class' must be a non-empty string"),
        (lambda r: r.update(index=101), r"tasks.jsonl:2: case id '101' was already used at .*tasks.jsonl:1"),
    ],
    ids=["nine-items", "checklist-string", "difficulty", "no-question", "blank-class", "duplicate"],
)
def test_bad_rows_name_their_line_and_index(tmp_path: Path, change: Any, message: str) -> None:
    rows = sample_rows()
    change(rows[1])
    source = write_jsonl(tmp_path / "tasks.jsonl", rows)
    with pytest.raises(ValueError, match=message):
        importer.run(parse(source, tmp_path / "out"))
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())  # nothing half-written


def test_bad_json_array_row_is_named_by_position(tmp_path: Path) -> None:
    source = tmp_path / "tasks.json"
    source.write_text(json.dumps([sample_rows()[0], "just a string"]), encoding="utf-8")
    with pytest.raises(ValueError, match=r"tasks.json: row 2: expected a JSON object, got str"):
        importer.run(parse(source, tmp_path / "out"))


def test_answers_for_unknown_tasks_are_refused(tmp_path: Path) -> None:
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"index": 999, "answer": "<svg></svg>"}])
    with pytest.raises(ValueError, match=r"answers.jsonl:1: index 999 matches no imported task"):
        importer.run(parse(SAMPLE, tmp_path / "out", "--answers", answers))
    assert not (tmp_path / "out").exists()  # checked before anything was written


def test_command_line_reports_errors_without_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"index": 1, "question": "q"\n', encoding="utf-8")
    assert main(["artifactsbench", str(broken), str(tmp_path / "out")]) == 1
    assert "broken.jsonl:1: not valid JSON" in capsys.readouterr().err
    assert main(["artifactsbench", str(SAMPLE), str(tmp_path / "ok")]) == 0
    assert "2 case file(s) written" in capsys.readouterr().err

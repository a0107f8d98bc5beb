"""report/results_json.py: the results document and its JSON Schema."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from pytest_visioneval import __version__
from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.report.results_json import SCHEMA_NAME, SCHEMA_VERSION, RunInfo, build, results_schema, write
from pytest_visioneval.results.aggregate import aggregate
from pytest_visioneval.results.thresholds import evaluate_thresholds
from pytest_visioneval.results.verdict import decide


def test_schema_loads_and_is_a_valid_json_schema() -> None:
    schema = results_schema()
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft202012Validator
    cls.check_schema(schema)
    assert schema["properties"]["schema"] == {"const": SCHEMA_NAME}
    assert schema["properties"]["schema_version"] == {"const": SCHEMA_VERSION}


def case_record(uid: str, status: str, score: float) -> dict[str, Any]:
    suite, case_id = uid.split("/")
    return {
        "uid": uid,
        "suite": suite,
        "case_id": case_id,
        "protocol": "generic",
        "task": "image_generation",
        "tags": ["ui"],
        "source": f"{suite}.eval.yaml:3",
        "nodeid": f"{suite}.eval.yaml::{uid}",
        "model": "reference",
        "status": status,
        "duration": 0.01,
        "error": None,
        "gates": [{"name": "image.decodes", "passed": True, "reason": "1 image(s) decode", "gating": True}],
        "metrics": [{"name": "sim.score", "value": score, "reason": "", "higher_is_better": True}],
        "artifacts": [{"name": "output-0.png", "path": "/tmp/x/output-0.png", "mime": "image/png", "sha256": "0" * 64}],
        "thresholds": [],
    }


@pytest.fixture
def document(tmp_path: Path) -> dict[str, Any]:
    records = [case_record("ui/a", "passed", 0.9), case_record("ui/b", "failed", 0.4)]
    aggregates = aggregate(records)
    results = evaluate_thresholds([Threshold("ui", "sim.score", min=0.8, source="ui.eval.yaml:2")], [], aggregates)
    run = RunInfo(
        run_id="20260101-000000-abcd",
        model="reference",
        model_params={},
        started=time.time() - 5,
        output_dir=tmp_path / "out" / "20260101-000000-abcd",
        argv=("-q", "cases"),
        pytest_version=pytest.__version__,
    )
    return build(run, records, aggregates, decide(1, results, aggregates["overall"]))


def test_built_document_validates_against_the_schema(document: dict[str, Any]) -> None:
    jsonschema.Draft202012Validator(results_schema()).validate(document)


def test_built_document_content(document: dict[str, Any], tmp_path: Path) -> None:
    assert document["schema"] == SCHEMA_NAME
    run = document["run"]
    assert run["id"] == "20260101-000000-abcd"
    assert run["model"] == "reference"
    assert run["plugin_version"] == __version__
    assert run["argv"] == ["-q", "cases"]
    assert run["output_dir"] == str(tmp_path / "out" / "20260101-000000-abcd")
    assert run["started"] <= run["finished"]
    assert document["exit"]["status"] == 1
    assert document["thresholds"][0]["passed"] is False
    assert document["thresholds"][0]["observed"] == pytest.approx(0.65)


def test_schema_rejects_a_broken_document(document: dict[str, Any]) -> None:
    validator = jsonschema.Draft202012Validator(results_schema())
    broken = json.loads(json.dumps(document))
    broken["cases"][0]["status"] = "exploded"
    del broken["aggregates"]["tags"]
    broken["cases"][1]["artifacts"][0]["sha256"] = "not-a-hash"
    messages = sorted(e.message for e in validator.iter_errors(broken))
    assert len(messages) == 3
    assert any("'exploded'" in m for m in messages)
    assert any("'tags' is a required property" in m for m in messages)
    assert any("not-a-hash" in m for m in messages)


def test_write_round_trips(document: dict[str, Any], tmp_path: Path) -> None:
    target = tmp_path / "reports" / "results.json"
    write(target, document)
    text = target.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    assert json.loads(text) == document
    assert [p.name for p in target.parent.iterdir()] == ["results.json"]

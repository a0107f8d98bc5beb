"""plugin/regrade.py: an earlier run (folder or results JSON) -> its models as regrade choices; the regrade model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_visioneval.artifacts import Artifact, ArtifactStore, ModelOutput
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import ConfigError, ModelError
from pytest_visioneval.models import ModelSettings, create_model
from pytest_visioneval.models.replay import RegradeModel
from pytest_visioneval.plugin.model_choices import ModelChoice
from pytest_visioneval.plugin.regrade import EarlierRun, model_label, read_earlier_run, regrade_choices
from pytest_visioneval.report.results_json import SCHEMA_NAME


def store_output(out: Path, run_id: str, label: str, uid: str, folder: str | None = None) -> Path:
    """Write one case's output as a run's store does; its case folder."""
    suite, _, case = uid.partition("/")
    ArtifactStore(out, run_id).save(label, suite, folder or case, ModelOutput((Artifact("output-0.png", b"png"),)))
    return out / run_id


def results(path: Path, run: dict, cases: list[dict] | None = None) -> Path:
    path.write_text(json.dumps({"schema": SCHEMA_NAME, "schema_version": 1, "run": run, "cases": cases or []}))
    return path


def case(uid: str) -> CaseSpec:
    suite, _, case_id = uid.partition("/")
    return CaseSpec(suite, case_id, "cookbook", "image_generation", Path("x.eval.yaml"), 1, prompt="p")


# -- a run folder --------------------------------------------------------------


def test_a_folder_gives_each_model_folder_under_the_label_its_outputs_record(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "openai:gpt-image-1", "demo/first")
    store_output(tmp_path, "r1", "b", "demo/first")
    store_output(tmp_path, "r1", "b", "other/second")
    (run / ".exchange" / "token" / "demo").mkdir(parents=True)  # the run's own bookkeeping
    (run / ".slots").mkdir()
    (run / ".run.lock").write_text("1")
    (run / "notes").mkdir()  # neither a model's folder
    (run / "notes" / "a" / "b").mkdir(parents=True)
    (run / "notes" / "a" / "b" / "provenance.json").write_text('{"case": "something/else", "model": "notes"}')
    earlier = read_earlier_run(run)
    assert earlier == EarlierRun(run.resolve(), ("b", "openai:gpt-image-1"), run.resolve())
    assert earlier.model_folder("openai:gpt-image-1") == run.resolve() / "openai_gpt-image-1"


def test_a_folder_of_repeats_or_mutants_is_still_a_model_folder(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "rep", "demo/first", folder="first/r1")
    store_output(tmp_path, "r1", "mut", "demo/first", folder="first/mutants/blank")
    assert read_earlier_run(run).labels == ("mut", "rep")


def test_a_label_that_does_not_name_its_folder_gives_way_to_the_folder_name(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "a", "demo/first")
    (run / "a").rename(run / "copied")
    assert model_label(run / "copied") == "copied"


def test_one_models_folder_is_refused_with_its_parent_named(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "reference", "demo/first")
    with pytest.raises(ConfigError, match=rf"holds no model outputs .*give its run folder, {run.resolve()}$"):
        read_earlier_run(run / "reference")


def test_a_folder_without_outputs_or_no_folder_at_all_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty" / ".exchange").mkdir(parents=True)
    with pytest.raises(ConfigError, match="empty: holds no model outputs"):
        read_earlier_run(tmp_path / "empty")
    with pytest.raises(ConfigError, match="nowhere: no such run folder or results JSON"):
        read_earlier_run(tmp_path / "nowhere")


# -- a results JSON --------------------------------------------------------------


def test_results_of_several_models_give_their_labels_in_the_runs_order(tmp_path: Path) -> None:
    run = store_output(tmp_path / "out", "r1", "new", "demo/first")
    store_output(tmp_path / "out", "r1", "reference", "demo/first")
    document = results(
        tmp_path / "r.json",
        {
            "id": "r1",
            "output_dir": str(run),
            "models": ["reference", "new"],
            "model_specs": {"reference": "reference", "new": "x"},
        },
    )
    earlier = read_earlier_run(document)
    assert (earlier.folder, earlier.labels, earlier.source) == (run.resolve(), ("reference", "new"), document.resolve())


def test_results_of_one_model_take_the_label_from_its_cases(tmp_path: Path) -> None:
    run = store_output(tmp_path / "out", "r1", "mine", "demo/first")
    cases = [{"uid": "demo/first", "model": "mine"}, {"uid": "test_x.py::test", "model": None}]
    document = results(tmp_path / "r.json", {"id": "r1", "output_dir": str(run), "model": "openai:x"}, cases)
    assert read_earlier_run(document).labels == ("mine",)


@pytest.mark.parametrize("where", ["r1", "out/r1"])
def test_moved_results_find_their_run_folder_beside_them(tmp_path: Path, where: str) -> None:
    store_output(tmp_path / "moved" / Path(where).parent, "r1", "reference", "demo/first")
    document = results(tmp_path / "moved" / "r.json", {"id": "r1", "output_dir": "/gone/out/r1", "model": "reference"})
    assert read_earlier_run(document).folder == (tmp_path / "moved" / where).resolve()


def test_results_whose_folder_is_gone_or_empty_are_refused(tmp_path: Path) -> None:
    document = results(tmp_path / "r.json", {"id": "r1", "output_dir": "/gone/out/r1", "model": "reference"})
    with pytest.raises(ConfigError, match="the run folder it names is not there: looked at /gone/out/r1, "):
        read_earlier_run(document)
    (tmp_path / "r1" / "other").mkdir(parents=True)
    with pytest.raises(ConfigError, match=r"r1 holds no model outputs \(of reference\)"):
        read_earlier_run(document)


@pytest.mark.parametrize("text", ["not json", '{"schema": "other", "run": {}}', "[]"])
def test_a_file_that_is_no_results_json_is_refused(tmp_path: Path, text: str) -> None:
    (tmp_path / "r.json").write_text(text)
    with pytest.raises(ConfigError, match="results JSON"):
        read_earlier_run(tmp_path / "r.json")


# -- choices ---------------------------------------------------------------------


EARLIER = EarlierRun(Path("/runs/r1"), ("reference", "openai:gpt-image-1"), Path("/runs/r1"))


def test_every_earlier_model_is_regraded_under_its_own_label() -> None:
    assert regrade_choices(EARLIER) == (
        ModelChoice("reference", "regrade:/runs/r1/reference"),
        ModelChoice("openai:gpt-image-1", "regrade:/runs/r1/openai_gpt-image-1"),
    )
    assert {choice.provider for choice in regrade_choices(EARLIER)} == {"regrade"}


def test_model_picks_earlier_models_by_label_or_folder_name() -> None:
    assert [c.label for c in regrade_choices(EARLIER, ["openai_gpt-image-1", " reference"])] == [
        "openai:gpt-image-1",
        "reference",
    ]


@pytest.mark.parametrize("value", ["openai:dall-e-3", "new=replay:out", "missing"])
def test_model_naming_anything_else_is_refused(value: str) -> None:
    with pytest.raises(ConfigError, match=rf"\(reference, openai:gpt-image-1\) and never calls one: .*not '{value}'"):
        regrade_choices(EARLIER, [value])


def test_model_picking_one_twice_is_refused() -> None:
    with pytest.raises(ConfigError, match="picks 'reference' twice"):
        regrade_choices(EARLIER, ["reference", "reference"])


# -- the regrade model -------------------------------------------------------------


def test_the_registry_builds_a_regrade_model_named_as_its_folder(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "openai:gpt-image-1", "demo/first")
    model = create_model(f"regrade:{run / 'openai_gpt-image-1'}", ModelSettings())
    assert isinstance(model, RegradeModel) and model.name == "openai_gpt-image-1"
    output = model.generate(case("demo/first"), {})
    assert [a.name for a in output.artifacts] == ["output-0.png"]
    with pytest.raises(ModelError, match="model folder .*gone is not there"):
        create_model(f"regrade:{tmp_path / 'gone'}", ModelSettings())
    with pytest.raises(ModelError, match="regrade needs an earlier run's model folder"):
        create_model("regrade:", ModelSettings())


def test_a_case_the_earlier_run_did_not_store_is_an_error_naming_the_run_and_folder(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "a", "demo/first").resolve()
    model = RegradeModel.from_argument(str(run / "a"), ModelSettings())
    with pytest.raises(ModelError) as info:
        model.generate(case("demo/second"), {})
    assert str(info.value).startswith(f"demo/second is not in the earlier run {run}: no output folder {run}/a/demo/second/")


def test_a_case_of_repeats_is_an_error_saying_so(tmp_path: Path) -> None:
    run = store_output(tmp_path, "r1", "a", "demo/first", folder="first/r1")
    store_output(tmp_path, "r1", "a", "demo/first", folder="first/r2")
    model = RegradeModel.from_argument(str(run / "a"), ModelSettings())
    with pytest.raises(ModelError, match=r"demo/first ran 2 times in the earlier run .*--eval-repeats.*one output per case"):
        model.generate(case("demo/first"), {})

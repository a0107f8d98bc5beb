"""models/replay.py: outputs produced elsewhere, matched by case id."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_visioneval.artifacts import Artifact, ArtifactStore, ModelOutput
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import ModelError
from pytest_visioneval.models import ModelSettings
from pytest_visioneval.models.replay import ReplayModel


@pytest.fixture
def replay_root(tmp_path: Path) -> Path:
    root = tmp_path / "replay"
    root.mkdir()
    return root


def model_for(root: Path) -> ReplayModel:
    return ReplayModel.from_argument(str(root), ModelSettings())


def test_folder_layout(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    folder = replay_root / "unit" / "case-1"
    folder.mkdir(parents=True)
    (folder / "b.png").write_bytes(b"B")
    (folder / "a.png").write_bytes(b"A")
    (folder / "provenance.json").write_text("{}")
    (folder / ".a.png.123.tmp").write_bytes(b"partial")
    (folder / "nested").mkdir()
    output = model_for(replay_root).generate(make_case(), {"ignored": True})
    assert [(a.name, a.data) for a in output.artifacts] == [("a.png", b"A"), ("b.png", b"B")]
    assert output.params == {"replayed_from": str(folder.resolve())}


def test_single_file_layout(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    (replay_root / "unit").mkdir()
    (replay_root / "unit" / "case-1.html").write_bytes(b"<p>hi</p>")
    (replay_root / "unit" / "case-2.html").write_bytes(b"other case")
    output = model_for(replay_root).generate(make_case(), {})
    assert [(a.name, a.data, a.kind) for a in output.artifacts] == [("case-1.html", b"<p>hi</p>", "html")]
    assert output.params == {"replayed_from": str((replay_root / "unit").resolve())}


def test_folder_layout_wins_over_single_file(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    (replay_root / "unit" / "case-1").mkdir(parents=True)
    (replay_root / "unit" / "case-1" / "image-0.png").write_bytes(b"folder")
    (replay_root / "unit" / "case-1.png").write_bytes(b"file")
    assert model_for(replay_root).generate(make_case(), {}).artifacts[0].data == b"folder"


def test_missing_output_names_the_paths_tried(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    with pytest.raises(ModelError) as info:
        model_for(replay_root).generate(make_case(), {})
    message = str(info.value)
    root = replay_root.resolve()
    assert "no replayed output for unit/case-1" in message
    assert f"{root / 'unit' / 'case-1'}/" in message
    assert f"{root / 'unit' / 'case-1'}.*" in message


def test_empty_case_folder(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    folder = replay_root / "unit" / "case-1"
    folder.mkdir(parents=True)
    (folder / "provenance.json").write_text("{}")
    with pytest.raises(ModelError, match="holds no output files for unit/case-1"):
        model_for(replay_root).generate(make_case(), {})


def test_replays_what_the_artifact_store_wrote(tmp_path: Path, make_case: Callable[..., CaseSpec]) -> None:
    store = ArtifactStore(tmp_path / "out", "run-1")
    store.save("openai:gpt-image-1", "unit", "case-1", ModelOutput((Artifact("image-0.png", b"PNGDATA"),)))
    model = model_for(tmp_path / "out" / "run-1" / "openai_gpt-image-1")
    assert [(a.name, a.data) for a in model.generate(make_case(), {}).artifacts] == [("image-0.png", b"PNGDATA")]


def test_single_file_layout_does_not_take_another_cases_file(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    (replay_root / "unit").mkdir()
    (replay_root / "unit" / "logo.png").write_bytes(b"mine")
    (replay_root / "unit" / "logo.v2.png").write_bytes(b"someone else's")
    output = model_for(replay_root).generate(make_case(id="logo"), {})
    assert [a.name for a in output.artifacts] == ["logo.png"]


def test_from_argument(replay_root: Path) -> None:
    model = ReplayModel.from_argument(str(replay_root), ModelSettings())
    assert model.name == f"replay:{replay_root}"
    assert model.root == replay_root.resolve()


def test_from_argument_errors(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="replay needs a folder"):
        ReplayModel.from_argument("", ModelSettings())
    with pytest.raises(ModelError, match="replay folder not found"):
        ReplayModel.from_argument(str(tmp_path / "absent"), ModelSettings())
    (tmp_path / "file").write_text("x")
    with pytest.raises(ModelError, match="replay folder not found"):
        ReplayModel.from_argument(str(tmp_path / "file"), ModelSettings())


# -- only the model's own outputs are replayed; what the run derived is made again --
def stored_run(tmp_path: Path) -> tuple[Path, Path]:
    """A past run's folder: the model's reply plus the page, captures and report the run derived from it."""
    store = ArtifactStore(tmp_path / "out", "run-1")
    store.save("openai:coder", "unit", "case-1", ModelOutput((Artifact("reply.md", b"```html\n<p>old</p>\n```"),)))
    derived = (
        Artifact("page.html", b"<p>old</p>"),
        Artifact("screenshot-1.png", b"PNG"),
        Artifact("dom-snapshot.txt", b"<p>old</p>", "text/plain"),
        Artifact("render.json", b"{}"),
    )
    store.save_derived("openai:coder", "unit", "case-1", derived, "rendered page.html in Chromium")
    root = tmp_path / "out" / "run-1" / "openai_coder"
    return root, root / "unit" / "case-1"


def test_a_stored_run_replays_the_reply_only(tmp_path: Path, make_case: Callable[..., CaseSpec]) -> None:
    root, folder = stored_run(tmp_path)
    (folder / "reply.md").write_text("```html\n<p>edited</p>\n```")  # the reply was edited since
    output = model_for(root).generate(make_case(), {})
    assert [(a.name, a.data) for a in output.artifacts] == [("reply.md", b"```html\n<p>edited</p>\n```")]
    assert output.params["ignored_derived"] == ["dom-snapshot.txt", "page.html", "render.json", "screenshot-1.png"]


def test_without_provenance_the_renderer_s_captures_are_left_out(replay_root: Path, make_case: Callable[..., CaseSpec]) -> None:
    folder = replay_root / "unit" / "case-1"
    folder.mkdir(parents=True)
    for name in ("page.html", "hero.png", "screenshot-1.png", "screenshot-12.png", "fullpage.png", "render.json"):
        (folder / name).write_bytes(name.encode())
    (folder / "dom-snapshot.txt").write_text("x")
    output = model_for(replay_root).generate(make_case(), {})
    # a page the model wrote itself is its output; the captures are the renderer's
    assert [a.name for a in output.artifacts] == ["hero.png", "page.html"]
    assert output.params["ignored_derived"] == [
        "dom-snapshot.txt",
        "fullpage.png",
        "render.json",
        "screenshot-1.png",
        "screenshot-12.png",
    ]


def test_a_broken_provenance_record_is_an_error_that_says_what_to_do(
    replay_root: Path, make_case: Callable[..., CaseSpec]
) -> None:
    folder = replay_root / "unit" / "case-1"
    folder.mkdir(parents=True)
    (folder / "image-0.png").write_bytes(b"PNG")
    (folder / "provenance.json").write_text('{"artifacts": [')
    with pytest.raises(ModelError, match="replay cannot read .*provenance.json .*remove it to replay every file"):
        model_for(replay_root).generate(make_case(), {})
    (folder / "provenance.json").write_text('{"artifacts": [{"name": "image-1.png"}]}')
    with pytest.raises(ModelError, match="lists image-1.png, which are not there"):
        model_for(replay_root).generate(make_case(), {})


def test_a_symbolic_link_is_refused(replay_root: Path, make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host file")
    folder = replay_root / "unit" / "case-1"
    folder.mkdir(parents=True)
    (folder / "image-0.png").write_bytes(b"PNG")
    (folder / "notes.txt").symlink_to(secret)
    with pytest.raises(ModelError, match="replay refuses .*notes.txt: a symbolic link"):
        model_for(replay_root).generate(make_case(), {})
    (replay_root / "unit" / "case-2.txt").symlink_to(secret)
    with pytest.raises(ModelError, match="a symbolic link"):
        model_for(replay_root).generate(make_case(id="case-2"), {})

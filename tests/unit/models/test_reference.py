"""models/reference.py: returns each case's reference artifact."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import ModelError
from pytest_visioneval.models import ModelSettings
from pytest_visioneval.models.reference import ReferenceModel


def test_returns_the_reference_bytes(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> None:
    ref = make_image("refs/Expected.PNG")
    output = ReferenceModel().generate(make_case(reference=ref), {"size": "32x32"})
    assert len(output.artifacts) == 1
    artifact = output.artifacts[0]
    assert artifact.name == "output-0.png"  # suffix lower-cased
    assert artifact.data == ref.read_bytes()
    assert artifact.mime == "image/png" and artifact.kind == "image"
    assert dict(output.params) == {"size": "32x32"}


def test_params_are_copied(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> None:
    params = {"a": 1}
    output = ReferenceModel().generate(make_case(reference=make_image()), params)
    params["a"] = 2
    assert dict(output.params) == {"a": 1}


def test_html_reference(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    page.write_text("<h1>x</h1>", encoding="utf-8")
    artifact = ReferenceModel().generate(make_case(task="html_generation", reference=page), {}).artifacts[0]
    assert (artifact.name, artifact.kind, artifact.data) == ("output-0.html", "html", b"<h1>x</h1>")


def test_reference_without_suffix(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    blob = tmp_path / "blob"
    blob.write_bytes(b"\x00\x01")
    artifact = ReferenceModel().generate(make_case(reference=blob), {}).artifacts[0]
    assert artifact.name == "output-0.bin"
    assert artifact.mime == "application/octet-stream"


def test_case_without_reference(make_case: Callable[..., CaseSpec]) -> None:
    with pytest.raises(ModelError, match="case unit/case-1 has no 'reference'"):
        ReferenceModel().generate(make_case(), {})


def test_unreadable_reference(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    missing = tmp_path / "gone.png"
    with pytest.raises(ModelError, match="cannot read reference artifact") as info:
        ReferenceModel().generate(make_case(reference=missing), {})
    assert str(missing) in str(info.value)


def test_from_argument() -> None:
    model = ReferenceModel.from_argument("", ModelSettings())
    assert model.name == "reference"
    with pytest.raises(ModelError, match="reference:oops"):
        ReferenceModel.from_argument("oops", ModelSettings())


def test_reference_folder_gives_its_files_in_name_order(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    folder = tmp_path / "page"
    folder.mkdir()
    (folder / "index.html").write_text('<img src="b.png">', encoding="utf-8")
    (folder / "b.png").write_bytes(b"png-b")
    (folder / "a.png").write_bytes(b"png-a")
    (folder / "sub").mkdir()  # folders inside are not outputs
    output = ReferenceModel().generate(make_case(reference=folder), {})
    assert [(a.name, a.data) for a in output.artifacts] == [
        ("a.png", b"png-a"),
        ("b.png", b"png-b"),
        ("index.html", b'<img src="b.png">'),
    ]


def test_a_symbolic_link_in_a_reference_folder_is_refused(make_case: Callable[..., CaseSpec], tmp_path: Path) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("not for the page")
    folder = tmp_path / "ref"
    folder.mkdir()
    (folder / "page.html").write_text("<p>hi</p>")
    (folder / "notes.txt").symlink_to(secret)
    with pytest.raises(ModelError, match="holds a symbolic link, which is refused: .*notes.txt"):
        ReferenceModel().generate(make_case(reference=folder), {})

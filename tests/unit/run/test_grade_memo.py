"""run/grade_memo.py: grades of deterministic graders kept in the call cache, under a key of everything they read."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.calls.cache import CallCache
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.graders import Gate, Grade, Metric
from pytest_visioneval.graders.image import ImageGrader
from pytest_visioneval.run import grade_memo
from pytest_visioneval.run.case import grade
from pytest_visioneval.run.grade_memo import GradeMemo
from tests.conftest import draw_png


def png(colour: tuple[int, int, int] = (200, 40, 40), size: int = 64) -> bytes:
    image = Image.new("RGB", (size, size), "white")
    image.paste(colour, (size // 8, size // 8, size - size // 8, size - size // 8))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def case_of(tmp_path: Path, **fields: object) -> CaseSpec:
    base: dict[str, object] = {
        "suite": "s",
        "id": "c",
        "protocol": "plain",
        "task": "image_generation",
        "source": tmp_path / "s.eval.yaml",
        "line": 1,
        "prompt": "a red square",
        "params": {"size": "64x64"},
    }
    return CaseSpec(**{**base, **fields})  # type: ignore[arg-type]


GRADE = Grade(gates=(Gate("size", True, "all 64x64"),), metrics=(Metric("share", 0.25, "of the canvas", False),))


class Counted:
    """A grade that says how often it was made."""

    def __init__(self, result: Grade = GRADE):
        self.made = 0
        self.result = result

    def __call__(self) -> Grade:
        self.made += 1
        return self.result


@pytest.fixture
def memo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GradeMemo:
    monkeypatch.setattr(grade_memo, "MEMO_MIN_SECONDS", 0.0)  # every grade is stored, however quick
    return GradeMemo(CallCache(tmp_path / "cache", "on"))


def graded_twice(memo: GradeMemo, first: Callable[[], Grade], second: Callable[[], Grade], **changed: object) -> None:
    """Grade once, then again with ``changed`` (case fields, options, outputs) applied to the second."""
    tmp = memo.cache.root.parent
    case = case_of(tmp)
    outputs = [Artifact("image-0.png", png())]
    memo.graded("image", {"width": 64}, case, outputs, first)
    options = changed.pop("options", {"width": 64})
    outputs = changed.pop("outputs", outputs)  # type: ignore[assignment]
    memo.graded("image", options, case_of(tmp, **changed), outputs, second)  # type: ignore[arg-type]


def test_a_grade_is_stored_and_a_second_grade_of_the_same_is_read_back(memo: GradeMemo) -> None:
    first, second = Counted(), Counted()
    graded_twice(memo, first, second)
    assert (first.made, second.made) == (1, 0)
    stored = list((memo.cache.root / "grade").rglob("*.json"))
    assert len(stored) == 1
    assert json.loads(stored[0].read_text())["about"] == {"grader": "image", "case": "s/c"}


def test_what_is_read_back_is_the_grade_that_was_stored(memo: GradeMemo, tmp_path: Path) -> None:
    case = case_of(tmp_path)
    outputs = [Artifact("image-0.png", png())]
    memo.graded("image", {}, case, outputs, Counted())
    assert memo.graded("image", {}, case, outputs, Counted(Grade())) == GRADE


@pytest.mark.parametrize(
    "changed",
    [
        {"options": {"width": 65}},
        {"outputs": [Artifact("image-0.png", png((40, 40, 200)))]},
        {"outputs": [Artifact("image-1.png", png())]},
        {"prompt": "a blue square"},
        {"task": "image_editing"},
        {"params": {"size": "32x32"}},
        {"id": "other"},
        {"fields": {"note": 1}},
    ],
    ids=["options", "output bytes", "output name", "prompt", "task", "params", "case id", "protocol fields"],
)
def test_anything_the_grade_may_read_that_changed_grades_again(memo: GradeMemo, changed: dict[str, object]) -> None:
    first, second = Counted(), Counted()
    graded_twice(memo, first, second, **changed)
    assert (first.made, second.made) == (1, 1)


def test_a_file_the_case_names_that_changed_on_disk_grades_again(memo: GradeMemo, tmp_path: Path) -> None:
    reference = draw_png(tmp_path / "reference.png", color=(200, 40, 40))
    case = case_of(tmp_path, reference=reference)
    outputs = [Artifact("image-0.png", png())]
    first, same, after = Counted(), Counted(), Counted()
    memo.graded("image", {}, case, outputs, first)
    memo.graded("image", {}, case, outputs, same)
    draw_png(reference, color=(40, 200, 40))  # the same path, other pixels
    memo.graded("image", {}, case, outputs, after)
    assert (first.made, same.made, after.made) == (1, 0, 1)


def test_a_file_the_case_names_under_another_name_grades_again(memo: GradeMemo, tmp_path: Path) -> None:
    """A reason may name the reference ("vs reference a.png"): the same pixels under another name are another key."""
    first_name = draw_png(tmp_path / "a.png", color=(200, 40, 40))
    second_name = draw_png(tmp_path / "b.png", color=(200, 40, 40))
    outputs = [Artifact("image-0.png", png())]
    first, second = Counted(), Counted()
    memo.graded("ssim", {}, case_of(tmp_path, reference=first_name), outputs, first)
    memo.graded("ssim", {}, case_of(tmp_path, reference=second_name), outputs, second)
    assert (first.made, second.made) == (1, 1)


def test_the_graders_that_read_only_the_case_and_the_outputs_declare_it() -> None:
    from pytest_visioneval.graders import grader_types

    names = ("image", "ssim", "similarity", "html", "text", "locality", "score")
    memoizable = sorted(name for name in names if getattr(grader_types()[name], "memoizable", False))
    assert memoizable == ["image", "locality", "similarity", "ssim"]


def test_other_code_grades_again(memo: GradeMemo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    case = case_of(tmp_path)
    outputs = [Artifact("image-0.png", png())]
    first, second = Counted(), Counted()
    memo.graded("image", {}, case, outputs, first)
    monkeypatch.setattr(grade_memo, "code_fingerprint", lambda: "another version of the package")
    memo.graded("image", {}, case, outputs, second)
    assert (first.made, second.made) == (1, 1)


def test_the_code_fingerprint_covers_the_package_source_and_the_pixel_libraries() -> None:
    fingerprint = grade_memo.code_fingerprint()
    assert len(fingerprint) == 64 and fingerprint == grade_memo.code_fingerprint()


def test_a_quick_grade_is_not_stored(tmp_path: Path) -> None:
    memo = GradeMemo(CallCache(tmp_path / "cache", "on"))  # the real threshold: a made-up grade takes microseconds
    first, second = Counted(), Counted()
    graded_twice(memo, first, second)
    assert (first.made, second.made) == (1, 1)
    assert not (tmp_path / "cache" / "grade").exists()


def test_a_damaged_entry_is_graded_again(memo: GradeMemo, tmp_path: Path) -> None:
    case = case_of(tmp_path)
    outputs = [Artifact("image-0.png", png())]
    memo.graded("image", {}, case, outputs, Counted())
    (entry,) = (tmp_path / "cache" / "grade").rglob("*.json")
    stored = json.loads(entry.read_text())
    stored["value"] = {"gates": [["size", True]], "metrics": [], "skipped": None}  # a gate without its reason
    entry.write_text(json.dumps(stored))
    again = Counted()
    assert memo.graded("image", {}, case, outputs, again) == GRADE
    assert again.made == 1


@pytest.mark.parametrize(("mode", "stores", "reads"), [("read", False, True), ("write", True, False)])
def test_the_cache_mode_decides_whether_grades_are_stored_and_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str, stores: bool, reads: bool
) -> None:
    monkeypatch.setattr(grade_memo, "MEMO_MIN_SECONDS", 0.0)
    case = case_of(tmp_path)
    outputs = [Artifact("image-0.png", png())]
    GradeMemo(CallCache(tmp_path / "cache", "on")).graded("image", {}, case, outputs, Counted())  # one stored already
    memo = GradeMemo(CallCache(tmp_path / "cache", mode))
    again = Counted()
    memo.graded("image", {}, case, outputs, again)
    assert again.made == (0 if reads else 1)
    memo.graded("image", {"width": 64}, case, outputs, Counted())
    assert len(list((tmp_path / "cache" / "grade").rglob("*.json"))) == (2 if stores else 1)


# -- in run/case.grade ---------------------------------------------------------------------------------------------
def test_the_image_grader_is_taken_from_the_memo_and_gives_the_same_gates(memo: GradeMemo, tmp_path: Path) -> None:
    assert ImageGrader.memoizable
    case = case_of(tmp_path, graders=(GraderSpec(use="image", name="image", options={"width": 64, "height": 64}),))
    outputs = (Artifact("image-0.png", png()),)
    made = grade(case, outputs, memo=memo)
    assert len(list((tmp_path / "cache" / "grade").rglob("*.json"))) == 1
    again = grade(case, outputs, memo=memo)
    assert [(g.gate.name, g.gate.passed, g.gate.reason) for g in again.gates] == [
        (g.gate.name, g.gate.passed, g.gate.reason) for g in made.gates
    ]
    assert any(g.gate.name == "image.size" for g in made.gates)


def test_a_grader_that_does_not_declare_itself_memoizable_is_always_run(memo: GradeMemo, tmp_path: Path) -> None:
    spec = GraderSpec(use="html", name="html", options={"required_text": ["Order"]})
    case = case_of(tmp_path, task="html_generation", graders=(spec,))
    made = grade(case, (Artifact("index.html", b"<html><body><p>Place Order</p></body></html>"),), memo=memo)
    assert made.gates and all(g.gate.name.startswith("html.") for g in made.gates)
    assert not (tmp_path / "cache" / "grade").exists()


def test_a_protect_mask_the_locality_grader_reads_is_in_the_key(memo: GradeMemo, tmp_path: Path) -> None:
    """The protect_mask is named by an option, not by the case: the grader lists it (memo_files), and a mask
    changed on disk grades again."""
    source = draw_png(tmp_path / "in.png", size=(64, 64), color=(30, 90, 200))
    mask = Image.new("RGBA", (64, 64), (0, 0, 0, 255))
    mask.paste((0, 0, 0, 0), (0, 0, 32, 64))  # the left half may be edited
    mask.save(tmp_path / "mask.png")
    protect = tmp_path / "protect.png"
    protected = Image.new("RGBA", (64, 64), (0, 0, 0, 255))
    protected.paste((0, 0, 0, 0), (40, 0, 64, 64))  # transparent: protected
    protected.save(protect)
    protect_some = Image.new("RGBA", (64, 64), (0, 0, 0, 255))
    protect_some.paste((0, 0, 0, 0), (48, 0, 64, 64))
    spec = GraderSpec(use="locality", name="locality", options={"protect_mask": "protect.png"})
    case = case_of(tmp_path, task="image_editing", images=(source,), mask=tmp_path / "mask.png", graders=(spec,))
    outputs = (Artifact("image-0.png", source.read_bytes()),)
    grade(case, outputs, memo=memo)
    grade(case, outputs, memo=memo)
    assert len(list((tmp_path / "cache" / "grade").rglob("*.json"))) == 1  # the same files: read back
    protect_some.save(protect)
    grade(case, outputs, memo=memo)
    assert len(list((tmp_path / "cache" / "grade").rglob("*.json"))) == 2  # another protect_mask: graded again

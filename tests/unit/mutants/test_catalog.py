"""mutants/: which mutant classes apply to which case, and that each mutant really is what it says."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec, GraderSpec
from pytest_visioneval.graders.ocr import ocr_lines
from pytest_visioneval.mutants.catalog import mutants_for

CASES = Path(__file__).parents[3] / "cases"
LOGO = CASES / "cookbook" / "logo_edits"
FLYER = CASES / "cookbook" / "flyers" / "book-fair.png"
FRAMES = sorted((CASES / "gebench" / "multi_step" / "trajectory").glob("frame-*.png"))


def pixels(artifact: Artifact) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(artifact.data)).convert("RGBA"))


def by_name(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> dict[str, tuple[Artifact, ...]]:
    return {m.name: m.artifacts for m in mutants_for(case, artifacts).mutants}


@pytest.fixture
def logo_edit(make_case: Callable[..., CaseSpec]) -> CaseSpec:
    return make_case(task="image_editing", images=(LOGO / "northwind.png",), mask=LOGO / "circle-mask.png")


def test_an_edit_with_a_mask_gets_every_image_class(logo_edit: CaseSpec) -> None:
    output = (Artifact("output-0.png", (LOGO / "northwind-teal.png").read_bytes()),)
    made = mutants_for(logo_edit, output)
    broken = {m.name for m in made.mutants if m.broken}
    legitimate = {m.name for m in made.mutants if not m.broken}
    assert broken == {"transparent", "faint_noise", "wrong_aspect", "input_copy", "input_touched", "darkened"}
    assert legitimate == {"jpeg_q85", "shift_1px"}
    assert [n.name for n in made.not_applicable] == ["typo"]  # the case quotes no text


def test_image_mutants_are_what_they_say(logo_edit: CaseSpec) -> None:
    good = Artifact("output-0.png", (LOGO / "northwind-teal.png").read_bytes())
    made = by_name(logo_edit, (good,))
    assert (pixels(made["transparent"][0])[..., 3] == 0).all()
    assert pixels(made["wrong_aspect"][0]).shape[:2] == (256, 384)
    copy = Image.open(io.BytesIO(made["input_copy"][0].data))
    assert copy.format == "JPEG" and made["input_copy"][0].name == "output-0.jpg"
    touched = pixels(made["input_touched"][0])[..., :3].astype(int)
    source = np.asarray(Image.open(LOGO / "northwind.png").convert("RGB")).astype(int)
    assert int((touched != source).any(axis=2).sum()) == 1
    darker = pixels(made["darkened"][0])[..., :3].astype(int)
    assert np.abs(darker - pixels(good)[..., :3].astype(int)).max() <= 20


def test_a_generation_case_without_size_gets_no_aspect_or_input_classes(make_case: Callable[..., CaseSpec]) -> None:
    made = mutants_for(make_case(), (Artifact("output-0.png", FLYER.read_bytes()),))
    assert {n.name for n in made.not_applicable} >= {"wrong_aspect", "input_copy", "darkened"}
    sized = make_case(params={"size": "600x800"})
    assert "wrong_aspect" in {m.name for m in mutants_for(sized, (Artifact("output-0.png", FLYER.read_bytes()),)).mutants}


def test_text_mutants_break_the_quoted_text(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(prompt='A flyer for the "Summer Book Fair" with "Riverside Library". Each line exactly once.')
    made = by_name(case, (Artifact("output-0.png", FLYER.read_bytes()),))
    assert {"typo", "missing_line", "line_twice"} <= set(made)
    read = " ".join(ocr_lines(Image.open(io.BytesIO(made["missing_line"][0].data))))
    assert "Summer Book Fair" not in read and "Riverside Library" in read
    typo = " ".join(ocr_lines(Image.open(io.BytesIO(made["typo"][0].data))))
    assert "Summer Book Fair" not in typo
    twice = " | ".join(ocr_lines(Image.open(io.BytesIO(made["line_twice"][0].data))))
    assert twice.count("Summer Book Fair") == 2, twice


def test_text_classes_need_asked_for_text(make_case: Callable[..., CaseSpec]) -> None:
    made = mutants_for(make_case(prompt="a flyer"), (Artifact("output-0.png", FLYER.read_bytes()),))
    assert any(n.name == "typo" and "asks for no particular text" in n.reason for n in made.not_applicable)


PAGE = '<!doctype html><html><head><title>t</title></head><body><h1>Lamp</h1><img src="hero.png" alt="a lamp"></body></html>'


def test_page_mutants(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="html_generation", render={"width": 400})
    made = by_name(case, (Artifact("page.html", PAGE.encode()), Artifact("hero.png", FLYER.read_bytes())))
    text = {name: next(a for a in arts if a.name == "page.html").data.decode() for name, arts in made.items()}
    assert "throw new Error" in text["script_error"] and text["script_error"].index("throw") < text["script_error"].index(
        "</body>"
    )
    assert "body{display:none" in text["hidden_body"]
    assert '<img src="page.html"' in text["img_is_the_page"]
    assert '<img src="screenshot-1.png"' in text["img_is_a_capture"]
    assert "<h1>Lamp</h1>" in text["reformatted"] and text["reformatted"].startswith("<!-- reformatted -->")
    unrendered = mutants_for(make_case(task="html_generation"), (Artifact("page.html", PAGE.encode()),))
    assert "script_error" in {n.name for n in unrendered.not_applicable}


def test_showcase_copies_replace_every_image_but_the_source(make_case: Callable[..., CaseSpec]) -> None:
    source = CASES / "productwebgen" / "images" / "mug.png"
    refs = CASES / "productwebgen" / "refs" / "harbor-mug"
    case = make_case(task="html_generation", images=(source,))
    output = tuple(Artifact(p.name, p.read_bytes()) for p in sorted(refs.iterdir()))
    copied = by_name(case, output)["showcase_copies_source"]
    original = np.asarray(Image.open(source).convert("RGB"))
    for artifact in copied:
        if artifact.name.startswith("showcase-"):
            assert np.array_equal(pixels(artifact)[..., :3], original)


def test_trajectory_mutants(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(
        task="image_editing",
        images=(CASES / "gebench" / "multi_step" / "notes-home.png",),
        reference=FRAMES[0].parent,
        graders=(GraderSpec(use="trajectory", name="trajectory"),),
    )
    output = tuple(Artifact(p.name, p.read_bytes()) for p in FRAMES)
    made = by_name(case, output)
    assert made["repeated_step"][1].data == output[0].data and made["repeated_step"][2].data == output[2].data
    assert {a.data for a in made["one_frame_throughout"]} == {output[0].data}
    assert [a.data for a in made["reversed"]] == [a.data for a in output[::-1]]
    assert made["input_as_first_frame"][0].data == case.images[0].read_bytes()
    assert [a.name for a in made["jpeg_q90"]] == [f"frame-{i}.jpg" for i in range(1, 6)]


def test_a_reply_is_mutated_inside_the_block_that_holds_the_page(make_case: Callable[..., CaseSpec]) -> None:
    reply = "Here it is.\n```html\n<html><body><h1>Hi</h1></body></html>\n```\n\n```css\n" + "h1 { color: red; }\n" * 20 + "```\n"
    made = by_name(make_case(task="html_generation", render={}), (Artifact("reply.md", reply.encode()),))
    mutated = made["script_error"][0].data.decode()
    html_block = mutated.split("```html\n", 1)[1].split("```", 1)[0]
    assert "throw new Error" in html_block and html_block.index("throw") < html_block.index("</body>")
    assert mutated.split("```css\n", 1)[1] == reply.split("```css\n", 1)[1]  # the css block is left alone
    svg = "```svg\n<svg xmlns='http://www.w3.org/2000/svg'><rect width='9' height='9'/></svg>\n```\n"
    hidden = by_name(make_case(task="html_generation", render={}), (Artifact("reply.md", svg.encode()),))["hidden_body"]
    assert "<style>body{display:none !important}</style></svg>" in hidden[0].data.decode()

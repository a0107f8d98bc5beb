"""mutants/pages.py: broken pages, showcase pictures made from the source photo, a reformatted page."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import numpy as np
from PIL import Image

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.mutants.pages import PageSubject, broken_page, reformatted_page, showcase_identity

from .helpers import CASES, FLYER

PAGE = '<!doctype html><html><head><title>t</title></head><body><h1>Lamp</h1><img src="hero.png" alt="a lamp"></body></html>'


def made(family: Callable, subject: PageSubject, seed: int = 0) -> dict[str, tuple[dict, str]]:
    classes, _ = family(subject)
    out = {}
    for c in classes:
        variant = c.make(random.Random(seed))
        page = next(a for a in variant.artifacts if a.kind in ("html", "text"))
        out[c.name] = (dict(variant.params), page.data.decode())
    return out


def test_broken_pages(make_case: Callable[..., CaseSpec]) -> None:
    case = make_case(task="html_generation", render={"width": 400})
    pages = made(broken_page, PageSubject(case, (Artifact("page.html", PAGE.encode()), Artifact("hero.png", FLYER.read_bytes()))))
    script = pages["script_error"][1]
    assert "throw new Error" in script and script.index("throw") < script.index("</body>")
    assert "body{display:none" in pages["hidden_body"][1]
    assert '<img src="page.html"' in pages["img_is_the_page"][1]
    assert '<img src="screenshot-1.png"' in pages["img_is_a_capture"][1]
    _, skipped = broken_page(PageSubject(make_case(task="html_generation"), (Artifact("page.html", PAGE.encode()),)))
    assert "broken_page/script_error" in {s.name for s in skipped}


def test_showcases_become_the_source_photo_transformed(make_case: Callable[..., CaseSpec]) -> None:
    source = CASES / "productwebgen" / "images" / "mug.png"
    refs = CASES / "productwebgen" / "refs" / "harbor-mug"
    case = make_case(task="html_generation", images=(source,))
    output = tuple(Artifact(p.name, p.read_bytes()) for p in sorted(refs.iterdir()))
    classes, _ = showcase_identity(PageSubject(case, output))
    variant = classes[0].make(random.Random(5))
    assert variant is not None
    showcases = {a.name: a for a in variant.artifacts if a.name.startswith("showcase-")}
    assert set(variant.params["showcases"]) == set(showcases)
    original = Image.open(source).convert("RGB")
    for name, how in variant.params["showcases"].items():
        image = Image.open(io.BytesIO(showcases[name].data)).convert("RGB")
        if how["how"] == "mirrored":
            assert np.array_equal(np.asarray(image), np.asarray(original.transpose(Image.Transpose.FLIP_LEFT_RIGHT)))
        assert how["how"] in ("mirrored", "rotated", "cropped", "hue_shifted")
    copies = next(c for c in broken_page(PageSubject(case, output))[0] if c.name == "showcase_copies_source")
    copied = copies.make(random.Random(0))
    assert copied is not None
    for artifact in copied.artifacts:
        if artifact.name.startswith("showcase-"):
            assert np.array_equal(np.asarray(Image.open(io.BytesIO(artifact.data)).convert("RGB")), np.asarray(original))


def test_a_reformatted_page_keeps_its_content(make_case: Callable[..., CaseSpec]) -> None:
    page = "<html>\n<body>\n<h1>Lamp</h1>\n</body>\n</html>"
    params, text = made(
        reformatted_page, PageSubject(make_case(task="html_generation"), (Artifact("page.html", page.encode()),)), 3
    )["reformatted"]
    assert text.startswith("<!-- reformatted -->") and "<h1>Lamp</h1>" in text
    assert text.replace(" ", "").replace("<!--reformatted-->\n", "") == page.replace(" ", "")
    assert params["indent"] in (0, 2, 4, 8)


def test_a_reply_is_mutated_inside_the_block_that_holds_the_page(make_case: Callable[..., CaseSpec]) -> None:
    reply = "Here it is.\n```html\n<html><body><h1>Hi</h1></body></html>\n```\n\n```css\n" + "h1 { color: red; }\n" * 20 + "```\n"
    case = make_case(task="html_generation", render={})
    mutated = made(broken_page, PageSubject(case, (Artifact("reply.md", reply.encode()),)))["script_error"][1]
    html_block = mutated.split("```html\n", 1)[1].split("```", 1)[0]
    assert "throw new Error" in html_block and html_block.index("throw") < html_block.index("</body>")
    assert mutated.split("```css\n", 1)[1] == reply.split("```css\n", 1)[1]  # the css block is left alone
    svg = "```svg\n<svg xmlns='http://www.w3.org/2000/svg'><rect width='9' height='9'/></svg>\n```\n"
    hidden = made(broken_page, PageSubject(case, (Artifact("reply.md", svg.encode()),)))["hidden_body"][1]
    assert "<style>body{display:none !important}</style></svg>" in hidden

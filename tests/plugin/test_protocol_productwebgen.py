"""productwebgen end to end: a page and its images -> Chromium -> five judge shapes -> WIF, WDQ, WCA, VCIF, IPQ."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageDraw

from pytest_visioneval.testing import FakeOpenAIServer, RecordedRequest
from tests.conftest import draw_png, read_json

SUITE = """\
suite: pwg
protocol: productwebgen
defaults:
  render: {width: 640, height: 480, screenshots: 1, full_page: true}
cases:
  - id: bottle
    images: [images/bottle.png]
    reference: refs/bottle
    fields:
      category: sports
      compat: improved
      consistency_type: watermark
      visual_instruction: A green leaf sits in the top-right corner of every image.
      webpage_instruction:
        - {type: style, text: "Main colours are white and green (ok)."}
        - {type: layout, text: "The gallery is a 2x2 grid (ok)."}
        - {type: content, text: "The headline reads 'Trail Bottle' (ok)."}
        - {type: style, text: "Headings use a serif font."}
  - id: vase
    images: [images/vase.png]
    reference: refs/vase
    fields:
      category: furniture
      compat: improved
      consistency_type: background
      visual_instruction: Every image shows the vase on the same marble shelf.
      webpage_instruction:
        - {type: layout, text: "A sticky header holds the logo (ok)."}
        - {type: content, text: "A review mentions the glaze."}
        - {type: content, text: "The price is $40."}
  - id: chair
    images: [images/chair.png]
    fields:
      category: furniture
      compat: improved
      consistency_type: background
      visual_instruction: Every image shows the chair in the same sunny loft.
      webpage_instruction:
        - {type: content, text: "The headline reads 'Loft Chair' (ok)."}
"""

# Showcase colours per case -> the judge's (naturalness, artifacts) for that image.
QUALITY = {
    "bottle": {(200, 30, 30): (9, 7), (30, 200, 30): (8, 7), (30, 30, 200): (7, 7), (200, 200, 30): (6, 7)},
    "vase": {(120, 30, 90): (5, 4), (30, 120, 90): (5, 5), (90, 30, 120): (5, 6), (90, 120, 30): (5, 7)},
}
WDQ, WCA = 8, 6
VCIF = {"leaf": 4, "marble": 3}  # 0-5


def page(source: str, alts: list[str]) -> str:
    imgs = "".join(f'<img src="showcase-{i}.png" alt="{alt}" width="80">' for i, alt in enumerate(alts, 1))
    return (
        f'<!doctype html><html><body><h1>Shop</h1><img src="{source}" alt="the product on white" width="80">{imgs}</body></html>'
    )


def draw_showcase(path: Path, index: int, colour: tuple[int, int, int]) -> Path:
    """Showcase ``index`` (1-4): a picture of its own on a ``colour`` ground (the judge reads the ground at (2, 2)).

    Four flat grounds would be one picture recoloured (``distinct_images`` rightly calls them copies), and a box in
    the middle would be the source recoloured: each showcase draws a different shape, none of them a turn, flip,
    crop or recolour of another.
    """
    img = Image.new("RGB", (64, 48), colour)
    draw, ink = ImageDraw.Draw(img), (250, 250, 250)
    if index == 1:
        draw.ellipse((8, 10, 30, 40), fill=ink)
    elif index == 2:
        draw.polygon([(10, 40), (54, 40), (54, 8)], fill=ink)
    elif index == 3:
        for x in (10, 26, 42):
            draw.rectangle((x, 8, x + 6, 40), fill=ink)
    else:
        for row in range(3):
            for col in range(4):
                if (row + col) % 2 == 0:
                    draw.rectangle((12 + 10 * col, 9 + 10 * row, 21 + 10 * col, 18 + 10 * row), fill=ink)
    img.save(path, format="PNG")
    return path


@pytest.fixture
def pwg_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-judge")
    root = pytester.path / "cases"
    for case, source_colour in (("bottle", (10, 10, 10)), ("vase", (250, 240, 230)), ("chair", (100, 100, 100))):
        draw_png(root / "images" / f"{case}.png", color=source_colour)
    for case, colours in QUALITY.items():
        folder = root / "refs" / case
        draw_png(folder / f"{case}.png", color=(10, 10, 10) if case == "bottle" else (250, 240, 230))  # the source, copied
        for i, colour in enumerate(colours, 1):
            draw_showcase(folder / f"showcase-{i}.png", i, colour)
        (folder / "page.html").write_text(page(f"{case}.png", [f"{case} view {i}" for i in range(1, 5)]))
    (root / "pwg.eval.yaml").write_text(SUITE)
    return root


def user_text(request: RecordedRequest) -> str:
    return "\n".join(p["text"] for p in request.json["messages"][1]["content"] if p["type"] == "text")  # type: ignore[index]


def images_in(request: RecordedRequest) -> list[Image.Image]:
    urls = [p["image_url"]["url"] for p in request.json["messages"][1]["content"] if p["type"] == "image_url"]  # type: ignore[index]
    return [Image.open(io.BytesIO(base64.b64decode(u.split(",", 1)[1]))).convert("RGB") for u in urls]


def judge(request: RecordedRequest) -> str:
    kind = request.json["response_format"]["json_schema"]["name"]  # type: ignore[index]
    text = user_text(request)
    if kind == "checklist":  # WIF: a clause marked (ok) is followed
        questions = re.findall(r"^(\d+)\. (.*)$", text, re.MULTILINE)
        answers = [{"id": int(n), "reason": "read the code", "answer": "yes" if "(ok)" in q else "no"} for n, q in questions]
        return json.dumps({"answers": answers})
    if kind == "image_quality":
        (image,) = images_in(request)
        colour = image.getpixel((2, 2))
        naturalness, artifacts = next(q[colour] for q in QUALITY.values() if colour in q)
        return json.dumps(
            {"naturalness": {"reason": "n", "score": naturalness}, "artifacts": {"reason": "a", "score": artifacts}}
        )
    if "Design quality" in text:
        value = WDQ
    elif "want to buy" in text:
        value = WCA
    else:
        value = VCIF["leaf"] if "green leaf" in text else VCIF["marble"]
    return json.dumps({"scores": {"score": {"reason": "looked", "score": value}}})


def expected() -> dict[str, dict[str, float]]:
    def ipq(case: str) -> float:
        return sum(min(q) for q in QUALITY[case].values()) / 4

    return {
        "pwg/bottle": {"wif": 3 / 4, "wdq": WDQ, "wca": WCA, "vcif": 2 * VCIF["leaf"], "ipq": ipq("bottle")},
        "pwg/vase": {"wif": 1 / 3, "wdq": WDQ, "wca": WCA, "vcif": 2 * VCIF["marble"], "ipq": ipq("vase")},
        "pwg/chair": dict.fromkeys(("wif", "wdq", "wca", "vcif", "ipq"), 0.0),  # errored: counted as 0
    }


@pytest.mark.slow
def test_scores_follow_the_published_formulas(pytester: pytest.Pytester, pwg_suite: Path, xdist_args: list[str]) -> None:
    with FakeOpenAIServer(text_reply=judge) as server:
        result = pytester.runpytest(
            "cases", "--judge=openai:judge-model", f"--judge-base-url={server.base_url}", "--eval-results=r.json", *xdist_args
        )
    result.assert_outcomes(passed=2, errors=1)
    assert "case pwg/chair has no 'reference' artifact" in result.stdout.str()
    document = read_json(pytester.path / "r.json")
    want = expected()
    cases = {c["uid"]: c for c in document["cases"]}
    for uid in ("pwg/bottle", "pwg/vase"):
        metrics = {m["name"]: m["value"] for m in cases[uid]["metrics"]}
        assert {k: metrics[f"productwebgen.{k}"] for k in want[uid]} == pytest.approx(want[uid])
        gates = {g["name"]: g["passed"] for g in cases[uid]["gates"]}
        assert gates == {
            "html.parses": True,
            "html.img_count": True,
            "html.img_alt": True,
            "html.img_files": True,
            "render_check.captured": True,
            "render_check.no_page_errors": True,
            "render_check.visible": True,
            "render_check.not_blank": True,
            "render_check.not_covered": True,
            "render_check.text_shown": True,
            "render_check.tables_filled": True,
            "render_check.fits_width": True,
            "render_check.imgs_loaded": True,
            "render_check.imgs_shown": True,
            "render_check.img_sources": True,
            "distinct_images.distinct": True,
            "wif.answers": True,
        }
    assert cases["pwg/bottle"]["metrics"] and {m["name"]: m["value"] for m in cases["pwg/bottle"]["metrics"]}["ipq.pq_4"] == 6

    bench = document["benchmarks"]["productwebgen"]
    assert bench["cases"] == 3 and bench["errored"] == ["pwg/chair"] and bench["unscored"] == []
    for score in ("wif", "wdq", "wca", "vcif", "ipq"):
        mean = sum(want[uid][score] for uid in want) / 3
        stats = bench["scores"][score]
        assert (stats["mean"], stats["n"]) == (pytest.approx(mean), 3), score
        assert stats["ci_low"] <= stats["mean"] <= stats["ci_high"], score
    background = bench["groups"]["consistency_type"]["background"]
    assert background["vcif"]["mean"] == pytest.approx(2 * VCIF["marble"] / 2) and background["vcif"]["n"] == 2
    assert bench["groups"]["category"]["sports"]["wif"]["mean"] == pytest.approx(3 / 4)

    # what each judge saw
    calls = server.calls_to("/chat/completions")
    kinds = [c.json["response_format"]["json_schema"]["name"] for c in calls]  # type: ignore[index]
    assert kinds.count("checklist") == 2 and kinds.count("scores") == 6 and kinds.count("image_quality") == 8
    for call in calls:
        text, shown = user_text(call), images_in(call)
        assert "Build a product showcase web page" not in text  # the composed prompt is not shown to any judge
        if "visual content instruction" in text:  # VCIF: the source, then the four generated images, no code
            assert len(shown) == 5 and "[Input image 1]" in json.dumps(call.json) and "<!doctype html>" not in text
            assert shown[0].getpixel((0, 0)) == (255, 255, 255)  # draw_png's source: a box on white
        elif "Design quality" in text or "want to buy" in text:  # WDQ, WCA: the captures only
            assert len(shown) == 2 and "screenshot-1.png" in json.dumps(call.json) and "<!doctype html>" not in text
        elif call.json["response_format"]["json_schema"]["name"] == "checklist":  # type: ignore[index]
            assert shown == [] and "<!doctype html>" in text  # WIF: the code only


@pytest.mark.slow
def test_offline_the_gates_run_and_the_scores_wait_for_a_judge(
    pytester: pytest.Pytester, pwg_suite: Path, xdist_args: list[str]
) -> None:
    result = pytester.runpytest("cases", "--eval-results=r.json", *xdist_args)
    result.assert_outcomes(passed=2, errors=1)
    bench: dict[str, Any] = read_json(pytester.path / "r.json")["benchmarks"]["productwebgen"]
    assert bench["unscored"] == ["pwg/bottle", "pwg/vase"] and bench["errored"] == ["pwg/chair"]
    result.stdout.fnmatch_lines(["*productwebgen*"])


def test_a_page_with_a_missing_image_fails_its_gate(pytester: pytest.Pytester, pwg_suite: Path) -> None:
    (pwg_suite / "refs" / "vase" / "showcase-3.png").unlink()
    result = pytester.runpytest("cases", "-k", "vase")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "html.img_files: 1 of 5 <img> do not show a file of the output: showcase-3.png (not in the output)" in out
    assert "render_check.imgs_loaded: 1 of 5 <img> did not load: showcase-3.png (the output has no such file)" in out


def test_showcase_images_that_copy_the_source_or_each_other_fail(pytester: pytest.Pytester, pwg_suite: Path) -> None:
    refs = pwg_suite / "refs"
    for i in range(1, 5):  # every showcase image is the source photo, re-encoded as JPEG
        Image.open(refs / "bottle" / "bottle.png").convert("RGB").save(refs / "bottle" / f"showcase-{i}.png", "JPEG", quality=80)
    (refs / "vase" / "showcase-2.png").write_bytes((refs / "vase" / "showcase-1.png").read_bytes())
    result = pytester.runpytest("cases", "-k", "bottle or vase")
    result.assert_outcomes(failed=2)
    out = result.stdout.str()
    assert (
        "distinct_images.distinct: 5 <img> show an input image (1 allowed): bottle.png (= input bottle.png), "
        "showcase-1.png (= input bottle.png), showcase-2.png (= input bottle.png), showcase-3.png (= input bottle.png), "
        "showcase-4.png (= input bottle.png)"
    ) in out
    assert "distinct_images.distinct: showcase-2.png is the same picture as showcase-1.png" in out

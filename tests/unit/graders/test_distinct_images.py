"""distinct_images: a page's pictures are not copies of the inputs or of each other (perceptual, 64x64)."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageEnhance, ImageFilter, ImageOps

from pytest_visioneval.artifacts import Artifact
from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.graders.distinct_images import DistinctImagesGrader, ssim
from pytest_visioneval.pages.render import Renderer
from tests.unit.graders.rendered_pages import RENDER, render_case

REFS = Path(__file__).resolve().parents[3] / "cases" / "productwebgen" / "refs"


def photo(shift: int = 0, background: tuple[int, int, int] = (120, 160, 140), turn: int = 0, seed: int = 0) -> Image.Image:
    """A made-up product photo: a mug with a handle on a textured backdrop, moved/turned per shot."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(0, 6, (240, 240, 3))
    backdrop = np.clip(np.asarray(Image.new("RGB", (240, 240), background), dtype=np.float64) + noise, 0, 255)
    image = Image.fromarray(backdrop.astype(np.uint8))
    draw = ImageDraw.Draw(image)
    x = 70 + shift
    draw.rectangle((x, 80, x + 80 - turn, 180), fill=(24, 122, 128))
    draw.ellipse((x + 70 - turn, 105, x + 110 - turn, 150), outline=(24, 122, 128), width=10)
    draw.rectangle((x, 120, x + 80 - turn, 135), fill=(240, 230, 210))
    return image.filter(ImageFilter.GaussianBlur(1))


def encode(image: Image.Image, fmt: str = "PNG", **kwargs: Any) -> bytes:
    out = io.BytesIO()
    image.convert("RGB").save(out, format=fmt, **kwargs)
    return out.getvalue()


SOURCE = photo()
SHOTS = [photo(shift=-40, background=(200, 190, 160), seed=1), photo(shift=30, seed=2), photo(turn=25, seed=3)]


def showcase_page(*srcs: str) -> bytes:
    return ("<body>" + "".join(f'<img src="{s}" alt="view">' for s in srcs) + "</body>").encode()


@pytest.fixture
def source_case(make_case: Callable[..., CaseSpec], tmp_path: Path) -> CaseSpec:
    (tmp_path / "mug.png").write_bytes(encode(SOURCE))
    return make_case(task="html_generation", prompt="a product page", images=(tmp_path / "mug.png",))


def distinct(case: CaseSpec, artifacts: tuple[Artifact, ...], **options: Any) -> Any:
    jsonschema.validate(options, DistinctImagesGrader.options_schema)
    grade = DistinctImagesGrader(options).grade(case, artifacts)
    (gate,) = grade.gates
    return gate, grade.metrics[0]


def outputs(**files: bytes) -> tuple[Artifact, ...]:
    return tuple(Artifact(name, data) for name, data in files.items())


def test_new_pictures_of_the_product_are_distinct(source_case: CaseSpec) -> None:
    page = showcase_page("mug.png", "showcase-1.png", "showcase-2.png", "showcase-3.png")
    files = {f"showcase-{i}.png": encode(shot) for i, shot in enumerate(SHOTS, 1)}
    gate, metric = distinct(
        source_case, (Artifact("page.html", page), *outputs(**{"mug.png": encode(SOURCE)}, **files)), input_copies=1
    )
    assert gate.passed
    assert gate.reason == "4 <img> compared: 3 distinct picture(s), 1 showing an input image (mug.png)"
    assert metric.value == 3.0


def test_copies_of_the_source_image_fail(source_case: CaseSpec) -> None:
    page = showcase_page("mug.png", "showcase-1.png", "showcase-2.jpg", "showcase-3.png")
    files = outputs(
        **{"mug.png": encode(SOURCE)},
        **{"showcase-1.png": encode(SOURCE)},  # byte copy
        **{"showcase-2.jpg": encode(SOURCE.resize((180, 180)), "JPEG", quality=60)},  # smaller, re-encoded
        **{"showcase-3.png": encode(SHOTS[0])},
    )
    gate, metric = distinct(source_case, (Artifact("page.html", page), *files), input_copies=1)
    assert not gate.passed
    assert gate.reason == (
        "3 <img> show an input image (1 allowed): mug.png (= input mug.png), showcase-1.png (= input mug.png), "
        "showcase-2.jpg (= input mug.png)"
    )
    assert metric.value == 1.0


def test_a_picture_shown_twice_fails(source_case: CaseSpec) -> None:
    page = showcase_page("showcase-1.png", "showcase-2.png", "showcase-3.png", "showcase-1.png")
    files = outputs(
        **{"showcase-1.png": encode(SHOTS[0]), "showcase-2.png": encode(SHOTS[1])},
        **{"showcase-3.png": encode(SHOTS[0], "JPEG", quality=85)},
    )
    gate, _ = distinct(source_case, (Artifact("page.html", page), *files))
    assert not gate.passed
    assert gate.reason == (
        "showcase-3.png is the same picture as showcase-1.png (<img> #1); "
        "showcase-1.png (<img> #4) is the same picture as showcase-1.png (<img> #1)"
    )


def test_data_uris_are_compared_and_other_images_listed(source_case: CaseSpec) -> None:
    uri = "data:image/png;base64," + base64.b64encode(encode(SOURCE)).decode()
    page = showcase_page(uri, "showcase-1.png", "https://cdn.example.com/x.png", "gone.png", "page.html")
    gate, _ = distinct(source_case, (Artifact("page.html", page), *outputs(**{"showcase-1.png": encode(SHOTS[1])})))
    assert not gate.passed  # no input copy is allowed by default
    assert gate.reason.startswith("1 <img> show an input image (0 allowed): data:image/png;base64,")
    assert gate.reason.endswith("(= input mug.png); not compared: https://cdn.example.com/x.png, gone.png, page.html")


def test_the_hardest_pair_of_the_example_suite_is_distinct(make_case: Callable[..., CaseSpec]) -> None:
    """Two turntable steps of one sneaker (the closest pair of the shipped references) are different pictures."""
    folder = REFS / "sprint-sneaker"
    case = make_case(task="html_generation", prompt="p", images=(folder / "sneaker.png",))
    names = ["sneaker.png", "showcase-1.png", "showcase-2.png", "showcase-3.png", "showcase-4.png"]
    files = tuple(Artifact(name, (folder / name).read_bytes()) for name in names)
    gate, metric = distinct(case, (Artifact("page.html", showcase_page(*names)), *files), input_copies=1)
    assert gate.passed and metric.value == 4.0


def test_thresholds_are_options(source_case: CaseSpec) -> None:
    page = Artifact("page.html", showcase_page("a.png", "b.png"))
    files = outputs(**{"a.png": encode(SHOTS[1]), "b.png": encode(SHOTS[2])})
    assert distinct(source_case, (page, *files))[0].passed
    assert not distinct(source_case, (page, *files), same_difference=1.0, same_ssim=-1.0)[0].passed


def test_ssim_is_scikit_images_default() -> None:
    from skimage.metrics import structural_similarity

    grey = np.asarray(SOURCE.convert("L").resize((64, 64)), dtype=np.float32)
    other = np.asarray(SHOTS[1].convert("L").resize((64, 64)), dtype=np.float32)
    assert ssim(grey, grey) == pytest.approx(1.0)
    assert ssim(grey, other) == pytest.approx(structural_similarity(grey, other, data_range=255), abs=1e-5)


def test_check_case(make_case: Callable[..., CaseSpec]) -> None:
    assert DistinctImagesGrader.check_case(make_case(task="html_generation", prompt="p"), {}) is None
    assert "image_generation" in (DistinctImagesGrader.check_case(make_case(), {}) or "")


# -- on the rendered DOM (real Chromium) ---------------------------------------------
def test_a_rendered_page_is_judged_on_its_dom(source_case: CaseSpec, renderer: Renderer, tmp_path: Path) -> None:
    import dataclasses

    case = dataclasses.replace(source_case, render=RENDER)
    files = {"mug.png": encode(SOURCE), "showcase-1.png": encode(SHOTS[0]), "showcase-2.png": encode(SHOTS[1])}
    html = '<body><img src="mug.png" alt="a"><img src="showcase-1.png" alt="b"><img src="showcase-2.png" alt="c"></body>'
    artifacts = render_case(case, renderer, tmp_path, html, files)
    assert distinct(case, artifacts, input_copies=1)[0].passed
    # a script swaps a showcase image for the source after load: the source reads fine, what rendered does not
    swap = html + "<script>document.images[2].src = 'mug.png';</script>"
    gate, _ = distinct(case, render_case(case, renderer, tmp_path, swap, files), input_copies=1)
    assert not gate.passed
    assert (
        gate.reason
        == "2 <img> show an input image (1 allowed): mug.png (<img> #1) (= input mug.png), mug.png (<img> #3) (= input mug.png)"
    )


# -- transformed copies (same_picture) -----------------------------------------------
def _hue_turned(image: Image.Image, degrees: int) -> Image.Image:
    hue, saturation, value = image.convert("HSV").split()
    return Image.merge("HSV", (hue.point(lambda h: (h + degrees * 256 // 360) % 256), saturation, value)).convert("RGB")


TRANSFORMS: dict[str, Callable[[Image.Image], Image.Image]] = {
    "mirrored": ImageOps.mirror,
    "flipped": ImageOps.flip,
    "turned 90": lambda im: im.rotate(90, expand=True),
    "turned 180": lambda im: im.rotate(180),
    "greyscale": lambda im: ImageOps.grayscale(im).convert("RGB"),
    "hue turned 30": lambda im: _hue_turned(im, 30),
    "hue turned 180": lambda im: _hue_turned(im, 180),
    "less contrast": lambda im: ImageEnhance.Contrast(im).enhance(0.7),
    "cropped": lambda im: _cropped(im, 0.7, 0.6, 0.4, 0.2),
    "cropped, hue turned, mirrored": lambda im: ImageOps.mirror(_cropped(_hue_turned(im, 120), 0.8, 0.65, 1.0, 0.5)),
}


def _cropped(image: Image.Image, side_x: float, side_y: float, at_x: float, at_y: float) -> Image.Image:
    width, height = round(image.width * side_x), round(image.height * side_y)
    left, top = round((image.width - width) * at_x), round((image.height - height) * at_y)
    return image.crop((left, top, left + width, top + height)).resize(image.size)


@pytest.mark.parametrize("transform", list(TRANSFORMS))
def test_a_transformed_copy_of_the_source_photo_is_no_new_picture(make_case: Callable[..., CaseSpec], transform: str) -> None:
    folder = REFS / "harbor-mug"
    case = make_case(task="html_generation", prompt="p", images=(folder / "mug.png",))
    copy = TRANSFORMS[transform](Image.open(folder / "mug.png").convert("RGB"))
    names = ["mug.png", "showcase-1.png", "showcase-2.png"]
    files = tuple(Artifact(name, (folder / name).read_bytes()) for name in names[:2])
    page = Artifact("page.html", showcase_page(*names))
    gate, metric = distinct(case, (page, *files, Artifact("showcase-2.png", encode(copy))), input_copies=1)
    assert not gate.passed
    assert gate.reason.startswith(
        "2 <img> show an input image (1 allowed): mug.png (= input mug.png), showcase-2.png (= input mug.png ("
    )
    assert "of it explained)" in gate.reason
    assert metric.value == 1.0


def test_a_showcase_that_mirrors_another_repeats_it(make_case: Callable[..., CaseSpec]) -> None:
    folder = REFS / "beam-lamp"
    case = make_case(task="html_generation", prompt="p", images=(folder / "lamp.png",))
    mirrored = ImageOps.mirror(Image.open(folder / "showcase-2.png").convert("RGB"))
    names = ["showcase-1.png", "showcase-2.png"]
    files = tuple(Artifact(name, (folder / name).read_bytes()) for name in names)
    page = Artifact("page.html", showcase_page(*names, "showcase-3.png"))
    gate, _ = distinct(case, (page, *files, Artifact("showcase-3.png", encode(mirrored))))
    assert not gate.passed
    assert gate.reason.startswith("showcase-3.png is the same picture as showcase-2.png (mirrored, 100% of it explained)")


def test_a_showcase_that_crops_the_source_photo_is_a_copy_of_it(make_case: Callable[..., CaseSpec]) -> None:
    folder = REFS / "star-tee"
    case = make_case(task="html_generation", prompt="p", images=(folder / "tshirt.png",))
    crop = _cropped(Image.open(folder / "tshirt.png").convert("RGB"), 0.75, 0.6, 0.5, 0.1)
    names = ["showcase-1.png", "showcase-2.png"]
    files = tuple(Artifact(name, (folder / name).read_bytes()) for name in names)
    page = Artifact("page.html", showcase_page(*names, "showcase-3.png"))
    artifacts = (page, *files, Artifact("showcase-3.png", encode(crop)))
    gate, _ = distinct(case, artifacts)
    assert not gate.passed
    assert gate.reason.startswith("1 <img> show an input image (0 allowed): showcase-3.png (= input tshirt.png (")
    assert "cropped to 75% x 60%, " in gate.reason and "% of it explained))" in gate.reason  # the shirt is symmetric: either way
    # crops are held to same_explained_crop, not same_explained
    gate, metric = distinct(case, artifacts, same_explained=0.5, same_explained_crop=1.0)
    assert gate.passed, gate.reason
    assert metric.value == 3.0


def test_a_window_of_another_showcase_is_a_detail_shot_not_a_repeat(make_case: Callable[..., CaseSpec]) -> None:
    """Among the page's own pictures only whole-picture transforms count: product pages show details as zooms."""
    folder = REFS / "star-tee"
    case = make_case(task="html_generation", prompt="p", images=(folder / "tshirt.png",))
    crop = _cropped(Image.open(folder / "showcase-1.png").convert("RGB"), 0.75, 0.6, 0.5, 0.1)
    names = ["showcase-1.png", "showcase-2.png"]
    files = tuple(Artifact(name, (folder / name).read_bytes()) for name in names)
    page = Artifact("page.html", showcase_page(*names, "showcase-3.png"))
    gate, metric = distinct(case, (page, *files, Artifact("showcase-3.png", encode(crop))))
    assert gate.passed, gate.reason
    assert metric.value == 3.0


@pytest.mark.parametrize("product", ["harbor-mug", "sprint-sneaker", "beam-lamp", "star-tee"])
def test_the_shipped_showcases_are_new_pictures(make_case: Callable[..., CaseSpec], product: str) -> None:
    """Other angles, poses, backgrounds and zooms of one product stay distinct under every transform tried."""
    folder = REFS / product
    source = next(p for p in folder.glob("*.png") if not p.name.startswith("showcase"))
    case = make_case(task="html_generation", prompt="p", images=(source,))
    names = [source.name] + [f"showcase-{i}.png" for i in range(1, 5)]
    files = tuple(Artifact(name, (folder / name).read_bytes()) for name in names)
    gate, metric = distinct(case, (Artifact("page.html", showcase_page(*names)), *files), input_copies=1)
    assert gate.passed, gate.reason
    assert metric.value == 4.0

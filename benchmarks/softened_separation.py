"""How ``softened_content`` separates blurred outputs from re-encodes and round trips.

Run on demand (not a test; about a minute on one core):

    .venv/bin/python benchmarks/softened_separation.py [--photos] [--calibration SIGMA ...]

Images: every shipped PNG under ``cases/`` (references, inputs, trajectory
frames; not masks), and with ``--photos`` ten scikit-image photos. Each is
compared, as ``similarity.match`` does against a reference, with:

* legitimate copies: JPEG q70/q80/q95, Lanczos resize round trips at
  0.5-0.9 (and 0.6 then JPEG q70), bilinear and bicubic round trips at
  0.5-0.7, +5 levels, 1-2 px shifts, a blur of 0.25 px per 256 px;
* blurred copies: a Gaussian blur of 2.5, 3, 4 and 6 px per 512 px of the
  picture (the self-test's blur draws 3-8), and a blur of 3 px per 512 px
  over a centred quarter of the picture.

Prints, per kind, the largest (legitimate) or smallest (blurred) share of
content areas softened, and how many copies the default limit
(``max_softened_share``) fails. ``--calibration`` tries other yardstick
blurs (``CALIBRATION_SIGMA``).
"""

from __future__ import annotations

import argparse
import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageFilter

from pytest_visioneval.graders import softened_content
from pytest_visioneval.graders.colour_difference import MAX_SHIFT_SHARE, shifted, whole_image_shift, working_pair
from pytest_visioneval.graders.content_check import DEFAULT_MAX_SOFTENED_SHARE, MIN_SOFTENED_TILES

CASES = Path(__file__).resolve().parents[1] / "cases"
Copy = Callable[[Image.Image], Image.Image]


def jpeg(quality: int) -> Copy:
    def copy(image: Image.Image) -> Image.Image:
        out = io.BytesIO()
        image.save(out, "JPEG", quality=quality)
        return Image.open(io.BytesIO(out.getvalue())).convert("RGB")

    return copy


def round_trip(scale: float, method: Image.Resampling) -> Copy:
    def copy(image: Image.Image) -> Image.Image:
        small = image.resize((max(1, round(image.width * scale)), max(1, round(image.height * scale))), method)
        return small.resize(image.size, method)

    return copy


def moved(dx: int, dy: int) -> Copy:
    def copy(image: Image.Image) -> Image.Image:
        return Image.fromarray(np.roll(np.asarray(image), (dy, dx), axis=(0, 1)))

    return copy


def blur(per_512: float, quarter: bool = False) -> Copy:
    def copy(image: Image.Image) -> Image.Image:
        radius = per_512 * max(image.size) / 512
        if not quarter:
            return image.filter(ImageFilter.GaussianBlur(radius))
        width, height = image.size
        box = (width // 4, height // 4, width // 4 + width // 2, height // 4 + height // 2)
        out = image.copy()
        out.paste(image.crop(box).filter(ImageFilter.GaussianBlur(radius)), box)
        return out

    return copy


LEGITIMATE: dict[str, Copy] = {
    "jpeg q70": jpeg(70),
    "jpeg q80": jpeg(80),
    "jpeg q95": jpeg(95),
    "lanczos 0.5": round_trip(0.5, Image.Resampling.LANCZOS),
    "lanczos 0.6": round_trip(0.6, Image.Resampling.LANCZOS),
    "lanczos 0.9": round_trip(0.9, Image.Resampling.LANCZOS),
    "lanczos 0.6 + jpeg q70": lambda image: jpeg(70)(round_trip(0.6, Image.Resampling.LANCZOS)(image)),
    "bilinear 0.6": round_trip(0.6, Image.Resampling.BILINEAR),
    "bilinear 0.7": round_trip(0.7, Image.Resampling.BILINEAR),
    "bicubic 0.5": round_trip(0.5, Image.Resampling.BICUBIC),
    "+5 levels": lambda image: Image.eval(image, lambda v: min(255, v + 5)),
    "shift 2,0": moved(2, 0),
    "shift 1,1": moved(1, 1),
    "blur 0.25/256": blur(0.5),
}
BLURRED: dict[str, Copy] = {
    "blur 2.5/512": blur(2.5),
    "blur 3/512": blur(3),
    "blur 4/512": blur(4),
    "blur 6/512": blur(6),
    "blur 3/512 over a quarter": blur(3, quarter=True),
}


def images(photos: bool) -> list[tuple[str, Image.Image]]:
    found = [
        (str(path.relative_to(CASES)), Image.open(path).convert("RGB"))
        for path in sorted(CASES.rglob("*.png"))
        if "mask" not in path.name
    ]
    if photos:
        from skimage import data

        names = ("astronaut", "coffee", "chelsea", "rocket", "camera", "text", "page", "immunohistochemistry", "retina", "cat")
        found += [(f"skimage {name}", Image.fromarray(getattr(data, name)()).convert("RGB")) for name in names]
    return found


def softened(output: Image.Image, target: Image.Image) -> softened_content.Softening:
    out, tgt = working_pair(output, target)
    dy, dx = whole_image_shift(out, tgt, MAX_SHIFT_SHARE)
    return softened_content.softening(shifted(out, dy, dx), tgt)


def fails(found: softened_content.Softening) -> bool:
    return found.share > DEFAULT_MAX_SOFTENED_SHARE and found.softened >= MIN_SOFTENED_TILES


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--photos", action="store_true", help="add ten scikit-image photos")
    parser.add_argument("--calibration", type=float, nargs="*", default=[softened_content.CALIBRATION_SIGMA])
    args = parser.parse_args()
    pictures = images(args.photos)
    print(f"{len(pictures)} images; limit: more than {DEFAULT_MAX_SOFTENED_SHARE:.0%} of the areas softened fails")
    for sigma in args.calibration:
        softened_content.CALIBRATION_SIGMA = sigma
        print(f"\ncalibration blur {sigma:g} px at the working size")
        for title, kinds, worst in (("legitimate", LEGITIMATE, max), ("blurred", BLURRED, min)):
            for name, copy in kinds.items():
                found = [(softened(copy(image), image), label) for label, image in pictures]
                extreme, label = worst(((f.share, label) for f, label in found), key=lambda item: item[0])
                failed = sum(fails(f) for f, _ in found)
                which = "max" if worst is max else "min"
                print(f"  {title:10s} {name:26s} {which} {extreme:5.0%} ({label}); fail {failed}/{len(found)}")


if __name__ == "__main__":
    main()

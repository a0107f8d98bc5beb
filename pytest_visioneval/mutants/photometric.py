"""Photometric mutants of an output image: a hue rotation, saturation, brightness, contrast, blur, noise, compression.

Every change is far beyond what a re-encode or a re-render does (those are
the legitimate family): a hue turned 30-180 degrees, brightness moved by
40-90 levels, a blur of several pixels at 512 px, a JPEG saved at quality 2-8.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np
from PIL import Image, ImageEnhance, ImageFilter

from ..graders.colour_difference import delta_e, to_lab
from . import seen_by
from .base import Family, MutantClass, NotApplicable, Subject, Variant, jpeg

FAMILY = "photometric"
GREY_BELOW = 0.08  # mean HSV saturation under which a picture has no colour to turn
# A saturation boost counts as broken when this share of the picture moves this far (CIEDE2000; the
# colour gates' own default for a changed pixel), else the washed-out direction is drawn.
VISIBLE_DELTA_E = 10.0
MIN_VISIBLE_SHARE = 0.05


def photometric(subject: Subject) -> Family:
    image = subject.rgb
    if image is None:
        return [], [NotApplicable(FAMILY, "the known-good output holds no image that decodes")]
    made = [
        _class("brightness", "brightness", seen_by.TONE, lambda rng: _brightness(subject, image, rng)),
        _class("contrast", "contrast", seen_by.TONE, lambda rng: _contrast(subject, image, rng)),
        _class("blur", "sharpness", seen_by.COMPARISON | seen_by.TEXT, lambda rng: _blur(subject, image, rng)),
        _class("noise", "clean surfaces", seen_by.COMPARISON, lambda rng: _noise(subject, image, rng)),
        _class("compression", "clean edges", seen_by.COMPRESSION, lambda rng: _compression(subject, image, rng)),
    ]
    skipped: list[NotApplicable] = []
    colour = saturation(image)
    if colour >= GREY_BELOW:
        made += [
            _class("hue_rotation", "colour (hue)", seen_by.COLOUR, lambda rng: _hue(subject, image, rng)),
            _class("saturation", "colour (saturation)", seen_by.COLOUR, lambda rng: _saturation(subject, image, rng)),
        ]
    else:
        why = f"the output has almost no colour to change (mean saturation {colour:.2f} < {GREY_BELOW})"
        skipped += [NotApplicable(f"{FAMILY}/hue_rotation", why), NotApplicable(f"{FAMILY}/saturation", why)]
    return made, skipped


def saturation(image: Image.Image) -> float:
    small = image.copy()
    small.thumbnail((256, 256))
    return float(np.asarray(small.convert("HSV"))[..., 1].mean() / 255)


def hue_rotated(image: Image.Image, degrees: float) -> Image.Image:
    hsv = np.asarray(image.convert("HSV")).copy()
    hsv[..., 0] = ((hsv[..., 0].astype(np.int32) + round(degrees * 256 / 360)) % 256).astype(np.uint8)
    return Image.fromarray(hsv, "HSV").convert("RGB")


def _class(name: str, breaks: str, seen: frozenset[str], make: Callable[[random.Random], Variant | None]) -> MutantClass:
    return MutantClass(FAMILY, name, True, breaks, seen, make)


def _hue(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    degrees = rng.randint(30, 180) * rng.choice((-1, 1))
    return Variant(
        {"degrees": degrees}, f"every hue turned by {degrees} degrees", subject.with_image(hue_rotated(image, degrees))
    )


def _saturation(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    less, more = round(rng.uniform(0.0, 0.3), 2), round(rng.uniform(2.2, 3.0), 2)
    factor = rng.choice((less, more))
    changed = ImageEnhance.Color(image).enhance(factor)
    if factor == more and changed_share(image, changed) < MIN_VISIBLE_SHARE:
        # Colours near full saturation clip: boosted, a strong blue moved 2.5 deltaE (a person barely
        # tells them apart side by side). Washed out, the same colours turn grey.
        factor = less
        changed = ImageEnhance.Color(image).enhance(factor)
    return Variant({"factor": factor}, f"the saturation multiplied by {factor}", subject.with_image(changed))


def changed_share(before: Image.Image, after: Image.Image) -> float:
    """The share of the picture whose colour moved past VISIBLE_DELTA_E (CIEDE2000), on copies of at most 256 px."""
    small = [image.copy() for image in (before, after)]
    for image in small:
        image.thumbnail((256, 256))
    lab = [to_lab(np.asarray(image.convert("RGB"), dtype=np.float64)) for image in small]
    return float((delta_e(*lab) >= VISIBLE_DELTA_E).mean())


def _brightness(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    offset = rng.randint(40, 90) * rng.choice((-1, 1))
    changed = np.clip(np.asarray(image, dtype=np.int16) + offset, 0, 255).astype(np.uint8)
    return Variant({"offset": offset}, f"every channel moved by {offset:+d}/255", subject.with_image(Image.fromarray(changed)))


def _contrast(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    factor = round(rng.choice((rng.uniform(0.25, 0.5), rng.uniform(1.8, 2.5))), 2)
    changed = ImageEnhance.Contrast(image).enhance(factor)
    return Variant({"factor": factor}, f"the contrast multiplied by {factor}", subject.with_image(changed))


def _blur(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    at_512 = round(rng.uniform(3, 8), 1)  # the radius a 512 px picture gets; larger pictures in proportion
    radius = round(at_512 * max(image.size) / 512, 1)
    changed = image.filter(ImageFilter.GaussianBlur(radius))
    return Variant({"radius": radius}, f"a Gaussian blur of radius {radius} px", subject.with_image(changed))


def _noise(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    sigma = rng.randint(25, 50)
    generator = np.random.default_rng(rng.getrandbits(32))
    noisy = np.asarray(image, dtype=np.float32) + generator.normal(0, sigma, (image.height, image.width, 3))
    changed = Image.fromarray(np.clip(noisy, 0, 255).astype(np.uint8))
    return Variant({"sigma": sigma}, f"Gaussian noise of sigma {sigma}/255 on every pixel", subject.with_image(changed))


def _compression(subject: Subject, image: Image.Image, rng: random.Random) -> Variant:
    quality = rng.randint(2, 8)
    return Variant(
        {"quality": quality}, f"the output saved as JPEG q{quality}", subject.with_image(image, ".jpg", jpeg(image, quality))
    )

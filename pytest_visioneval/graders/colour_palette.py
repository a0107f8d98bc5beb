"""The colours an area is made of, and how well one area's colours are found in another's.

An area's *palette* is its pixels (softened by ``SOFTEN_SIGMA``) in CIELAB, quantised into cubes of
``BIN_SIZE`` units, each cube weighted by its share of the pixels and placed at
the mean colour of its pixels. Only the flat pixels count: a pixel whose 3x3
neighbourhood spans more than ``FLAT_RANGE`` (0-255, any RGB channel) sits on
an edge, and the mix of colours there depends on blur, resampling and JPEG
rather than on the colours a person would name.

Two palettes are compared with CIEDE2000: each output colour counts for the
nearest target colour when within ``max_delta_e``, and the two areas' shares
of each colour (shades of one colour taken together) are compared. A garment
in another colour, a colour missing, a recolour done on half the area (the
old colour still there, or the new one on half its share) lower the overlap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .colour_difference import delta_e, hex_colour, to_lab

BIN_SIZE = 6.0  # Lab units per quantisation cube
FLAT_RANGE = 48.0  # a 3x3 neighbourhood spanning more (0-255, any channel) is an edge
# Softening (px at the working size) averages JPEG's chroma artefacts on fine patterns (a striped
# garment at q60: coverage 0.77 unsoftened, 0.97 softened) while a flat colour keeps its value.
SOFTEN_SIGMA = 1.0
MAX_SAMPLES = 40_000  # pixels of an area sampled (on a regular stride) beyond this
NEAREST_CANDIDATES = 8  # Lab-nearest colours among which the CIEDE2000-nearest is sought
MIN_TARGET_WEIGHT = 0.002  # rarer target colours do not link colour families (blends at edges, noise)
MIN_FAMILY_WEIGHT = 0.01  # a colour family (shades of one colour) smaller than this is a blend of two others
MIN_CONTENT_WEIGHT = 0.01  # an area with less than this off its background is compared with its background
# About three just-noticeable differences: JPEG and a brightness change of 8 move a flat colour by
# up to 3; sea green for teal is 13.7, royal blue for navy 14.5 (docs/graders.md, colour).
DEFAULT_MAX_DELTA_E = 6.0


@dataclass(frozen=True)
class Palette:
    lab: np.ndarray  # (n, 3) the mean Lab colour of each cube
    rgb: np.ndarray  # (n, 3) the same, as RGB 0-255
    weight: np.ndarray  # (n,) shares of the area's flat pixels, summing to 1


@dataclass(frozen=True)
class PaletteMatch:
    coverage: float  # the share of the area in the target's colours, in the target's proportions (0..1)
    output_share: float  # share of the output's pixels in colours the target has, whatever the proportions
    stray_share: float  # weight of the commonest output colour the target lacks (0 when none)
    stray_colour: str  # its hex ("" when none)
    stray_nearest: str  # the nearest target colour to it, hex
    stray_delta_e: float  # CIEDE2000 between those two
    short_colour: str  # hex of the target colour the output has least of, against the target ("" when none)
    short_output: float  # its share of the output's area
    short_target: float  # its share of the target's area


def flat_pixels(pixels: np.ndarray) -> np.ndarray:
    """Boolean map of the pixels off any edge (see the module docstring)."""
    from scipy import ndimage

    size = (3, 3, 1)
    spread = ndimage.maximum_filter(pixels, size=size) - ndimage.minimum_filter(pixels, size=size)
    return np.asarray(spread.max(axis=2) <= FLAT_RANGE)


def area_samples(pixels: np.ndarray, area: np.ndarray) -> np.ndarray:
    """The RGB values (n, 3) of the flat pixels of ``area`` (all of its pixels when none is flat), softened first."""
    from scipy import ndimage

    pixels = np.asarray(ndimage.gaussian_filter(pixels, (SOFTEN_SIGMA, SOFTEN_SIGMA, 0)), dtype=np.float64)
    chosen = area & flat_pixels(pixels)
    if not chosen.any():
        chosen = area
    samples = pixels[chosen].reshape(-1, 3).astype(np.float64)
    if len(samples) > MAX_SAMPLES:
        samples = samples[:: int(np.ceil(len(samples) / MAX_SAMPLES))]
    return samples


def palette_of(rgb: np.ndarray) -> Palette:
    """The palette of RGB samples (n, 3), 0-255."""
    lab = to_lab(rgb.reshape(-1, 1, 3)).reshape(-1, 3)
    cubes = np.floor(lab / BIN_SIZE).astype(np.int64) + 64  # L 0..100, a and b about -128..127: all >= 0
    keys = (cubes[:, 0] << 16) | (cubes[:, 1] << 8) | cubes[:, 2]
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    inverse = inverse.reshape(-1)
    mean_lab = np.stack([np.bincount(inverse, lab[:, c]) for c in range(3)], axis=1) / counts[:, None]
    mean_rgb = np.stack([np.bincount(inverse, rgb[:, c]) for c in range(3)], axis=1) / counts[:, None]
    return Palette(mean_lab, mean_rgb, counts / counts.sum())


def named_palette(hex_colours: list[str]) -> Palette:
    """A palette of listed colours (``#rrggbb``), equally weighted."""
    rgb = np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in hex_colours], dtype=np.float64)
    return Palette(to_lab(rgb.reshape(-1, 1, 3)).reshape(-1, 3), rgb, np.full(len(rgb), 1.0 / len(rgb)))


def nearest(a: Palette, b: Palette) -> tuple[np.ndarray, np.ndarray]:
    """For each colour of ``a``: the CIEDE2000 to its nearest colour of ``b``, and that colour's index.

    The candidates are the NEAREST_CANDIDATES nearest in plain Lab distance (a
    k-d tree): comparing every pair costs seconds on a photo's palette, and
    the CIEDE2000-nearest colour is among the Lab-nearest few.
    """
    from scipy.spatial import cKDTree

    k = min(NEAREST_CANDIDATES, len(b.lab))
    _, index = cKDTree(b.lab).query(a.lab, k=k)
    index = np.asarray(index).reshape(len(a.lab), k)
    table = delta_e(np.repeat(a.lab[:, None, :], k, axis=1), b.lab[index])
    best = table.argmin(axis=1)
    rows = np.arange(len(a.lab))
    return table[rows, best], index[rows, best]


def colour_families(palette: Palette, max_delta_e: float) -> np.ndarray:
    """A family label per colour: colours chained by small steps (Lab distance) are one colour.

    A shaded or gradient area spreads over many quantisation cubes; a person
    names it once. Only colours of weight >= MIN_TARGET_WEIGHT link families
    (rare blends at edges would bridge distinct colours); a rarer colour joins
    the family of its nearest common one.
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components
    from scipy.spatial import cKDTree

    common = palette.weight >= min(MIN_TARGET_WEIGHT, float(palette.weight.max()))
    common_lab = palette.lab[common]
    # Neighbouring cubes' mean colours of a smooth shade can be up to a cube and a half apart.
    pairs = cKDTree(common_lab).query_pairs(r=max(max_delta_e, 1.5 * BIN_SIZE), output_type="ndarray")
    graph = coo_matrix((np.ones(len(pairs)), (pairs[:, 0], pairs[:, 1])), shape=(len(common_lab),) * 2)
    _, common_labels = connected_components(graph, directed=False)
    labels = np.empty(len(palette.lab), dtype=np.int64)
    labels[common] = common_labels
    if not common.all():
        _, index = cKDTree(common_lab).query(palette.lab[~common])
        labels[~common] = common_labels[np.asarray(index)]
    return _merge_small_families(palette, labels)


def _merge_small_families(palette: Palette, labels: np.ndarray) -> np.ndarray:
    """Families of less than MIN_FAMILY_WEIGHT (blends between two colours) join the family of the nearest mean colour.

    Without this a re-encoded output's blend pixels, counted for a blend
    family the target hardly has, would be missing from the colour they
    belong to.
    """
    count = int(labels.max()) + 1
    weight = np.bincount(labels, palette.weight, minlength=count)
    big = np.nonzero(weight >= MIN_FAMILY_WEIGHT)[0]
    if len(big) == 0 or len(big) == count:
        return labels
    means = np.stack([np.bincount(labels, palette.lab[:, c] * palette.weight, minlength=count) for c in range(3)], axis=1)
    means = means[big] / weight[big, None]
    small = ~np.isin(labels, big)
    table = delta_e(np.repeat(palette.lab[small][:, None, :], len(big), axis=1), np.repeat(means[None], small.sum(), axis=0))
    merged = labels.copy()
    merged[small] = big[table.argmin(axis=1)]
    return merged


def compare_palettes(
    output: Palette,
    target: Palette,
    max_delta_e: float,
    proportions: bool = True,
    background: np.ndarray | None = None,
) -> PaletteMatch:
    """How well ``output``'s colours are those of ``target``.

    Each output colour within ``max_delta_e`` of a target colour counts for
    that colour's family (:func:`colour_families`). With ``proportions``,
    ``coverage`` is the overlap of the two areas' family shares (a histogram
    intersection): a colour missing, a colour in place of another and a
    recolour done on half the area all lower it. Without (listed colours,
    whose proportions are unknown), it is the share of the output in them.

    ``background`` (an RGB colour: the target image's dominant one) is left
    out of the proportions when the target's area has other colours: an
    emblem or a word mark is a small part of its white surroundings, and a
    person judges its colour, not the share of white around it. The overlap
    is then divided by the larger of the two areas' non-background shares,
    so colours the output adds count against it too.
    """
    to_target, index = nearest(output, target)
    matched = to_target <= max_delta_e
    output_share = float(output.weight[matched].sum())
    coverage = output_share
    short_colour, short_output, short_target = "", 0.0, 0.0
    if proportions:
        families = colour_families(target, max_delta_e)
        count = int(families.max()) + 1
        in_target = np.bincount(families, target.weight, minlength=count)
        in_output = np.bincount(families[index[matched]], output.weight[matched], minlength=count)
        overlap = np.minimum(in_target, in_output)
        coverage = float(overlap.sum())
        ground = _background_family(target, families, background, max_delta_e)
        if ground is not None and in_target.sum() - in_target[ground] >= MIN_CONTENT_WEIGHT:
            content_target = in_target.sum() - in_target[ground]
            content_output = 1.0 - in_output[ground]  # colours the target lacks count as the output's content
            coverage = float((overlap.sum() - overlap[ground]) / max(content_target, content_output))
        deficit = in_target - in_output
        worst = int(np.argmax(deficit))
        if deficit[worst] > 0:
            members = families == worst
            colour = (target.rgb[members] * target.weight[members, None]).sum(axis=0) / target.weight[members].sum()
            short_colour, short_output, short_target = hex_colour(colour), float(in_output[worst]), float(in_target[worst])
    stray_share, stray_colour, stray_nearest, stray_delta_e = 0.0, "", "", 0.0
    if not matched.all():
        unmatched = ~matched
        stray_share, stray_colour = _grouped(output.rgb[unmatched], output.weight[unmatched])
        stray_delta, closest = nearest(named_palette([stray_colour]), target)
        stray_nearest, stray_delta_e = hex_colour(target.rgb[int(closest[0])]), float(stray_delta[0])
    return PaletteMatch(
        coverage=coverage,
        output_share=output_share,
        stray_share=stray_share,
        stray_colour=stray_colour,
        stray_nearest=stray_nearest,
        stray_delta_e=stray_delta_e,
        short_colour=short_colour,
        short_output=short_output,
        short_target=short_target,
    )


def palette_match(
    output: np.ndarray,
    output_area: np.ndarray,
    target: np.ndarray,
    target_area: np.ndarray,
    max_delta_e: float = DEFAULT_MAX_DELTA_E,
) -> PaletteMatch:
    """Compare the colours of ``output_area`` of one RGB array with those of ``target_area`` of another.

    The target's dominant colour is its background (see :func:`compare_palettes`).
    """
    from .imaging import dominant_colour

    output_palette = palette_of(area_samples(output, output_area))
    target_palette = palette_of(area_samples(target, target_area))
    return compare_palettes(output_palette, target_palette, max_delta_e, background=dominant_colour(target))


def _background_family(target: Palette, families: np.ndarray, background: np.ndarray | None, max_delta_e: float) -> int | None:
    """The family of the target colour nearest ``background`` (RGB), when within ``max_delta_e``."""
    if background is None:
        return None
    distance, index = nearest(named_palette([hex_colour(background)]), target)
    return int(families[int(index[0])]) if distance[0] <= max_delta_e else None


def _grouped(rgb: np.ndarray, weight: np.ndarray) -> tuple[float, str]:
    """The commonest colour group (RGB cubes of 32) among weighted colours: its weight and weighted mean, hex."""
    keys = (np.clip(rgb, 0, 255) // 32).astype(np.int64) @ np.array([64, 8, 1])
    totals: dict[int, float] = {}
    for key, w in zip(keys.tolist(), weight.tolist(), strict=True):
        totals[key] = totals.get(key, 0.0) + w
    best = max(totals, key=lambda k: totals[k])
    chosen = keys == best
    colour = (rgb[chosen] * weight[chosen, None]).sum(axis=0) / weight[chosen].sum()
    return totals[best], hex_colour(colour)

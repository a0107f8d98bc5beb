"""How much of an area shows each of some named colours: the amber band, the brand's green button.

A prompt or a brand guide names a few colours and leaves the rest (the paper,
the ink) to the designer. Each named colour must then be *there*, on a part
of the area a person notices, whatever else the area holds. The area's
palette (:mod:`.colour_palette`: flat pixels only, softened, in CIELAB) gives
the share of it within ``max_delta_e`` (CIEDE2000) of each colour. A hue
turned by 30 degrees or more, a desaturated or recoloured band leaves the
colour's share near 0; a re-encode, a resize or a small brightness change
keeps it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .colour_difference import delta_e, hex_colour
from .colour_palette import Palette, named_palette


@dataclass(frozen=True)
class Shown:
    colour: str  # the named colour, #rrggbb
    share: float  # share of the area's flat pixels within max_delta_e of it
    nearest: str  # the output colour (a palette cube of at least NEAREST_WEIGHT) closest to it, #rrggbb
    nearest_delta_e: float


NEAREST_WEIGHT = 0.005  # smaller palette cubes are blends at edges, not a colour a person sees


def shown(palette: Palette, colours: list[str], max_delta_e: float) -> list[Shown]:
    """For each of ``colours``: the share of ``palette``'s area within ``max_delta_e`` of it, and its nearest colour."""
    named = named_palette(colours)
    found = []
    for lab, colour in zip(named.lab, colours, strict=True):
        distance = delta_e(palette.lab, np.broadcast_to(lab, palette.lab.shape))
        share = float(palette.weight[distance <= max_delta_e].sum())
        seen = palette.weight >= min(NEAREST_WEIGHT, float(palette.weight.max()))
        closest = int(np.flatnonzero(seen)[np.argmin(distance[seen])])
        found.append(Shown(colour, share, hex_colour(palette.rgb[closest]), float(distance[closest])))
    return found

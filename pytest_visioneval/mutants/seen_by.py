"""Which deterministic graders can see which property, and which graders are judges.

A class lists the grader types (``use:``) that can tell its instances from
the known-good output. A case whose gating graders include none of them
cannot catch the class without a judge: the self-test reports it as
judge-only instead of counting it. Graders added later join the sets here.
"""

from __future__ import annotations

# Graders comparing the output with the reference or the input, pixel by pixel or by structure.
COMPARISON = frozenset({"similarity", "ssim", "locality", "screen_match"})
GEOMETRY = COMPARISON | {"distinct_images"}
COLOUR = frozenset({"similarity", "ssim", "locality", "colour", "screen_match"})  # each compares colours (CIEDE2000)
# A whole-image change of brightness or contrast (40+ levels, x0.5 or x1.8) moves every colour far past the colour
# grader's limit too, whether against a reference or named colours (benchmarks/colour_shown_separation.py).
TONE = COMPARISON | {"colour"}
TEXT = frozenset({"text", "ocr"})
OUTSIDE_THE_MASK = frozenset({"locality"})
INSIDE_THE_MASK = frozenset({"similarity", "ssim", "colour"})
PAGE = frozenset({"render_check"})
PAGE_IMAGES = frozenset({"html", "render_check", "distinct_images"})
SHOWCASE = frozenset({"distinct_images"})
ORDER = frozenset({"trajectory"})
# A JPEG saved at a very low quality: its quantisation tables say so (the image grader's jpeg_quality gate).
COMPRESSION = frozenset({"image"})
ANY_GATE = frozenset(
    {
        "image",
        "similarity",
        "ssim",
        "colour",
        "locality",
        "text",
        "ocr",
        "html",
        "render_check",
        "distinct_images",
        "screen_match",
        "trajectory",
    }
)

# LLM-judge graders: they run only with --judge.
JUDGES = frozenset({"rubric", "checklist", "checklist_points", "score", "viescore", "image_quality", "marked_score", "judging"})

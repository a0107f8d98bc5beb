"""Grader types by name: the built-ins plus the ``pytest_visioneval.graders`` entry points."""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib.metadata import entry_points
from typing import Any

from ..errors import GraderError
from .base import Grader
from .checklist import ChecklistGrader
from .html import HtmlGrader
from .image import ImageGrader
from .locality import LocalityGrader
from .ocr import TextGrader
from .rubric import RubricGrader
from .score import ScoreGrader
from .similarity import SimilarityGrader
from .ssim import SsimGrader
from .viescore import VieScoreGrader

ENTRY_POINT_GROUP = "pytest_visioneval.graders"

BUILTIN_GRADERS: dict[str, type[Grader]] = {
    "image": ImageGrader,
    "similarity": SimilarityGrader,
    "ssim": SsimGrader,
    "locality": LocalityGrader,
    "html": HtmlGrader,
    "text": TextGrader,
    "rubric": RubricGrader,
    "checklist": ChecklistGrader,
    "score": ScoreGrader,
    "viescore": VieScoreGrader,
}


@lru_cache(maxsize=1)
def grader_types() -> dict[str, type[Grader]]:
    """All grader types, built-ins first; a plugin cannot shadow a built-in."""
    types = dict(BUILTIN_GRADERS)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name not in types:
            types[ep.name] = ep.load()
    return types


def option_schemas() -> dict[str, Mapping[str, Any]]:
    return {name: getattr(cls, "options_schema", {"type": "object"}) for name, cls in grader_types().items()}


def create_grader(use: str, options: Mapping[str, Any]) -> Grader:
    try:
        cls = grader_types()[use]
    except KeyError:
        raise GraderError(f"unknown grader {use!r}") from None
    return cls(options)

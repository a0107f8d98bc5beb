"""Grader types by name: the built-ins plus the ``pytest_visioneval.graders`` entry points.

Built-ins are named by module and class and imported on first use, so a
pytest run without case files does not pay for scikit-image, tesseract's
wrapper or the openai SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

from ..errors import GraderError
from .base import Grader

ENTRY_POINT_GROUP = "pytest_visioneval.graders"

# name -> "module:Class" below pytest_visioneval.graders
BUILTIN_GRADERS: dict[str, str] = {
    "image": "image:ImageGrader",
    "trajectory": "trajectory:TrajectoryGrader",
    "similarity": "similarity:SimilarityGrader",
    "ssim": "ssim:SsimGrader",
    "locality": "locality:LocalityGrader",
    "html": "html:HtmlGrader",
    "text": "ocr:TextGrader",
    "rubric": "rubric:RubricGrader",
    "checklist": "checklist:ChecklistGrader",
    "score": "score:ScoreGrader",
    "viescore": "viescore:VieScoreGrader",
    "image_quality": "image_quality:ImageQualityGrader",
    "marked_score": "marked_score:MarkedScoreGrader",
    "checklist_points": "checklist_points:ChecklistPointsGrader",
    "render_check": "render_check:RenderCheckGrader",
    "distinct_images": "distinct_images:DistinctImagesGrader",
}


def _builtin(target: str) -> type[Grader]:
    module, _, name = target.partition(":")
    return getattr(import_module(f"{__package__}.{module}"), name)  # type: ignore[no-any-return]


@lru_cache(maxsize=1)
def grader_types() -> dict[str, type[Grader]]:
    """All grader types, built-ins first; a plugin cannot shadow a built-in."""
    types = {name: _builtin(target) for name, target in BUILTIN_GRADERS.items()}
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

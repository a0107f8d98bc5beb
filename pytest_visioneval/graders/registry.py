"""Grader types by name: the built-ins plus the ``pytest_visioneval.graders`` entry points.

Built-ins are named by module and class, and each is imported when its name
is first looked up: a pytest run without case files imports none, and a suite
imports only the graders its cases use (numpy, scikit-image, tesseract's
wrapper and the judges are then loaded by the graders that need them).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from importlib import import_module
from importlib.metadata import EntryPoint, entry_points
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
    "screen_match": "screen_match:ScreenMatchGrader",
    "colour": "colour:ColourGrader",
    "vqascore": "vqascore:VqaScoreGrader",
}


class _GraderTypes(Mapping[str, "type[Grader]"]):
    """Name -> grader class; a grader's module is imported when its name is first looked up.

    Collection checks each case's graders by name, so a suite that uses only
    ``image`` never imports the OCR, similarity or judge graders (nor what they
    import). Names and membership need no import.
    """

    def __init__(self) -> None:
        plugins = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name not in BUILTIN_GRADERS}
        self._plugins: dict[str, EntryPoint] = plugins  # a plugin cannot shadow a built-in
        self._names = (*BUILTIN_GRADERS, *plugins)
        self._loaded: dict[str, type[Grader]] = {}

    def __getitem__(self, name: str) -> type[Grader]:
        if name not in self._loaded:
            if name in BUILTIN_GRADERS:
                module, _, attribute = BUILTIN_GRADERS[name].partition(":")
                self._loaded[name] = getattr(import_module(f"{__package__}.{module}"), attribute)
            elif name in self._plugins:
                self._loaded[name] = self._plugins[name].load()
            else:
                raise KeyError(name)
        return self._loaded[name]

    def __contains__(self, name: object) -> bool:
        return name in BUILTIN_GRADERS or name in self._plugins

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


class _OptionSchemas(Mapping[str, Mapping[str, Any]]):
    """Name -> the JSON Schema of that grader's ``options``, looked up (and imported) on first use."""

    def __init__(self, types: Mapping[str, type[Grader]]) -> None:
        self._types = types

    def __getitem__(self, name: str) -> Mapping[str, Any]:
        return getattr(self._types[name], "options_schema", {"type": "object"})  # type: ignore[no-any-return]

    def __contains__(self, name: object) -> bool:
        return name in self._types

    def __iter__(self) -> Iterator[str]:
        return iter(self._types)

    def __len__(self) -> int:
        return len(self._types)


@lru_cache(maxsize=1)
def grader_types() -> Mapping[str, type[Grader]]:
    """All grader types by name, built-ins first; a plugin cannot shadow a built-in."""
    return _GraderTypes()


def option_schemas() -> Mapping[str, Mapping[str, Any]]:
    return _OptionSchemas(grader_types())


def create_grader(use: str, options: Mapping[str, Any]) -> Grader:
    try:
        cls = grader_types()[use]
    except KeyError:
        raise GraderError(f"unknown grader {use!r}") from None
    return cls(options)

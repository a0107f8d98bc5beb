"""Graders: turn artifacts into gates and metrics."""

from .base import Gate, Grade, GradeContext, Grader, Metric
from .registry import BUILTIN_GRADERS, ENTRY_POINT_GROUP, create_grader, grader_types, option_schemas

__all__ = [
    "BUILTIN_GRADERS",
    "ENTRY_POINT_GROUP",
    "Gate",
    "Grade",
    "GradeContext",
    "Grader",
    "Metric",
    "create_grader",
    "grader_types",
    "option_schemas",
]

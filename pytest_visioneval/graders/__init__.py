"""Graders: turn artifacts into gates and metrics."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_exports

if TYPE_CHECKING:
    from .base import Gate, Grade, GradeContext, Grader, Metric
    from .registry import BUILTIN_GRADERS, ENTRY_POINT_GROUP, create_grader, grader_types, option_schemas

# Each name is imported from its module on first use (see lazy_exports).
_EXPORTS = {
    "Gate": ".base",
    "Grade": ".base",
    "GradeContext": ".base",
    "Grader": ".base",
    "Metric": ".base",
    "BUILTIN_GRADERS": ".registry",
    "ENTRY_POINT_GROUP": ".registry",
    "create_grader": ".registry",
    "grader_types": ".registry",
    "option_schemas": ".registry",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

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

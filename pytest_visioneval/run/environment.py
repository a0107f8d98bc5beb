"""What every case evaluation of a worker shares: the model, the store, the graders' context, the browser."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..artifacts import ArtifactStore
from ..graders import GradeContext
from ..models import Model

if TYPE_CHECKING:  # the renderer's module (and its CDN mirror) loads only where a page is rendered
    from ..mutants.settings import MutationSettings
    from ..pages.render import PageRenderer
    from .grade_memo import GradeMemo


@dataclass(frozen=True)
class Environment:
    """What every job of a worker shares (built once, from the session fixtures)."""

    model: Model
    store: ArtifactStore
    context: GradeContext
    renderer: Callable[[], PageRenderer]  # started on first use; safe to call from any thread
    model_params: Mapping[str, Any]
    repeats: int = 1
    mutants: MutationSettings | None = None  # the mutation self-test (run/mutation.py) instead of repeats
    flaky_spread: Mapping[str, float] = field(default_factory=dict)  # --eval-flaky-spread: metric -> largest std
    label: str = ""  # the model's label in a run of several models (its outputs' folder, its records' "model")
    grades: GradeMemo | None = None  # grades of deterministic graders kept in the call cache (None: no cache)

    @property
    def model_label(self) -> str:
        return self.label or self.model.name

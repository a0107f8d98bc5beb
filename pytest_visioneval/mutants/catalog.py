"""Which mutants a case gets: by what it produces (page, trajectory, image) and what it asks for."""

from __future__ import annotations

from dataclasses import dataclass

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Mutant, NotApplicable
from .images import image_mutants
from .pages import page_mutants
from .text import text_mutants
from .trajectories import trajectory_mutants


@dataclass(frozen=True)
class MutantSet:
    mutants: tuple[Mutant, ...]
    not_applicable: tuple[NotApplicable, ...]


def mutants_for(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> MutantSet:
    """The mutants of the known-good output ``artifacts`` whose class applies to ``case``."""
    if case.task == "html_generation":
        parts = [page_mutants(case, artifacts)]
    elif any(g.use == "trajectory" for g in case.graders):
        parts = [trajectory_mutants(case, artifacts)]
    else:
        parts = [image_mutants(case, artifacts), text_mutants(case, artifacts)]
    mutants = tuple(m for made, _ in parts for m in made)
    skipped = tuple(s for _, why in parts for s in why)
    return MutantSet(mutants, skipped)

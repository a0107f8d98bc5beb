"""Which mutants a case gets: the property families that apply to what it produces, drawn at random from a seed.

Each family (geometric, photometric, text, occlusion, ...) lists the classes
that apply to the case. ``per_family`` instances are drawn per family: the
classes in an order shuffled by the family's generator, then each instance's
parameters from a generator of its own, all seeded from the run's seed, the
case and the family. The same seed makes the same mutants; a larger
``per_family`` adds instances without changing the first ones.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..artifacts import Artifact
from ..cases.spec import CaseSpec
from .base import Family, Mutant, MutantClass, NotApplicable, Subject, family_random
from .degenerate import degenerate
from .geometric import geometric
from .identity import identity
from .legitimate import legitimate
from .occlusion import occlusion
from .page_visibility import page_legibility, page_occlusion, page_timing
from .pages import PageSubject, broken_page, reformatted_page, showcase_identity
from .photometric import photometric
from .settings import MutationSettings
from .text import text_family
from .trajectories import legitimate_frames, temporal


@dataclass(frozen=True)
class MutantSet:
    mutants: tuple[Mutant, ...]
    not_applicable: tuple[NotApplicable, ...]


def mutants_for(case: CaseSpec, artifacts: tuple[Artifact, ...], settings: MutationSettings | None = None) -> MutantSet:
    """The mutants of the known-good output ``artifacts`` whose class applies to ``case``."""
    settings = settings or MutationSettings()
    subject, makers = _families(case, artifacts)
    classes: dict[str, list[MutantClass]] = {}
    skipped: list[NotApplicable] = []
    for make in makers:
        made, why = make(subject)
        for mutant_class in made:
            classes.setdefault(mutant_class.family, []).append(mutant_class)
        skipped += [s for s in why if settings.wants(s.name.split("/")[0])]
    mutants: list[Mutant] = []
    for family, members in classes.items():
        if not settings.wants(family):
            continue
        found, failed = draw(family, members, case.uid, settings)
        mutants += found
        skipped += failed
    return MutantSet(tuple(mutants), tuple(skipped))


def _families(case: CaseSpec, artifacts: tuple[Artifact, ...]) -> tuple[Subject, list[Callable[..., Family]]]:
    if case.task == "html_generation":
        return PageSubject(case, artifacts), [
            broken_page,
            page_occlusion,
            page_legibility,
            page_timing,
            showcase_identity,
            reformatted_page,
        ]
    if any(g.use == "trajectory" for g in case.graders):
        return Subject(case, artifacts), [temporal, legitimate_frames]
    return Subject(case, artifacts), [degenerate, geometric, photometric, occlusion, identity, text_family, legitimate]


def draw(
    family: str, members: list[MutantClass], uid: str, settings: MutationSettings
) -> tuple[list[Mutant], list[NotApplicable]]:
    """``settings.per_family`` instances of the family, its classes taken in turn in a seeded order.

    A draw that cannot be made (a symmetric picture mirrored, no room for a
    second line) passes to the next class; a class that never could is
    listed as not applicable.
    """
    order = list(members)
    family_random(settings.seed, uid, family).shuffle(order)
    mutants: list[Mutant] = []
    failed: set[str] = set()
    start = 0
    for index in range(1, settings.per_family + 1):
        rng = family_random(settings.seed, uid, f"{family}#{index}")
        for step in range(len(order)):
            chosen = order[(start + step) % len(order)]
            variant = chosen.make(rng)
            if variant is None:
                failed.add(chosen.name)
                continue
            start = (start + step + 1) % len(order)
            mutant = Mutant(
                family,
                chosen.name,
                index,
                chosen.broken,
                variant.description,
                variant.artifacts,
                dict(variant.params),
                chosen.breaks,
                chosen.seen_by,
            )
            mutants.append(mutant)
            break
    made = {m.kind for m in mutants}
    why = "no draw of it could be made from this output (e.g. a symmetric picture, no room for a copy)"
    return mutants, [NotApplicable(f"{family}/{name}", why) for name in sorted(failed - made)]

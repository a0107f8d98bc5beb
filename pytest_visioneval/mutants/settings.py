"""How many mutants the self-test makes, and from which seed (light: the plugin imports it at start-up)."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_SEED = 0
DEFAULT_PER_FAMILY = 2
# Every property family the catalogue draws from (mutants/catalog.py), for the option's help and its check.
FAMILIES = (
    "degenerate",
    "geometric",
    "photometric",
    "occlusion",
    "identity",
    "text",
    "broken_page",
    "legibility",
    "timing",
    "temporal",
    "legitimate",
)


@dataclass(frozen=True)
class MutationSettings:
    """``--eval-mutants-seed`` and ``--eval-mutants-per-family``.

    An instance is always true, so ``if settings.mutants:`` reads as "is this a self-test run".
    """

    seed: int = DEFAULT_SEED
    per_family: int = DEFAULT_PER_FAMILY  # broken or legitimate instances per family and case
    families: tuple[str, ...] = ()  # --eval-mutants-family: only these families (empty: every family)

    def wants(self, family: str) -> bool:
        return not self.families or family in self.families

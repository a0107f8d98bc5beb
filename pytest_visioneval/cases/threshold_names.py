"""Whether a case file's threshold names something its suite can record.

A suite records metrics and gates named ``<grader name>.<name>`` (the grader's
``name``, by default its ``use``), ``render.<name>`` for rendered pages and
``<protocol>.<score>`` for a benchmark protocol's scores. Which names a grader
records after its prefix depends on its options and is known only once it
ran: the end of the run says it ("no case recorded this metric"). The prefix,
and a protocol's score names, are known at collection, so a typo in them is
an error of the file, with the closest name.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from .suggest import did_you_mean


@dataclass(frozen=True)
class RecordedNames:
    """The prefixes a suite's metrics and gates can have."""

    graders: Collection[str]
    renders: bool  # some case renders its page (``render.*`` metrics); True when that cannot be known
    protocol: str | None = None  # the benchmark protocol's name, when the suite follows one
    scores: Collection[str] = ()  # that protocol's score names
    complete: bool = True  # False: some grader of the file could not be read, so an unknown prefix may be its name

    def prefixes(self) -> list[str]:
        named = set(self.graders) | ({"render"} if self.renders else set()) | ({self.protocol} if self.protocol else set())
        return sorted(named)


def threshold_name_problem(metric: str, names: RecordedNames) -> str | None:
    """Why no case of the suite can record ``metric``, or ``None`` when one may."""
    prefixes = names.prefixes()
    listed = ", ".join(prefixes) or "none"
    prefix, dot, rest = metric.partition(".")
    if not dot or not rest:
        return (
            f"{metric!r} is not a metric or gate name: they read GRADER.NAME (e.g. 'similarity.score'); "
            f"the names here start with: {listed}"
        )
    if prefix == names.protocol and prefix not in names.graders:
        if names.scores and rest not in names.scores:
            scores = ", ".join(sorted(names.scores))
            return f"protocol {prefix!r} has no score {rest!r}{did_you_mean(rest, names.scores)}; its scores: {scores}"
        return None
    if prefix in prefixes or not names.complete:
        return None
    return (
        f"no grader of this suite is named {prefix!r}{did_you_mean(prefix, prefixes)}, so no case records {metric!r}; "
        f"the names here start with: {listed}"
    )

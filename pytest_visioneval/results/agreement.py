"""How well the judges agree with people: judged values against human labels.

A label names a case (its uid), a judged name (a gate or metric of the
results, e.g. ``rubric.verdict``, ``checklist.q7``, ``score.goal``), a value
and, optionally, the rater. For each name, and per group of cases (the suite,
or a case field), this computes:

* **binary** names: accuracy and Cohen's kappa of the judge against the people;
* **numeric** names: Pearson, Spearman and Kendall correlations;
* **preference** names, read from a pairwise document (``visioneval pairwise
  --json``) instead of results: each pair of runs (:mod:`.preference`),
  labelled a/b/tie; accuracy and Cohen's kappa over the three answers;
* each with a percentile bootstrap interval over the cases (fixed seed);
* with several raters: the judge against the raters' consensus (majority, or
  mean), Krippendorff's alpha between the raters (the ``krippendorff``
  package), and the **human ceiling**: each rater against the consensus of
  the others, averaged - a judge cannot be asked to agree with people better
  than they agree with each other.

A name's kind is declared, or inferred safely: a gate, or labels that are all
yes/no words, make it binary; labels that are all numbers make it numeric,
also when they are all 0 and 1; anything else is a :class:`LabelError` naming
the file and line of the first label that fits neither.
"""

from __future__ import annotations

import csv
import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .case_keys import case_keys
from .preference import PREFERENCE, case_suites, is_pairwise, judged_preferences, preference_value

YES = frozenset({"yes", "pass", "passed", "true", "y"})
NO = frozenset({"no", "fail", "failed", "false", "n"})
KINDS = ("binary", "numeric")
DEFAULT_RESAMPLES = 1000
DEFAULT_CONFIDENCE = 0.95
DEFAULT_SEED = 0


class LabelError(ValueError):
    """A label that cannot be read, with where it is."""


@dataclass(frozen=True)
class Label:
    case: str  # the case uid, suite/id
    name: str  # a gate or metric name of the results
    value: str  # as written
    rater: str = ""  # who gave it ("" when the file names no raters)
    where: str = ""  # file:line, for error messages


@dataclass(frozen=True)
class Estimate:
    value: float | None
    low: float | None = None
    high: float | None = None

    def as_dict(self) -> dict[str, float | None]:
        return {"value": self.value, "low": self.low, "high": self.high}


@dataclass
class Agreement:
    name: str
    group: str  # "all", or "suite=ui", "<field>=<value>"
    kind: str
    n: int  # cases with a judged value and a (consensus) label
    unmatched: int  # labels whose case or name the results do not have
    raters: int = 1
    ties: int = 0  # cases whose raters split evenly on a yes/no: no consensus, left out
    stats: dict[str, Estimate] = field(default_factory=dict)  # accuracy, kappa / pearson, spearman, kendall
    alpha: Estimate | None = None  # Krippendorff's alpha between the raters
    ceiling: dict[str, Estimate] = field(default_factory=dict)  # each rater vs the others: mean (min, max)

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "group": self.group,
            "kind": self.kind,
            "n": self.n,
            "unmatched": self.unmatched,
            "raters": self.raters,
            "ties": self.ties,
            "stats": {k: v.as_dict() for k, v in self.stats.items()},
            "alpha": None if self.alpha is None else self.alpha.as_dict(),
            "ceiling": {k: v.as_dict() for k, v in self.ceiling.items()},
        }


@dataclass(frozen=True)
class Settings:
    confidence: float = DEFAULT_CONFIDENCE
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    kinds: Mapping[str, str] = field(default_factory=dict)  # name (or "*") -> binary | numeric
    by: str = "suite"  # group cases by their suite, or by a case field ("" for no groups)


def read_labels(path: Path) -> list[Label]:
    """The labels of a CSV file, each with its file and line; raises :class:`LabelError` for a file that is not one."""
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = {"case", "name", "label"} - set(reader.fieldnames or ())
            if missing:
                raise LabelError(
                    f"{path}: missing column(s) {', '.join(sorted(missing))} (need case, name, label; rater optional)"
                )
            labels = []
            for row in reader:
                where = f"{path}:{reader.line_num}"
                case, name, value = (str(row.get(k) or "").strip() for k in ("case", "name", "label"))
                if not case or not name:
                    raise LabelError(f"{where}: a label needs a case and a name")
                labels.append(Label(case, name, value, str(row.get("rater") or "").strip(), where))
            return labels
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise LabelError(f"{path}: cannot read the labels ({exc})") from None


def run_agreement(
    records: Sequence[Mapping[str, Any]], path: Path, floors: Mapping[str, float], confidence: float
) -> dict[str, Any]:
    """A run's judges against the labels in ``path``: ``{"labels", "agreement", "below_floor"}``, or ``{"error"}``."""
    try:
        rows = compute({"cases": list(records)}, read_labels(path), Settings(confidence=confidence, by=""))
    except LabelError as exc:
        return {"labels": str(path), "error": str(exc), "agreement": [], "below_floor": [f"the labels cannot be used: {exc}"]}
    return {"labels": str(path), "agreement": [r.as_dict() for r in rows], "below_floor": below_floor(rows, floors)}


# -- judged values ------------------------------------------------------------


@dataclass(frozen=True)
class Judged:
    value: float
    is_gate: bool


def judged_values(results: Mapping[str, Any]) -> dict[tuple[str, str], Judged]:
    """(case key, name) -> the judged value: 1.0/0.0 for a gate, the number for a metric.

    The key is the case's uid, or ``uid[model]`` in a run of several models (label the case that way).
    """
    values: dict[tuple[str, str], Judged] = {}
    for key, case in case_keys(results.get("cases", ())):
        for gate in case.get("gates", ()):
            values[(key, gate["name"])] = Judged(1.0 if gate["passed"] else 0.0, True)
        for metric in case.get("metrics", ()):
            values.setdefault((key, metric["name"]), Judged(float(metric["value"]), False))
    return values


def case_groups(results: Mapping[str, Any], by: str) -> dict[str, str]:
    """Case key -> its group (``suite=x`` or ``<field>=<value>``); empty without grouping."""
    if not by:
        return {}
    groups = {}
    for key, case in case_keys(results.get("cases", ())):
        value = case.get("suite") if by == "suite" else (case.get("fields") or {}).get(by)
        if value is not None:
            groups[key] = f"{by}={value}"
    return groups


# -- label values ---------------------------------------------------------------


def _as_bool(text: str) -> bool | None:
    low = text.strip().lower()
    if low in YES or low == "1":
        return True
    if low in NO or low == "0":
        return False
    return None


def _as_number(text: str) -> float | None:
    try:
        number = float(text.strip())
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def kind_of(name: str, labels: Sequence[Label], judged: Mapping[tuple[str, str], Judged], settings: Settings) -> str:
    """The declared kind of ``name``, or the one its judged values and labels imply (see the module's doc)."""
    declared = settings.kinds.get(name) or settings.kinds.get("*")
    if declared is not None:
        return declared
    if any(judged[(label.case, name)].is_gate for label in labels if (label.case, name) in judged):
        return "binary"
    words = [label for label in labels if _as_number(label.value) is None]
    if not words:
        return "numeric"
    if all(label.value.strip().lower() in YES | NO for label in words):
        return "binary"
    bad = next(label for label in words if label.value.strip().lower() not in YES | NO)
    raise LabelError(
        f"{bad.where or 'labels'}: label {bad.value!r} for {name!r} (case {bad.case}) is neither yes/no nor a number; "
        "fix or remove it (a case nobody could decide is best left unlabelled)"
    )


def _parse(label: Label, kind: str, sides: tuple[str, str] | None = None) -> float:
    if kind == PREFERENCE:
        value = preference_value(label.value, sides)
    else:
        value = _as_bool(label.value) if kind == "binary" else _as_number(label.value)
    if value is None:
        wanted = "yes/no (pass/fail, true/false, 1/0)" if kind == "binary" else "a number"
        if kind == PREFERENCE:
            wanted = "a, b or tie" + (f" (or {sides[0]} or {sides[1]})" if sides else "")
        raise LabelError(f"{label.where or 'labels'}: label {label.value!r} for {label.name!r} is not {wanted}")
    return float(value)


# -- statistics -------------------------------------------------------------------


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' yes/no; None when chance agreement is total (kappa undefined)."""
    n = len(a)
    if n == 0:
        return None
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    pa, pb = sum(a) / n, sum(b) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if math.isclose(expected, 1.0):
        return None
    return (observed - expected) / (1 - expected)


def nominal_kappa(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Cohen's kappa over any number of categories (here a/tie/b); None when chance agreement is total."""
    n = len(a)
    if n == 0:
        return None
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    expected = float(sum(np.mean(x == c) * np.mean(y == c) for c in np.union1d(x, y)))
    if math.isclose(expected, 1.0):
        return None
    return (float(np.mean(x == y)) - expected) / (1 - expected)


def _finite(value: float | None) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _accuracy(human: np.ndarray, judge: np.ndarray) -> float | None:
    return float(np.mean(human == judge)) if len(human) else None


def _kappa(human: np.ndarray, judge: np.ndarray) -> float | None:
    return cohen_kappa([bool(h) for h in human], [bool(j) for j in judge])


def _correlation(kind: str) -> Callable[[np.ndarray, np.ndarray], float | None]:
    def compute(x: np.ndarray, y: np.ndarray) -> float | None:
        if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
            return None  # undefined for a constant side
        if kind == "pearson":
            return _finite(float(np.corrcoef(x, y)[0, 1]))
        from scipy import stats  # here: scipy.stats takes half a second to import, and most runs have no labels

        if kind == "spearman":
            return _finite(float(stats.spearmanr(x, y).statistic))
        return _finite(float(stats.kendalltau(x, y).statistic))

    return compute


BINARY_STATS: dict[str, Callable[[np.ndarray, np.ndarray], float | None]] = {"accuracy": _accuracy, "kappa": _kappa}
NUMERIC_STATS: dict[str, Callable[[np.ndarray, np.ndarray], float | None]] = {
    name: _correlation(name) for name in ("pearson", "spearman", "kendall")
}
PREFERENCE_STATS: dict[str, Callable[[np.ndarray, np.ndarray], float | None]] = {"accuracy": _accuracy, "kappa": nominal_kappa}
STATS = {"binary": BINARY_STATS, "numeric": NUMERIC_STATS, PREFERENCE: PREFERENCE_STATS}


def bootstrap(
    statistic: Callable[[np.ndarray, np.ndarray], float | None], x: np.ndarray, y: np.ndarray, settings: Settings
) -> Estimate:
    """The statistic over the paired cases, with a percentile bootstrap interval (resampling cases)."""
    value = statistic(x, y)
    if value is None or len(x) < 2:
        return Estimate(value)
    rng = np.random.default_rng(settings.seed)
    draws = rng.integers(0, len(x), size=(settings.resamples, len(x)))
    found = [statistic(x[i], y[i]) for i in draws]
    kept = np.array([v for v in found if v is not None], dtype=float)
    if len(kept) < settings.resamples / 2:
        return Estimate(value)  # most resamples are degenerate: no interval worth showing
    tail = 100 * (1 - settings.confidence) / 2
    low, high = np.percentile(kept, [tail, 100 - tail])
    return Estimate(value, min(float(low), value), max(float(high), value))


def krippendorff_alpha(ratings: Mapping[str, Mapping[str, float]], kind: str) -> float | None:
    """Krippendorff's alpha between raters (rater -> case -> value; missing values allowed)."""
    import krippendorff

    raters = sorted(ratings)
    cases = sorted({case for by_case in ratings.values() for case in by_case})
    table = np.array([[ratings[r].get(c, np.nan) for c in cases] for r in raters], dtype=float)
    pairable = np.sum(np.sum(~np.isnan(table), axis=0) >= 2)
    if len(raters) < 2 or pairable < 2 or len(np.unique(table[~np.isnan(table)])) < 2:
        return None
    # A preference is ordinal: A better > a tie > B better.
    level = {"binary": "nominal", PREFERENCE: "ordinal"}.get(kind, "interval")
    alpha = krippendorff.alpha(reliability_data=table, level_of_measurement=level)
    return _finite(float(alpha))


# -- putting it together ----------------------------------------------------------------


def _consensus(values: Sequence[float], kind: str) -> float | None:
    """The raters' shared answer: the majority yes/no (None on a tie), the most chosen preference (None when two
    answers share the most votes), or the mean."""
    if kind == "numeric":
        return float(np.mean(values))
    if kind == PREFERENCE:
        answers, votes = np.unique(np.asarray(values, dtype=float), return_counts=True)
        top = votes == votes.max()
        return float(answers[top][0]) if top.sum() == 1 else None
    yes = sum(1 for v in values if v >= 0.5)
    no = len(values) - yes
    return None if yes == no else float(yes > no)


def _judge_as(kind: str, value: float) -> float:
    return float(value >= 0.5) if kind == "binary" else value


def compute(results: Mapping[str, Any], labels: Sequence[Label], settings: Settings = Settings()) -> list[Agreement]:
    """Every labelled name, over all cases and per group; raises :class:`LabelError` for a label that cannot be read.

    ``results`` is a results document, or a pairwise document (then every name is a pair of runs, of kind preference).
    """
    pairwise = is_pairwise(results)
    sides: dict[str, tuple[str, str]] = {}
    if pairwise:
        preferences, sides = judged_preferences(results)
        judged = {key: Judged(value, False) for key, value in preferences.items()}
        suites = case_suites(results) if settings.by == "suite" else {}
        groups = {case: f"suite={suite}" for case, suite in suites.items()}
    else:
        judged = judged_values(results)
        groups = case_groups(results, settings.by)
    by_name: dict[str, list[Label]] = defaultdict(list)
    for label in labels:
        by_name[label.name].append(label)
    out: list[Agreement] = []
    for name, own in sorted(by_name.items()):
        kind = PREFERENCE if pairwise else kind_of(name, own, judged, settings)
        if kind not in (*KINDS, PREFERENCE):
            raise LabelError(f"the kind of {name!r} must be one of {', '.join(KINDS)}, got {kind!r}")
        ratings: dict[str, dict[str, float]] = defaultdict(dict)  # rater -> case -> value
        unmatched: dict[str, int] = defaultdict(int)  # group -> labels without a judged value
        for label in own:
            value = _parse(label, kind, sides.get(name))
            if (label.case, name) not in judged:
                unmatched["all"] += 1
                continue
            if label.case in ratings[label.rater]:
                raise LabelError(f"{label.where or 'labels'}: a second label of {label.case} {name!r} by the same rater")
            ratings[label.rater][label.case] = value
        cases = sorted({case for by_case in ratings.values() for case in by_case})
        scopes = [("all", cases)]
        values = sorted({groups[c] for c in cases if c in groups})
        if len(values) > 1:
            scopes += [(g, [c for c in cases if groups.get(c) == g]) for g in values]
        for group, scoped in scopes:
            out.append(_agreement(name, group, kind, scoped, ratings, judged, unmatched[group], settings))
    return out


def _agreement(
    name: str,
    group: str,
    kind: str,
    cases: Sequence[str],
    ratings: Mapping[str, Mapping[str, float]],
    judged: Mapping[tuple[str, str], Judged],
    unmatched: int,
    settings: Settings,
) -> Agreement:
    stats = STATS[kind]
    human: list[float] = []
    judge: list[float] = []
    ties = 0
    for case in cases:
        consensus = _consensus([r[case] for r in ratings.values() if case in r], kind)
        if consensus is None:
            ties += 1
            continue
        human.append(consensus)
        judge.append(_judge_as(kind, judged[(case, name)].value))
    x, y = np.array(human), np.array(judge)
    found = Agreement(name, group, kind, len(human), unmatched, raters=len(ratings), ties=ties)
    found.stats = {stat: bootstrap(function, x, y, settings) for stat, function in stats.items()}
    if len(ratings) > 1:
        scoped = {rater: {c: v for c, v in by_case.items() if c in set(cases)} for rater, by_case in ratings.items()}
        found.alpha = Estimate(krippendorff_alpha(scoped, kind))
        found.ceiling = _ceiling(scoped, kind, stats)
    return found


def _ceiling(
    ratings: Mapping[str, Mapping[str, float]],
    kind: str,
    stats: Mapping[str, Callable[[np.ndarray, np.ndarray], float | None]],
) -> dict[str, Estimate]:
    """Each rater against the consensus of the others, per statistic: the mean over raters (min, max)."""
    per_stat: dict[str, list[float]] = defaultdict(list)
    for rater, own in ratings.items():
        pairs = []
        for case, value in own.items():
            others = [r[case] for name, r in ratings.items() if name != rater and case in r]
            consensus = _consensus(others, kind) if others else None
            if consensus is not None:
                pairs.append((value, consensus))
        if len(pairs) < 2:
            continue
        x, y = np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])
        for stat, function in stats.items():
            found = function(x, y)
            if found is not None:
                per_stat[stat].append(found)
    return {stat: Estimate(float(np.mean(v)), min(v), max(v)) for stat, v in per_stat.items() if v}


def below_floor(rows: Sequence[Agreement], floors: Mapping[str, float]) -> list[str]:
    """Why agreement is too low: ``floors`` maps ``stat`` or ``name:stat`` to the least acceptable value.

    Checked on the whole of each name (group ``all``); a statistic that could not be computed is below any floor.
    """
    found = []
    for row in rows:
        if row.group != "all":
            continue
        for stat, estimate in row.stats.items():
            floor = floors.get(f"{row.name}:{stat}", floors.get(stat))
            if floor is None:
                continue
            if estimate.value is None or estimate.value < floor:
                shown = "undefined" if estimate.value is None else f"{estimate.value:.3f}"
                found.append(f"{row.name}: judge-human {stat} {shown} < {floor:g} over {row.n} case(s)")
    return found

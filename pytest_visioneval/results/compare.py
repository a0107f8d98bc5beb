"""Compare runs case by case: score differences with intervals, pass-rate tests, flips, largest changes.

Inputs are results documents (docs/results-format.md). Cases are paired by
uid - by ``uid[model]`` when a run holds several models - and one run with
several models is split into one side per model. Every difference is
``B - A`` over the cases both sides have, with a paired bootstrap interval
(:mod:`.statistics`); pass rates come with McNemar's exact test. Flips are
listed per case (pass, fail, error) and per gate (a gate can flip inside a
case that failed in both runs). Timings
(metric names ending in ``.seconds``, and a case's ``timings``) are left out:
they measure the machine, not the model. The result is plain JSON data.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Any

from ..protocols.base import compat_mode
from .statistics import DEFAULT_CONFIDENCE, DEFAULT_RESAMPLES, DEFAULT_SEED, Interval, mcnemar_exact, paired_bootstrap

SCHEMA_NAME = "pytest-visioneval/compare"
SCHEMA_VERSION = 1
DEFAULT_TOP = 5
DEFAULT_ALPHA = 0.05
# Below this many paired cases a score gets no verdict: a percentile bootstrap interval never reaches past the
# smallest and largest observed difference, so with a handful of cases it is far too narrow to trust.
DEFAULT_MIN_PAIRS = 10

# A case's status -> its outcome in a comparison; skipped and xfailed cases decide nothing.
_OUTCOMES = {"passed": "pass", "xpassed": "pass", "failed": "fail", "error": "error"}
# Flips listed worst first.
_FLIP_ORDER = ("pass->fail", "pass->error", "fail->error", "fail->pass", "error->pass", "error->fail")


def is_timing(name: str) -> bool:
    """A metric that measures time (``render.seconds``, ``case.seconds``...), not quality."""
    return name == "seconds" or name.endswith(".seconds")


@dataclass(frozen=True)
class Settings:
    confidence: float = DEFAULT_CONFIDENCE
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    top: int = DEFAULT_TOP
    alpha: float = DEFAULT_ALPHA
    min_pairs: int = DEFAULT_MIN_PAIRS

    def as_dict(self) -> dict[str, Any]:
        return {
            **asdict(self),
            "method": "paired percentile bootstrap over cases; McNemar exact test (two-sided) for pass rates",
        }


@dataclass(frozen=True)
class Side:
    """One side of a comparison: a run, or one model of a run that holds several."""

    label: str
    source: str
    run_id: str
    model: str
    cases: Mapping[str, Mapping[str, Any]]  # key (uid, or uid[model]) -> case record
    benchmarks: Mapping[str, Any] = field(default_factory=dict)
    complete: bool = True
    judges: Mapping[str, Any] = field(default_factory=dict)  # the run's judge provenance (results' "judges")

    def describe(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "source": self.source,
            "run_id": self.run_id,
            "model": self.model,
            "cases": len(self.cases),
            "complete": self.complete,
        }


def sides_of(documents: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Side]:
    """The sides to compare: one per document, or one per model when a single document holds several.

    ``documents`` are ``(source, document)`` pairs. Raises ``ValueError`` when
    there is nothing to compare or a side holds one case twice.
    """
    if not documents:
        raise ValueError("compare needs at least two results files, or one run with several models")
    models = [_models(document) for _, document in documents]
    if len(documents) == 1:
        source, document = documents[0]
        if len(models[0]) < 2:
            raise ValueError(f"{source}: one run of one model; compare needs two runs, or one run with several models")
        return [_side(model, source, document, only_model=model, by_model=False) for model in models[0]]
    by_model = any(len(found) > 1 for found in models)
    labels = _labels([source for source, _ in documents])
    return [
        _side(label, source, document, by_model=by_model) for label, (source, document) in zip(labels, documents, strict=True)
    ]


def compare_runs(sides: Sequence[Side], settings: Settings = Settings(), *, all_pairs: bool = False) -> dict[str, Any]:
    """Each side against the first (the baseline), or every pair with ``all_pairs``."""
    if len(sides) < 2:
        raise ValueError("compare needs at least two sides")
    pairs = list(combinations(range(len(sides)), 2)) if all_pairs else [(0, i) for i in range(1, len(sides))]
    comparisons = [compare_pair(sides[i], sides[j], settings) for i, j in pairs]
    return {
        "schema": SCHEMA_NAME,
        "schema_version": SCHEMA_VERSION,
        "settings": settings.as_dict(),
        "runs": [side.describe() for side in sides],
        "pairs": "all" if all_pairs else "baseline",
        "comparisons": comparisons,
        "regressions": [reason for comparison in comparisons for reason in comparison["regressions"]],
    }


def compare_pair(a: Side, b: Side, settings: Settings = Settings()) -> dict[str, Any]:
    """Side ``b`` against side ``a``: every difference is ``b - a``."""
    shared = sorted(set(a.cases) & set(b.cases))
    only_a = sorted(set(a.cases) - set(b.cases))
    only_b = sorted(set(b.cases) - set(a.cases))
    directions = _directions([*a.cases.values(), *b.cases.values()])
    # suite -> (paired keys, keys only in A, keys only in B)
    suites: dict[str, tuple[list[str], list[str], list[str]]] = defaultdict(lambda: ([], [], []))
    for keys, side, slot in ((shared, b, 0), (only_a, a, 1), (only_b, b, 2)):
        for key in keys:
            suites[str(side.cases[key]["suite"])][slot].append(key)
    comparison: dict[str, Any] = {
        "a": a.label,
        "b": b.label,
        "cases": {"paired": len(shared), "only_a": only_a, "only_b": only_b},
        "overall": _pass_rate(a, b, shared, settings),
        "protocols": _protocols(a, b, (shared, only_a, only_b), directions, settings),
        "suites": {
            suite: {
                "cases": len(keys[0]),
                "only_a": len(keys[1]),
                "only_b": len(keys[2]),
                "pass_rate": _pass_rate(a, b, keys[0], settings),
                "metrics": _suite_metrics(a, b, keys, directions, settings),
            }
            for suite, keys in sorted(suites.items())
        },
        "judge_changes": [*judge_changes(a.judges, b.judges), *soft_hard_changes(a, b, shared)],
        "scoring_changes": soft_hard_changes(a, b, shared),
        "flips": _flips(a, b, shared),
        "gate_flips": _gate_flips(a, b, shared),
        "changes": _changes(a, b, shared, directions, settings.top),
    }
    comparison["regressions"] = regressions(comparison, settings.alpha)
    return comparison


def regressions(comparison: Mapping[str, Any], alpha: float) -> list[str]:
    """Why B is worse than A: a score whose interval lies wholly on the worse side of 0, or a pass rate that dropped
    with McNemar p < ``alpha``; one line each."""
    pair = f"{comparison['b']} vs {comparison['a']}"
    found: list[str] = []

    def pass_rate(where: str, block: Mapping[str, Any] | None) -> None:
        if block and block["diff"] < 0 and block["p_value"] < alpha:
            found.append(
                f"{pair}: {where} pass rate {_pct(block['a'])} -> {_pct(block['b'])} "
                f"(McNemar p={block['p_value']:.3g} < {alpha:g})"
            )

    def score(where: str, name: str, block: Mapping[str, Any]) -> None:
        if block.get("verdict") == "worse":
            found.append(f"{pair}: {where}{name} {block['diff']:+.4g} [{block['low']:+.4g}, {block['high']:+.4g}]")

    pass_rate("overall", comparison["overall"])
    for protocol, scores in comparison["protocols"].items():
        for name, block in scores["scores"].items():
            score("", f"{protocol}.{name}", block)
    for suite, result in comparison["suites"].items():
        pass_rate(f"suite {suite}", result["pass_rate"])
        for name, block in result["metrics"].items():
            score(f"suite {suite} ", name, block)
    return found


def judge_changes(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[str]:
    """How the judges of B differ from A's: a judge added or gone, or a provenance field with other values.

    A judge scoring differently is a reason scores moved that has nothing to do with the model.
    """
    changes = [f"judge {name} only in B" for name in sorted(set(b) - set(a))]
    changes += [f"judge {name} only in A" for name in sorted(set(a) - set(b))]
    for name in sorted(set(a) & set(b)):
        for key in sorted(set(a[name]) | set(b[name])):
            before, after = a[name].get(key), b[name].get(key)
            if before != after:
                changes.append(f"judge {name} {key}: {before} -> {after}")
    return changes


def soft_hard_changes(a: Side, b: Side, keys: Sequence[str]) -> list[str]:
    """A judge grader scored soft (P(yes) from token probabilities) on one side and hard on the other, per suite.

    A soft checklist records ``<grader>.soft_score`` beside its hard ``<grader>.score``; its hard answers come
    from those probabilities, so its numbers moving is no news about the model.
    """
    modes: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)  # (suite, grader) -> side -> soft/hard
    for label, side in (("A", a), ("B", b)):
        for key in keys:
            case = side.cases[key]
            names = {str(m.get("name", "")) for m in case.get("metrics", ())}
            for name in names:
                grader, _, metric = name.rpartition(".")
                if metric == "score" and grader:
                    mode = "soft" if f"{grader}.soft_score" in names else "hard"
                    modes[(str(case["suite"]), grader)].setdefault(label, mode)
    return [
        f"suite {suite}: {grader} scored {seen['A']} in A, {seen['B']} in B (soft: P(yes) from token probabilities)"
        for (suite, grader), seen in sorted(modes.items())
        if len(seen) == 2 and seen["A"] != seen["B"]
    ]


# -- sides --


def _models(document: Mapping[str, Any]) -> list[str]:
    """The document's models: in ``--model`` order for a run of several (the first is the baseline), else by name."""
    found = {_model_of(case, document) for case in document.get("cases", ())}
    given = [m for m in document.get("run", {}).get("models") or () if m in found]
    return given + sorted(found - set(given))


def _model_of(case: Mapping[str, Any], document: Mapping[str, Any]) -> str:
    return str(case.get("model") or document.get("run", {}).get("model") or "")


def _base_uid(case: Mapping[str, Any]) -> str:
    """The case's uid without a ``[model]`` suffix (a run of several models may name its cases so)."""
    uid = str(case["uid"])
    model = case.get("model")
    suffix = f"[{model}]"
    return uid[: -len(suffix)] if model and uid.endswith(suffix) else uid


def _labels(sources: Sequence[str]) -> list[str]:
    """Each file's name, or its whole path where two names are the same."""
    names = [source.replace("\\", "/").rsplit("/", 1)[-1] for source in sources]
    return [name if names.count(name) == 1 else source for name, source in zip(names, sources, strict=True)]


def _side(label: str, source: str, document: Mapping[str, Any], *, by_model: bool, only_model: str | None = None) -> Side:
    """The cases of ``document`` (of ``only_model`` alone when given), keyed for pairing."""
    cases: dict[str, Mapping[str, Any]] = {}
    models: set[str] = set()
    for case in document.get("cases", ()):
        model = _model_of(case, document)
        if only_model is not None and model != only_model:
            continue
        models.add(model)
        key = f"{_base_uid(case)}[{model}]" if by_model else _base_uid(case)
        if key in cases:
            raise ValueError(f"{source}: case {key} appears twice; cannot pair it")
        cases[key] = case
    run = document.get("run", {})
    return Side(
        label=label,
        source=source,
        run_id=str(run.get("id", "")),
        model=", ".join(sorted(models)) or str(run.get("model", "")),
        cases=cases,
        benchmarks=_benchmarks(document, only_model),
        complete=document.get("complete", True) is not False,
        judges=document.get("judges") or {},
    )


def _benchmarks(document: Mapping[str, Any], model: str | None) -> Mapping[str, Any]:
    """A run's benchmark results; one model's own from a run of several (its ``models`` section)."""
    sections = document.get("models")
    if not isinstance(sections, Mapping):
        return document.get("benchmarks") or {}
    if model is not None:
        return (sections.get(model) or {}).get("benchmarks") or {}
    # A side of every model (two runs of several models each): the protocols of any, by name as one run has them.
    merged: dict[str, Any] = {}
    for section in sections.values():
        for protocol, result in (section.get("benchmarks") or {}).items():
            merged.setdefault(protocol, result)
    return merged


# -- values --


def _metrics(case: Mapping[str, Any]) -> dict[str, float]:
    return {m["name"]: float(m["value"]) for m in case.get("metrics", ()) if not is_timing(m["name"])}


def _directions(cases: Iterable[Mapping[str, Any]]) -> dict[str, bool]:
    """metric name -> higher_is_better, as the cases record it (first seen wins)."""
    found: dict[str, bool] = {}
    for case in cases:
        for metric in case.get("metrics", ()):
            found.setdefault(metric["name"], bool(metric.get("higher_is_better", True)))
    return found


def _outcome(case: Mapping[str, Any]) -> str | None:
    return _OUTCOMES.get(str(case.get("status")))


def _score_value(side: Side, protocol: str, score: str, case: Mapping[str, Any]) -> float | None:
    """A case's benchmark score in this side's run, by the run's own rule for errored cases.

    An errored case has no scores: it counts as 0 where it runs in ``compat:
    improved``, and is left out (unpaired) under ``official``, as in the run's
    ``benchmarks`` section.
    """
    if case.get("protocol") != protocol or case.get("status") in ("skipped", "xfailed"):
        return None
    if case.get("status") == "error":
        # The case's own mode where its record carries one, else the run's mode for the protocol.
        fields = case.get("fields") or {}
        compat = side.benchmarks.get(protocol, {}).get("compat", "official")
        if "compat" in fields or compat == "mixed":
            compat = compat_mode(fields)
        return 0.0 if compat == "improved" else None
    return _metrics(case).get(f"{protocol}.{score}")


# -- sections --


def _difference(
    pairs: Sequence[tuple[float, float]], unpaired_a: int, unpaired_b: int, higher_is_better: bool, settings: Settings
) -> dict[str, Any] | None:
    interval = paired_bootstrap(
        [p[0] for p in pairs],
        [p[1] for p in pairs],
        confidence=settings.confidence,
        resamples=settings.resamples,
        seed=settings.seed,
    )
    if interval is None:
        return None
    return {
        **_interval_dict(interval),
        "only_a": unpaired_a,  # cases with a value in A alone (not in B, or B has none for it)
        "only_b": unpaired_b,
        "higher_is_better": higher_is_better,
        "verdict": _verdict(interval, higher_is_better, settings.min_pairs),
    }


def _interval_dict(interval: Interval) -> dict[str, Any]:
    return {
        "n": interval.n,
        "mean_a": interval.mean_a,
        "mean_b": interval.mean_b,
        "diff": interval.diff,
        "low": interval.low,
        "high": interval.high,
    }


def _verdict(interval: Interval, higher_is_better: bool, min_pairs: int) -> str:
    """``better``/``worse`` when the whole interval lies on one side of 0, else ``unclear``.

    ``unchanged`` when every paired value is the same; ``too few`` below ``min_pairs`` paired cases.
    """
    if interval.low == interval.high == interval.diff == 0:
        return "unchanged"
    if interval.n < min_pairs:
        return "too few"
    if interval.low > 0 or interval.high < 0:
        return "better" if (interval.low > 0) == higher_is_better else "worse"
    return "unclear"


def _pass_rate(a: Side, b: Side, keys: Sequence[str], settings: Settings) -> dict[str, Any] | None:
    pairs = [(_outcome(a.cases[k]), _outcome(b.cases[k])) for k in keys]
    decided = [(x == "pass", y == "pass") for x, y in pairs if x is not None and y is not None]
    interval = paired_bootstrap(
        [float(x) for x, _ in decided],
        [float(y) for _, y in decided],
        confidence=settings.confidence,
        resamples=settings.resamples,
        seed=settings.seed,
    )
    if interval is None:
        return None
    a_only = sum(1 for x, y in decided if x and not y)
    b_only = sum(1 for x, y in decided if y and not x)
    return {
        **_interval_dict(interval),
        "a": interval.mean_a,
        "b": interval.mean_b,
        "a_only_passed": a_only,
        "b_only_passed": b_only,
        "p_value": mcnemar_exact(a_only, b_only),
    }


# (paired keys, keys only in A, keys only in B)
_Keys = tuple[Sequence[str], Sequence[str], Sequence[str]]


def _protocols(a: Side, b: Side, keys: _Keys, directions: Mapping[str, bool], settings: Settings) -> dict[str, Any]:
    shared, only_a_keys, only_b_keys = keys
    out: dict[str, Any] = {}
    for protocol in sorted(set(a.benchmarks) | set(b.benchmarks)):
        names = sorted(
            set(a.benchmarks.get(protocol, {}).get("scores", {})) | set(b.benchmarks.get(protocol, {}).get("scores", {}))
        )
        scores: dict[str, Any] = {}
        for name in names:
            pairs: list[tuple[float, float]] = []
            only_a = only_b = 0
            for key in shared:
                x = _score_value(a, protocol, name, a.cases[key])
                y = _score_value(b, protocol, name, b.cases[key])
                if x is not None and y is not None:
                    pairs.append((x, y))
                elif x is not None:
                    only_a += 1
                elif y is not None:
                    only_b += 1
            only_a += sum(1 for k in only_a_keys if _score_value(a, protocol, name, a.cases[k]) is not None)
            only_b += sum(1 for k in only_b_keys if _score_value(b, protocol, name, b.cases[k]) is not None)
            block = _difference(pairs, only_a, only_b, directions.get(f"{protocol}.{name}", True), settings)
            if block is not None:
                scores[name] = block
        out[protocol] = {"scores": scores}
    return out


def _suite_metrics(a: Side, b: Side, keys: _Keys, directions: Mapping[str, bool], settings: Settings) -> dict[str, Any]:
    """Every metric of the suite (timings aside), paired over the cases where both runs recorded it."""
    shared, only_a_keys, only_b_keys = keys
    values: dict[str, list[tuple[float, float]]] = defaultdict(list)
    unpaired: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key in shared:
        x, y = _metrics(a.cases[key]), _metrics(b.cases[key])
        for name in x.keys() | y.keys():
            if name in x and name in y:
                values[name].append((x[name], y[name]))
            else:
                unpaired[name][0 if name in x else 1] += 1
    for slot, side, unshared in ((0, a, only_a_keys), (1, b, only_b_keys)):
        for key in unshared:
            for name in _metrics(side.cases[key]):
                unpaired[name][slot] += 1
    out: dict[str, Any] = {}
    for name in sorted(values):
        only_a, only_b = unpaired[name]
        block = _difference(values[name], only_a, only_b, directions.get(name, True), settings)
        if block is not None:
            out[name] = block
    return out


def _flips(a: Side, b: Side, keys: Sequence[str]) -> list[dict[str, Any]]:
    flips = []
    for key in keys:
        x, y = _outcome(a.cases[key]), _outcome(b.cases[key])
        if x is None or y is None or x == y:
            continue
        case = b.cases[key]
        flips.append(
            {
                "case": key,
                "suite": case["suite"],
                "kind": f"{x}->{y}",
                "a": a.cases[key]["status"],
                "b": case["status"],
                "why": _why(case) if y != "pass" else _why(a.cases[key]),
            }
        )
    return sorted(flips, key=lambda f: (_FLIP_ORDER.index(f["kind"]), f["case"]))


def _gate_flips(a: Side, b: Side, keys: Sequence[str]) -> list[dict[str, Any]]:
    """Gates that passed in one run and failed in the other, case by case.

    A case that failed in both runs is no case flip, though one of its gates
    may have flipped each way: those show here.
    """
    flips = []
    for key in keys:
        before = {g["name"]: g for g in a.cases[key].get("gates", ())}
        after = {g["name"]: g for g in b.cases[key].get("gates", ())}
        for name in sorted(before.keys() & after.keys()):
            x, y = bool(before[name]["passed"]), bool(after[name]["passed"])
            if x == y:
                continue
            failed = after[name] if x else before[name]  # why it fails now, or why it used to
            flips.append(
                {
                    "case": key,
                    "suite": b.cases[key]["suite"],
                    "gate": name,
                    "kind": "pass->fail" if x else "fail->pass",
                    "gating": bool(failed.get("gating", True)),
                    "why": str(failed.get("reason") or "").strip().split("\n")[0],
                }
            )
    return sorted(flips, key=lambda f: (f["kind"] != "pass->fail", f["case"], f["gate"]))


def _why(case: Mapping[str, Any]) -> str:
    """The first line of what went wrong with a case: its error, else its failed gates."""
    if case.get("error"):
        return str(case["error"]).strip().splitlines()[0] if str(case["error"]).strip() else ""
    failed = [
        f"{g['name']}: {g.get('reason', '')}".strip() for g in case.get("gates", ()) if not g["passed"] and g.get("gating", True)
    ]
    if failed:
        return "; ".join(failed)
    message = str(case.get("message") or "").strip()
    return message.splitlines()[0] if message else ""


def _changes(a: Side, b: Side, keys: Sequence[str], directions: Mapping[str, bool], top: int) -> dict[str, list[dict[str, Any]]]:
    """Per metric, the ``top`` cases whose value changed most (largest ``|b - a|``, then uid)."""
    per_metric: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for key in keys:
        x, y = _metrics(a.cases[key]), _metrics(b.cases[key])
        for name in x.keys() & y.keys():
            delta = y[name] - x[name]
            if delta != 0 and math.isfinite(delta):
                worse = delta < 0 if directions.get(name, True) else delta > 0
                per_metric[name].append({"case": key, "a": x[name], "b": y[name], "delta": delta, "worse": worse})
    return {
        name: sorted(rows, key=lambda r: (-abs(r["delta"]), r["case"]))[:top]
        for name, rows in sorted(per_metric.items())
        if top > 0
    }


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"

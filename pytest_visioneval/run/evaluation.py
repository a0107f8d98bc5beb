"""One case's whole evaluation as a job: repeats of generate -> prepare -> grade.

The job returns a plain JSON outcome (what the case's record needs, plus the
evaluation itself), so the same outcome can be made in a background thread or
by another xdist worker and handed over through a file (see :mod:`pipeline`).
Errors the project raises (:class:`VisionEvalError`) become the outcome's
``error``; so does a write the disk refuses (full, read-only: see
:data:`~pytest_visioneval.artifacts.DISK_ERRNOS`), worded as a ``DiskError``
naming the folder; anything else is a bug and is reported as an error naming it. A call
deliberately not made (it waits in a provider batch, or the budget is spent)
makes the outcome ``not_evaluated``, with the reason.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, disk_error_message, is_disk_error
from ..calls.deferred import CallDeferred
from ..calls.layer import case_repeat
from ..calls.usage import usage_scope
from ..calls.waiting import WouldWait, without_waiting
from ..cases.spec import CaseSpec
from ..errors import VisionEvalError
from ..graders import Gate, Metric
from ..graders.outcome import CaseEvaluation, GateOutcome
from .case import generate, grade, protocol_metrics
from .case_log import collecting
from .entries import artifact_entry, gate_entry, metric_entry
from .environment import Environment
from .page_rule import prepare_output
from .repeats import combine, flaky_metrics


def evaluate_case(case: CaseSpec, env: Environment) -> dict[str, Any]:
    """Evaluate ``case``; never raises for a case's own problems (they land in ``error``)."""
    outcome: dict[str, Any] = {"uid": case.uid, "model": env.model_label, "artifacts": [], "error": None, "timings": {}}
    started = time.monotonic()
    with usage_scope() as usage, collecting() as log:
        try:
            outcome.update(_evaluate(case, env, outcome))
        except CallDeferred as exc:
            outcome["not_evaluated"] = {"reason": exc.reason, "detail": exc.detail}
        except VisionEvalError as exc:
            outcome["error"] = f"{type(exc).__name__}: {exc}" + (
                f" (repeat {outcome['_repeat']} of {env.repeats})" if env.repeats > 1 else ""
            )
        except Exception as exc:  # a bug, not the case's fault: still an error of this case, with where it happened
            if is_disk_error(exc):  # a full or read-only disk is the machine's state, not a bug: no traceback
                outcome["error"] = disk_error_message(exc)  # type: ignore[arg-type]  # an OSError
            else:
                where = traceback.format_exception(exc)[-3:]
                outcome["error"] = f"internal error {type(exc).__name__}: {exc}\n{''.join(where)}"
    outcome.pop("_repeat", None)
    outcome["timings"]["case.seconds"] = round(time.monotonic() - started, 3)
    outcome["usage"] = usage.as_dict()
    outcome["judges"] = usage.judges()
    if log:
        outcome["log"] = log  # the records made meanwhile, for this case's report (see case_log)
    return outcome


def evaluate_without_waiting(case: CaseSpec, env: Environment) -> dict[str, Any] | None:
    """:func:`evaluate_case` on this thread, or ``None`` as soon as it would wait (see :mod:`calls.waiting`)."""
    with without_waiting():
        try:
            return evaluate_case(case, env)
        except WouldWait:
            return None  # what it did so far (outputs stored, grades) is done again by the thread that takes it


def _evaluate(case: CaseSpec, env: Environment, outcome: dict[str, Any]) -> dict[str, Any]:
    if env.mutants:
        from .mutation import mutation_outcome  # the mutants and what they import: only for the self-test

        baseline, mutation = mutation_outcome(case, env, outcome)
        return {**_entries(case, baseline), "mutation": mutation}
    evaluations: list[CaseEvaluation] = []
    for index in range(env.repeats):
        outcome["_repeat"] = index + 1
        with case_repeat(index):
            evaluations.append(_one_repeat(case, env, index, outcome))
    repeated = combine(evaluations, case.repeat_policy)
    evaluation = repeated.evaluation
    result: dict[str, Any] = {}
    if env.repeats > 1:
        result["repeats"] = repeated.repeats
        result["flaky_gates"] = list(repeated.flaky_gates)
    spread = flaky_metrics(evaluation.metrics, env.flaky_spread)
    if spread:
        result["flaky_metrics"] = spread
    return {**result, **_entries(case, evaluation)}


def _entries(case: CaseSpec, evaluation: CaseEvaluation) -> dict[str, Any]:
    """The evaluation and the protocol's scores as the plain JSON of an outcome."""
    result: dict[str, Any] = {}
    result["evaluation"] = {
        "artifacts": [artifact_entry(a) for a in evaluation.artifacts],
        "gates": [gate_entry(g.gate.name, g.gate.passed, g.gate.reason, g.gating) for g in evaluation.gates],
        "metrics": [metric_entry(m.name, m.value, m.reason, m.higher_is_better) for m in evaluation.metrics],
        "skipped": [{"name": name, "reason": reason} for name, reason in evaluation.skipped],
    }
    result["protocol_metrics"] = [
        metric_entry(m.name, m.value, m.reason, m.higher_is_better) for m in protocol_metrics(case, evaluation)
    ]
    return result


def _one_repeat(case: CaseSpec, env: Environment, index: int, outcome: dict[str, Any]) -> CaseEvaluation:
    # Each repeat keeps its outputs in its own folder: <case>/r1, <case>/r2, ...
    folder = case.id if env.repeats == 1 else f"{case.id}/r{index + 1}"
    artifacts = generate(case, env.model, env.store, env.model_params, folder=folder, label=env.model_label)
    outcome["artifacts"] += [artifact_entry(a) for a in artifacts]  # kept even if preparing the page fails
    prepared = prepare_output(case, artifacts, env, folder)
    outcome["artifacts"] += [artifact_entry(a) for a in prepared.artifacts[len(artifacts) :]]
    for name, seconds in prepared.timings.items():  # summed over repeats: the time the case cost
        outcome["timings"][name] = round(outcome["timings"].get(name, 0.0) + seconds, 3)
    return grade(case, prepared.artifacts, env.context, prepared.metrics, env.grades)


def evaluation_from(case: CaseSpec, outcome: Mapping[str, Any]) -> CaseEvaluation:
    """Rebuild the :class:`CaseEvaluation` of a successful outcome (its artifacts are read from disk when used)."""
    data = outcome["evaluation"]
    artifacts = tuple(Artifact.on_disk(a["name"], Path(a["path"]), a["mime"]) for a in data["artifacts"])
    gates = tuple(GateOutcome(Gate(g["name"], g["passed"], g["reason"]), g["gating"]) for g in data["gates"])
    metrics = tuple(Metric(m["name"], m["value"], m["reason"], m["higher_is_better"]) for m in data["metrics"])
    skipped = tuple((s["name"], s["reason"]) for s in data["skipped"])
    return CaseEvaluation(case, artifacts, gates, metrics, skipped)

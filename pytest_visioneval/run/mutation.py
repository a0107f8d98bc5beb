"""The mutation self-test of one case: grade its known-good output and every mutant of it.

With ``--eval-mutants`` each case's known-good output (what ``--model``
returns: the case's reference, or a replayed output) is graded as usual and
must pass; then each mutant of it (:mod:`pytest_visioneval.mutants`) is
stored under ``<case>/mutants/<name>/``, prepared (pages extracted and
rendered again) and graded with the case's gates. The judges are not asked:
the run's grade context holds none in this mode, so only deterministic gates
decide. A broken mutant is *caught* when a gating gate fails or the case
cannot be evaluated; a legitimate variant must pass every gate.
"""

from __future__ import annotations

from typing import Any

from ..artifacts import Artifact, ModelOutput
from ..cases.spec import CaseSpec
from ..errors import VisionEvalError
from ..graders.outcome import CaseEvaluation
from ..mutants.base import Mutant
from ..mutants.catalog import mutants_for
from .case import generate, grade
from .entries import artifact_entry
from .environment import Environment
from .page_rule import prepare_output


def mutation_outcome(case: CaseSpec, env: Environment, outcome: dict[str, Any]) -> tuple[CaseEvaluation, dict[str, Any]]:
    """The known-good output's evaluation, and the mutation entries of the case's record.

    ``outcome["artifacts"]`` gets the known-good output's files, as a normal run's.
    """
    artifacts = generate(case, env.model, env.store, env.model_params, label=env.model_label)
    outcome["artifacts"] += [artifact_entry(a) for a in artifacts]
    baseline = _graded(case, env, artifacts, case.id)
    outcome["artifacts"] += [artifact_entry(a) for a in baseline.artifacts[len(artifacts) :]]
    made = mutants_for(case, _raw(artifacts))
    results = [_mutant_entry(case, env, mutant) for mutant in made.mutants]
    mutation = {
        "baseline_passed": not baseline.failed_gates,
        "mutants": results,
        "not_applicable": [{"name": s.name, "reason": s.reason} for s in made.not_applicable],
    }
    return baseline, mutation


def _raw(artifacts: tuple[Artifact, ...]) -> tuple[Artifact, ...]:
    """The artifacts without their stored paths: a mutant is a new output, stored in its own folder."""
    return tuple(Artifact(a.name, a.data, a.mime) for a in artifacts)


def _graded(case: CaseSpec, env: Environment, artifacts: tuple[Artifact, ...], folder: str) -> CaseEvaluation:
    prepared = prepare_output(case, artifacts, env, folder)
    return grade(case, prepared.artifacts, env.context, prepared.metrics)


def _mutant_entry(case: CaseSpec, env: Environment, mutant: Mutant) -> dict[str, Any]:
    folder = f"{case.id}/mutants/{mutant.name}"
    entry: dict[str, Any] = {
        "name": mutant.name,
        "broken": mutant.broken,
        "description": mutant.description,
        "failed_gates": [],
        "error": None,
    }
    try:
        saved = env.store.save(env.model_label, case.suite, folder, ModelOutput(mutant.artifacts, {"mutant": mutant.name}))
        evaluation = _graded(case, env, saved, folder)
    except VisionEvalError as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"
    else:
        entry["failed_gates"] = [{"name": g.name, "reason": g.reason} for g in evaluation.failed_gates]
    entry["caught"] = bool(entry["failed_gates"]) or entry["error"] is not None
    return entry


def mutation_problems(uid: str, mutation: dict[str, Any]) -> list[str]:
    """What a user reads when the self-test of a case finds a blind or a brittle gate."""
    problems = []
    if not mutation["baseline_passed"]:
        problems.append(f"{uid}: the known-good output fails its own gates, so its mutants tell nothing")
    for m in mutation["mutants"]:
        if m["broken"] and not m["caught"]:
            problems.append(f"{uid}: mutant {m['name']} ({m['description']}) passed every gate: your suite cannot see this")
        elif not m["broken"] and m["caught"]:
            why = m["error"] or "; ".join(f"{g['name']}: {g['reason']}" for g in m["failed_gates"])
            problems.append(f"{uid}: legitimate variant {m['name']} ({m['description']}) failed: {why}: this gate is brittle")
    return problems

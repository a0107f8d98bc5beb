"""The mutation self-test of one case: grade its known-good output and every mutant of it.

With ``--eval-mutants`` each case's known-good output (what ``--model``
returns: the case's reference, or a replayed output) is graded as usual and
must pass; then each mutant of it (:mod:`pytest_visioneval.mutants`, drawn
from ``--eval-mutants-seed``, ``--eval-mutants-per-family`` per family) is
stored under ``<case>/mutants/<family>-<class>-<n>/``, prepared (pages
extracted and rendered again) and graded with the case's deterministic gates.

A broken mutant is *caught* when a gating gate fails or the case cannot be
evaluated. When none of the case's gating graders can see the property the
mutant breaks (its class's ``seen_by``) and no gate failed, it is
*judge-only*: neither caught nor missed. With judges in the environment's
context (``--judge``) such mutants are graded by the judge graders too, and
are caught when a judge's gate fails. A legitimate variant must pass every
gate.
"""

from __future__ import annotations

from typing import Any

from ..artifacts import Artifact, ModelOutput
from ..cases.spec import CaseSpec
from ..errors import VisionEvalError
from ..graders import GradeContext
from ..graders.outcome import CaseEvaluation
from ..mutants.base import Mutant
from ..mutants.catalog import mutants_for
from ..mutants.seen_by import JUDGES
from ..mutants.settings import MutationSettings
from .case import generate, grade
from .entries import artifact_entry
from .environment import Environment
from .page_rule import prepare_output

NO_JUDGES = GradeContext()  # deterministic gates only: a judge skips itself without a client


def mutation_outcome(case: CaseSpec, env: Environment, outcome: dict[str, Any]) -> tuple[CaseEvaluation, dict[str, Any]]:
    """The known-good output's evaluation, and the mutation entries of the case's record.

    ``outcome["artifacts"]`` gets the known-good output's files, as a normal run's.
    """
    settings = settings_of(env)
    artifacts = generate(case, env.model, env.store, env.model_params, label=env.model_label)
    outcome["artifacts"] += [artifact_entry(a) for a in artifacts]
    baseline = _graded(case, env, artifacts, case.id, NO_JUDGES)
    outcome["artifacts"] += [artifact_entry(a) for a in baseline.artifacts[len(artifacts) :]]
    made = mutants_for(case, _raw(artifacts), settings)
    results = [mutant_entry(case, env, mutant) for mutant in made.mutants]
    mutation = {
        "baseline_passed": not baseline.failed_gates,
        "seed": settings.seed,
        "per_family": settings.per_family,
        "judged": bool(env.context.judges),
        "mutants": results,
        "not_applicable": [{"name": s.name, "reason": s.reason} for s in made.not_applicable],
    }
    return baseline, mutation


def settings_of(env: Environment) -> MutationSettings:
    """The seed and the number per family: the environment's ``mutants`` when it carries them, else the defaults."""
    mutants: object = env.mutants
    return mutants if isinstance(mutants, MutationSettings) else MutationSettings()


def judge_only(case: CaseSpec, mutant: Mutant) -> bool:
    """Whether no gating deterministic grader of the case can see what ``mutant`` breaks."""
    if not mutant.broken:
        return False
    return not any(g.gate and g.use in mutant.seen_by and g.use not in JUDGES for g in case.graders)


def _raw(artifacts: tuple[Artifact, ...]) -> tuple[Artifact, ...]:
    """The artifacts without their stored paths: a mutant is a new output, stored in its own folder."""
    return tuple(Artifact(a.name, a.data, a.mime) for a in artifacts)


def _graded(
    case: CaseSpec, env: Environment, artifacts: tuple[Artifact, ...], folder: str, context: GradeContext
) -> CaseEvaluation:
    prepared = prepare_output(case, artifacts, env, folder)
    return grade(case, prepared.artifacts, context, prepared.metrics)


def mutant_entry(case: CaseSpec, env: Environment, mutant: Mutant) -> dict[str, Any]:
    """Grade one mutant; its record entry (status: caught, missed, judge_only, passed or brittle)."""
    folder = f"{case.id}/mutants/{mutant.folder}"
    unseen = judge_only(case, mutant)
    judged = unseen and bool(env.context.judges)
    entry: dict[str, Any] = {
        "name": mutant.name,
        "family": mutant.family,
        "class": mutant.kind,
        "index": mutant.index,
        "label": mutant.label,
        "params": dict(mutant.params),
        "broken": mutant.broken,
        "breaks": mutant.breaks,
        "seen_by": sorted(mutant.seen_by),
        "description": mutant.description,
        "folder": folder,
        "failed_gates": [],
        "judge_failed_gates": [],
        "error": None,
    }
    judge_names = {g.name for g in case.graders if g.use in JUDGES}
    try:
        provenance = {"mutant": mutant.name, "params": dict(mutant.params)}
        saved = env.store.save(env.model_label, case.suite, folder, ModelOutput(mutant.artifacts, provenance))
        evaluation = _graded(case, env, saved, folder, env.context if judged else NO_JUDGES)
    except VisionEvalError as exc:
        entry["error"] = f"{type(exc).__name__}: {exc}"
    else:
        for gate in evaluation.failed_gates:
            key = "judge_failed_gates" if gate.name.split(".", 1)[0] in judge_names else "failed_gates"
            entry[key].append({"name": gate.name, "reason": gate.reason})
    entry["judged"] = judged
    seen = bool(entry["failed_gates"]) or entry["error"] is not None
    entry["caught"] = seen or bool(entry["judge_failed_gates"])
    entry["judge_only"] = unseen and not seen
    entry["status"] = _status(mutant.broken, entry["caught"], entry["judge_only"], judged)
    return entry


def _status(broken: bool, caught: bool, unseen: bool, judged: bool) -> str:
    if not broken:
        return "brittle" if caught else "passed"
    if unseen and not judged:
        return "judge_only"
    if caught:
        return "caught_by_judge" if unseen else "caught"
    return "missed"


def mutation_problems(uid: str, mutation: dict[str, Any]) -> list[str]:
    """What a user reads when the self-test of a case finds a blind or a brittle gate.

    A judge-only mutant is no problem: the report counts it apart.
    """
    problems = []
    if not mutation["baseline_passed"]:
        problems.append(f"{uid}: the known-good output fails its own gates, so its mutants tell nothing")
    for m in mutation["mutants"]:
        what = f"{m['label']} ({m['description']})"
        if m["status"] == "missed":
            judges = " and every judge" if m["judged"] else ""
            problems.append(f"{uid}: mutant {what} passed every gate{judges}: your suite cannot see this")
        elif m["status"] == "brittle":
            why = m["error"] or "; ".join(f"{g['name']}: {g['reason']}" for g in m["failed_gates"])
            problems.append(f"{uid}: legitimate variant {what} failed: {why}: this gate is brittle")
    return problems

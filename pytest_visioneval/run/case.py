"""Run one case: model -> stored artifacts -> graders -> an evaluation.

Plain functions over plain data; the pytest side (fixtures, items) only calls
:func:`generate` and :func:`grade` and turns its result into assertions and records.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from ..artifacts import Artifact, ArtifactStore
from ..calls.turn import pixel_scope, turn_released
from ..calls.waiting import model_waits_only_in_calls, waiting
from ..cases.image_limits import ImageTooLarge, check_case_total
from ..cases.spec import CaseSpec
from ..errors import GraderError
from ..graders import Gate, Grade, GradeContext, Grader, Metric, create_grader
from ..graders.outcome import CaseEvaluation, GateOutcome
from ..graders.registry import BUILTIN_GRADERS
from ..models.base import Model
from .grade_memo import GradeMemo

PIXELS_GATE = "outputs.pixels"  # the case's output images together, past VISIONEVAL_MAX_CASE_PIXELS


def effective_params(case: CaseSpec, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The case's params with the command line's ``--model-param`` on top."""
    return {**case.params, **overrides}


def generate(
    case: CaseSpec,
    model: Model,
    store: ArtifactStore,
    overrides: Mapping[str, Any],
    *,
    folder: str | None = None,
    label: str | None = None,
) -> tuple[Artifact, ...]:
    """Run the model and store its output under ``folder`` (default: the case id) of its ``label`` (default: its name)."""
    if model_waits_only_in_calls(model):
        output = model.generate(case, effective_params(case, overrides))
    else:
        with waiting(f"the model {model.name}"):
            output = model.generate(case, effective_params(case, overrides))
    return store.save(label or model.name, case.suite, folder or case.id, output)


def grade(
    case: CaseSpec,
    artifacts: tuple[Artifact, ...],
    context: GradeContext | None = None,
    extra_metrics: tuple[Metric, ...] = (),
    memo: GradeMemo | None = None,
) -> CaseEvaluation:
    """Run every grader of the case; ``extra_metrics`` (e.g. render.*) are recorded with theirs.

    With ``memo``, a grader that declares itself ``memoizable`` is looked up there first (see :mod:`grade_memo`).
    """
    context = context or GradeContext()
    gates: list[GateOutcome] = []
    metrics: list[Metric] = list(extra_metrics)
    skipped: list[tuple[str, str]] = []
    try:  # before any grader decodes: every grader decodes the outputs its own way, and each would pay for it
        check_case_total([(a.name, a.data) for a in artifacts if a.kind == "image"])
    except ImageTooLarge as exc:
        refused = GateOutcome(Gate(PIXELS_GATE, False, str(exc)), True)
        return CaseEvaluation(case, artifacts, (refused,), tuple(metrics), ())
    for spec in case.graders:
        grader = create_grader(spec.use, spec.options)
        # A grader from another package may wait for anything (its own client, a model server): not in turn.
        foreign = spec.use not in BUILTIN_GRADERS
        try:
            if memo is not None and getattr(type(grader), "memoizable", False) and not foreign:
                make = functools.partial(_grade_one, grader, case, artifacts, context)
                files = grader.memo_files(case) if hasattr(grader, "memo_files") else ()
                result = memo.graded(spec.use, dict(spec.options), case, artifacts, make, files)
            elif foreign:
                with turn_released():
                    result = grader.grade(case, artifacts, context)
            else:
                result = _grade_one(grader, case, artifacts, context)
        except (ValueError, OSError) as exc:
            raise GraderError(f"grader {spec.name!r} ({spec.use}) failed: {exc}") from exc
        if result.skipped is not None:
            skipped.append((spec.name, result.skipped))
            continue
        gates += [GateOutcome(Gate(f"{spec.name}.{g.name}", g.passed, g.reason), spec.gate) for g in result.gates]
        metrics += [Metric(f"{spec.name}.{m.name}", m.value, m.reason, m.higher_is_better) for m in result.metrics]
    return CaseEvaluation(case, artifacts, tuple(gates), tuple(metrics), tuple(skipped))


def _grade_one(grader: Grader, case: CaseSpec, artifacts: tuple[Artifact, ...], context: GradeContext) -> Grade:
    # Large decodes and resamples run off the turn, one grader per CPU at a time; its slot is let go when it
    # returns, before the next grader of the case (a judge) waits on the wire (calls/turn.py).
    with pixel_scope():
        return grader.grade(case, artifacts, context)


def protocol_metrics(case: CaseSpec, evaluation: CaseEvaluation) -> tuple[Metric, ...]:
    """The benchmark's per-case scores as metrics named ``<protocol>.<score>`` (none for a plain label)."""
    from ..protocols import get_protocol

    protocol = get_protocol(case.protocol)
    if protocol is None:
        return ()
    scores = protocol.case_scores(case, evaluation)
    if scores is None:
        return ()
    specs = {s.name: s for s in protocol.scores}
    return tuple(
        Metric(f"{protocol.name}.{name}", float(value), specs[name].description, specs[name].higher_is_better)
        for name, value in scores.items()
    )


def gate_failure_message(evaluation: CaseEvaluation) -> str:
    """What a user reads when a case fails: each failed gate and why."""
    failed = evaluation.failed_gates
    lines = [f"{evaluation.case.uid}: {len(failed)} gate(s) failed"]
    lines += [f"  - {g.name}: {g.reason}" for g in failed]
    saved = [str(a.path) for a in evaluation.artifacts if a.path is not None]
    if saved:
        lines.append(f"  output: {saved[0]}" + (f" (+{len(saved) - 1} more)" if len(saved) > 1 else ""))
    return "\n".join(lines)

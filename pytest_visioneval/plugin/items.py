"""Case files as pytest collectors, cases as pytest items.

A case file is a ``pytest.Module`` subclass and each case a ``pytest.Function``
with a ``callobj``: module-scoped fixtures, ``item.obj`` (which syrupy needs),
marks, ``-k``, ``--lf`` and xdist all work as for Python tests, with no
private pytest API. Ids are ``suite/case_id`` in file order, so every xdist
worker collects the same ids in the same order. With several ``--model`` options,
each case is one item per model, side by side: ``suite/case_id[label]``.
"""

from __future__ import annotations

import fnmatch
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ..cases import CaseSpec
from ..cases.problems import CaseFileProblems, combined
from ..cases.spec import SuiteSpec
from ..errors import CaseFileError
from . import gc_freeze
from .model_choices import item_name
from .options import settings_key
from .records import record_for

# Case uids seen in this session -> "file:line" of their first definition.
_seen_uids_key = pytest.StashKey[dict[str, str]]()
_tag_marks_key = pytest.StashKey[dict[str, pytest.MarkDecorator]]()


def _tag_mark(config: pytest.Config, tag: str) -> pytest.MarkDecorator:
    """The marker of a YAML tag, declared once, so ``-m`` and ``--strict-markers`` accept it.

    Made once per tag, not per case: looking a marker up by name is a large part of making an item.
    """
    marks = config.stash.setdefault(_tag_marks_key, {})
    if tag not in marks:
        config.addinivalue_line("markers", f"{tag}: tag from visioneval case files")
        marks[tag] = getattr(pytest.mark, tag)
    return marks[tag]


def is_case_file(path: Path, globs: tuple[str, ...]) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in globs)


def run_case(request: pytest.FixtureRequest, visioneval_evaluation: Any) -> None:
    """The body of every case item.

    The model call and the grading happen in the ``visioneval_evaluation``
    fixture (setup), so a case that cannot be evaluated is an *error*; a gate
    that fails here is a *failure*, and so is a difference from the case's
    snapshots with ``--eval-snapshot`` (compared even when a gate failed).
    """
    __tracebackhide__ = True
    from ..run.case import gate_failure_message

    problems: list[str] = []
    if visioneval_evaluation.failed_gates:
        problems.append(gate_failure_message(visioneval_evaluation))
    mutation = record_for(request.node).get("mutation")
    if mutation is not None:
        from ..run.mutation import mutation_problems

        problems += mutation_problems(visioneval_evaluation.case.uid, mutation)
    settings = request.config.stash[settings_key]
    kinds = settings.snapshot_kinds
    if kinds and not settings.mutants:
        from .snapshots import check_snapshots

        model_name = request.node.model_label or request.getfixturevalue("visioneval_model").name
        problems += check_snapshots(request, visioneval_evaluation, model_name, kinds)
    if problems:
        pytest.fail("\n".join(problems), pytrace=False)


class CaseFile(pytest.Module):
    """A YAML case file."""

    def _getobj(self) -> types.ModuleType:
        # There is no Python to import; an empty module keeps Module's API working.
        return types.ModuleType(self.path.stem.replace(".", "_"))

    def collect(self) -> list[pytest.Item]:
        # Everything made here lives as long as the session: a cycle collection would find nothing.
        with gc_freeze.paused():
            return list(self._items())

    def _items(self) -> Iterator[pytest.Item]:
        try:
            # Imported with the first case file: loading the plugin (an xdist controller, a run of
            # Python tests only) does not read YAML, the schemas or the graders.
            from ..protocols.case_files import graders_can_grade, load_case_file

            suite = load_case_file(self.path, self.config.rootpath, case_check=graders_can_grade)
        except CaseFileProblems as problems:
            # The ids of the cases that could be built are checked too: every problem in one error.
            raise combined([problems, *self._taken_uids(problems.cases)]) from None
        taken = self._taken_uids(suite.cases)
        if taken:
            raise combined(taken)
        settings = self.config.stash[settings_key]
        # One model: the item is the case. Several: one item per model, next to each other.
        labels: tuple[str | None, ...] = settings.model_labels if settings.several_models else (None,)
        fixtureinfo = None
        for case in suite.cases:
            for label in labels:
                name = case.uid if label is None else item_name(case.uid, label)
                item = CaseItem.from_parent(
                    self, name=name, callobj=run_case, case=case, suite=suite, model_label=label, fixtureinfo=fixtureinfo
                )
                # Every case of a file runs the same function under the same parent, so its
                # fixture closure is the same: resolve it once per file, as pytest does for
                # the calls of a parametrized test (it is most of the cost of making an item).
                fixtureinfo = getattr(item, "_fixtureinfo", None)
                yield item

    def _taken_uids(self, cases: tuple[CaseSpec, ...]) -> list[CaseFileError]:
        """A case uid that another case file of this session defines too (each file checks its own ids)."""
        seen = self.config.stash.setdefault(_seen_uids_key, {})
        problems: list[CaseFileError] = []
        for index, case in enumerate(cases):
            where = f"{case.source}:{case.line}"
            if case.uid in seen and seen[case.uid] != where:
                message = f"case {case.uid!r} is also defined at {seen[case.uid]}"
                problems.append(CaseFileError(self.path, message, line=case.line, field=f"cases[{index}].id"))
            seen[case.uid] = where
        return problems

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException]) -> Any:  # type: ignore[override]
        if isinstance(excinfo.value, CaseFileError):
            return _shown_from_rootdir(str(excinfo.value), self.path, self.config.rootpath)
        return super().repr_failure(excinfo)


def _shown_from_rootdir(text: str, path: Path, root: Path) -> str:
    """Each problem line's file as the user typed it (``cases/bad.eval.yaml:5: ...``), not its absolute path."""
    if not path.is_relative_to(root):
        return text
    absolute, relative = f"{path}:", f"{path.relative_to(root)}:"
    return "\n".join(relative + line[len(absolute) :] if line.startswith(absolute) else line for line in text.split("\n"))


class CaseItem(pytest.Function):
    """One case of a case file."""

    def __init__(self, *, case: CaseSpec, suite: SuiteSpec, model_label: str | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        _structure_sweep_id(self)
        self.case = case
        self.suite = suite
        self.model_label = model_label  # None: the run's only model
        if model_label is not None:
            self.extra_keyword_matches.add(model_label)
        for tag in case.tags:
            self.add_marker(_tag_mark(self.config, tag))
        if case.skip:
            self.add_marker(pytest.mark.skip(reason=case.skip))
        if case.xfail:
            self.add_marker(pytest.mark.xfail(reason=case.xfail))
        self.extra_keyword_matches.update({case.protocol, case.task, case.suite})

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, self.case.line - 1, f"case {self.name}"

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> Any:  # type: ignore[override]
        # A case that fails its gates (or its snapshots, or the mutation self-test) has reasons, not a
        # traceback: run_case says them with pytest.fail(pytrace=False), and they are the whole report,
        # without pytest's "All traceback entries are hidden" line. Anything else keeps its traceback.
        if isinstance(excinfo.value, pytest.fail.Exception) and not excinfo.value.pytrace:
            return str(excinfo.value.msg)
        return super().repr_failure(excinfo, style)


def _structure_sweep_id(item: pytest.Item) -> None:
    """Give a sweep case (``suite/case[quality=low]``) the structured node id of a parametrized test.

    pytest 9 matches saved node ids (``--lf``, ``--ff``) by their structure: the
    part in brackets is the parameters. Built from the item's name, ours would
    hold the brackets in the name and never match, so ``--lf`` skipped failed
    sweep cases. The string form is the same either way.
    """
    if "[" not in item.name or not hasattr(item, "_id"):
        return  # nothing to structure, or a pytest whose node ids are plain strings
    try:
        from _pytest.nodeid import NodeId
    except ImportError:  # pragma: no cover - pytest before structured node ids
        return
    item._id = NodeId.parse(str(item._id))

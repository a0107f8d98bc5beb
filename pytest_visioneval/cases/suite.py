"""Turn one case file into a :class:`SuiteSpec`: load, validate, merge, resolve.

Merge rules for suite ``defaults`` (documented in docs/case-format.md):
scalars and paths in a case replace the default; ``tags`` are the defaults'
followed by the case's; ``params`` are merged key by key (the case wins, and a
``null`` value takes the default's key away); ``graders`` are the defaults'
followed by the case's, where a case grader with the same name replaces the
default one in place and ``{use: NAME, drop: true}`` takes it away.

Problems are gathered, not raised one by one: the file's error lists all of
them, each with its line (problems.py). That holds across the stages: the
duplicate keys the loader found, the schema's problems and, on every part
the schema left sound (validate.check_structure), grader names and options,
files, ids, drops, thresholds and the caller's own check of each case.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ..errors import CaseFileError
from .loader import LoadedYaml, PathKey, format_field, load_yaml
from .paths import PathEscapeError, display_path, resolve_inside
from .problems import combined
from .schema_check import SchemaCheck
from .spec import DEFAULT_PROTOCOL, CaseSpec, GraderSpec, SuiteSpec, Threshold
from .suggest import did_you_mean
from .sweep import Combination, apply, combinations
from .threshold_names import RecordedNames, threshold_name_problem
from .validate import BROKEN, Structure, check_structure


class ProtocolFields(Protocol):
    """What loading needs of a benchmark protocol: the schema of its fields and the case keys they imply."""

    fields_schema: Mapping[str, Any]

    def case_defaults(self, fields: Mapping[str, Any], case: Mapping[str, Any]) -> Mapping[str, Any]: ...


# A protocol's name -> its implementation, or None when the name is only a label.
ProtocolLookup = Callable[[str], "ProtocolFields | None"]

# Why a grader cannot grade a case (a similarity grader without a reference...), or None. The graders
# know it and sit above this layer, so the caller hands the check in (protocols.case_files).
CaseCheck = Callable[[CaseSpec, GraderSpec], "str | None"]


CASE_FILE_SUFFIXES = (".eval.yaml", ".eval.yml")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
_PATH_FIELDS = ("mask", "reference")
_SCALAR_FIELDS = ("task", "prompt", "criteria", "description", "skip", "xfail", "render", "repeat_policy")


_schema_checks: dict[int, SchemaCheck] = {}


def _schema_check(schema: Mapping[str, Any]) -> SchemaCheck:
    """One check per grader options or protocol fields schema (they are class attributes, so ids are stable)."""
    key = id(schema)
    if key not in _schema_checks:
        _schema_checks[key] = SchemaCheck(schema)
    return _schema_checks[key]


def suite_name_from_path(path: Path) -> str:
    name = path.name
    for suffix in CASE_FILE_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return path.stem


def load_suite(
    path: Path,
    grader_option_schemas: Mapping[str, Mapping[str, Any]] | None = None,
    display_root: Path | None = None,
    protocols: ProtocolLookup | None = None,
    case_check: CaseCheck | None = None,
) -> SuiteSpec:
    """Load and check a case file; raise :class:`CaseFileError` on any problem.

    ``grader_option_schemas`` maps each known grader type to the JSON Schema of
    its ``options``; when given, an unknown grader or a bad option is caught
    here, at collection, with its line. ``display_root`` shortens the file
    name in messages and threshold sources (usually the rootdir). ``protocols``
    looks a suite's protocol up by name: its ``fields`` are then checked and
    turn into implied case keys; without it every protocol is a plain label.
    (The protocols sit above this layer, so the caller hands the lookup in:
    see :func:`pytest_visioneval.protocols.case_files.load_case_file`.)
    ``case_check`` says why a grader cannot grade a case; it is asked for every
    case that could be built, so its problems come with the others.

    The error (a :class:`~pytest_visioneval.cases.problems.CaseFileProblems`)
    lists every problem of the file, first line first; only bad YAML syntax,
    a file that is not a mapping and the alias limits stop it early.
    """
    loaded = load_yaml(path, keep_going=True)
    structure = check_structure(loaded, path)
    return _Builder(path, loaded, structure, grader_option_schemas, display_root, protocols, case_check).build()


class _Builder:
    def __init__(
        self,
        path: Path,
        loaded: LoadedYaml,
        structure: Structure,
        schemas: Mapping[str, Mapping[str, Any]] | None,
        display_root: Path | None,
        protocols: ProtocolLookup | None,
        case_check: CaseCheck | None,
    ):
        self.path = path
        self.display = display_path(path, display_root)
        self.loaded = loaded
        self.structure = structure
        self.data: dict[str, Any] = structure.data  # without the parts that broke the schema
        self.schemas = schemas
        self.protocols = protocols
        self.case_check = case_check
        self.root = path.parent
        self.problems: list[CaseFileError] = [*loaded.problems, *structure.problems]
        # Nothing taken out (nearly every file): the per-case "was this part broken?" questions are skipped.
        self.sound = not structure.doubtful
        self.grader_names: set[str] = set()  # every grader name met, for the thresholds' check
        self.may_render = False  # whether a case renders its page (or may: a part that would tell was broken)
        # Whether every grader name of the file is known: not when a grader, a case or a graders list was
        # taken out, nor when the protocol (which may imply graders) or its fields were.
        self.names_known = self.sound or not any(_hides_a_grader_name(p) for p in structure.pruned)

    def broken(self, *wheres: PathKey) -> bool:
        """Whether the schema took out any of ``wheres`` or a part below: checks that need it are left out."""
        return not self.sound and any(self.structure.broken(where) for where in wheres)

    def fail(self, where: PathKey, message: str) -> CaseFileError:
        return CaseFileError(self.path, message, line=self.loaded.line_of(where), field=format_field(where) or None)

    def note(self, where: PathKey, message: str) -> None:
        """Record a problem and go on, so the file's error lists every problem at once."""
        self.problems.append(self.fail(where, message))

    def build(self) -> SuiteSpec:
        name = self.data.get("suite") or suite_name_from_path(self.path)
        if not _NAME.match(name) and not self.broken(("suite",)):
            self.note(
                (), f"suite name {name!r} taken from the file name is not valid; set 'suite:' to letters, digits, '_' or '-'"
            )
        protocol = self.data.get("protocol", DEFAULT_PROTOCOL)
        defaults = self._resolved_fields(self.data.get("defaults", {}), ("defaults",))
        sweep = self._sweep()
        cases: list[CaseSpec] = []
        seen: dict[str, int] = {}
        for index, raw in enumerate(self.data.get("cases", ())):
            if raw is BROKEN:
                self.may_render = True  # nothing is known of it (nor of its graders: names_known says so)
                continue
            where = ("cases", index)
            case_id = raw["id"] if "id" in raw else None
            repeated = case_id in seen
            if repeated:
                self.note(where + ("id",), f"duplicate case id {case_id!r} (first used in cases[{seen[case_id]}])")
            elif case_id is not None:
                seen[case_id] = index
            case = self._case(name, protocol, defaults, raw, where)  # checked even when its id is taken
            if case is None or repeated:
                continue
            if self.case_check is not None:
                self._check_graders_can_grade(self.case_check, case, index, defaults)
            try:
                cases += [case] if sweep is None else [apply(case, combination) for combination in sweep]
            except ValueError as exc:
                self.note(where, str(exc))
        thresholds = self._thresholds(name, protocol)
        if self.problems:
            raise combined(self.problems, cases)
        return SuiteSpec(
            name=name,
            protocol=protocol,
            path=self.path,
            cases=tuple(cases),
            thresholds=thresholds,
            description=self.data.get("description"),
            default_graders=tuple(g.name for g in defaults.get("graders", ())),
        )

    def _check_graders_can_grade(self, check: CaseCheck, case: CaseSpec, index: int, defaults: Mapping[str, Any]) -> None:
        """The caller's ``check`` of each grader on the built case (once, before a sweep multiplies it)."""
        inherited = {g.name for g in defaults.get("graders", ())}
        for grader in case.graders:
            problem = check(case, grader)
            if problem:
                fix = f" (a case can take it back: {{use: {grader.name}, drop: true}})" if grader.name in inherited else ""
                field = f"cases[{index}] grader {grader.name!r}"
                self.problems.append(CaseFileError(self.path, problem + fix, line=case.line, field=field))

    def _sweep(self) -> list[Combination] | None:
        """The combinations of the file's ``sweep:`` grid (docs/case-format.md), or ``None`` without one."""
        if "sweep" not in self.data or self.broken(("sweep",)):
            return None
        try:
            return combinations(self.data["sweep"])
        except ValueError as exc:
            self.note(("sweep",), str(exc))
            return None

    def _resolved_fields(self, raw: Mapping[str, Any], where: PathKey) -> dict[str, Any]:
        """Copy ``raw`` with its paths resolved and its graders checked (problems are noted, see :meth:`note`)."""
        out = dict(raw)
        for key in _PATH_FIELDS:
            if key in raw:
                out[key] = self._path(raw[key], where + (key,))
        if "images" in raw:
            out["images"] = tuple(self._path(p, where + ("images", i)) for i, p in enumerate(raw["images"]) if p is not BROKEN)
        if "graders" in raw:
            out["graders"] = self._graders(raw["graders"], where + ("graders",))
        return out

    def _path(self, relative: str, where: PathKey) -> Path:
        try:
            resolved = resolve_inside(self.root, relative)
        except PathEscapeError as exc:
            self.note(where, str(exc))
            return self.root
        # A reference may be a folder: its files, in name order, are one output (a page and its images, frames).
        reference_folder = where[-1] == "reference" and resolved.is_dir() and any(p.is_file() for p in resolved.iterdir())
        if not resolved.is_file() and not reference_folder:
            self.note(where, f"file not found: {relative!r} (looked for {resolved})")
        return resolved

    def _graders(self, raw: list[Mapping[str, Any]], where: PathKey) -> list[GraderSpec | _Drop]:
        specs: list[GraderSpec | _Drop] = []
        for i, g in enumerate(raw):
            if g is BROKEN:
                continue  # (names_known is False)
            here = where + (i,)
            use = g.get("use")
            name = g.get("name", use)
            if name is None:
                continue  # no 'use' and no 'name': the schema said so, and nothing here can be checked
            if (self.sound or not self.broken(here + ("name",))) and any(s.name == name for s in specs):
                self.note(here, f"two graders here share the name {name!r}; give one a distinct 'name'")
                continue
            if g.get("drop"):
                if where[0] == "defaults":
                    self.note(here + ("drop",), "'drop' takes back a grader of 'defaults'; it belongs in a case, not in defaults")
                    continue
                if set(g) - {"use", "name", "drop"}:
                    extra = ", ".join(sorted(set(g) - {"use", "name", "drop"}))
                    self.note(here, f"a grader with 'drop: true' is taken away; its {extra} would be ignored: remove them")
                specs.append(_Drop(name, here))
                continue
            if use is None:
                self.grader_names.add(name)  # its type is unknown: a threshold on its name is given the benefit of the doubt
                continue  # its 'use' is missing or broke the schema (said there)
            options = g.get("options", {})
            if self.schemas is not None:
                if use not in self.schemas:
                    hint = did_you_mean(use, self.schemas)
                    known = ", ".join(sorted(self.schemas))
                    self.note(here + ("use",), f"unknown grader {use!r}{hint}; known graders: {known}")
                    continue
                if self.sound or not self.broken(here + ("options",)):
                    self._check_options(options, self.schemas[use], here + ("options",))
            self.grader_names.add(name)
            specs.append(GraderSpec(use=use, name=name, gate=g.get("gate", True), options=options))
        return specs

    def _check_options(self, options: Mapping[str, Any], schema: Mapping[str, Any], where: PathKey) -> None:
        for problem in _schema_check(schema).problems(options, "option"):
            self.note(where + problem.path, problem.message)

    def _protocol_layer(
        self, protocol: str, defaults: Mapping[str, Any], raw: Mapping[str, Any], where: PathKey
    ) -> dict[str, Any] | None:
        """The protocol's checked ``fields`` and the case keys they imply (below defaults and the case);
        ``None`` when the fields have problems (noted): the case's own checks would only repeat them."""
        fields = {**defaults.get("fields", {}), **raw.get("fields", {})}
        implementation = self.protocols(protocol) if self.protocols is not None else None
        if implementation is None:
            return {"fields": fields}
        if self.broken(where + ("fields",), ("defaults", "fields")):
            return None  # checking what is left of them would only report what was taken out
        here = where + ("fields",) if "fields" in raw else where
        # jsonschema's words here: the protocols' own tests and docs quote them.
        problems = _schema_check(implementation.fields_schema).problems(fields)
        for problem in problems:
            self.note(here + problem.path, f"{protocol} field: {problem.message}")
        if problems:
            return None
        try:
            implied = implementation.case_defaults(fields, {**defaults, **raw})
        except ValueError as exc:
            self.note(here, f"{protocol} fields: {exc}")
            return None
        return {**self._resolved_fields(implied, here), "fields": fields}

    def _case(
        self, suite: str, protocol: str, defaults: Mapping[str, Any], raw: Mapping[str, Any], where: PathKey
    ) -> CaseSpec | None:
        """The case with defaults merged in; ``None`` (with its problems noted) when it cannot be made.

        Its own graders and paths are checked first, whatever else is wrong with it; the checks of the
        merged case leave out what the schema took out (a 'prompt: 3' is not also a missing prompt).
        """
        own = self._resolved_fields(raw, where)
        implied = self._protocol_layer(protocol, self.data.get("defaults", {}), raw, where)
        if implied is None:
            self.may_render = True  # the protocol's fields, which may make it render or add graders, are not known
            self.names_known = False
            return None
        layered = _layer(_layer(implied, defaults), own)
        if self.sound or not self.broken(("defaults", "graders")):
            for drop in layered["unmatched_drops"]:
                inherited = ", ".join(g.name for g in _layer(implied, defaults)["graders"]) or "none"
                self.note(
                    drop.where, f"nothing to drop: no grader named {drop.name!r} comes from defaults (they give: {inherited})"
                )
        merged: dict[str, Any] = {k: layered.get(k) for k in _SCALAR_FIELDS + _PATH_FIELDS + ("images",)}
        merged["tags"] = tuple(layered["tags"])
        merged["params"] = layered["params"]
        graders = layered["graders"]
        render = merged["render"]
        merged["render"] = ({} if render is True else dict(render)) if render not in (None, False) else None
        if merged["render"] is not None or (not self.sound and self.broken(where + ("render",), ("defaults", "render"))):
            self.may_render = True
        merged["repeat_policy"] = merged["repeat_policy"] or "mean"
        merged["fields"] = implied["fields"]
        if merged["task"] is None:
            if not self.broken(where + ("task",), ("defaults", "task")):
                self.note(where, "'task' is required (in the case or in 'defaults')")
            return None
        if merged["task"] in ("image_generation", "html_generation") and not merged["prompt"]:
            if not self.broken(where + ("prompt",), ("defaults", "prompt")):
                self.note(where, f"a {merged['task']} case needs a 'prompt'")
            return None
        if merged["task"] == "image_editing" and not merged["images"]:
            if not self.broken(where + ("images",), ("defaults", "images")):
                self.note(where, "an image_editing case needs at least one input image in 'images'")
            return None
        if "id" not in raw or (not self.sound and self.broken(where, ("defaults",))):
            return None  # its problems are noted; a case with a part taken out is not built
        return CaseSpec(
            suite=suite,
            id=raw["id"],
            protocol=protocol,
            source=self.path,
            line=self.loaded.line_of(where) or 1,
            images=merged.pop("images") or (),
            graders=tuple(graders),
            **merged,
        )

    def _thresholds(self, suite: str, protocol: str) -> tuple[Threshold, ...]:
        thresholds = self.data.get("thresholds", {})
        names = self._recorded_names(protocol) if thresholds else None
        out = []
        for metric, bound in thresholds.items():
            line = self.loaded.line_of(("thresholds", metric))
            source = f"{self.display}:{line}"
            problem = threshold_name_problem(metric, names) if names is not None else None
            if problem:
                self.note(("thresholds", metric), problem)
            bounds = {"min": bound} if isinstance(bound, (int, float)) else bound
            finite = True
            for key, value in bounds.items():
                if not math.isfinite(value):
                    self.note(("thresholds", metric), f"threshold {key} must be a finite number, got {value!r}")
                    finite = False
            if not finite:
                continue
            low, high = bounds.get("min"), bounds.get("max")
            out.append(
                Threshold(
                    suite,
                    metric,
                    min=None if low is None else float(low),
                    max=None if high is None else float(high),
                    source=source,
                )
            )
        return tuple(out)

    def _recorded_names(self, protocol: str) -> RecordedNames | None:
        """What the suite's metric names can start with; ``None`` without the graders and protocols to tell."""
        if self.schemas is None or self.protocols is None:
            return None
        implementation = self.protocols(protocol)
        if implementation is None:
            return RecordedNames(self.grader_names, self.may_render, complete=self.names_known)
        scores = {score.name for score in getattr(implementation, "scores", ())}
        name = getattr(implementation, "name", protocol)
        return RecordedNames(self.grader_names, self.may_render, name, scores, complete=self.names_known)


def _hides_a_grader_name(path: PathKey) -> bool:
    """Whether taking ``path`` out of a file may have taken a grader's name with it."""
    if path in ((), ("cases",), ("defaults",), ("protocol",)) or (path[0] == "cases" and len(path) == 2):
        return True  # the whole file, every case, the defaults, the protocol that may imply graders, or a whole case
    if "graders" not in path:
        return False
    below = path[path.index("graders") + 1 :]
    return len(below) <= 1 or below[1] in ("name", "use")  # the list, a grader, or what names it


@dataclass(frozen=True)
class _Drop:
    """A case's ``{use: NAME, drop: true}``: the grader of that name from defaults is taken away."""

    name: str
    where: PathKey


def _layer(below: Mapping[str, Any], above: Mapping[str, Any]) -> dict[str, Any]:
    """``above`` over ``below`` with the merge rules of suite defaults (tags, params, graders).

    A ``None`` param takes the key away; ``unmatched_drops`` are the drops of
    ``above`` that found no grader to take away (a typo the caller reports).
    """
    out = {**below, **above}
    out["tags"] = list(dict.fromkeys(list(below.get("tags", ())) + list(above.get("tags", ()))))
    params = {**below.get("params", {}), **above.get("params", {})}
    out["params"] = {k: v for k, v in params.items() if v is not None}
    graders = list(below.get("graders", []))
    unmatched: list[_Drop] = list(below.get("unmatched_drops", []))
    for g in above.get("graders", []):
        same = [i for i, d in enumerate(graders) if d.name == g.name]
        if isinstance(g, _Drop):
            if same:
                del graders[same[0]]
            else:
                unmatched.append(g)
        elif same:
            graders[same[0]] = g
        else:
            graders.append(g)
    out["graders"] = graders
    out["unmatched_drops"] = unmatched
    return out

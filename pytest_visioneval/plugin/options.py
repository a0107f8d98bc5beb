"""Command-line and ini options, turned into one frozen :class:`Settings`.

Every option has an ini twin (``[tool.pytest.ini_options]`` or ``pytest.ini``);
the command line wins. The settings object lives in ``config.stash``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from ..cases.spec import Threshold
from ..errors import ConfigError
from ..judges.content import DEFAULT_MAX_IMAGES, DEFAULT_MAX_SIDE
from ..judges.settings import RESPONSE_FORMATS, JudgeSettings
from ..models.base import ModelSettings
from ..models.registry import available_providers
from ..mutants.settings import DEFAULT_PER_FAMILY, DEFAULT_SEED, FAMILIES, MutationSettings
from ..results.thresholds import parse_threshold
from .model_choices import ModelChoice, parse_model_choices
from .option_values import option_path, option_value
from .regrade import regrade_models

GROUP = "visioneval"
DEFAULT_MODEL = "reference"
DEFAULT_CASE_GLOBS = ("*.eval.yaml", "*.eval.yml")
# --eval-snapshot values -> the snapshot kinds compared for every case (see docs/snapshots.md).
SNAPSHOT_CHOICES = {"scores": frozenset({"scores"}), "png": frozenset({"png"}), "all": frozenset({"scores", "png"})}


@dataclass(frozen=True)
class Settings:
    model: str = DEFAULT_MODEL  # the first model's spec
    models: tuple[ModelChoice, ...] = (ModelChoice(DEFAULT_MODEL, DEFAULT_MODEL),)
    model_params: Mapping[str, Any] = field(default_factory=dict)
    model_settings: ModelSettings = field(default_factory=ModelSettings)
    output_dir: Path = Path(".visioneval")
    run_id: str | None = None
    results_path: Path | None = None
    fail_under: tuple[Threshold, ...] = ()
    case_globs: tuple[str, ...] = DEFAULT_CASE_GLOBS
    judges: tuple[str, ...] = ()
    judge_settings: JudgeSettings = field(default_factory=JudgeSettings)
    judge_repeats: int = 1
    chromium: str | None = None
    render_pages: int | None = None  # --render-pages: pages working at once per worker's browser (None: the renderer's 4)
    snapshot_kinds: frozenset[str] = frozenset()
    mutants: MutationSettings | None = None  # --eval-mutants (with its seed and number per family): the self-test
    summary: str = "compact"  # --eval-summary: compact (full under -v), full or none
    flaky_spread: Mapping[str, float] = field(default_factory=dict)  # --eval-flaky-spread: metric (or *) -> largest std
    labels: Path | None = None  # --eval-labels: people's labels of judged values (a CSV, as the agreement command reads)
    agreement_floors: Mapping[str, float] = field(default_factory=dict)  # --eval-agreement-floor: [name:]stat -> least value

    @property
    def several_models(self) -> bool:
        return len(self.models) > 1

    @property
    def model_labels(self) -> tuple[str, ...]:
        return tuple(choice.label for choice in self.models)


settings_key = pytest.StashKey[Settings]()
SUMMARY_CHOICES = ("compact", "full", "none")
# The models a mutation self-test may take its known-good outputs from: none of them calls an API.
MUTANT_SOURCES = ("reference", "replay", "regrade")


def option_pair(parser: pytest.Parser, group: Any) -> Callable[..., None]:
    """A function declaring a command-line option and its ini twin (same name as the dest)."""

    def both(flag: str, ini: str, help: str, *, ini_type: str | None = None, default: Any = None, **kwargs: Any) -> None:
        group.addoption(flag, dest=ini, help=f"{help} [ini: {ini}]", **kwargs)
        parser.addini(ini, help, type=ini_type, default=default)  # type: ignore[arg-type]

    return both


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup(GROUP, "vision evaluation (pytest-visioneval)")

    both = option_pair(parser, group)

    both(
        "--model",
        "visioneval_model",
        "model under test: reference (default), openai:MODEL, replay:DIR, or a plugin's provider; repeatable: "
        "each case runs once per model, side by side (LABEL=SPEC names one)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="NAME",
    )
    both(
        "--model-param",
        "visioneval_model_params",
        "model parameter KEY=VALUE, overriding the case files' params (repeatable; VALUE is read as YAML)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="KEY=VALUE",
    )
    both(
        "--model-base-url",
        "visioneval_model_base_url",
        "base URL of an OpenAI-compatible API (default: $OPENAI_BASE_URL)",
        metavar="URL",
    )
    both(
        "--model-api-key-env",
        "visioneval_model_api_key_env",
        "environment variable holding the API key (default OPENAI_API_KEY)",
        metavar="VAR",
    )
    both(
        "--model-api",
        "visioneval_model_api",
        "API for text/HTML tasks: chat (default) or responses",
        choices=("chat", "responses"),
    )
    both(
        "--model-timeout", "visioneval_model_timeout", "seconds before one API request times out (default 120)", metavar="SECONDS"
    )
    both(
        "--model-max-retries",
        "visioneval_model_max_retries",
        "retries of a failed API request, with backoff (default 2)",
        metavar="N",
    )
    both(
        "--eval-output-dir",
        "visioneval_output_dir",
        "where model outputs are kept (default .visioneval under the rootdir)",
        metavar="DIR",
    )
    both(
        "--eval-run-id", "visioneval_run_id", "name of this run's output folder (default: UTC time + random suffix)", metavar="ID"
    )
    both(
        "--eval-results",
        "visioneval_results",
        "write the results JSON (every case, score, reason, artifact) to PATH",
        metavar="PATH",
    )
    both(
        "--eval-fail-under",
        "visioneval_fail_under",
        "fail the run if SUITE's mean of METRIC (or pass rate of a gate) is below VALUE; SUITE may be * (repeatable)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="SUITE.METRIC=VALUE",
    )
    both(
        "--judge",
        "visioneval_judges",
        "judge for the judge graders: openai:MODEL (repeatable: several judges are averaged)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="openai:MODEL",
    )
    both(
        "--judge-repeats",
        "visioneval_judge_repeats",
        "ask each judge N times per grader (mean and spread are reported)",
        metavar="N",
    )
    both(
        "--judge-retries",
        "visioneval_judge_retries",
        "ask again after a reply that fails its schema, N times (default 2)",
        metavar="N",
    )
    both(
        "--judge-base-url", "visioneval_judge_base_url", "base URL of the judges' API (default: $OPENAI_BASE_URL)", metavar="URL"
    )
    both(
        "--judge-api-key-env",
        "visioneval_judge_api_key_env",
        "variable holding the judges' API key (default OPENAI_API_KEY)",
        metavar="VAR",
    )
    both(
        "--judge-timeout",
        "visioneval_judge_timeout",
        "seconds before one judge request times out (default 120)",
        metavar="SECONDS",
    )
    both(
        "--judge-response-format",
        "visioneval_judge_response_format",
        "how structured output is requested: json_schema (default), json_object or none",
        choices=RESPONSE_FORMATS,
    )
    both(
        "--judge-max-image-side",
        "visioneval_judge_max_image_side",
        f"images are downscaled to this longest side (default {DEFAULT_MAX_SIDE})",
        metavar="PX",
    )
    both(
        "--judge-max-images",
        "visioneval_judge_max_images",
        f"most images one judge request may carry (default {DEFAULT_MAX_IMAGES})",
        metavar="N",
    )
    both(
        "--eval-flaky-spread",
        "visioneval_flaky_spread",
        "flag a case flaky when a metric's spread across --eval-repeats or --judge-repeats (its standard deviation) "
        "exceeds STD; NAME=STD for one metric (repeatable)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="[NAME=]STD",
    )
    both(
        "--eval-labels",
        "visioneval_labels",
        "people's labels of judged gates and metrics (CSV: case, name, label[, rater]); the judges' agreement with "
        "them is reported (docs/graders.md)",
        metavar="CSV",
    )
    both(
        "--eval-agreement-floor",
        "visioneval_agreement_floor",
        "fail the run when the judges' agreement with --eval-labels is below VALUE (e.g. kappa=0.4, "
        "rubric.verdict:accuracy=0.8; repeatable)",
        ini_type="linelist",
        default=[],
        action="append",
        metavar="[NAME:]STAT=VALUE",
    )
    both(
        "--judge-temperature",
        "visioneval_judge_temperature",
        "the judges' sampling temperature (default 0; a protocol's official setting wins); part of the cache key",
        metavar="T",
    )
    both(
        "--judge-seed",
        "visioneval_judge_seed",
        "the judges' sampling seed; judge repeat k sends SEED+k, so repeats differ (default: none sent)",
        metavar="N",
    )
    both(
        "--eval-snapshot",
        "visioneval_snapshot",
        "compare each case with its syrupy snapshots: scores, png or all (write them with --snapshot-update)",
        choices=tuple(SNAPSHOT_CHOICES),
    )
    group.addoption(
        "--eval-mutants",
        action="store_true",
        dest="visioneval_mutants",
        help="mutation self-test: grade broken and legitimate variants of each case's known-good output (its reference, "
        "or --model=replay:DIR) with the deterministic gates only, and report what the gates miss or wrongly fail",
    )
    both(
        "--eval-mutants-seed",
        "visioneval_mutants_seed",
        f"the seed the self-test's mutants are drawn from (default {DEFAULT_SEED}); the same seed makes the same mutants",
        metavar="N",
    )
    both(
        "--eval-mutants-per-family",
        "visioneval_mutants_per_family",
        f"mutants drawn per property family and case in the self-test (default {DEFAULT_PER_FAMILY}; "
        "more measure the gates on more random instances, and take longer)",
        metavar="N",
    )
    both(
        "--eval-mutants-family",
        "visioneval_mutants_families",
        f"draw only this property family in the self-test (repeatable; default every family): {', '.join(FAMILIES)}",
        action="append",
        metavar="NAME",
        ini_type="args",
    )
    both(
        "--eval-summary",
        "visioneval_summary",
        "the scores section of the terminal summary: compact (default; one row per suite and per protocol; "
        "-v shows full), full (every gate, metric, protocol group and tag) or none",
        metavar="compact|full|none",
    )
    both(
        "--chromium",
        "visioneval_chromium",
        "Chromium binary for rendering HTML (default: chromium-headless-shell, else chromium, on PATH)",
        metavar="PATH",
    )
    both(
        "--render-pages",
        "visioneval_render_pages",
        "pages each worker's browser renders at once, each in its own context (default 4; more take more CPU and memory)",
        metavar="N",
    )
    parser.addini("visioneval_files", "glob patterns of case files", type="args", default=list(DEFAULT_CASE_GLOBS))


def build_settings(config: pytest.Config) -> Settings:
    """Read options (CLI first, then ini); raise ``pytest.UsageError`` on bad values."""
    try:
        return _build(config)
    except ConfigError as exc:
        raise pytest.UsageError(f"pytest-visioneval: {exc}") from None


def _number(config: pytest.Config, name: str, default: float, kind: type) -> Any:
    raw = option_value(config, name)
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a {kind.__name__}, got {raw!r}") from None
    if value < 0:
        raise ConfigError(f"{name} must not be negative, got {raw!r}")
    return value


def named_numbers(items: list[str], option: str, form: str, bare: str | None = None) -> dict[str, float]:
    """``KEY=NUMBER`` items -> ``{KEY: NUMBER}``; a bare ``NUMBER`` is filed under ``bare`` (refused when None).

    ``form`` is what the option expects, for the error message. Numbers must be finite and not negative.
    """
    found: dict[str, float] = {}
    for item in items:
        key, sep, raw = str(item).rpartition("=")
        key = key if sep else (bare or "")
        try:
            value = float(raw)
        except ValueError:
            value = float("nan")
        if not key or not 0 <= value < float("inf"):
            raise ConfigError(f"{option} expects {form} with a number not below 0, got {item!r}")
        found[key] = value
    return found


def parse_spread_limits(items: list[str]) -> dict[str, float]:
    """``["0.5", "score.quality=1.5"]`` -> ``{"*": 0.5, "score.quality": 1.5}``."""
    return named_numbers(items, "--eval-flaky-spread", "STD or NAME=STD", bare="*")


def parse_agreement_floors(items: list[str]) -> dict[str, float]:
    """``["kappa=0.4", "rubric.verdict:accuracy=0.8"]`` -> ``{"kappa": 0.4, "rubric.verdict:accuracy": 0.8}``."""
    return named_numbers(items, "--eval-agreement-floor", "[NAME:]STAT=VALUE (e.g. kappa=0.4)")


def _optional_int(config: pytest.Config, name: str) -> int | None:
    raw = option_value(config, name)
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None


def _mutation_settings(config: pytest.Config) -> MutationSettings | None:
    """``--eval-mutants`` with its seed and number per family; None without it (the two alone are refused)."""
    seed = _optional_int(config, "visioneval_mutants_seed")
    per_family = _optional_int(config, "visioneval_mutants_per_family")
    if not config.getoption("visioneval_mutants", False):
        # On the command line without --eval-mutants they would be ignored: say so (an ini value is left alone).
        flags = (
            ("--eval-mutants-seed", "visioneval_mutants_seed"),
            ("--eval-mutants-per-family", "visioneval_mutants_per_family"),
            ("--eval-mutants-family", "visioneval_mutants_families"),
        )
        given = [flag for flag, dest in flags if config.getoption(dest) is not None]
        if given:
            raise ConfigError(f"{' and '.join(given)} only mean something with --eval-mutants")
        return None
    if per_family is not None and per_family < 1:
        raise ConfigError(f"visioneval_mutants_per_family (--eval-mutants-per-family) must be at least 1, got {per_family}")
    families = tuple(str(f) for f in option_value(config, "visioneval_mutants_families") or ())
    unknown = sorted(set(families) - set(FAMILIES))
    if unknown:
        raise ConfigError(f"--eval-mutants-family: no family {', '.join(unknown)}; the families are {', '.join(FAMILIES)}")
    return MutationSettings(
        seed=DEFAULT_SEED if seed is None else seed,
        per_family=DEFAULT_PER_FAMILY if per_family is None else per_family,
        families=families,
    )


def parse_param(text: str) -> tuple[str, Any]:
    key, sep, raw = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--model-param expects KEY=VALUE, got {text!r}")
    return key.strip(), _param_value(raw)


def _param_value(raw: str) -> Any:
    """Numbers, booleans and explicit [lists]/{maps} are read as YAML; anything else stays a string.

    So ``n=2`` is an int and ``sizes=[1, 2]`` a list, while ``background=#ffffff``
    (a YAML comment) or ``note=a: b`` (a YAML mapping) keep the text as typed.
    """
    text = raw.strip()
    if not text:
        return ""
    import yaml  # only for --model-param values: loading the plugin does not read YAML

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        return raw
    if value is None:
        return None if text in ("null", "~", "Null", "NULL") else raw
    if isinstance(value, (list, dict)):
        return value if text[0] in "[{" else raw
    return value


def _build(config: pytest.Config) -> Settings:
    root = config.rootpath
    base_url = option_value(config, "visioneval_model_base_url")
    model_settings = ModelSettings(
        base_url=str(base_url) if base_url else None,
        api_key_env=str(option_value(config, "visioneval_model_api_key_env") or "OPENAI_API_KEY"),
        timeout=_number(config, "visioneval_model_timeout", 120.0, float),
        max_retries=_number(config, "visioneval_model_max_retries", 2, int),
        openai_api=str(option_value(config, "visioneval_model_api") or "chat"),
    )
    if model_settings.openai_api not in ("chat", "responses"):
        raise ConfigError(f"visioneval_model_api must be chat or responses, got {model_settings.openai_api!r}")
    models = regrade_models(config) or parse_model_choices(option_value(config, "visioneval_model") or [], DEFAULT_MODEL)
    for choice in models:
        if choice.provider not in available_providers():
            raise ConfigError(
                f"unknown model provider {choice.provider!r} in --model={choice.spec!r}; "
                f"available: {', '.join(available_providers())}"
            )
    model = models[0].spec
    params = dict(parse_param(p) for p in (option_value(config, "visioneval_model_params") or []))
    thresholds = tuple(parse_threshold(t) for t in (option_value(config, "visioneval_fail_under") or []))
    judge_base_url = option_value(config, "visioneval_judge_base_url")
    judge_settings = JudgeSettings(
        base_url=str(judge_base_url) if judge_base_url else None,
        api_key_env=str(option_value(config, "visioneval_judge_api_key_env") or "OPENAI_API_KEY"),
        timeout=_number(config, "visioneval_judge_timeout", 120.0, float),
        max_retries=model_settings.max_retries,
        reply_retries=_number(config, "visioneval_judge_retries", 2, int),
        response_format=str(option_value(config, "visioneval_judge_response_format") or "json_schema"),
        max_side=max(64, _number(config, "visioneval_judge_max_image_side", DEFAULT_MAX_SIDE, int)),
        max_images=max(1, _number(config, "visioneval_judge_max_images", DEFAULT_MAX_IMAGES, int)),
        temperature=_number(config, "visioneval_judge_temperature", 0.0, float),
        seed=_optional_int(config, "visioneval_judge_seed"),
    )
    if judge_settings.response_format not in RESPONSE_FORMATS:
        raise ConfigError(f"visioneval_judge_response_format must be one of {', '.join(RESPONSE_FORMATS)}")
    judges = tuple(str(j) for j in (option_value(config, "visioneval_judges") or []))
    for judge in judges:
        if not judge.startswith("openai:") or judge == "openai:":
            raise ConfigError(f"--judge={judge!r}: judges are named openai:MODEL (any OpenAI-compatible endpoint)")
    chromium = option_value(config, "visioneval_chromium")
    render_pages = _optional_int(config, "visioneval_render_pages")
    if render_pages is not None and render_pages < 1:
        raise ConfigError(f"visioneval_render_pages (--render-pages) must be at least 1, got {render_pages}")
    mutants = _mutation_settings(config)
    if mutants and len(models) > 1:
        raise ConfigError("--eval-mutants tests the gates on one known-good output: give one --model")
    if mutants and model.partition(":")[0] not in MUTANT_SOURCES:
        raise ConfigError(
            f"--eval-mutants grades variants of a known-good output without calling any API: use --model=reference "
            f"(the cases' references) or --model=replay:DIR, not {model!r}"
        )
    labels = option_path(config, "visioneval_labels", root)
    floors = parse_agreement_floors(option_value(config, "visioneval_agreement_floor") or [])
    if floors and labels is None:
        raise ConfigError("--eval-agreement-floor needs --eval-labels: the people's labels to agree with")
    if labels is not None and not labels.is_file():
        raise ConfigError(f"--eval-labels: no such file {labels}")
    summary = str(option_value(config, "visioneval_summary") or "compact")
    if summary not in SUMMARY_CHOICES:
        raise ConfigError(f"--eval-summary must be one of {', '.join(SUMMARY_CHOICES)}, got {summary!r}")
    snapshot = str(option_value(config, "visioneval_snapshot") or "")
    if snapshot and snapshot not in SNAPSHOT_CHOICES:
        raise ConfigError(f"visioneval_snapshot must be one of {', '.join(SNAPSHOT_CHOICES)}, got {snapshot!r}")
    return Settings(
        chromium=str(chromium) if chromium else None,
        render_pages=render_pages,
        judges=judges,
        judge_settings=judge_settings,
        judge_repeats=max(1, _number(config, "visioneval_judge_repeats", 1, int)),
        model=model,
        models=models,
        model_params=params,
        model_settings=model_settings,
        output_dir=option_path(config, "visioneval_output_dir", root) or (root / ".visioneval"),
        run_id=option_value(config, "visioneval_run_id"),
        results_path=option_path(config, "visioneval_results", root),
        fail_under=thresholds,
        case_globs=tuple(config.getini("visioneval_files")),
        snapshot_kinds=SNAPSHOT_CHOICES.get(snapshot, frozenset()),
        mutants=mutants,
        summary=summary,
        flaky_spread=parse_spread_limits(option_value(config, "visioneval_flaky_spread") or []),
        labels=labels,
        agreement_floors=floors,
    )

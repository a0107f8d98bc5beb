"""The models of a run: each ``--model`` as a label and a spec.

``--model`` may be given several times; each case then runs once per model
and its item id carries the model's label (``suite/case[label]``). A label is
given as ``--model LABEL=SPEC`` or made from the spec (characters a node id
or a folder name should not hold become ``_``). With one model the label is
the spec itself, as it always was, so single-model results do not change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..errors import ConfigError

_LABEL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_UNSAFE = re.compile(r"[^A-Za-z0-9_.:+-]+")


@dataclass(frozen=True)
class ModelChoice:
    label: str  # names the model in item ids, records, folders and summaries
    spec: str  # what --model names: reference, openai:MODEL, replay:DIR, a plugin's provider

    @property
    def provider(self) -> str:
        return self.spec.partition(":")[0]


def parse_model_choices(values: Iterable[str], default: str) -> tuple[ModelChoice, ...]:
    """``["A=openai:x", "replay:runs/b"]`` -> the run's models, labels unique; ``default`` when none is given."""
    given = [str(v).strip() for v in values if str(v).strip()] or [default]
    several = len(given) > 1
    choices = [_choice(value, several) for value in given]
    seen: dict[str, str] = {}
    for choice in choices:
        if choice.label in seen:
            raise ConfigError(
                f"--model: two models share the label {choice.label!r} ({seen[choice.label]} and {choice.spec}); "
                "name each one: --model LABEL=SPEC (e.g. --model old=replay:runs/a --model new=replay:runs/b)"
            )
        seen[choice.label] = choice.spec
    return tuple(choices)


def _choice(value: str, several: bool) -> ModelChoice:
    label, sep, spec = value.partition("=")
    if sep and ":" not in label and label:
        if not _LABEL.match(label):
            raise ConfigError(
                f"--model {value!r}: a label is letters, digits and _ . + - (starting with a letter or digit), got {label!r}"
            )
        if not spec.strip():
            raise ConfigError(f"--model {value!r}: LABEL=SPEC needs a spec after '='")
        return ModelChoice(label, spec.strip())
    if not several:
        return ModelChoice(value, value)
    return ModelChoice(_UNSAFE.sub("_", value).strip("_") or "model", value)


def item_name(uid: str, label: str) -> str:
    """The id of a case run by one of several models: ``suite/case[label]``, ``suite/case[quality=low-label]``."""
    if uid.endswith("]") and "[" in uid:
        return f"{uid[:-1]}-{label}]"
    return f"{uid}[{label}]"


def split_item_name(name: str, labels: Sequence[str]) -> tuple[str, str | None]:
    """The case uid and model label of an item name made by :func:`item_name` (label None: not one of them)."""
    for label in sorted(labels, key=len, reverse=True):  # "a-b" before "b", both may end a name
        if name.endswith(f"[{label}]"):
            return name[: -len(label) - 2], label
        if name.endswith(f"-{label}]") and "[" in name:
            return name[: -len(label) - 2] + "]", label
    return name, None

"""options.py: parse_threshold and parse_param."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.cases.spec import Threshold
from pytest_visioneval.errors import ConfigError
from pytest_visioneval.options import parse_param, parse_threshold


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ui.similarity.score=0.9", Threshold("ui", "similarity.score", min=0.9, source="--eval-fail-under")),
        ("*.image.decodes=1", Threshold("*", "image.decodes", min=1.0, source="--eval-fail-under")),
        ("my-suite_2.score=-0.5", Threshold("my-suite_2", "score", min=-0.5, source="--eval-fail-under")),
        ("  ui.score=1e-3  ", Threshold("ui", "score", min=0.001, source="--eval-fail-under")),
        ("ui._private-m.x=3", Threshold("ui", "_private-m.x", min=3.0, source="--eval-fail-under")),
    ],
)
def test_parse_threshold(text: str, expected: Threshold) -> None:
    parsed = parse_threshold(text)
    assert parsed == expected
    assert parsed.max is None
    assert isinstance(parsed.min, float)


def test_parse_threshold_source() -> None:
    assert parse_threshold("ui.score=1", source="pytest.ini").source == "pytest.ini"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ui",
        "ui.score",
        "ui.score=",
        "ui=0.5",
        ".score=1",
        "ui.=1",
        "ui score=1",
        "-ui.score=1",
        "ui.score 0.5",
        "ui/x.score=1",
    ],
)
def test_parse_threshold_bad_format(text: str) -> None:
    with pytest.raises(ConfigError, match="expects SUITE.METRIC=VALUE"):
        parse_threshold(text)


@pytest.mark.parametrize("text", ["ui.score=abc", "ui.score=0.9x", "ui.score=1,5"])
def test_parse_threshold_bad_number(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a number") as info:
        parse_threshold(text, source="--eval-fail-under")
    assert text in str(info.value)


def test_parse_threshold_rejects_nan() -> None:
    with pytest.raises(ConfigError):
        parse_threshold("ui.score=nan")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("size=1024x1024", ("size", "1024x1024")),
        ("n=2", ("n", 2)),
        ("temperature=0.5", ("temperature", 0.5)),
        ("stream=true", ("stream", True)),
        ("seed=null", ("seed", None)),
        ("stop=[a, b]", ("stop", ["a", "b"])),
        ("extra={k: 1}", ("extra", {"k": 1})),
        ("quality='2'", ("quality", "2")),
        (" key = 3", ("key", 3)),
        ("empty=", ("empty", "")),
        ("spaces=   ", ("spaces", "")),
        ("expr=a=b", ("expr", "a=b")),
        ("broken=[1, 2", ("broken", "[1, 2")),  # not YAML: kept as text
    ],
)
def test_parse_param(text: str, expected: tuple[str, Any]) -> None:
    key, value = parse_param(text)
    assert (key, value) == expected
    assert type(value) is type(expected[1])


@pytest.mark.parametrize("text", ["novalue", "=3", "  =3", ""])
def test_parse_param_bad(text: str) -> None:
    with pytest.raises(ConfigError, match="KEY=VALUE"):
        parse_param(text)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("#ffffff", "#ffffff"),  # a YAML comment, kept as typed
        ("a: b", "a: b"),  # a YAML mapping without braces, kept as typed
        ("{a: 1}", {"a": 1}),
        ("[1, 2]", [1, 2]),
        ("null", None),
        ("2", 2),
        ("0.5", 0.5),
        ("true", True),
        ("1024x1024", "1024x1024"),
    ],
)
def test_param_values_read_as_yaml_only_when_unambiguous(raw: str, expected: Any) -> None:
    assert parse_param(f"k={raw}") == ("k", expected)

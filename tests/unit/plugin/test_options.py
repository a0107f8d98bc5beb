"""plugin/options.py: parse_param."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_visioneval.errors import ConfigError
from pytest_visioneval.plugin.options import parse_param


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


def test_named_numbers_file_bare_values_and_refuse_bad_ones() -> None:
    from pytest_visioneval.plugin.options import parse_agreement_floors, parse_spread_limits

    assert parse_spread_limits(["0.5", "score.quality=1.5"]) == {"*": 0.5, "score.quality": 1.5}
    assert parse_agreement_floors(["kappa=0.4", "rubric.verdict:accuracy=0.8"]) == {
        "kappa": 0.4,
        "rubric.verdict:accuracy": 0.8,
    }
    for bad in (["kappa"], ["0.4"], ["kappa=x"], ["kappa=-1"], ["kappa=inf"]):
        with pytest.raises(ConfigError, match="--eval-agreement-floor expects"):
            parse_agreement_floors(bad)
    with pytest.raises(ConfigError, match="--eval-flaky-spread expects STD or NAME=STD"):
        parse_spread_limits(["q=nan"])

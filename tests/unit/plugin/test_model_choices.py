"""Parsing repeated --model values into labels, and item names that carry them."""

from __future__ import annotations

import pytest

from pytest_visioneval.errors import ConfigError
from pytest_visioneval.plugin.model_choices import ModelChoice, item_name, parse_model_choices, split_item_name


def test_one_model_keeps_its_spec_as_label() -> None:
    assert parse_model_choices(["replay:runs/a b"], "reference") == (ModelChoice("replay:runs/a b", "replay:runs/a b"),)
    assert parse_model_choices([], "reference") == (ModelChoice("reference", "reference"),)


def test_several_models_get_id_safe_labels_or_their_own() -> None:
    choices = parse_model_choices(["reference", "new=replay:runs/b", "replay:runs/c d"], "reference")
    assert [(c.label, c.spec) for c in choices] == [
        ("reference", "reference"),
        ("new", "replay:runs/b"),
        ("replay:runs_c_d", "replay:runs/c d"),
    ]
    assert choices[1].provider == "replay"


def test_a_spec_with_an_equals_sign_after_its_provider_is_not_a_label() -> None:
    (choice,) = parse_model_choices(["replay:dir=with=signs"], "reference")
    assert choice.spec == "replay:dir=with=signs"


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (["reference", "reference"], "share the label 'reference'"),
        (["replay:a/b", "replay:a_b"], "share the label 'replay:a_b'"),
        (["x y=reference"], "a label is letters"),
        (["name=", "reference"], "needs a spec"),
    ],
)
def test_ambiguous_or_malformed_labels_are_refused(values: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse_model_choices(values, "reference")


@pytest.mark.parametrize(
    ("uid", "label", "name"),
    [
        ("suite/case", "new", "suite/case[new]"),
        ("suite/case[quality=low]", "new", "suite/case[quality=low-new]"),
        ("suite/case", "openai:gpt-image-1", "suite/case[openai:gpt-image-1]"),
    ],
)
def test_item_names_round_trip(uid: str, label: str, name: str) -> None:
    assert item_name(uid, label) == name
    assert split_item_name(name, ["old", label]) == (uid, label)


def test_the_longest_matching_label_wins() -> None:
    # "b" and "a-b" both end "suite/case[a-b]": the item is a-b's (a plain uid has no "-" before its label).
    assert split_item_name("suite/case[a-b]", ["b", "a-b"]) == ("suite/case", "a-b")
    assert split_item_name("suite/case[x]", ["a", "b"]) == ("suite/case[x]", None)

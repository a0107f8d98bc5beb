"""P(yes) read from the first answer token's top_logprobs, normalised over the yes/no variants."""

from __future__ import annotations

import math

import pytest

from pytest_visioneval.errors import JudgeOutputError
from pytest_visioneval.judges.logprobs import read_yes_no, side_of
from pytest_visioneval.testing.logprob_replies import NO_YES_NO, chat_logprobs, yes_no_tokens


def first_token(tops: dict[str, float], sampled: str | None = None) -> dict:
    entries = [{"token": t, "logprob": math.log(p)} for t, p in tops.items()]
    token = sampled or max(tops, key=tops.__getitem__)
    return {"content": [{"token": token, "logprob": math.log(tops.get(token, 0.5)), "top_logprobs": entries}]}


@pytest.mark.parametrize(
    ("token", "side"),
    [
        ("Yes", "yes"),
        ("yes", "yes"),
        ("YES", "yes"),
        (" Yes", "yes"),
        ("ĠYes", "yes"),
        ("▁yes", "yes"),
        ("No", "no"),
        ("Ġno", "no"),
        ("Yeah", None),
        ("The", None),
        ("Yes!", None),
        ("", None),
    ],
)
def test_yes_and_no_are_recognised_in_every_spelling(token: str, side: str | None) -> None:
    assert side_of(token) == side


def test_the_variants_are_summed_and_the_rest_normalised_away() -> None:
    answer = read_yes_no(first_token({"Yes": 0.54, "yes": 0.06, "ĠNo": 0.3, "The": 0.1}))
    assert answer.p_yes == pytest.approx(0.6 / 0.9)
    assert answer.yes_mass == pytest.approx(0.6) and answer.no_mass == pytest.approx(0.3)
    assert answer.first_token == "Yes"


def test_a_token_listed_twice_counts_once() -> None:
    # vLLM lists the sampled token among the top ones even when it is already there
    logprobs = first_token({"No": 0.5, "Yes": 0.25})
    logprobs["content"][0]["top_logprobs"].append({"token": "Yes", "logprob": math.log(0.25)})
    assert read_yes_no(logprobs).p_yes == pytest.approx(1 / 3)


@pytest.mark.parametrize("style", ["openai", "vllm"])
@pytest.mark.parametrize("p", [0.0, 0.2, 0.73, 1.0])
def test_the_server_shapes_give_back_the_probability(style: str, p: float) -> None:
    text, logprobs = chat_logprobs(yes_no_tokens(p, style), 20)
    assert read_yes_no(logprobs).p_yes == pytest.approx(p)
    assert text.rstrip(".") in ("Yes", "No", "The")


def test_no_logprobs_is_an_error_that_says_so() -> None:
    with pytest.raises(JudgeOutputError, match="judge openai:j: the endpoint returned no logprobs"):
        read_yes_no(None, judge="judge openai:j")


def test_logprobs_without_top_alternatives_is_an_error() -> None:
    with pytest.raises(JudgeOutputError, match="the first answer token has no top_logprobs list"):
        read_yes_no({"content": [{"token": "Yes", "logprob": -0.1}]})
    with pytest.raises(JudgeOutputError, match="logprobs hold no token list"):
        read_yes_no({"content": []})


def test_no_yes_no_token_among_the_top_ones_is_an_error_naming_them() -> None:
    _, logprobs = chat_logprobs(NO_YES_NO, 5)
    with pytest.raises(JudgeOutputError) as info:
        read_yes_no(logprobs)
    assert "none of the first answer token's 3 top_logprobs is a yes/no token" in str(info.value)
    assert "the judge began with 'The'; top tokens: 'The', 'It', 'This'" in str(info.value)


def test_a_yes_no_token_cut_off_by_top_n_is_absent() -> None:
    # "The" is most likely here; with top_logprobs=1 neither yes nor no is listed
    _, logprobs = chat_logprobs({"The": 0.7, "Yes": 0.2, "No": 0.1}, 1)
    with pytest.raises(JudgeOutputError, match="none of the first answer token's 1 top_logprobs"):
        read_yes_no(logprobs)

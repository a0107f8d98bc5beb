"""models/openai_model.py with request_params.py: each request kind is sent only its own params."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.models import ModelSettings, create_model
from pytest_visioneval.models.openai_model import OpenAIModel
from pytest_visioneval.testing import FakeOpenAIServer


@pytest.fixture
def srv(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unit-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAIServer() as server:
        yield server


def model(srv: FakeOpenAIServer, name: str = "gpt-image-1") -> OpenAIModel:
    built = create_model(f"openai:{name}", ModelSettings(base_url=srv.base_url, max_retries=0))
    assert isinstance(built, OpenAIModel)
    return built


def test_images_params_from_defaults_are_not_sent_with_a_chat_request(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], caplog: pytest.LogCaptureFixture
) -> None:
    case = make_case(task="html_generation", prompt="a page")
    params = {"size": "1024x1024", "quality": "high", "temperature": 0.2, "my_server_field": 1}
    output = model(srv, "gpt-4o").generate(case, params)
    body = srv.requests[-1].json
    assert body is not None and srv.requests[-1].path == "/v1/chat/completions"
    assert {k: body[k] for k in ("temperature", "my_server_field")} == {"temperature": 0.2, "my_server_field": 1}
    assert "size" not in body and "quality" not in body
    assert dict(output.params) == {"temperature": 0.2, "my_server_field": 1}  # provenance: what was sent
    assert caplog.messages == [
        f"openai:gpt-4o: case {case.uid}: not sent to chat.completions: "
        "quality (a param of the images API), size (a param of the images API)"
    ]


def test_chat_params_are_not_sent_with_an_images_request(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], caplog: pytest.LogCaptureFixture
) -> None:
    output = model(srv).generate(make_case(prompt="a red square"), {"size": "16x16", "temperature": 0.2, "moderation": "low"})
    assert srv.requests[-1].json == {"model": "gpt-image-1", "prompt": "a red square", "size": "16x16", "moderation": "low"}
    assert dict(output.params) == {"size": "16x16", "moderation": "low"}
    assert caplog.messages[-1].endswith("not sent to images.generate: temperature (a param of the text APIs)")


def test_response_format_goes_where_its_shape_belongs() -> None:
    from pytest_visioneval.models.request_params import params_for

    assert params_for("chat.completions", {"response_format": "b64_json"}) == ({}, {"response_format": "the images API"})
    assert params_for("images.generate", {"response_format": "b64_json"}) == ({"response_format": "b64_json"}, {})
    schema = {"type": "json_object"}
    assert params_for("chat.completions", {"response_format": schema}) == ({"response_format": schema}, {})
    assert params_for("images.edit", {"response_format": schema, "style": "vivid"}) == (
        {},
        {"response_format": "the text APIs", "style": "images.generate"},
    )
    with pytest.raises(ValueError, match="unknown request kind 'audio'"):
        params_for("audio", {})

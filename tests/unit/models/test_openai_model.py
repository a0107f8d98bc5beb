"""models/openai_model.py through the real openai SDK against the local fake server."""

from __future__ import annotations

import base64
import io
import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image

from pytest_visioneval.cases.spec import CaseSpec
from pytest_visioneval.errors import ModelError
from pytest_visioneval.models import ModelSettings, create_model
from pytest_visioneval.models.openai_model import OpenAIModel
from pytest_visioneval.testing import FakeOpenAIServer


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-unit-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture(scope="module")
def shared_server() -> Iterator[FakeOpenAIServer]:
    # One server for the module: stopping one takes up to half a second (serve_forever's poll).
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture
def srv(shared_server: FakeOpenAIServer) -> Iterator[FakeOpenAIServer]:
    """The shared server with no recorded requests; its settable behaviour is restored afterwards."""
    saved = (shared_server.image_factory, shared_server.image_as_url, shared_server.text_reply)
    shared_server.requests.clear()
    yield shared_server
    shared_server.image_factory, shared_server.image_as_url, shared_server.text_reply = saved
    shared_server.raw_reply = None
    shared_server.requests.clear()


def model(srv: FakeOpenAIServer, name: str = "gpt-image-1", **settings: object) -> OpenAIModel:
    settings.setdefault("max_retries", 0)
    built = create_model(f"openai:{name}", ModelSettings(base_url=srv.base_url, **settings))  # type: ignore[arg-type]
    assert isinstance(built, OpenAIModel)
    return built


@pytest.fixture
def edit_case(make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]) -> CaseSpec:
    return make_case(
        task="image_editing",
        prompt="recolour the square",
        images=(make_image("in.png", color=(10, 20, 30)),),
        mask=make_image("mask.png", size=(32, 32), color=(0, 0, 0), pattern=False),
    )


# -- image generation -------------------------------------------------------
def test_generate_sends_prompt_model_size_and_returns_pngs(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    output = model(srv).generate(make_case(prompt="a red square"), {"size": "64x32", "n": 2})
    request = srv.requests[-1]
    assert request.path == "/v1/images/generations"
    assert request.headers["authorization"] == "Bearer sk-unit-test"
    assert request.json == {"model": "gpt-image-1", "prompt": "a red square", "size": "64x32", "n": 2}
    assert [a.name for a in output.artifacts] == ["image-0.png", "image-1.png"]
    for artifact in output.artifacts:
        assert artifact.mime == "image/png"
        image = Image.open(io.BytesIO(artifact.data))
        image.load()
        assert (image.format, image.size) == ("PNG", (64, 32))
    assert dict(output.params) == {"size": "64x32", "n": 2}
    assert output.usage == {"input_tokens": 10, "output_tokens": 100, "total_tokens": 110, "images": 2}


def test_generate_uses_the_image_factory(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    srv.image_factory = lambda request: b"custom-bytes"
    output = model(srv).generate(make_case(), {})
    assert output.artifacts[0].data == b"custom-bytes"


def test_unknown_params_go_in_the_body(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    model(srv).generate(make_case(), {"size": "16x16", "guidance_scale": 7.5, "negative_prompt": "blur"})
    body = srv.requests[-1].json
    assert body is not None
    assert body["size"] == "16x16"
    assert body["guidance_scale"] == 7.5
    assert body["negative_prompt"] == "blur"
    assert "extra_body" not in body


def test_base_url_from_environment(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
    built = create_model("openai:gpt-image-1", ModelSettings(max_retries=0))
    built.generate(make_case(), {})
    assert len(srv.calls_to("/images/generations")) == 1


def test_image_as_url_is_refused(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    srv.image_as_url = True
    with pytest.raises(ModelError) as info:
        model(srv).generate(make_case(), {})
    assert "as a URL" in str(info.value)
    assert "b64_json" in str(info.value)


# -- image editing ----------------------------------------------------------
def test_edit_sends_image_and_mask_as_files(srv: FakeOpenAIServer, edit_case: CaseSpec) -> None:
    output = model(srv).generate(edit_case, {"size": "48x48", "custom_field": "yes"})
    request = srv.requests[-1]
    assert request.path == "/v1/images/edits"
    assert request.json is None
    assert request.files["image"] == [("in.png", edit_case.images[0].read_bytes())]
    assert edit_case.mask is not None
    assert request.files["mask"] == [("mask.png", edit_case.mask.read_bytes())]
    assert request.files["prompt"] == [(None, b"recolour the square")]
    assert request.files["model"] == [(None, b"gpt-image-1")]
    assert request.files["size"] == [(None, b"48x48")]
    assert request.files["custom_field"] == [(None, b"yes")]  # unknown param, sent in the body
    image = Image.open(io.BytesIO(output.artifacts[0].data))
    assert image.size == (48, 48)


def test_edit_with_several_images(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]
) -> None:
    first, second = make_image("one.png"), make_image("two.png", color=(1, 2, 3))
    model(srv).generate(make_case(task="image_editing", images=(first, second)), {})
    files = srv.requests[-1].files
    sent = [entry for name, entries in files.items() if name.startswith("image") for entry in entries]
    assert sent == [("one.png", first.read_bytes()), ("two.png", second.read_bytes())]
    assert "mask" not in files


# -- retries and errors -----------------------------------------------------
def test_retries_then_succeeds(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    srv.fail_next(2, 503, retry_after="0")
    output = model(srv, max_retries=2).generate(make_case(), {})
    assert len(srv.requests) == 3
    assert all(r.path == "/v1/images/generations" for r in srv.requests)
    assert output.artifacts[0].kind == "image"


def test_persistent_failure_is_a_model_error(make_case: Callable[..., CaseSpec]) -> None:
    with FakeOpenAIServer() as own:  # its own server: three injected faults stay unused
        own.fail_next(5, 500, "0")
        with pytest.raises(ModelError) as info:
            model(own, max_retries=1).generate(make_case(), {})
        assert "HTTP 500" in str(info.value)
        assert "openai:gpt-image-1" in str(info.value)
        assert len(own.requests) == 2  # the first try and one retry


def test_client_error_is_not_retried(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    srv.fail_next(1, 400)
    with pytest.raises(ModelError, match="HTTP 400"):
        model(srv, max_retries=3).generate(make_case(), {})
    assert len(srv.requests) == 1


def test_unreachable_server(make_case: Callable[..., CaseSpec]) -> None:
    # Hold the port (bound, never listening) for the whole test: connections are
    # refused, and no other test's server can take the port meanwhile.
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        built = create_model("openai:m", ModelSettings(base_url=f"http://127.0.0.1:{port}/v1", max_retries=0, timeout=5))
        with pytest.raises(ModelError, match="cannot reach the API"):
            built.generate(make_case(), {})


def test_timeout(make_case: Callable[..., CaseSpec]) -> None:
    with FakeOpenAIServer(latency=1.0) as slow:
        built = create_model("openai:m", ModelSettings(base_url=slow.base_url, max_retries=0, timeout=0.2))
        with pytest.raises(ModelError, match="timed out"):
            built.generate(make_case(), {})


# -- settings ---------------------------------------------------------------
def test_missing_api_key_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VE_UNIT_KEY", raising=False)
    with pytest.raises(ModelError) as info:
        create_model("openai:gpt-image-1", ModelSettings(api_key_env="VE_UNIT_KEY"))
    assert "VE_UNIT_KEY" in str(info.value)


def test_empty_api_key_counts_as_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        create_model("openai:gpt-image-1", ModelSettings())


def test_key_is_read_from_the_named_variable(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VE_UNIT_KEY", "sk-other")
    model(srv, api_key_env="VE_UNIT_KEY").generate(make_case(), {})
    assert srv.requests[-1].headers["authorization"] == "Bearer sk-other"


def test_model_name_is_required() -> None:
    with pytest.raises(ModelError, match="name the model"):
        create_model("openai", ModelSettings())


def test_unknown_text_api(srv: FakeOpenAIServer) -> None:
    with pytest.raises(ModelError, match="unknown API 'completions'"):
        model(srv, openai_api="completions")


def test_name(srv: FakeOpenAIServer) -> None:
    assert model(srv, name="dall-e-3").name == "openai:dall-e-3"


# -- html generation --------------------------------------------------------
def test_html_generation_via_chat(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    srv.text_reply = "<html><body>chat page</body></html>"
    output = model(srv, name="gpt-4o").generate(
        make_case(task="html_generation", prompt="a landing page"), {"temperature": 0.2, "top_k": 5}
    )
    request = srv.requests[-1]
    assert request.path == "/v1/chat/completions"
    assert request.json is not None
    assert request.json["model"] == "gpt-4o"
    assert request.json["messages"] == [{"role": "user", "content": [{"type": "text", "text": "a landing page"}]}]
    assert request.json["temperature"] == 0.2
    assert request.json["top_k"] == 5
    assert request.headers["authorization"] == "Bearer sk-unit-test"  # posted as JSON, authenticated as create is
    assert [(a.name, a.data) for a in output.artifacts] == [("reply.md", b"<html><body>chat page</body></html>")]
    assert output.usage["total_tokens"] == 46


def test_html_generation_via_responses(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    srv.text_reply = "<p>responses page</p>"
    output = model(srv, name="gpt-4o", openai_api="responses").generate(make_case(task="html_generation", prompt="a page"), {})
    request = srv.requests[-1]
    assert request.path == "/v1/responses"
    assert request.json is not None
    assert request.json["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "a page"}]}]
    assert [(a.name, a.data) for a in output.artifacts] == [("reply.md", b"<p>responses page</p>")]


def _decode_data_url(url: str) -> tuple[str, bytes]:
    header, _, payload = url.partition(",")
    assert header.startswith("data:") and header.endswith(";base64")
    return header[len("data:") : -len(";base64")], base64.b64decode(payload)


def test_chat_sends_input_images_as_data_urls(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]
) -> None:
    picture = make_image("sketch.png")
    model(srv).generate(make_case(task="html_generation", prompt="build this", images=(picture,)), {})
    content = srv.requests[-1].json["messages"][0]["content"]  # type: ignore[index]
    assert content[0] == {"type": "text", "text": "build this"}
    assert content[1]["type"] == "image_url"
    assert _decode_data_url(content[1]["image_url"]["url"]) == ("image/png", picture.read_bytes())


def test_responses_sends_input_images_as_data_urls(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], make_image: Callable[..., Path]
) -> None:
    picture = make_image("sketch.jpg", fmt="JPEG")
    model(srv, openai_api="responses").generate(make_case(task="html_generation", prompt="build this", images=(picture,)), {})
    content = srv.requests[-1].json["input"][0]["content"]  # type: ignore[index]
    assert content[1]["type"] == "input_image"
    assert _decode_data_url(content[1]["image_url"]) == ("image/jpeg", picture.read_bytes())


@pytest.mark.parametrize("api", ["chat", "responses"])
def test_empty_reply_is_a_model_error(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], api: str) -> None:
    srv.text_reply = ""
    with pytest.raises(ModelError, match="empty reply"):
        model(srv, openai_api=api).generate(make_case(task="html_generation"), {})


def test_unknown_task(srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec]) -> None:
    with pytest.raises(ModelError, match="cannot run task 'video'"):
        model(srv).generate(make_case(task="video"), {})
    assert srv.requests == []


@pytest.mark.parametrize(
    ("content_type", "body", "message"),
    [
        (
            "text/html",
            b"<html><body>Sign in to the proxy</body></html>",
            "the endpoint answered with text, not an images reply: ",
        ),
        ("application/json", b"<<not json>>", "the endpoint's answer is not JSON (Expecting value): '<<not json>>'"),
        ("application/json", b"[1, 2]", "the endpoint's answer is not an images reply: '[1, 2]'"),
    ],
    ids=["html-page", "not-json", "json-but-not-a-reply"],
)
def test_a_hostile_answer_is_a_worded_model_error(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], content_type: str, body: bytes, message: str
) -> None:
    srv.raw_reply = lambda request: (content_type, body)
    with pytest.raises(ModelError) as info:
        model(srv).generate(make_case(), {})
    assert str(info.value).startswith(f"openai:gpt-image-1: {message}")
    assert "internal error" not in str(info.value) and "AttributeError" not in str(info.value)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            {"data": "oops"},
            "openai:gpt-image-1: the endpoint's answer is not an images reply: its data is a JSON string, not a list",
        ),
        ({"data": [1]}, "openai:gpt-image-1: the endpoint's answer is not an images reply: its image 0 is the int 1"),
        ({"data": [{"b64_json": 5}]}, "openai:gpt-image-1 returned image 0 with b64_json that is the int 5, not text"),
    ],
    ids=["data-not-a-list", "image-not-an-object", "b64-not-text"],
)
def test_an_images_reply_of_the_wrong_shape_is_a_worded_model_error(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], body: dict, message: str
) -> None:
    srv.raw_reply = lambda request: ("application/json", json.dumps(body).encode())
    with pytest.raises(ModelError) as info:
        model(srv).generate(make_case(), {})
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("api", "body", "message"),
    [
        ("chat", {"choices": "oops"}, "the endpoint's answer is not a chat completion ('choices' is not a list): "),
        (
            "chat",
            {"choices": [{"message": None}]},
            "the endpoint's answer is not a chat completion (its first choice has no message): ",
        ),
        (
            "chat",
            {"choices": [{"message": {"content": 5}}]},
            "the endpoint's answer is not a chat completion (the message's content is not text): ",
        ),
        ("chat", {"choices": []}, "openai:gpt-x returned no choices"),
        ("chat", {"choices": [{"message": {"content": None}}]}, "openai:gpt-x returned an empty reply"),
        ("responses", {"output": "x"}, "the endpoint's answer is not a responses reply: its output cannot be read"),
        (
            "responses",
            {"output": [{"type": "message", "content": [{"type": "output_text", "text": 5}]}]},
            "the endpoint's answer is not a responses reply: its output cannot be read",
        ),
    ],
    ids=[
        "choices-not-a-list",
        "no-message",
        "content-not-text",
        "no-choices",
        "null-content",
        "output-not-a-list",
        "text-not-text",
    ],
)
def test_a_text_reply_of_the_wrong_shape_is_a_worded_model_error(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], api: str, body: dict, message: str
) -> None:
    srv.raw_reply = lambda request: ("application/json", json.dumps(body).encode())
    with pytest.raises(ModelError) as info:
        model(srv, "gpt-x", openai_api=api).generate(make_case(task="html_generation"), {})
    assert message in str(info.value)
    assert str(info.value).startswith("openai:gpt-x")


def test_an_image_generation_is_posted_as_the_batch_body_and_read_as_json(
    srv: FakeOpenAIServer, make_case: Callable[..., CaseSpec], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not through ``images.generate``: its typed parameters and reply cost CPU for the same body (calls/images_reply.py)."""
    built = model(srv)

    def typed(*args: object, **kwargs: object) -> None:
        raise AssertionError("images.generate was called")

    monkeypatch.setattr(built.client.images, "generate", typed)
    params = {"size": "16x16", "guidance_scale": 7.5}
    output = built.generate(make_case(prompt="a red square"), params)
    assert srv.requests[-1].path == "/v1/images/generations"
    assert srv.requests[-1].json == {"model": "gpt-image-1", "prompt": "a red square", **params}
    assert [a.name for a in output.artifacts] == ["image-0.png"]
    assert output.usage == {"input_tokens": 10, "output_tokens": 100, "total_tokens": 110, "images": 1}

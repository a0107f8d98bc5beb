"""A key or URL credentials echoed by the endpoint reach none of the files a run writes, nor its output.

The loopback server answers 401 with a message that repeats the request's ``Authorization`` header and
its host line, as some proxies do. The run writes the results JSON, JUnit XML, a log file at DEBUG, the
run folder (provenance, the xdist exchange) and prints ``-rA`` with the captured logs.
"""

from __future__ import annotations

import base64

import pytest

from pytest_visioneval.testing import FakeOpenAIServer
from pytest_visioneval.testing.openai_server import RecordedRequest
from tests.conftest import draw_png

KEY = "sk-echoed-key-5f1c9a7e2b"
URL_PASSWORD = "url-pass-8d2e4c"

# Two models: the OpenAI one meets the echoing 401 itself; the reference model's output goes to the judge, which meets it.
SUITE = """\
suite: api
cases:
  - id: judged
    task: image_generation
    prompt: a red square on white
    reference: ref.png
    graders:
      - use: image
      - use: checklist
        options:
          questions: ["Is there a red square?"]
"""


def echo(request: RecordedRequest, status: int) -> str:
    return f"Incorrect API key provided: {request.headers.get('authorization')} (sent to {request.headers.get('host')})"


def test_an_echoed_key_and_url_credentials_are_in_no_file_and_not_in_the_output(
    pytester: pytest.Pytester, xdist_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    draw_png(pytester.path / "cases" / "ref.png")
    (pytester.path / "cases" / "api.eval.yaml").write_text(SUITE)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAIServer() as server:
        server.fault_message = echo
        server.fail_when(lambda request: True, status=401)
        base_url = server.base_url.replace("http://", f"http://visioneval:{URL_PASSWORD}@")
        result = pytester.runpytest(
            "cases",
            "-rA",
            "--model=openai:gpt-image-1",
            "--model=reference",
            f"--model-base-url={base_url}",
            "--judge=openai:judge-1",
            f"--judge-base-url={server.base_url}",  # the judge sends the key; the model, the URL's user and password
            "--eval-results=results.json",
            "--junitxml=junit.xml",
            "--eval-output-dir=out",
            "--log-level=DEBUG",
            "--log-file=run.log",
            "--log-file-level=DEBUG",
            *xdist_args,
        )
    # The echo happened: the server saw the key and the credentials, and answered with them.
    sent = {r.path: r.headers["authorization"] for r in server.requests}
    basic = base64.b64encode(f"visioneval:{URL_PASSWORD}".encode()).decode()
    assert sent == {"/v1/images/generations": f"Basic {basic}", "/v1/chat/completions": f"Bearer {KEY}"}
    output = result.stdout.str() + result.stderr.str()
    assert "HTTP 401 from the API" in output and "Incorrect API key provided: Bearer [REDACTED]" in output, output
    assert KEY not in output and URL_PASSWORD not in output and basic not in output
    written = [path for path in pytester.path.rglob("*") if path.is_file() and path.suffix != ".png"]
    names = {path.name for path in written}
    assert {"results.json", "junit.xml", "run.log"} <= names
    for path in written:
        data = path.read_bytes()
        assert KEY.encode() not in data and URL_PASSWORD.encode() not in data and basic.encode() not in data, path
    assert "Bearer [REDACTED]" in (pytester.path / "results.json").read_text()

"""The plugin installs log redaction and a last pass over reports: secrets reach neither -rA, --log-file nor JUnit."""

from __future__ import annotations

import pytest

TEST_FILE = """
import logging

def test_logs():
    logging.getLogger("httpx").info("HTTP Request: POST http://user:pw-in-url-42@host/v1 200")
    logging.getLogger("openai._base_client").debug("key %s", "sk-judge-key-000111")
"""


def test_log_records_are_redacted_in_the_report_and_the_log_file(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY", "sk-judge-key-000111")
    pytester.makepyfile(test_logs=TEST_FILE)
    result = pytester.runpytest(
        "test_logs.py", "-rA", "--log-level=DEBUG", "--log-file=run.log", "--judge-api-key-env=MY_JUDGE_KEY"
    )
    result.assert_outcomes(passed=1)
    written = result.stdout.str() + (pytester.path / "run.log").read_text()
    assert "pw-in-url-42" not in written and "sk-judge-key-000111" not in written, written
    assert "http://[REDACTED]@host/v1" in written and "key [REDACTED]" in written


FAILING_TEST = """
def test_fails():
    print("the key is sk-printed-key-424242")
    raise RuntimeError("HTTP 401: Incorrect API key provided: sk-printed-key-424242")
"""


def test_a_failures_text_and_captured_output_are_redacted_in_the_terminal_and_junit(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-printed-key-424242")
    pytester.makepyfile(test_fails=FAILING_TEST)
    result = pytester.runpytest("test_fails.py", "-rA", "--junitxml=junit.xml")
    result.assert_outcomes(failed=1)
    written = result.stdout.str() + (pytester.path / "junit.xml").read_text()
    assert "sk-printed-key-424242" not in written, written
    assert "RuntimeError: HTTP 401: Incorrect API key provided: [REDACTED]" in written
    assert "the key is [REDACTED]" in written

"""Secrets out of every text we write: keys from the environment or registered, URL credentials, auth tokens."""

from __future__ import annotations

import base64
import logging
import os
from collections.abc import Iterator

import pytest

from pytest_visioneval.calls import redact as redaction
from pytest_visioneval.calls.redact import (
    REDACTED,
    install_record_redaction,
    redact,
    redact_data,
    register_key_env,
    register_secret,
    register_url,
)


@pytest.fixture(autouse=True)
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(redaction, "_secrets", set())
    monkeypatch.setattr(redaction, "_key_envs", {"OPENAI_API_KEY"})
    monkeypatch.setattr(redaction, "_known", None)  # a registry's id may be reused by the next test's: start afresh
    yield


def test_the_value_of_openai_api_key_is_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789")
    assert redact("Incorrect API key provided: sk-live-0123456789.") == f"Incorrect API key provided: {REDACTED}."


def test_a_registered_key_variable_and_variables_named_like_keys_are_redacted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_JUDGE_KEY_VAR", "judge-secret-value")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ant-secret-value")
    monkeypatch.setenv("HOME_DIRECTORY", "/root/not-a-secret")
    text = "judge-secret-value and ant-secret-value in /root/not-a-secret"
    assert redact(text) == f"judge-secret-value and {REDACTED} in /root/not-a-secret"  # the judge's variable: not yet known
    register_key_env("MY_JUDGE_KEY_VAR")
    assert redact(text) == f"{REDACTED} and {REDACTED} in /root/not-a-secret"


def test_short_values_are_not_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "x")  # a local server that checks no key
    register_secret("abc")
    assert redact("x marks abc") == "x marks abc"


def test_a_registered_secret_is_redacted_whole_even_when_it_contains_another() -> None:
    register_secret("sk-short-1234")
    register_secret("sk-short-1234-and-longer")
    assert redact("key sk-short-1234-and-longer") == f"key {REDACTED}"


def test_url_credentials_are_redacted_in_any_url_and_registered_urls_also_as_basic_auth() -> None:
    assert redact("POST http://user:pa55word@host:8080/v1/chat") == f"POST http://{REDACTED}@host:8080/v1/chat"
    assert redact("see https://token@example.com/x") == f"see https://{REDACTED}@example.com/x"
    assert redact("mail me at a@b.com, http://host/v1") == "mail me at a@b.com, http://host/v1"  # no URL credentials
    register_url("http://visioneval:p%40ss-word-99@127.0.0.1/v1")
    basic = base64.b64encode(b"visioneval:p@ss-word-99").decode()
    assert redact(f"password p@ss-word-99, header {basic}") == f"password {REDACTED}, header {REDACTED}"


def test_authorization_tokens_are_redacted_however_quoted() -> None:
    assert redact("'authorization': 'Bearer sk-unknown-token-77'") == f"'authorization': 'Bearer {REDACTED}'"
    assert redact("Authorization: basic dXNlcjpwYXNzd29yZA==") == f"Authorization: basic {REDACTED}"
    assert redact("a bearer of bad news") == "a bearer of bad news"  # a word, not a token


def test_data_is_redacted_everywhere_keys_included(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789")
    data = {"error": "HTTP 401: sk-live-0123456789", "list": ["ok", {"sk-live-0123456789": 3}], "n": 2, "none": None}
    assert redact_data(data) == {"error": f"HTTP 401: {REDACTED}", "list": ["ok", {REDACTED: 3}], "n": 2, "none": None}


def test_log_records_are_redacted_as_they_are_made_and_others_left_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-0123456789")
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    outer = logging.getLogRecordFactory()  # the plugin may have installed one in this process: start from none
    logging.setLogRecordFactory(logging.LogRecord)
    logger = logging.getLogger("tests.redact.httpx")
    handler = Keep()
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    uninstall = install_record_redaction()
    try:
        assert install_record_redaction()() is None  # a second install is a no-op
        logger.info("HTTP Request: POST %s", "http://u:secret-pw-1@host/v1")
        logger.info("plain %s", "text")
        try:
            raise RuntimeError("key sk-live-0123456789 refused")
        except RuntimeError:
            logger.exception("failed")
    finally:
        uninstall()
        logger.removeHandler(handler)
        restored = logging.getLogRecordFactory()
        logging.setLogRecordFactory(outer)
    assert restored is logging.LogRecord
    echoed, plain, failed = records
    assert echoed.getMessage() == f"HTTP Request: POST http://{REDACTED}@host/v1"
    assert (plain.msg, plain.args) == ("plain %s", ("text",))
    text = logging.Formatter().format(failed)
    assert "RuntimeError: key [REDACTED] refused" in text and "sk-live-0123456789" not in text


def test_secrets_are_read_while_another_thread_changes_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """pytest sets and removes PYTEST_CURRENT_TEST on its thread while case threads redact their outcomes."""
    import threading

    from pytest_visioneval.calls.redact import known_secrets

    monkeypatch.setenv("RACE_API_KEY", "sk-race-secret-123456")
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            os.environ["VISIONEVAL_CHURN"] = "x"
            os.environ.pop("VISIONEVAL_CHURN", None)

    thread = threading.Thread(target=churn)
    thread.start()
    try:
        for _ in range(2000):
            assert "sk-race-secret-123456" in known_secrets()
    finally:
        stop.set()
        thread.join()


def _count_walks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    walks: list[int] = []
    real = redaction._environment

    def counted() -> list[tuple[str, str]]:
        walks.append(1)
        return real()

    monkeypatch.setattr(redaction, "_environment", counted)
    return walks


def test_the_environment_is_walked_again_only_when_it_may_have_changed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-first-0123456789")
    walks = _count_walks(monkeypatch)
    for _ in range(50):
        assert redact("key sk-first-0123456789") == f"key {REDACTED}"
    assert len(walks) == 1, f"the environment was walked {len(walks)} times for 50 texts with nothing changed"
    monkeypatch.setenv("UNRELATED_SETTING", "on")  # the size changed: walked again, once
    redact("x")
    redact("x")
    assert len(walks) == 2


def test_a_changed_key_value_of_the_same_environment_size_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-old-value-0123")
    assert redact("sk-old-value-0123") == REDACTED
    monkeypatch.setenv("OPENAI_API_KEY", "sk-new-value-4567")  # same number of variables
    assert redact("sk-old-value-0123 sk-new-value-4567") == f"sk-old-value-0123 {REDACTED}"


def test_a_registered_variable_set_later_is_seen_even_when_another_goes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOME_OTHER_SETTING", "present")
    register_key_env("JUDGE_KEY_HERE")
    assert redact("judge-key-value-1") == "judge-key-value-1"
    # One variable goes as another comes: the size stays, but a registered name is watched while unset.
    monkeypatch.delenv("SOME_OTHER_SETTING")
    monkeypatch.setenv("JUDGE_KEY_HERE", "judge-key-value-1")
    assert redact("judge-key-value-1") == REDACTED


def test_secrets_registered_after_a_walk_are_redacted_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    walks = _count_walks(monkeypatch)
    assert redact("client-key-abcdefgh") == "client-key-abcdefgh"
    register_secret("client-key-abcdefgh")
    assert redact("client-key-abcdefgh") == REDACTED
    register_key_env("LATE_KEY_VARIABLE")
    monkeypatch.setenv("LATE_KEY_VARIABLE", "late-key-value-1")
    assert redact("late-key-value-1") == REDACTED
    monkeypatch.setattr(redaction, "_secrets", set())  # a registry replaced whole (as these tests do) is seen too
    assert redact("client-key-abcdefgh") == "client-key-abcdefgh"
    assert len(walks) == 4

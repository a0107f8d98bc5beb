"""Shared by the plugin's end-to-end tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_visioneval.testing import FakeOpenAIServer


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    """A local OpenAI-compatible server; a key in the environment and no base URL from outside it."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-plugin-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with FakeOpenAIServer() as fake:
        yield fake

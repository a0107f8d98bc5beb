"""Test helpers shipped with the plugin (a local OpenAI-compatible server)."""

from .openai_server import FakeOpenAIServer, RecordedRequest

__all__ = ["FakeOpenAIServer", "RecordedRequest"]

"""Judges: multimodal models asked for structured verdicts, via the openai SDK.

``--judge=openai:MODEL`` (repeatable) names each judge; any OpenAI-compatible
endpoint serves. A reply that is not JSON satisfying the reply schema is
asked for again, with the reason, up to ``retries`` times; after that it is a
:class:`~pytest_visioneval.errors.JudgeOutputError` - an error of the case,
never a pass and never dropped. Every request goes through the run's call
layer (:mod:`pytest_visioneval.calls.layer`): API failures are retried there with
backoff honouring ``retry-after``, then reported as errors too; only replies
that parse are cached.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import openai

from ..calls.batch_request import BatchRequest, Endpoint
from ..calls.completion import post_chat_completion, read_completion
from ..calls.layer import (
    DEFAULT_BASE_URL,
    DIRECT,
    CallResult,
    UnreadableReply,
    endpoint_label,
    is_retryable,
    readable_reply,
)
from ..calls.lazy_client import LazyClient
from ..calls.redact import redact, register_key_env, register_secret, register_url
from ..calls.slot_transport import client_with_slots
from ..calls.usage import current_usage
from ..errors import GraderError, JudgeOutputError
from .content import JudgeRequest, chat_content, with_image_data
from .logprobs import YesNoRequest, read_yes_no
from .parse import ReplyRejected, parse_reply
from .settings import JudgeSettings


@dataclass
class JudgeReply:
    data: dict[str, Any]
    attempts: int
    usage: dict[str, Any] = field(default_factory=dict)
    served_by: str | None = None  # the model id the API said answered (may differ from the one asked)


# A rejected reply is shown back to the judge cut to this many characters: a huge reply must not
# make every re-ask as large again (a 50 MB reply made a 105 MB request).
REJECTED_EXCERPT_CHARS = 2000


def rejected_excerpt(text: str) -> str:
    """The start of a rejected reply, with its length when cut."""
    if len(text) <= REJECTED_EXCERPT_CHARS:
        return text
    return f"{text[:REJECTED_EXCERPT_CHARS]}\n[... cut: the reply was {len(text):,} characters long]"


class JudgeClient:
    def __init__(
        self,
        model: str,
        client: openai.OpenAI | None,
        settings: JudgeSettings,
        *,
        client_factory: Callable[[], openai.OpenAI] | None = None,
        endpoint: str | None = None,
        slots_in_transport: bool = False,  # the client's HTTP transport takes the concurrency slot
        batch_endpoint: Endpoint | None = None,  # where provider batches go (--eval-batch); None: never batched
    ):
        self.model = model
        self._batch_endpoint = batch_endpoint
        self._client = LazyClient(client_factory, client)
        self._slots_in_transport = slots_in_transport
        self.settings = settings
        self.name = f"openai:{model}"
        self.calls = settings.calls or DIRECT
        self.endpoint = endpoint_label(endpoint or str(client.base_url if client is not None else ""))

    @property
    def client(self) -> openai.OpenAI:
        """Made on first use, once: judgements answered from the cache never import the SDK."""
        return self._client.get()

    def ask(self, request: JudgeRequest, repeat: int = 0) -> JudgeReply:
        """Ask once (``repeat`` tells judgements of the same request apart in the cache)."""
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": request.instructions},
            # Images by hash and size: the cache key never embeds (or waits to encode) an image.
            {
                "role": "user",
                "content": chat_content(request.parts, self.settings.max_side, self.settings.max_images, placeholders=True),
            },
        ]
        problems: list[str] = []
        text: str | None = None
        for attempt in range(1, self.settings.reply_retries + 2):
            try:
                data, usage, served_by = self._complete(messages, request, repeat)
                current_usage().note_judge(self.name, self._provenance(request, repeat, served_by))
                return JudgeReply(data, attempt, usage, served_by)
            except ReplyRejected as exc:
                text = exc.text
                problems.append(f"attempt {attempt}: {exc}")
                # Show the judge its reply and what was wrong with it, then ask again.
                messages += [
                    {"role": "assistant", "content": rejected_excerpt(text or "")},
                    {"role": "user", "content": f"That reply was rejected: {exc}. Answer again with only the JSON object."},
                ]
        excerpt = (text or "")[:200]
        raise JudgeOutputError(
            f"judge {self.name} gave no valid reply in {len(problems)} attempt(s): "
            f"{'; '.join(problems)}; last reply began {excerpt!r}"
        )

    def _temperature(self, request: JudgeRequest) -> float | None:
        return request.temperature if request.temperature is not None else self.settings.temperature

    def _seed(self, repeat: int) -> int | None:
        return None if self.settings.seed is None else self.settings.seed + repeat

    def _provenance(self, request: JudgeRequest, repeat: int, served_by: str | None) -> dict[str, Any]:
        """What says which judge this was: endpoint, the model that answered, sampling settings, instructions."""
        return {
            "endpoint": self.endpoint,
            "served_by": served_by,
            "temperature": self._temperature(request),
            "seed": self._seed(repeat),
            "response_format": "none" if isinstance(request, YesNoRequest) else self.settings.response_format,
            "instructions_sha256": hashlib.sha256(request.instructions.encode("utf-8")).hexdigest()[:16],
            "schema": request.schema_name,
            # Set only for yes/no questions read from token probabilities (VQAScore, soft checklists).
            **({"top_logprobs": request.top_logprobs} if isinstance(request, YesNoRequest) else {}),
        }

    def _complete(
        self, messages: list[dict[str, Any]], request: JudgeRequest, repeat: int
    ) -> tuple[dict[str, Any], dict[str, Any], str | None]:
        """One request through the call layer; the reply is parsed inside it, so only valid replies are cached."""
        kwargs: dict[str, Any] = {"model": self.model, "messages": messages}
        fmt = self.settings.response_format
        if isinstance(request, YesNoRequest):
            # Plain text: the first token must be free to be Yes or No. Both settings are in the cache key.
            kwargs["logprobs"] = True
            kwargs["top_logprobs"] = request.top_logprobs
        elif fmt == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": request.schema, "strict": True},
            }
        elif fmt == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        temperature = self._temperature(request)
        if temperature is not None:
            kwargs["temperature"] = temperature  # in the material below: a cached reply is per temperature
        seed = self._seed(repeat)
        if seed is not None:
            kwargs["seed"] = seed  # likewise per seed; each repeat its own

        sent: list[list[dict[str, Any]]] = []  # the messages as sent: images encoded once, on a cache miss

        def prepare() -> None:
            self._client.get()
            sent.append(with_image_data(messages, request.parts, self.settings.max_side))

        def reply_result(body: Any) -> CallResult:
            completion = read_completion(body)
            if isinstance(request, YesNoRequest):
                # No re-asking: an endpoint without logprobs, or a judge that does not begin with yes/no, would do it again.
                answer = read_yes_no(completion.logprobs, judge=f"judge {self.name}")
                data = {"p_yes": answer.p_yes, "first_token": answer.first_token, "text": (completion.text or "")[:300]}
                return CallResult({"reply": data, "served_by": completion.served_by}, completion.usage)
            try:
                data = parse_reply(completion.text, request.schema)
            except ReplyRejected as exc:
                exc.text = completion.text
                raise
            # Cached with the reply: a warm run still knows which model answered.
            return CallResult({"reply": data, "served_by": completion.served_by}, completion.usage)

        def run() -> CallResult:
            with readable_reply():
                # Posted as is (tests/unit/judges pin that the body equals what ``create`` sends).
                body = post_chat_completion(self.client, chat_body(kwargs, sent[-1]))
            return reply_result(body)

        batch = None
        if self._batch_endpoint is not None:
            batch = BatchRequest(self._batch_endpoint, "/v1/chat/completions", lambda: chat_body(kwargs, sent[-1]), reply_result)
        attempts = self.settings.max_retries + 1
        material = {"endpoint": "chat.completions", "base_url": self.endpoint, **kwargs}
        try:
            result = self.calls.call(
                "judge",
                self.name,
                material,
                run,
                repeat=repeat,
                attempts=attempts,
                prepare=prepare,
                slot_in_transport=self._slots_in_transport,
                batch=batch,
            )
        except UnreadableReply as exc:
            raise GraderError(redact(f"judge {self.name}: {exc}")) from exc
        except Exception as exc:
            sdk = sys.modules.get("openai")  # loaded if the SDK raised
            if sdk is None or not isinstance(exc, sdk.OpenAIError):
                raise
            # Redacted before cutting: a server may echo the key or the URL's credentials in its message.
            if isinstance(exc, sdk.APIStatusError):
                raise GraderError(
                    f"judge {self.name}: HTTP {exc.status_code} from the API{_after(exc, attempts)}: {redact(exc.message)[:300]}"
                ) from exc
            if isinstance(exc, sdk.APITimeoutError):
                raise GraderError(f"judge {self.name}: request timed out{_after(exc, attempts)}") from exc
            if isinstance(exc, sdk.APIConnectionError):
                raise GraderError(redact(f"judge {self.name}: cannot reach the API ({exc.__cause__ or exc})")) from exc
            raise GraderError(redact(f"judge {self.name}: {exc}")) from exc
        return result.value["reply"], dict(result.usage), result.value.get("served_by")


def _after(exc: BaseException, attempts: int) -> str:
    return f" after {attempts} attempt(s)" if is_retryable(exc) and attempts > 1 else ""


def create_judges(specs: tuple[str, ...], settings: JudgeSettings) -> tuple[JudgeClient, ...]:
    """One client per ``--judge`` spec; raise :class:`GraderError` when one cannot be made."""
    if not specs:
        return ()
    judges = []
    for spec in specs:
        provider, _, model = spec.partition(":")
        if provider != "openai" or not model:
            raise GraderError(f"--judge={spec!r}: judges are named openai:MODEL (any OpenAI-compatible endpoint)")
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise GraderError(f"no API key for the judge: set the environment variable {settings.api_key_env}")
        base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        # Never written out: an endpoint may echo them in an error, httpx logs URLs with their credentials.
        register_key_env(settings.api_key_env)
        register_secret(key)
        register_url(base_url)
        factory = _client_factory(key, base_url, settings)
        judges.append(
            JudgeClient(
                model,
                None,
                settings,
                client_factory=factory,
                endpoint=base_url,
                slots_in_transport=True,
                batch_endpoint=Endpoint(base_url, settings.api_key_env),
            )
        )
    return tuple(judges)


def _client_factory(key: str, base_url: str, settings: JudgeSettings) -> Callable[[], openai.OpenAI]:
    def make() -> openai.OpenAI:
        import openai  # imported when a judge is first asked, not when the plugin loads

        # The call layer retries; the HTTP client takes the run's concurrency slot for the time on the wire.
        http_client = client_with_slots((settings.calls or DIRECT).limit, settings.timeout)
        return openai.OpenAI(api_key=key, base_url=base_url, timeout=settings.timeout, max_retries=0, http_client=http_client)

    return make


def chat_body(kwargs: dict[str, Any], messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The JSON body of a judge's chat completion request: its options with the messages as sent."""
    return {**kwargs, "messages": messages}

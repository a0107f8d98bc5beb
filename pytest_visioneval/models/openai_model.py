"""``--model=openai:<model>``: any OpenAI-compatible endpoint, through the SDK.

* ``image_generation`` -> ``images.generate``
* ``image_editing``    -> ``images.edit`` with the input images and the mask
* ``html_generation``  -> Chat Completions (default) or Responses
  (``--model-api=responses``), input images sent inline as data URLs.

Every request goes through the run's call layer (:mod:`pytest_visioneval.calls.layer`):
cache, run-wide concurrency limit, retries with backoff honouring
``retry-after`` (the SDK's own retries are off), usage and cost.

Each request is sent only the case params of its kind (request_params.py):
an images param from a suite's defaults is left out of a chat request, with a
warning in the case's log, and the params recorded with the output are the
ones sent.

The base URL comes from ``--model-base-url`` or ``OPENAI_BASE_URL``; the key
from the environment variable named by ``--model-api-key-env`` (default
``OPENAI_API_KEY``), never from the command line.
"""

from __future__ import annotations

import base64
import inspect
import logging
import os
import sys
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import openai

from ..artifacts import Artifact, ModelOutput, mime_for
from ..calls.batch_request import BatchRequest, Endpoint, sdk_reply
from ..calls.cache import digest
from ..calls.completion import post_chat_completion, read_completion
from ..calls.images_reply import kind_of, post_image_generation, read_images_reply
from ..calls.layer import (
    DEFAULT_BASE_URL,
    DIRECT,
    CallLayer,
    CallResult,
    UnreadableReply,
    api_reply,
    endpoint_label,
    is_retryable,
    readable_reply,
)
from ..calls.lazy_client import LazyClient
from ..calls.redact import redact, register_key_env, register_secret, register_url
from ..calls.slot_transport import client_with_slots
from ..cases.spec import CaseSpec
from ..errors import ModelError
from .base import ModelSettings
from .request_params import left_out_message, params_for

logger = logging.getLogger(__name__)


class OpenAIModel:
    waits_only_in_calls = True  # every request goes through the call layer (see calls/waiting.py)

    def __init__(
        self,
        model: str,
        client: openai.OpenAI | None = None,
        api: str = "chat",
        calls: CallLayer | None = None,
        attempts: int = 3,
        *,
        client_factory: Callable[[], openai.OpenAI] | None = None,
        endpoint: str | None = None,
        slots_in_transport: bool = False,  # the client's HTTP transport takes the concurrency slot
        batch_endpoint: Endpoint | None = None,  # where provider batches go (--eval-batch); None: never batched
    ):
        if api not in ("chat", "responses"):
            raise ModelError(f"unknown API {api!r} for text tasks; use 'chat' or 'responses'")
        if client is None and client_factory is None:
            raise ModelError("OpenAIModel needs a client or a client factory")
        self.model = model
        self._client = LazyClient(client_factory, client)
        self._slots_in_transport = slots_in_transport
        self.api = api
        self.name = f"openai:{model}"
        self.calls = calls or DIRECT
        self.attempts = attempts
        self.endpoint = endpoint_label(endpoint or str(client.base_url if client is not None else ""))
        self._batch_endpoint = batch_endpoint

    @property
    def client(self) -> openai.OpenAI:
        """Made on first use, once: a run answered from the cache never imports the SDK."""
        return self._client.get()

    @classmethod
    def from_argument(cls, argument: str, settings: ModelSettings) -> OpenAIModel:
        if not argument:
            raise ModelError("name the model: --model=openai:MODEL (e.g. openai:gpt-image-1)")
        key = os.environ.get(settings.api_key_env)
        if not key:
            raise ModelError(
                f"no API key: set the environment variable {settings.api_key_env} "
                "(any non-empty value for a local server that checks none)"
            )
        base_url = settings.base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL
        # Never written out: an endpoint may echo them in an error, httpx logs URLs with their credentials.
        register_key_env(settings.api_key_env)
        register_secret(key)
        register_url(base_url)

        calls = settings.calls or DIRECT

        def client() -> openai.OpenAI:
            import openai

            # The call layer retries (one policy, no slot held while backing off); the HTTP
            # client takes the run's concurrency slot for the time on the wire only.
            http_client = client_with_slots(calls.limit, settings.timeout)
            return openai.OpenAI(api_key=key, base_url=base_url, timeout=settings.timeout, max_retries=0, http_client=http_client)

        return cls(
            argument,
            None,
            settings.openai_api,
            calls,
            settings.max_retries + 1,
            client_factory=client,
            endpoint=base_url,
            slots_in_transport=True,
            batch_endpoint=Endpoint(base_url, settings.api_key_env),
        )

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        params = self._params_of_request(case, params)
        try:
            if case.task == "image_generation":
                return self._generate_image(case, params)
            if case.task == "image_editing":
                return self._edit_image(case, params)
            if case.task == "html_generation":
                return self._generate_text(case, params)
        except UnreadableReply as exc:
            raise ModelError(redact(f"{self.name}: {exc}")) from exc
        except Exception as exc:
            error = self._api_error(exc)
            if error is None:
                raise
            raise error from exc
        raise ModelError(f"{self.name} cannot run task {case.task!r}")

    def _params_of_request(self, case: CaseSpec, params: Mapping[str, Any]) -> Mapping[str, Any]:
        """The params the case's request takes; a warning names the ones left out."""
        kinds = {"image_generation": "images.generate", "image_editing": "images.edit"}
        kind = kinds.get(case.task, "responses" if self.api == "responses" else "chat.completions")
        sent, left_out = params_for(kind, params)
        if left_out:
            logger.warning(left_out_message(self.name, case.uid, kind, left_out))
        return sent

    def _api_error(self, exc: Exception) -> ModelError | None:
        """Word an SDK exception (the SDK is loaded if one was raised); ``None`` for anything else.

        Secrets are redacted before the text is cut: a server may echo the key or the URL's credentials.
        """
        sdk = sys.modules.get("openai")
        if sdk is None or not isinstance(exc, sdk.OpenAIError):
            return None
        after = f" after {self.attempts} attempt(s)" if is_retryable(exc) and self.attempts > 1 else ""
        if isinstance(exc, sdk.APIStatusError):
            return ModelError(f"{self.name}: HTTP {exc.status_code} from the API{after}: {_short(redact(exc.message))}")
        if isinstance(exc, sdk.APITimeoutError):
            return ModelError(f"{self.name}: request timed out{after}")
        if isinstance(exc, sdk.APIConnectionError):
            return ModelError(redact(f"{self.name}: cannot reach the API ({exc.__cause__ or exc})"))
        return ModelError(redact(f"{self.name}: {exc}"))

    def _call(
        self,
        endpoint: str,
        key: Mapping[str, Any],
        run: Callable[[], CallResult],
        batch: tuple[str, Callable[[], Mapping[str, Any]], Callable[[Mapping[str, Any]], CallResult]] | None = None,
    ) -> Any:
        """``batch``: (API path, body maker, reply parser) for sending the call in a provider batch."""
        material = {"endpoint": endpoint, "base_url": self.endpoint, "model": self.model, **key}
        batched = None
        if batch is not None and self._batch_endpoint is not None:
            batched = BatchRequest(self._batch_endpoint, *batch)
        return self.calls.call(
            "model",
            self.name,
            material,
            run,
            attempts=self.attempts,
            prepare=self._client.get,
            slot_in_transport=self._slots_in_transport,
            batch=batched,
        ).value

    # -- images -----------------------------------------------------------
    # The cache key is made from the case and the params, not from the SDK call, so a cached run needs no client.
    def _generate_image(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        def run() -> CallResult:
            # The same body a batch line carries, posted as is and read as JSON (calls/images_reply.py).
            with readable_reply():
                reply = post_image_generation(self.client, body())
            return self._image_reply(reply)

        def body() -> dict[str, Any]:
            return {"model": self.model, "prompt": case.prompt or "", **params}

        key = {"prompt": case.prompt or "", "params": dict(params)}
        value = self._call("images.generate", key, run, ("/v1/images/generations", body, self._image_reply))
        return ModelOutput(_artifacts(value), params=dict(params), usage=value["usage"])

    def _edit_image(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        images = [_file(p) for p in case.images]
        mask = _file(case.mask) if case.mask is not None else None

        def run() -> CallResult:
            call = self.client.images.edit
            kwargs = _split_params(call, params)
            if mask is not None:
                kwargs["mask"] = mask
            image = images[0] if len(images) == 1 else images
            with readable_reply():
                response = call(model=self.model, prompt=case.prompt or "", image=image, **kwargs)
            return self._image_result(response)

        def body() -> dict[str, Any]:
            # A batch line is JSON: the edit's images travel as data URLs (the JSON form of the edits endpoint).
            request: dict[str, Any] = {"model": self.model, "prompt": case.prompt or "", **params}
            request["images"] = [{"image_url": _file_data_url(f)} for f in images]
            if mask is not None:
                request["mask"] = {"image_url": _file_data_url(mask)}
            return request

        key = {
            "prompt": case.prompt or "",
            "params": dict(params),
            "image": [_file_key(f) for f in images],
            "mask": _file_key(mask) if mask is not None else None,
        }
        value = self._call("images.edit", key, run, ("/v1/images/edits", body, self._image_reply))
        return ModelOutput(_artifacts(value), params=dict(params), usage=value["usage"])

    def _image_reply(self, reply: Mapping[str, Any]) -> CallResult:
        """An images reply that came back inside a provider batch: JSON, read as a direct generation's is."""
        images = read_images_reply(reply)
        return self._image_items_result(images.items, images.output_format, images.usage)

    def _image_result(self, response: Any) -> CallResult:
        """Check the reply inside the call, so a bad one is an error and never cached."""
        response = api_reply(response, "an images reply", "data")
        items = getattr(response, "data", None) or []
        if not isinstance(items, list):
            raise UnreadableReply(f"the endpoint's answer is not an images reply: its data is {kind_of(items)}, not a list")
        for i, item in enumerate(items):
            if not hasattr(item, "b64_json"):
                raise UnreadableReply(f"the endpoint's answer is not an images reply: its image {i} is {kind_of(item)}")
        fmt = getattr(response, "output_format", None)
        # Each image as the JSON object it was sent as (only what is read of it).
        return self._image_items_result([{"b64_json": item.b64_json} for item in items], fmt, _usage(response))

    def _image_items_result(self, items: list[Any], fmt: str | None, usage: dict[str, Any]) -> CallResult:
        """The images of a reply: its ``data`` items as JSON objects; a bad one is an error, never cached."""
        artifacts = self._images_from(items, (fmt or "png").lower())
        usage = {**usage, "images": len(artifacts)}
        value = {"images": [{"name": a.name, "b64": base64.b64encode(a.data).decode()} for a in artifacts], "usage": usage}
        return CallResult(value, usage)

    def _images_from(self, items: list[Any], fmt: str) -> tuple[Artifact, ...]:
        if not items:
            raise ModelError(f"{self.name} returned no images")
        artifacts = []
        for i, item in enumerate(items):
            if not isinstance(item, dict):
                raise UnreadableReply(f"the endpoint's answer is not an images reply: its image {i} is {kind_of(item)}")
            b64 = item.get("b64_json")
            if b64 and not isinstance(b64, str):
                raise ModelError(f"{self.name} returned image {i} with b64_json that is {kind_of(b64)}, not text")
            if not b64:
                # Fetching a URL would reach outside the configured endpoint; ask for base64 instead.
                raise ModelError(
                    f"{self.name} returned image {i} as a URL, not base64; "
                    "set params: {response_format: b64_json} for this model"
                )
            try:
                data = base64.b64decode(b64, validate=True)
            except ValueError as exc:
                raise ModelError(f"{self.name} returned image {i} with invalid base64: {exc}") from exc
            artifacts.append(Artifact(f"image-{i}.{fmt}", data))
        return tuple(artifacts)

    # -- text / HTML ------------------------------------------------------
    def _generate_text(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        images = [_data_url(p) for p in case.images]
        if self.api == "responses":
            content: list[dict[str, Any]] = [{"type": "input_text", "text": case.prompt or ""}]
            content += [{"type": "input_image", "image_url": url} for url in images]
            request: dict[str, Any] = {"input": [{"role": "user", "content": content}]}
            endpoint = "responses"
        else:
            content = [{"type": "text", "text": case.prompt or ""}]
            content += [{"type": "image_url", "image_url": {"url": url}} for url in images]
            request = {"messages": [{"role": "user", "content": content}]}
            endpoint = "chat.completions"

        def run() -> CallResult:
            with readable_reply():
                if self.api == "responses":
                    call = self.client.responses.create
                    return self._responses_result(call(model=self.model, **request, **_split_params(call, params)))
                # Chat: the same body a batch line carries, posted as is and read as JSON.
                return self._chat_result(post_chat_completion(self.client, body()))

        def body() -> dict[str, Any]:
            return {"model": self.model, **request, **params}

        def parse(reply: Mapping[str, Any]) -> CallResult:
            if self.api == "responses":
                from openai.types.responses import Response

                return self._responses_result(sdk_reply(Response, reply))
            return self._chat_result(reply)

        path = "/v1/responses" if self.api == "responses" else "/v1/chat/completions"
        value = self._call(endpoint, {**request, "params": dict(params)}, run, (path, body, parse))
        return ModelOutput((Artifact("reply.md", value["text"].encode("utf-8")),), params=dict(params), usage=value["usage"])

    def _chat_result(self, body: Any) -> CallResult:
        completion = read_completion(body)
        if not completion.choices:
            raise ModelError(f"{self.name} returned no choices")
        return self._text(completion.text, completion.usage)

    def _responses_result(self, response: Any) -> CallResult:
        response = api_reply(response, "a responses reply", "output")
        try:
            text = response.output_text  # the SDK's property walks the output items
        except (AttributeError, TypeError) as exc:
            problem = f"its output cannot be read ({exc})"
            raise UnreadableReply(f"the endpoint's answer is not a responses reply: {problem}") from None
        if text is not None and not isinstance(text, str):
            raise ModelError(f"{self.name} returned a reply whose content is {kind_of(text)}, not text")
        return self._text(text, _usage(response))

    def _text(self, text: str | None, usage: dict[str, Any]) -> CallResult:
        if not text:
            raise ModelError(f"{self.name} returned an empty reply")
        return CallResult({"text": text, "usage": usage}, usage)


def _artifacts(value: Mapping[str, Any]) -> tuple[Artifact, ...]:
    return tuple(Artifact(item["name"], base64.b64decode(item["b64"])) for item in value["images"])


def _file_key(file: tuple[str, bytes, str]) -> dict[str, str]:
    """An input file in a cache key: its name, type and a digest of its bytes."""
    name, data, mime = file
    return {"name": name, "mime": mime, "sha256": digest(data)}


@cache
def _accepted(call: Callable[..., Any]) -> frozenset[str]:
    return frozenset(inspect.signature(call).parameters)


def _split_params(call: Callable[..., Any], params: Mapping[str, Any]) -> dict[str, Any]:
    """Pass params the SDK method knows as keywords, the rest in ``extra_body``.

    Servers such as vLLM accept their own fields; the SDK would reject them
    as unexpected keyword arguments.
    """
    known = _accepted(getattr(call, "__func__", call))
    kwargs = {k: v for k, v in params.items() if k in known}
    extra = {k: v for k, v in params.items() if k not in known}
    if extra:
        kwargs["extra_body"] = extra
    return kwargs


def _file(path: Path) -> tuple[str, bytes, str]:
    return (path.name, path.read_bytes(), mime_for(path.name))


def _file_data_url(file: tuple[str, bytes, str]) -> str:
    _, data, mime = file
    return f"data:{mime};base64,{base64.b64encode(data).decode()}"


def _data_url(path: Path) -> str:
    return f"data:{mime_for(path.name)};base64,{base64.b64encode(path.read_bytes()).decode()}"


def _usage(response: Any) -> dict[str, Any]:
    usage = getattr(response, "usage", None)
    if usage is None:
        return {}
    dump = getattr(usage, "model_dump", None)
    return dump(mode="json", exclude_none=True) if callable(dump) else {}


def _short(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[:limit] + "..."

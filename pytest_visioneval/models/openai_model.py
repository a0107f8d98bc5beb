"""``--model=openai:<model>``: any OpenAI-compatible endpoint, through the SDK.

* ``image_generation`` -> ``images.generate``
* ``image_editing``    -> ``images.edit`` with the input images and the mask
* ``html_generation``  -> Chat Completions (default) or Responses
  (``--model-api=responses``), input images sent inline as data URLs.

The base URL comes from ``--model-base-url`` or ``OPENAI_BASE_URL``; the key
from the environment variable named by ``--model-api-key-env`` (default
``OPENAI_API_KEY``), never from the command line. Retries with backoff on
429/5xx/timeouts (honouring ``retry-after``) are the SDK's own.
"""

from __future__ import annotations

import base64
import inspect
import os
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import openai

from ..artifacts import Artifact, ModelOutput, mime_for
from ..cases.spec import CaseSpec
from ..errors import ModelError
from .base import ModelSettings


class OpenAIModel:
    def __init__(self, model: str, client: openai.OpenAI, api: str = "chat"):
        if api not in ("chat", "responses"):
            raise ModelError(f"unknown API {api!r} for text tasks; use 'chat' or 'responses'")
        self.model = model
        self.client = client
        self.api = api
        self.name = f"openai:{model}"

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
        client = openai.OpenAI(
            api_key=key,
            base_url=settings.base_url or os.environ.get("OPENAI_BASE_URL") or None,
            timeout=settings.timeout,
            max_retries=settings.max_retries,
        )
        return cls(argument, client, settings.openai_api)

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        try:
            if case.task == "image_generation":
                return self._generate_image(case, params)
            if case.task == "image_editing":
                return self._edit_image(case, params)
            if case.task == "html_generation":
                return self._generate_text(case, params)
        except openai.APIStatusError as exc:
            raise ModelError(f"{self.name}: HTTP {exc.status_code} from the API after retries: {_short(exc.message)}") from exc
        except openai.APITimeoutError as exc:
            raise ModelError(f"{self.name}: request timed out after retries") from exc
        except openai.APIConnectionError as exc:
            raise ModelError(f"{self.name}: cannot reach the API ({exc.__cause__ or exc})") from exc
        except openai.OpenAIError as exc:
            raise ModelError(f"{self.name}: {exc}") from exc
        raise ModelError(f"{self.name} cannot run task {case.task!r}")

    # -- images -----------------------------------------------------------
    def _generate_image(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        call = self.client.images.generate
        response = call(model=self.model, prompt=case.prompt or "", **_split_params(call, params))
        return ModelOutput(self._images_from(response), params=dict(params), usage=_usage(response))

    def _edit_image(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        call = self.client.images.edit
        images = [_file(p) for p in case.images]
        kwargs = _split_params(call, params)
        if case.mask is not None:
            kwargs["mask"] = _file(case.mask)
        response = call(model=self.model, prompt=case.prompt or "", image=images[0] if len(images) == 1 else images, **kwargs)
        return ModelOutput(self._images_from(response), params=dict(params), usage=_usage(response))

    def _images_from(self, response: Any) -> tuple[Artifact, ...]:
        items = list(getattr(response, "data", None) or [])
        if not items:
            raise ModelError(f"{self.name} returned no images")
        artifacts = []
        for i, item in enumerate(items):
            if not item.b64_json:
                # Fetching a URL would reach outside the configured endpoint; ask for base64 instead.
                raise ModelError(
                    f"{self.name} returned image {i} as a URL, not base64; "
                    "set params: {response_format: b64_json} for this model"
                )
            try:
                data = base64.b64decode(item.b64_json, validate=True)
            except ValueError as exc:
                raise ModelError(f"{self.name} returned image {i} with invalid base64: {exc}") from exc
            fmt = (getattr(response, "output_format", None) or "png").lower()
            artifacts.append(Artifact(f"image-{i}.{fmt}", data))
        return tuple(artifacts)

    # -- text / HTML ------------------------------------------------------
    def _generate_text(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        images = [_data_url(p) for p in case.images]
        if self.api == "responses":
            call: Callable[..., Any] = self.client.responses.create
            content: list[dict[str, Any]] = [{"type": "input_text", "text": case.prompt or ""}]
            content += [{"type": "input_image", "image_url": url} for url in images]
            response = call(model=self.model, input=[{"role": "user", "content": content}], **_split_params(call, params))
            text = response.output_text
        else:
            call = self.client.chat.completions.create
            content = [{"type": "text", "text": case.prompt or ""}]
            content += [{"type": "image_url", "image_url": {"url": url}} for url in images]
            messages: list[Any] = [{"role": "user", "content": content}]
            response = call(model=self.model, messages=messages, **_split_params(call, params))
            if not response.choices:
                raise ModelError(f"{self.name} returned no choices")
            text = response.choices[0].message.content
        if not text:
            raise ModelError(f"{self.name} returned an empty reply")
        return ModelOutput((Artifact("reply.md", text.encode("utf-8")),), params=dict(params), usage=_usage(response))


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

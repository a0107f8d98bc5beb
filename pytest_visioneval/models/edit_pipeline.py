"""``--model='pwg-edit:WRITER+EDITOR'``: ProductWebGen's editing-based pipeline as one model.

``WRITER`` and ``EDITOR`` are any two ``--model`` specs, joined by one ``+``
(e.g. ``pwg-edit:openai:gpt-4.1+openai:gpt-image-1``). For an
``html_generation`` case:

1. the writer gets the case as it is (prompt and source image) and writes the
   page, describing every image in its ``alt``;
2. the page's ``<img>`` are read: the one whose src names the source image
   (``images[0]``) - or, when none does, the first - is the source; every other
   one is a showcase image;
3. the editor gets, per showcase image, an ``image_editing`` case made from the
   source image with that image's alt as the prompt;
4. the output is ``page.html`` with each showcase src pointing at its file
   (``showcase-1.png`` ...), a copy of the source image under the name the page
   uses for it, the showcase images, and the writer's raw ``writer-reply.md``.

Params: ``writer.KEY`` goes to the writer only, ``editor.KEY`` to the editor
only, any other key to both. A failing step is a :class:`ModelError` naming it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..artifacts import Artifact, ModelOutput
from ..calls.waiting import model_waits_only_in_calls
from ..cases.spec import CaseSpec
from ..errors import ModelError
from ..pages.extract import ExtractionError, extract_page
from .base import Model, ModelFactory, ModelSettings

PROVIDER = "pwg-edit"
PAGE_NAME = "page.html"
REPLY_NAME = "writer-reply.md"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,200}$")
_FALLBACK_ALT = "The product from the source image, shown in a product showcase photo."


def make_model(argument: str, settings: ModelSettings, create_model: ModelFactory) -> EditPipelineModel:
    """The factory the model registry calls with the text after ``pwg-edit:``.

    ``create_model`` builds the writer and the editor from their own specs; the
    registry hands itself in, so this module never imports the registry.
    """
    writer_spec, editor_spec = split_argument(argument)
    try:
        writer = create_model(writer_spec, settings)
    except ModelError as exc:
        raise ModelError(f"{PROVIDER}: the writer {writer_spec!r} cannot be built: {exc}") from exc
    try:
        editor = create_model(editor_spec, settings)
    except ModelError as exc:
        raise ModelError(f"{PROVIDER}: the editor {editor_spec!r} cannot be built: {exc}") from exc
    return EditPipelineModel(writer, editor, name=f"{PROVIDER}:{argument}")


def split_argument(argument: str) -> tuple[str, str]:
    parts = argument.split("+")
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise ModelError(
            f"{PROVIDER} takes two model specs joined by one '+': --model='{PROVIDER}:WRITER+EDITOR' "
            f"(e.g. {PROVIDER}:openai:gpt-4.1+openai:gpt-image-1); got {argument!r}"
        )
    return parts[0].strip(), parts[1].strip()


class EditPipelineModel:
    """A writer model and an image-editing model, called in turn for one page."""

    def __init__(self, writer: Model, editor: Model, *, name: str | None = None):
        self.writer = writer
        self.editor = editor
        self.name = name or f"{PROVIDER}:{writer.name}+{editor.name}"

    @property
    def waits_only_in_calls(self) -> bool:
        return model_waits_only_in_calls(self.writer) and model_waits_only_in_calls(self.editor)

    def generate(self, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        if case.task != "html_generation":
            raise ModelError(f"{self.name} makes pages (html_generation cases), not {case.task}")
        if not case.images:
            raise ModelError(f"{self.name}: case {case.uid} has no source image (images[0]) to edit")
        source = case.images[0]
        writer_params, editor_params = split_params(params)
        written = self._call("writer step", self.writer, case, writer_params)
        reply, html = _page_of(written.artifacts, f"{self.name}: writer step ({self.writer.name})")

        from bs4 import BeautifulSoup  # imported on first use, like the html grader

        soup = BeautifulSoup(html, "html.parser")
        imgs = soup.find_all("img")
        if not imgs:
            raise ModelError(f"{self.name}: writer step ({self.writer.name}) wrote a page without <img> elements")
        main = next((img for img in imgs if _src_name(img.get("src")) == source.name), imgs[0])
        source_name = source.name if _SAFE_NAME.match(source.name) else f"source{source.suffix.lower() or '.png'}"
        main["src"] = source_name
        artifacts = [Artifact(source_name, source.read_bytes())]
        usage: dict[str, Any] = {"writer": dict(written.usage), "editor": []}
        showcase = [img for img in imgs if img is not main]
        for index, img in enumerate(showcase, 1):
            alt = " ".join(str(img.get("alt") or "").split()) or _FALLBACK_ALT
            step = f"editor step (showcase image {index} of {len(showcase)})"
            edit_case = replace(
                case,
                id=f"{case.id}.showcase-{index}",
                task="image_editing",
                prompt=alt,
                images=(source,),
                mask=None,
                reference=None,
                graders=(),
                render=None,
            )
            edited = self._call(step, self.editor, edit_case, editor_params)
            image = next((a for a in edited.artifacts if a.kind == "image"), None)
            if image is None:
                raise ModelError(f"{self.name}: {step} ({self.editor.name}) returned no image")
            name = f"showcase-{index}{Path(image.name).suffix.lower() or '.png'}"
            if name == source_name:  # a source image called showcase-1.png keeps its own file
                name = f"showcase-{index}-edit{Path(name).suffix}"
            img["src"] = name
            artifacts.append(Artifact(name, image.data, image.mime))
            usage["editor"].append(dict(edited.usage))
        page = Artifact(PAGE_NAME, str(soup).encode("utf-8"))
        return ModelOutput((page, *artifacts, Artifact(REPLY_NAME, reply.encode("utf-8"))), params=dict(params), usage=usage)

    def _call(self, step: str, model: Model, case: CaseSpec, params: Mapping[str, Any]) -> ModelOutput:
        try:
            return model.generate(case, params)
        except ModelError as exc:
            raise ModelError(f"{self.name}: {step} ({model.name}) failed: {exc}") from exc


def split_params(params: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """``writer.KEY`` to the writer, ``editor.KEY`` to the editor, anything else to both."""
    writer: dict[str, Any] = {}
    editor: dict[str, Any] = {}
    for key, value in params.items():
        if key.startswith("writer."):
            writer[key.removeprefix("writer.")] = value
        elif key.startswith("editor."):
            editor[key.removeprefix("editor.")] = value
        else:
            writer[key] = value
            editor[key] = value
    return writer, editor


def _page_of(artifacts: tuple[Artifact, ...], step: str) -> tuple[str, str]:
    """(the writer's reply text, the page's HTML)."""
    page = next((a for a in artifacts if a.kind == "html"), None)
    if page is not None:
        text = page.data.decode("utf-8", errors="replace")
        return text, text
    reply = next((a for a in artifacts if a.kind == "text"), None)
    if reply is None:
        raise ModelError(f"{step} returned no text to take a page from")
    text = reply.data.decode("utf-8", errors="replace")
    try:
        return text, extract_page(text).html
    except ExtractionError as exc:
        raise ModelError(f"{step} wrote no page: {exc}") from exc


def _src_name(src: Any) -> str:
    """The file name a src points at (``./img/mug.png?v=2`` -> ``mug.png``)."""
    path = str(src or "").split("?", 1)[0].split("#", 1)[0]
    return path.rsplit("/", 1)[-1]

"""Find the model a ``--model`` string names.

``--model=openai:gpt-image-1`` is split at the first ``:`` into a provider
(``openai``) and an argument (``gpt-image-1``). Providers are the built-ins
below plus any factory a package publishes in the entry-point group
``pytest_visioneval.models``::

    [project.entry-points."pytest_visioneval.models"]
    mymodel = "my_package.adapter:make_model"   # make_model(argument, settings) -> Model
"""

from __future__ import annotations

from importlib.metadata import entry_points

from ..errors import UnknownModelError
from .base import Model, ModelFactory, ModelSettings

ENTRY_POINT_GROUP = "pytest_visioneval.models"


def _builtin_factories() -> dict[str, ModelFactory]:
    # Imported lazily so that `--model=reference` never imports the openai SDK.
    def openai_factory(argument: str, settings: ModelSettings) -> Model:
        from .openai_model import OpenAIModel

        return OpenAIModel.from_argument(argument, settings)

    def replay_factory(argument: str, settings: ModelSettings) -> Model:
        from .replay import ReplayModel

        return ReplayModel.from_argument(argument, settings)

    def regrade_factory(argument: str, settings: ModelSettings) -> Model:
        from .replay import RegradeModel  # what --eval-regrade makes of each model of an earlier run

        return RegradeModel.from_argument(argument, settings)

    def reference_factory(argument: str, settings: ModelSettings) -> Model:
        from .reference import ReferenceModel

        return ReferenceModel.from_argument(argument, settings)

    def pwg_edit_factory(argument: str, settings: ModelSettings) -> Model:
        from .edit_pipeline import make_model  # ProductWebGen's editing-based pipeline: WRITER+EDITOR

        return make_model(argument, settings, create_model)

    return {
        "openai": openai_factory,
        "replay": replay_factory,
        "regrade": regrade_factory,
        "reference": reference_factory,
        "pwg-edit": pwg_edit_factory,
    }


def available_providers() -> list[str]:
    names = set(_builtin_factories())
    names.update(ep.name for ep in entry_points(group=ENTRY_POINT_GROUP))
    return sorted(names)


def create_model(spec: str, settings: ModelSettings) -> Model:
    """Build the model ``spec`` names; raise :class:`UnknownModelError` if none does."""
    provider, _, argument = spec.partition(":")
    factory = _builtin_factories().get(provider)
    if factory is None:
        matches = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == provider]
        if not matches:
            raise UnknownModelError(
                f"unknown model provider {provider!r} in --model={spec!r}; available: {', '.join(available_providers())}"
            )
        try:
            factory = matches[0].load()
        except Exception as exc:  # a broken third-party package must not look like our bug
            raise UnknownModelError(f"model provider {provider!r} ({matches[0].value}) failed to load: {exc!r}") from exc
    model = factory(argument, settings)
    if not isinstance(model, Model):
        raise UnknownModelError(f"model provider {provider!r} returned {model!r}, which has no name/generate")
    return model

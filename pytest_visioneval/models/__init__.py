"""Model adapters: the protocol, the registry, and the built-in providers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_exports

if TYPE_CHECKING:
    from .base import Model, ModelFactory, ModelSettings
    from .registry import ENTRY_POINT_GROUP, available_providers, create_model

# Each name is imported from its module on first use (see lazy_exports).
_EXPORTS = {
    "Model": ".base",
    "ModelFactory": ".base",
    "ModelSettings": ".base",
    "ENTRY_POINT_GROUP": ".registry",
    "available_providers": ".registry",
    "create_model": ".registry",
}
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

__all__ = ["ENTRY_POINT_GROUP", "Model", "ModelFactory", "ModelSettings", "available_providers", "create_model"]

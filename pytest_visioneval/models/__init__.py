"""Model adapters: the protocol, the registry, and the built-in providers."""

from .base import Model, ModelFactory, ModelSettings
from .registry import ENTRY_POINT_GROUP, available_providers, create_model

__all__ = ["ENTRY_POINT_GROUP", "Model", "ModelFactory", "ModelSettings", "available_providers", "create_model"]

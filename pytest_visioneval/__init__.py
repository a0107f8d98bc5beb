"""pytest-visioneval: vision-generation benchmarks as pytest suites."""

__version__ = "0.1.0"

__all__ = ["__version__"]

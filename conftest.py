"""Repository-level pytest configuration.

The plugin itself loads through its ``pytest11`` entry point; this file only
makes ``pytester`` available to the project's own tests.
"""

pytest_plugins = ["pytester"]

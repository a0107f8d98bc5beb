"""The commands: ``python -m pytest_visioneval COMMAND`` (or ``python -m pytest_visioneval.cli.COMMAND``)."""

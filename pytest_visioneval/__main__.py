"""``python -m pytest_visioneval COMMAND``: see :mod:`pytest_visioneval.cli.main`."""

import sys

from .cli.main import main

sys.exit(main())

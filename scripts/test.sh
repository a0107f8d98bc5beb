#!/usr/bin/env bash
# Set up, then run the project's own tests (unit + pytester plugin tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/pytest tests/ -n 2 "$@"

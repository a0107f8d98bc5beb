#!/usr/bin/env bash
# Set up, then run the shipped example suites (cases/) on the embedded
# reference model, offline, and print the scores. Extra arguments go to pytest
# (e.g. --model=openai:gpt-image-1, -n 2, --eval-results results.json).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
source scripts/pytest_env.sh
exec .venv/bin/pytest cases/ "$@"

#!/usr/bin/env bash
# Set up everything the project needs on a fresh machine, idempotently:
# Debian packages (scripts/apt-packages.txt), a virtualenv in .venv, and the
# package itself (editable) with its dependencies. Fast when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=.venv

# Debian packages the graders and renderer use (none may be listed yet).
mapfile -t apt_packages < <(grep -vE '^\s*(#|$)' scripts/apt-packages.txt 2>/dev/null || true)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ]; then
  echo "setup: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi

stamp="$VENV/.visioneval-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ scripts/constraints.txt -nt "$stamp" ]; then
  echo "setup: installing pytest-visioneval and its dependencies into $VENV"
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  # constraints.txt pins the versions the tests last passed with, so a fresh
  # machine gets the same stack; pyproject.toml keeps the ranges users need.
  "$VENV/bin/python" -m pip install --quiet -e . -c scripts/constraints.txt
  touch "$stamp"
fi

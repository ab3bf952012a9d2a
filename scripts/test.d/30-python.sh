#!/usr/bin/env bash
# Python: builds the `acl` package (PyO3 via maturin), installs it into .venv as a user would
# (`pip install .`), then runs the pytest suite against the installed package.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=python3.11
command -v "$py" >/dev/null 2>&1 || py=python3
if [ ! -x .venv/bin/python ]; then
    "$py" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check maturin pytest mypy
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall .
.venv/bin/python -m pytest tests/python -q -p no:cacheprovider

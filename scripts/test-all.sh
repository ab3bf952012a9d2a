#!/usr/bin/env bash
# Runs every test suite of the project: Rust (unit, integration, model-based, loom, stress),
# C (ABI tests and examples), Python (pytest) and the quick benchmark smoke run.
# Installs what it needs (a Python venv with maturin and pytest) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
status=0
for part in scripts/test.d/*.sh; do
    echo "=== ${part}"
    if ! bash "$part"; then
        echo "!!! ${part} failed"
        status=1
    fi
done
exit $status

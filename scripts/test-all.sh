#!/usr/bin/env bash
# Runs every test suite of the project: Rust (unit, integration, model-based, loom, stress),
# C (ABI tests and examples), Python (pytest) and the quick benchmark smoke run.
# Installs what it needs (a Python venv with maturin and pytest) on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
status=0
started=$SECONDS
for part in scripts/test.d/*.sh; do
    echo "=== ${part} (at $((SECONDS - started)) s)"
    part_start=$SECONDS
    if bash "$part"; then
        echo "=== ${part}: passed in $((SECONDS - part_start)) s"
    else
        echo "!!! ${part} failed after $((SECONDS - part_start)) s"
        status=1
    fi
done
echo "=== all parts done in $((SECONDS - started)) s: $([ $status = 0 ] && echo passed || echo FAILED)"
exit $status

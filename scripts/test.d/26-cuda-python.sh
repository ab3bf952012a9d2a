#!/usr/bin/env bash
# Python: cuda-python's driver bindings (the cuda-bindings package, CUDA 12 series) against
# libaclrt_cuda loaded as libcuda.so.1. Skipped, saying why, only where the package cannot be
# installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q -p aclrt-cuda
py=python3.11
command -v "$py" >/dev/null 2>&1 || py=python3
venv="$PWD/target/cuda-python-venv"
if [ ! -x "$venv/bin/python" ]; then
    "$py" -m venv "$venv"
fi
if ! "$venv/bin/python" -c "import cuda.bindings.driver, pytest" 2>/dev/null; then
    echo "26-cuda-python.sh: installing cuda-bindings 12.9 and pytest (pip)"
    if ! "$venv/bin/python" -m pip install -q --disable-pip-version-check "cuda-bindings>=12.9,<13" pytest; then
        echo "SKIPPED: cuda-bindings could not be installed (no package index reachable?)"
        exit 77
    fi
fi
drv="$(mktemp -d)"
trap 'rm -rf "$drv"' EXIT
ln -s "$PWD/target/debug/libaclrt_cuda.so" "$drv/libcuda.so.1"
ln -s "$PWD/target/debug/libaclrt_cuda.so" "$drv/libcuda.so"
LD_LIBRARY_PATH="$drv${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ACLRT_DEVICE_MEMORY=256M \
    "$venv/bin/python" -m pytest tests/python_cuda -q -p no:cacheprovider

#!/usr/bin/env bash
# C: the CUDA driver event API (libaclrt_cuda) exercised by C programs built with gcc.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -p aclrt-cuda
lib="$PWD/target/debug"
out="$PWD/target/c-tests/cuda"
mkdir -p "$out"
status=0
for src in tests/c/cuda/*.c; do
    name="$(basename "$src" .c)"
    gcc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -Iinclude -Itests/c/cuda \
        "$src" -o "$out/$name" -L"$lib" -laclrt_cuda -lpthread -Wl,-rpath,"$lib"
    echo "--- $name"
    if ! timeout 120 "$out/$name"; then
        echo "FAILED: $name"
        status=1
    fi
done
exit $status

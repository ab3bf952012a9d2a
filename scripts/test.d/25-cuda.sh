#!/usr/bin/env bash
# C: the CUDA driver API (libaclrt_cuda) exercised by C programs built with gcc: one program per
# area in tests/c/cuda, a kernel library for the module tests, every exported function reachable
# through cuGetProcAddress, and the header under C++.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -p aclrt-cuda
lib="$PWD/target/debug"
out="$PWD/target/c-tests/cuda"
mkdir -p "$out"
cflags=(-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g -Iinclude -Itests/c/cuda)
status=0

# The kernels of the module tests: a host shared library.
gcc "${cflags[@]}" -fPIC -shared tests/c/cuda/kernels/kernels.c -o "$out/libkernels.so"
export ACLRT_TEST_KERNELS="$out/libkernels.so"
# A small, fixed device memory, so the tests can assert sizes.
export ACLRT_DEVICE_MEMORY=256M
nm -D --defined-only "$lib/libaclrt_cuda.so" | awk '$2 == "T" && $3 ~ /^cu/ {print $3}' >"$out/exported.txt"
echo "$(wc -l <"$out/exported.txt") cu* functions exported"

for src in tests/c/cuda/*.c; do
    name="$(basename "$src" .c)"
    gcc "${cflags[@]}" "$src" -o "$out/$name" -L"$lib" -laclrt_cuda -lpthread -ldl -Wl,-rpath,"$lib"
    echo "--- $name"
    if ! timeout 120 "$out/$name" "$out/exported.txt"; then
        echo "FAILED: $name"
        status=1
    fi
done

echo "--- aclrt/cuda.h under C++"
printf '#include "aclrt/cuda.h"\nint main() { return cuInit(0) == CUDA_SUCCESS ? 0 : 1; }\n' >"$out/cxx.cpp"
if ! g++ -std=c++17 -Wall -Wextra -Werror -Iinclude "$out/cxx.cpp" -o "$out/cxx" -L"$lib" -laclrt_cuda \
    -Wl,-rpath,"$lib" || ! "$out/cxx"; then
    echo "FAILED: cuda.h under C++"
    status=1
fi
exit $status

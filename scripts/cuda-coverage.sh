#!/usr/bin/env bash
# How much of the CUDA driver API that cudarc's `driver::sys` bindings and cuda-python's
# `cuda.bindings.driver` declare libaclrt_cuda serves: for each client, the functions it
# declares that are implemented, exported but always CUDA_ERROR_NOT_SUPPORTED, or missing.
#
#   scripts/cuda-coverage.sh [--list]    (--list also prints the names in each group)
#
# cudarc's names are symbol names (cuMemAlloc_v2); a function counts as served when the library
# exports that symbol. cuda-python's are CUDA names (cuMemAlloc) or, for older or newer ABIs
# kept apart, symbol names (cuCtxCreate_v3): the symbol if exported, else what cuGetProcAddress
# gives for the name at the driver's version, as cuda-python resolves it. A function is "not supported" when its
# definition comes from the library's not-supported tables (the `unsupported!` and
# `pointer_v1!` lists, and the per-thread variants forwarding to them).
# Needs cudarc in the cargo registry (a build of crates/aclrt-cuda-clients puts it there) and,
# for cuda-python, the venv scripts/test.d/26-cuda-python.sh makes; a missing one is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build -q -p aclrt-cuda
lib="$PWD/target/debug/libaclrt_cuda.so"
cudarc="$(ls -d "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/cudarc-*/src/driver/sys 2>/dev/null | sort -V | tail -1 || true)"
py=python3
for venv in target/cuda-python-venv .venv; do
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import cuda.bindings.driver" 2>/dev/null; then
        py="$venv/bin/python"
        break
    fi
done
exec "$py" - "$lib" "$cudarc" "$@" <<'PY'
import ctypes
import glob
import inspect
import os
import re
import subprocess
import sys

lib_path, cudarc_dir = sys.argv[1], sys.argv[2]
show = "--list" in sys.argv[3:]
src = "crates/aclrt-cuda/src"
DRIVER_VERSION = 12090

exported = set(
    line.split()[2]
    for line in subprocess.run(
        ["nm", "-D", "--defined-only", lib_path], check=True, capture_output=True, text=True
    ).stdout.splitlines()
    if len(line.split()) == 3 and line.split()[1] == "T" and line.split()[2].startswith("cu")
)

# Names defined by the not-supported tables: the entries of `unsupported! { ... }` and
# `pointer_v1! { ... }` invocations, and per-thread variants forwarding to one of them.
not_supported = set()
for path in glob.glob(os.path.join(src, "*.rs")):
    text = open(path).read()
    for block in re.finditer(r"^(?:unsupported|pointer_v1)! \{(.*?)^\}", text, re.S | re.M):
        not_supported.update(re.findall(r"^\s*(cu\w+)\(", block.group(1), re.M))
forwarded = re.findall(r"^\s*(cu\w+) => (cu\w+)\(", open(os.path.join(src, "per_thread.rs")).read(), re.M)
not_supported.update(v for v, plain in forwarded if plain in not_supported)

lib = ctypes.CDLL(lib_path)
by_address = {}
for name in exported:
    by_address[ctypes.cast(getattr(lib, name), ctypes.c_void_p).value] = name
get_proc = lib.cuGetProcAddress_v2
get_proc.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_int,
                     ctypes.c_uint64, ctypes.POINTER(ctypes.c_int)]


def resolve(cuda_name):
    """The exported symbol cuGetProcAddress gives for a CUDA name, or None."""
    f, status = ctypes.c_void_p(), ctypes.c_int()
    if get_proc(cuda_name.encode(), ctypes.byref(f), DRIVER_VERSION, 0, ctypes.byref(status)) != 0:
        return None
    return by_address.get(f.value) if f.value else None


def report(client, declared, symbol_of):
    groups = {"implemented": [], "not supported": [], "missing": []}
    for name in sorted(declared):
        sym = symbol_of(name)
        if sym is None:
            groups["missing"].append(name)
        elif sym in not_supported:
            groups["not supported"].append(name)
        else:
            groups["implemented"].append(name)
    counts = ", ".join(f"{len(v)} {k}" for k, v in groups.items())
    print(f"{client}: {len(declared)} functions declared: {counts}")
    if show:
        for k, v in groups.items():
            print(f"  {k}: {' '.join(v)}")


print(f"libaclrt_cuda: {len(exported)} cu* functions exported, {len(not_supported & exported)} of them not supported")
if cudarc_dir and os.path.isdir(cudarc_dir):
    names = set()
    for path in glob.glob(os.path.join(cudarc_dir, "*.rs")):
        names.update(re.findall(r"^pub unsafe fn (cu\w+)\(", open(path).read(), re.M))
    version = re.search(r"cudarc-([\w.]+)", cudarc_dir)
    report(f"cudarc {version.group(1) if version else ''} driver::sys", names,
           lambda n: n if n in exported else None)
else:
    print("cudarc: skipped (no cudarc in the cargo registry)")
try:
    import cuda.bindings
    import cuda.bindings.driver as driver
except ImportError:
    print("cuda-python: skipped (cuda.bindings is not installed; run scripts/test.d/26-cuda-python.sh)")
else:
    names = {
        n for n in dir(driver)
        if n.startswith("cu") and callable(getattr(driver, n)) and not inspect.isclass(getattr(driver, n))
    }
    report(f"cuda-python {getattr(cuda.bindings, '__version__', '')} cuda.bindings.driver", names,
           lambda n: n if re.search(r"_v\d+$", n) and n in exported else resolve(n))
PY

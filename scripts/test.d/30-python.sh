#!/usr/bin/env bash
# Python: builds the `acl` package (PyO3 via maturin), installs it into .venv as a user would
# (`pip install .`), then runs the pytest suite against the installed package (with mypy on the
# stubs and a fuzz run of every function in a child interpreter: ACLRT_FUZZ_CALLS and
# ACLRT_FUZZ_SEEDS make it longer), runs the examples and checks their output; finally checks
# that scripts/install.sh puts a package any python3 imports once set_env.sh is sourced.
set -euo pipefail
cd "$(dirname "$0")/../.."
py=python3.11
command -v "$py" >/dev/null 2>&1 || py=python3
if [ ! -x .venv/bin/python ]; then
    echo "30-python.sh: creating .venv ($py -m venv)"
    "$py" -m venv .venv
fi
missing=()
# numpy: the tests of acl.util.numpy_to_ptr with real arrays (they are skipped without it).
for tool in maturin pytest mypy numpy; do
    .venv/bin/python -c "import $tool" 2>/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "30-python.sh: installing ${missing[*]} into .venv (pip)"
    .venv/bin/python -m pip install -q --disable-pip-version-check "${missing[@]}"
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall .
.venv/bin/python -m pytest tests/python -q -p no:cacheprovider

echo "--- Python examples and their output"
# Runs an example and requires each given line, exactly, in its standard output.
expect_lines() {
    local script="examples/python/$1" out line
    shift
    out="$(.venv/bin/python "$script")" || { echo "$script failed:"; echo "$out"; exit 1; }
    for line in "$@"; do
        grep -qxF -- "$line" <<<"$out" || { echo "$script: missing line: $line"; echo "$out"; exit 1; }
    done
    echo "$script: $(wc -l <<<"$out") lines, as expected"
}
expect_lines memcpy_loop.py \
    "init resource: device 0, run mode ACL_HOST, status 0" \
    "sync round 0: 4096 bytes host->device->device->host, 0 bytes differ" \
    "sync round 1: 4096 bytes host->device->device->host, 0 bytes differ" \
    "sync round 2: 4096 bytes host->device->device->host, 0 bytes differ" \
    "async round 0: 4096 bytes host->device->host, 0 bytes differ, reported rounds [0]" \
    "async round 1: 4096 bytes host->device->host, 0 bytes differ, reported rounds [0, 1]" \
    "async round 2: 4096 bytes host->device->host, 0 bytes differ, reported rounds [0, 1, 2]" \
    "dvpp: 1000 bytes, address 0 mod 128, copied back equal: True" \
    "release resource: stream, context, device, acl"
expect_lines callback_pipeline.py \
    "callback: batch 0 done, checksum 2048" \
    "callback: batch 1 done, checksum 4096" \
    "callback: batch 2 done, checksum 6144" \
    "callback: batch 3 done, checksum 8192"
expect_lines streams_and_events.py "caught ACL_ERROR_RT_AICORE_EXCEPTION 507015" 2>/dev/null

echo "--- the Python package of the toolkit-style install"
cargo build -q -p aclrt-capi -p aclrt-cli
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
ACLRT_PROFILE=debug ACLRT_NO_BUILD=1 ACLRT_PYTHON="$py" scripts/install.sh "$prefix" >/dev/null
(
    unset VIRTUAL_ENV PYTHONHOME
    # shellcheck disable=SC1091
    . "$prefix/set_env.sh"
    "$py" - "$prefix" <<'PY'
import sys
import acl

prefix = sys.argv[1]
assert acl.__file__.startswith(prefix + "/python/site-packages/"), acl.__file__
assert acl.init() == 0 and acl.rt.set_device(0) == 0
stream, ret = acl.rt.create_stream()
assert ret == 0
assert acl.ext.set_stream_name(stream, "installed") == 0
assert acl.rt.destroy_stream(stream) == 0
assert acl.finalize() == 0
print(f"installed package imports from {acl.__file__}")
PY
)

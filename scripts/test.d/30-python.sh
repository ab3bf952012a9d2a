#!/usr/bin/env bash
# Python: builds the `acl` package (PyO3 via maturin), installs it into .venv as a user would
# (`pip install .`), then runs the pytest suite against the installed package; finally checks
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
for tool in maturin pytest mypy; do
    .venv/bin/python -c "import $tool" 2>/dev/null || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "30-python.sh: installing ${missing[*]} into .venv (pip)"
    .venv/bin/python -m pip install -q --disable-pip-version-check "${missing[@]}"
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps --force-reinstall .
.venv/bin/python -m pytest tests/python -q -p no:cacheprovider

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

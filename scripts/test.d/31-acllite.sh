#!/usr/bin/env bash
# Python: the acllite helper library of the vendor's Python samples (Ascend/samples,
# python/common/acllite), run unchanged against the installed `acl` package: its resource
# layer (init, device, context, stream, run mode, release in __del__), its logger (acl.app_log)
# and its copy helpers (host, device, dvpp, numpy), driven by tests/acllite/drive.py, which
# checks every copy byte for byte. The four files are taken at a pinned commit from the git
# repository named by ACLRT_ASCEND_SAMPLES_REPO, else from GitHub; SKIPPED, saying why, when
# they cannot be had. Needs the .venv made by 30-python.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
commit="fc2aea93e48be8f8cee51d0c6c1b13a08155f83a"
files=(acllite_resource acllite_utils acllite_logger constants)
dest="target/acllite/$commit"
if [ ! -x .venv/bin/python ]; then
    echo "SKIPPED: no .venv (scripts/test.d/30-python.sh makes it)"
    exit 77
fi
if [ ! -f "$dest/constants.py" ]; then
    mkdir -p "$dest"
    repo="${ACLRT_ASCEND_SAMPLES_REPO:-}"
    for f in "${files[@]}"; do
        path="python/common/acllite/$f.py"
        if [ -n "$repo" ] && git -C "$repo" show "$commit:$path" >"$dest/$f.py" 2>/dev/null; then
            continue
        fi
        if ! timeout 60 curl -fsSL "https://raw.githubusercontent.com/Ascend/samples/$commit/$path" \
            -o "$dest/$f.py" 2>/dev/null; then
            rm -rf "$dest"
            echo "SKIPPED: acllite ($path at $commit) could not be had" \
                "(no ACLRT_ASCEND_SAMPLES_REPO holding that commit, no network?)"
            exit 77
        fi
    done
fi
out="$(mktemp)"
err="$(mktemp)"
trap 'rm -f "$out" "$err"' EXIT
status=0
.venv/bin/python tests/acllite/drive.py "$dest" >"$out" 2>"$err" || status=$?
expect() {
    grep -qxF -- "$2" "$1" || { echo "acllite: missing line: $2"; cat "$out" "$err"; exit 1; }
}
[ $status = 0 ] || { echo "acllite: exit $status"; cat "$out" "$err"; exit 1; }
expect "$out" "Init resource success"
expect "$out" "run mode 1 (ACL_HOST)"
expect "$out" "host -> device -> device -> numpy: 4096 bytes equal"
expect "$out" "device -> host: 4096 bytes equal"
expect "$out" "host -> dvpp -> numpy: 4096 bytes equal"
expect "$out" "Release acl resource success"
expect "$out" "after release: acl.rt.get_run_mode returns 100001"
# The logger's error line, through acl.app_log, with the caller's file and line.
grep -qE '^\[ERROR\] APP\([0-9]+,python\):.*drive\.py:[0-9]+ .*\]acllite error: code 7$' "$err" ||
    { echo "acllite: no ERROR line from acl.app_log"; cat "$err"; exit 1; }
echo "acllite ($commit): resource, logger and copy helpers ran unchanged"

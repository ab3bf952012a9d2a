#!/usr/bin/env bash
# The checker on C programs: every shipped example runs clean under `aclrt check` (no finding,
# exit 0), and a racy program is reported and exits with the checker's code (66). The full
# suite of racy programs and their twins is crates/aclrt-cli/tests/check_c.rs (10-rust.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"

cargo build -p aclrt-capi -p aclrt-cli
lib="$root/target/debug"
aclrt="$lib/aclrt"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
failed=0

for src in examples/c/*.c; do
    name="$(basename "$src" .c)"
    gcc -g -Wall -Wno-deprecated-declarations -I"$root/include" "$src" -L"$lib" -lascendcl -lpthread \
        -o "$out/$name"
    if timeout 120 "$aclrt" check --report "$out/$name.json" -- "$out/$name" >/dev/null 2>"$out/$name.err"; then
        echo "$name: no findings"
    else
        echo "!!! $name under aclrt check:"
        cat "$out/$name.err"
        failed=1
    fi
done

gcc -g -I"$root/include" tests/check/two_streams.c -L"$lib" -lascendcl -o "$out/two_streams"
set +e
timeout 120 "$aclrt" check -- "$out/two_streams" racy >/dev/null 2>"$out/racy.err"
code=$?
set -e
if [ "$code" = 66 ] && grep -q '^aclrt-check: race' "$out/racy.err"; then
    echo "two_streams racy: reported, exit 66"
else
    echo "!!! two_streams racy: exit $code"
    cat "$out/racy.err"
    failed=1
fi
exit $failed

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
# Kernels launched through the vendor kernel API: their declared accesses, or else their pointer
# arguments, are what they touch.
gcc -Wall -Wextra -Werror -I"$root/include" -fPIC -shared tests/c/kernels/binary_kernels.c \
    -o "$out/libbinary_kernels.so"
gcc -g -I"$root/include" tests/c/kernels/check_launch.c -L"$lib" -lascendcl -o "$out/check_launch"
# The two racing launches may run in either order, so the report may name either access first.
for mode in racy fixed disjoint; do
    set +e
    timeout 120 "$aclrt" check -- "$out/check_launch" "$out/libbinary_kernels.so" "$mode" \
        >/dev/null 2>"$out/launch_$mode.err"
    code=$?
    set -e
    if { [ "$mode" = racy ] && [ "$code" = 66 ] && grep -qE '^aclrt-check: race: (write fill .* and (read|write) fill|read fill .* and write fill)' "$out/launch_$mode.err"; } ||
        { [ "$mode" != racy ] && [ "$code" = 0 ]; }; then
        echo "check_launch $mode: exit $code as expected"
    else
        echo "!!! check_launch $mode: exit $code"
        cat "$out/launch_$mode.err"
        failed=1
    fi
done
exit $failed

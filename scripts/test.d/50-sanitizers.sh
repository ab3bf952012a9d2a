#!/usr/bin/env bash
# Sanitizers: the C tests and the stress test under ThreadSanitizer and AddressSanitizer, and
# the core's unit tests under Miri. Needs a nightly toolchain with rust-src and miri (installed
# with rustup, a registry download, when missing); without one it skips (exit 77) with one
# line.
#
# By default a bounded run (a few minutes on 2 cores, most of it building std instrumented
# the first time): every C test and the stress test under ThreadSanitizer, the C tests
# that use threads, callbacks and memory under AddressSanitizer, and Miri over the handle
# tables, the lock-order checker, configuration and codes. ACLRT_SANITIZERS=full adds every
# C test and the stress test under AddressSanitizer and every unit test Miri can run;
# ACLRT_SANITIZERS=off skips it all.
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
mode="${ACLRT_SANITIZERS:-quick}"

skip() {
    # What ran before the skip and failed still fails the part.
    [ "${failed:-0}" = 0 ] || exit 1
    echo "SKIPPED: $*"
    exit 77
}

[ "$mode" = off ] && skip "ACLRT_SANITIZERS=off"
# A nightly toolchain and the instrumented builds take about 3 GB; leave room for the rest.
free_mb="$(df -Pm . | awk 'NR == 2 {print $4}')"
[ "${free_mb:-0}" -ge 6144 ] || skip "only ${free_mb} MB of disk free (it needs 6 GB)"
command -v rustup >/dev/null 2>&1 || skip "no rustup to get a nightly toolchain"
command -v gcc >/dev/null 2>&1 || skip "no gcc to build the C tests"
have_nightly() {
    rustup run nightly rustc --version >/dev/null 2>&1 &&
        rustup component list --installed --toolchain nightly 2>/dev/null | grep -q '^rust-src' &&
        rustup component list --installed --toolchain nightly 2>/dev/null | grep -q '^miri'
}
if ! have_nightly; then
    echo "50-sanitizers.sh: installing nightly with rust-src and miri (rustup)"
    timeout 180 rustup toolchain install nightly --profile minimal \
        --component rust-src --component miri >/dev/null 2>&1 || true
    have_nightly || skip "rustup could not install nightly with rust-src and miri (offline?)"
fi

host="$(rustc +nightly -vV | sed -n 's/^host: //p')"
runtimes="$(rustc +nightly --print sysroot)/lib/rustlib/$host/lib"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failed=0

# -Zbuild-std for ThreadSanitizer: std's synchronisation must be instrumented too, or every
# hand-over through it reads as a race. AddressSanitizer needs only our own code instrumented.
build_std() {
    [ "$1" = thread ] && echo -Zbuild-std
}

# Builds libascendcl instrumented with sanitizer $1.
build_library() {
    # shellcheck disable=SC2046
    if ! RUSTFLAGS="-Zsanitizer=$1" CARGO_TARGET_DIR="target/san-$1" \
        cargo +nightly build -q $(build_std "$1") --target "$host" -p aclrt-capi >"$out/build-$1.log" 2>&1; then
        grep -A12 '^error' "$out/build-$1.log" | head -40
        skip "the ${1}-sanitized library does not build with this nightly"
    fi
}

# Compiles C test $2 with sanitizer $1 against the instrumented library and runs it. The
# sanitizer's runtime is the one rustc ships (gcc's is older than the instrumentation rustc
# emits).
run_c_test() {
    local san="$1" name="$2" lib="$root/target/san-$1/$host/debug" short=tsan
    [ "$san" = address ] && short=asan
    gcc -std=c11 -g -fsanitize="$san" -Wno-deprecated-declarations -I"$root/include" -I"$root/tests/c" \
        -c "tests/c/$name.c" -o "$out/$name-$san.o"
    gcc "$out/$name-$san.o" -o "$out/$name-$san" \
        -Wl,--whole-archive "$runtimes/librustc-nightly_rt.$short.a" \
        -Wl,--no-whole-archive -L"$lib" -lascendcl -Wl,-rpath,"$lib" -lpthread -ldl -lm -lstdc++
    if ! (cd "$out" && timeout 600 "$out/$name-$san" >"$out/$name-$san.log" 2>&1); then
        echo "!!! $name under ${san}Sanitizer failed:"
        grep -A30 -m1 'Sanitizer\|check failed\|expected' "$out/$name-$san.log" | head -40 || true
        failed=1
    else
        echo "$name: clean under ${san}Sanitizer"
    fi
}

# The stress test, instrumented with sanitizer $1.
run_stress() {
    # shellcheck disable=SC2046
    if RUSTFLAGS="-Zsanitizer=$1" CARGO_TARGET_DIR="target/san-$1" \
        timeout 900 cargo +nightly test -q $(build_std "$1") --target "$host" -p aclrt-core \
        --test stress >"$out/stress-$1.log" 2>&1; then
        echo "stress: clean under ${1}Sanitizer"
    else
        echo "!!! stress under ${1}Sanitizer failed:"
        grep -B2 -A30 -m1 'Sanitizer\|panicked' "$out/stress-$1.log" | head -50 || true
        failed=1
    fi
}

export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
# Leaks are valgrind's job in 20-c.sh; the fork handlers leave the parent's runtime on
# purpose in a child.
export ASAN_OPTIONS="detect_leaks=0 halt_on_error=1"

# The host kernel library test_kernels loads through aclrtBinaryLoad*.
mkdir -p "$out"
gcc -I"$root/include" -fPIC -shared tests/c/kernels/binary_kernels.c -o "$out/libbinary_kernels.so"
export ACLRT_TEST_BINARY_KERNELS="$out/libbinary_kernels.so"

echo "--- ThreadSanitizer ($mode)"
build_library thread
for src in tests/c/*.c; do
    run_c_test thread "$(basename "$src" .c)"
done
run_stress thread

echo "--- AddressSanitizer ($mode)"
build_library address
if [ "$mode" = full ]; then
    asan_tests=(tests/c/*.c)
else
    asan_tests=(tests/c/test_callbacks.c tests/c/test_threads.c tests/c/test_streams.c tests/c/test_memory.c)
fi
for src in "${asan_tests[@]}"; do
    run_c_test address "$(basename "$src" .c)"
done
[ "$mode" = full ] && run_stress address

echo "--- Miri ($mode)"
# Memory is reserved with mmap and given back with madvise, and the host's memory size comes
# from sysconf: Miri supports neither, so those tests are left out. The default run covers the
# handle tables, the lock-order checker, configuration, codes and the kernel API's argument
# buffers (under a minute); the full
# one every other unit test too (devices with their 1984 streams take minutes under Miri).
skips=(--skip memory:: --skip default_capacity_fits_the_host)
if [ "$mode" = full ]; then
    filters=("${skips[@]}")
else
    filters=(handle:: sync::order:: config:: codes:: kernel::tests::placeholder_data "${skips[@]}")
fi
if MIRIFLAGS="-Zmiri-disable-isolation" timeout 900 cargo +nightly miri test -q -p aclrt-core --lib \
    -- "${filters[@]}" >"$out/miri.log" 2>&1; then
    echo "miri: $(grep -o '[0-9]* passed' "$out/miri.log" | tail -1), no undefined behaviour found"
else
    echo "!!! Miri found a problem (or a test failed):"
    grep -B2 -A30 -m1 'Undefined Behavior\|error:\|panicked' "$out/miri.log" | head -50 || true
    failed=1
fi

exit $failed

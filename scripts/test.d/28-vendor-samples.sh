#!/usr/bin/env bash
# The vendor's runtime samples (hicann/runtime, example/) built and run against the install tree.
#
# The samples are taken at a pinned commit: from the git repository or mirror named by
# ACLRT_VENDOR_RUNTIME_REPO when set, else fetched from GitHub (that one commit, shallow), else
# from the codeload tarball; SKIPPED, saying why, when none can be had. Each sample is built by
# its own run.sh (CMake against the tree, found through set_env.sh and the sample's own
# example/set_sample_env.sh) and run by it, with three differences, all in the build harness:
#   - device kernels (example/kernel_func/*.cpp, the quickstart's vector_add_kernel.cpp) are
#     replaced by host stand-ins from tests/vendor-samples/kernels/, with the same functions;
#   - the script's "rm -rf build" leaves build/ out, so builds are kept (under target/);
#   - make and cmake --build run with -j2 instead of -j$(nproc) or an unbounded -j.
# ACLRT_VENDOR_SAMPLES_CLEAN=1 starts every build from nothing. A sample that links a library
# outside the runtime (operators, tdt, dump, profiling) is listed, not built. The emulated
# machine has four devices (ACLRT_DEVICE_COUNT=4): the multi-device samples use up to four.
# Samples run four at a time (ACLRT_VENDOR_SAMPLES_JOBS); a listed one may take 60 s
# (ACLRT_VENDOR_SAMPLES_TIMEOUT), another 10 s (..._OTHER_TIMEOUT; some wait for ever on a
# partner process that failed), a first build a minute more. numpy, which some samples'
# data scripts need, comes from PyPI into a venv under target/ when python3 lacks it.
#
# Each run's output is compared with the "Sample Output" of the sample's README (English, else
# Chinese): every line there must appear in the output (of one block only, for the samples
# listed in tests/vendor-samples/alternatives.txt, whose READMEs show alternative outputs),
# "..." and "<...>" standing for any text;
# lines listed in tests/vendor-samples/differences.txt (values of the vendor's hardware) are not
# compared. A sample passes when it built, exited 0 within the time limit and printed every
# line. The part fails only when a sample listed in tests/vendor-samples/expected-pass.txt does
# not pass; the others are reported. By default only the listed samples are built and run (the
# part's verdict, and a fresh machine's build time, depend on them alone);
# ACLRT_VENDOR_SAMPLES=all builds and reports every sample, a comma-separated list of sample
# folders (as in expected-pass.txt) only those. Logs:
# target/vendor-samples/logs/<sample>.log.
set -uo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
commit="681ef7610df13c8128982901142a2c869ddbb53e"
upstream="https://github.com/hicann/runtime"
work="$root/target/vendor-samples"
data="$root/tests/vendor-samples"
tree="$work/tree"
logs="$work/logs"
# Seconds a sample may run: generous for the listed ones, which must pass; short for the others,
# some of which wait for ever on a partner process that failed.
listed_timeout="${ACLRT_VENDOR_SAMPLES_TIMEOUT:-60}"
other_timeout="${ACLRT_VENDOR_SAMPLES_OTHER_TIMEOUT:-10}"
mkdir -p "$work"
for tool in cmake make g++; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIPPED: the samples build with $tool, which this machine lacks"
        exit 77
    fi
done

# --- the samples at the pinned commit
fetch_samples() {
    local dest="$1" repo="${ACLRT_VENDOR_RUNTIME_REPO:-}"
    if [ -n "$repo" ] && git -C "$repo" cat-file -e "$commit^{commit}" 2>/dev/null; then
        git -C "$repo" archive "$commit" example | tar -x -C "$dest" && return 0
    fi
    rm -rf "$work/git"
    if git init -q "$work/git" 2>/dev/null &&
        timeout 120 git -C "$work/git" fetch -q --depth 1 "$upstream" "$commit" 2>/dev/null; then
        git -C "$work/git" archive "$commit" example | tar -x -C "$dest" && return 0
    fi
    if command -v curl >/dev/null &&
        timeout 120 curl -fsSL "https://codeload.github.com/hicann/runtime/tar.gz/$commit" 2>/dev/null |
        tar -xz -C "$dest" --strip-components=1 "runtime-$commit/example" 2>/dev/null; then
        return 0
    fi
    return 1
}
if [ "$(cat "$tree/.commit" 2>/dev/null)" != "$commit" ] || [ "${ACLRT_VENDOR_SAMPLES_CLEAN:-0}" = 1 ]; then
    rm -rf "$tree"
    mkdir -p "$tree"
    if ! fetch_samples "$tree" || [ ! -d "$tree/example" ]; then
        rm -rf "$tree"
        echo "SKIPPED: the samples of $upstream at $commit could not be had" \
            "(no ACLRT_VENDOR_RUNTIME_REPO holding that commit, no network?)"
        exit 77
    fi
    echo "$commit" > "$tree/.commit"
    rm -f "$work/venv.failed"
fi
ex="$tree/example"

# The host stand-ins of the device kernels, copied only when they differ (a copy rebuilds).
(cd "$data/kernels" && find . -type f) | while read -r f; do
    if ! cmp -s "$data/kernels/$f" "$ex/$f"; then
        mkdir -p "$(dirname "$ex/$f")"
        cp "$data/kernels/$f" "$ex/$f"
    fi
done

# --- the install tree, as a toolkit
prefix="$work/Ascend/ascend-toolkit/latest"
ACLRT_PROFILE=debug ACLRT_NO_PYTHON=1 scripts/install.sh "$prefix" >/dev/null
unset ASCEND_INSTALL_PATH SOC_VERSION ASCENDC_CMAKE_DIR
# shellcheck disable=SC1091
. "$prefix/set_env.sh"
# As the samples' READMEs say: set_sample_env.sh finds SOC_VERSION (a helper program asks the
# runtime with aclrtGetSocName) and ASCENDC_CMAKE_DIR. It turns on set -eu; restore ours after.
# shellcheck disable=SC1091
if ! (. "$ex/set_sample_env.sh" >"$work/set_sample_env.log" 2>&1); then
    cat "$work/set_sample_env.log"
    echo "!!! example/set_sample_env.sh failed against the install tree"
    exit 1
fi
# shellcheck disable=SC1091
. "$ex/set_sample_env.sh" >/dev/null 2>&1
set +e -uo pipefail
export ASCEND_INSTALL_PATH ASCEND_HOME_PATH SOC_VERSION ASCENDC_CMAKE_DIR
# A machine of four devices: the multi-device samples use devices 0 to 3.
export ACLRT_DEVICE_COUNT=4

# numpy, for the samples whose scripts make and check data with it: a venv under target/ when
# the system python has none (left out, and those samples reported, when it cannot be had).
if ! python3 -c "import numpy" >/dev/null 2>&1; then
    venv="$work/venv"
    if [ ! -e "$work/venv.failed" ] && { [ ! -x "$venv/bin/python3" ] ||
        ! "$venv/bin/python3" -c "import numpy" >/dev/null 2>&1; }; then
        rm -rf "$venv"
        python3 -m venv "$venv" >/dev/null 2>&1 &&
            timeout 300 "$venv/bin/python3" -m pip install -q --disable-pip-version-check numpy \
                >/dev/null 2>&1 || { rm -rf "$venv"; touch "$work/venv.failed"; }
    fi
    [ -x "$venv/bin/python3" ] && export PATH="$venv/bin:$PATH"
fi

lib64="$prefix/lib64"
exported="$work/exported.txt"
nm -D --defined-only "$lib64/libascendcl.so" | awk '{print $3}' | sort -u > "$exported"
# Type names of the headers (a cast looks like a call).
types="$work/types.txt"
cat "$prefix"/include/acl/*.h "$prefix"/include/acl/*/*.h 2>/dev/null |
    grep -oE '(typedef[^;]*[^A-Za-z0-9_]|\}[[:space:]]*)acl[A-Za-z0-9_]*[[:space:]]*;' |
    grep -oE 'acl[A-Za-z0-9_]*[[:space:]]*;$' | tr -d ' ;' | sort -u > "$types"
grep -ohE 'typedef[^;(]*\([[:space:]]*\*[[:space:]]*acl[A-Za-z0-9_]*' "$prefix"/include/acl/*.h |
    grep -oE 'acl[A-Za-z0-9_]*$' >> "$types"
# The exported functions without an emulated implementation yet (they return 207000).
stubs="$work/not-supported.txt"
grep -o 'fn acl[A-Za-z0-9_]*' crates/aclrt-capi/src/not_supported.rs | sed 's/^fn //' | sort -u > "$stubs"

# The lines of a README's "Sample Output" blocks, one a line, each block after a line
# "@@block".
readme_output() {
    awk '/^## /{on = ($0 ~ /^## (Sample Output|示例输出)/)}
        on && /^```/{inblk = !inblk; if (inblk) print "@@block"; next}
        on && inblk {print}' "$1"
}

# Extended regex of an expected line: "..." and "<...>" match any text, blanks any blanks.
line_regex() {
    sed -e 's/[][\.*^$(){}?+|/]/\\&/g' -e 's/\\\.\\\.\\\./.*/g' -e 's/<[^>]*>/.*/g' \
        -e 's/[[:space:]][[:space:]]*/[[:space:]]+/g' -e 's/^/^[[:space:]]*/' -e 's/$/[[:space:]]*$/' <<<"$1"
}

pass_list="$(grep -v '^[[:space:]]*\(#\|$\)' "$data/expected-pass.txt" 2>/dev/null | awk '{print $1}')"

# The sample script $1 as the harness runs it: builds kept, parallelism capped (see the top).
harness_script() {
    sed -e '/^[[:space:]]*rm -rf "\?\${\?BUILD_DIR}\?"\?[[:space:]]*$/d' \
        -e '/^[[:space:]]*rm -rf "\?build"\?[[:space:]]*$/d' -e 's/^\([[:space:]]*rm -rf\) build /\1 /' \
        -e 's/-j"\?\$(nproc)"\?/-j2/g' -e 's/\(cmake --build [^ ]*\) -j[[:space:]]*$/\1 -j2/' \
        -e 's/\(cmake --build [^ ]*\) -j\([[:space:]]\)/\1 -j2\2/' "$1"
}

# Builds and runs sample $1 (its folder under example/); writes its result line to $2.
run_sample() {
    local s="$1" out="$2" dir="$ex/$1" log="$logs/${1//\//__}.log" started=$SECONDS
    local status="" reason="" missing_libs="" lib called missing_fns stubbed_fns rc undef readme
    local expected matched unmatched ignore line trimmed codes last run_timeout="$other_timeout"
    # A first build counts against the limit too: it gets a minute more (builds take up to
    # 15 s here, four at a time on two cores).
    grep -qxF "$s" <<<"$pass_list" && run_timeout="$listed_timeout"
    [ -e "$dir/.aclrt-built" ] || run_timeout=$((run_timeout + 60))
    # Libraries outside the runtime that the build links.
    for lib in $(grep -o 'lib[A-Za-z0-9_]*\.so' "$dir/CMakeLists.txt" | sort -u); do
        [ -e "$lib64/$lib" ] || missing_libs="$missing_libs $lib"
    done
    # ACL functions the sample calls that the library does not export.
    called="$(cat "$dir"/*.cpp "$dir"/*.h 2>/dev/null | grep -o '\bacl[A-Za-z0-9_]*[[:space:]]*(' |
        sed 's/[[:space:]]*($//' | sort -u)"
    missing_fns="$(comm -23 <(echo "$called") "$exported" | grep -v -x -F -f "$types" | tr '\n' ' ' |
        sed 's/ $//')"
    stubbed_fns="$(comm -12 <(echo "$called") "$stubs" | tr '\n' ' ' | sed 's/ $//')"
    if [ -n "$missing_libs" ]; then
        status="NOT-RUNTIME"
        reason="links${missing_libs}"
        [ -n "$missing_fns" ] && reason="$reason; calls $missing_fns"
    else
        if [ -f "$dir/run.sh" ]; then
            harness_script "$dir/run.sh" > "$dir/.aclrt-run.sh"
        else
            # A server and a client, meant for two hosts, run here on one: the server on its
            # default port, the client, once the server is bound (or has exited), to 127.0.0.1.
            # Their scripts ask for the address and port on stdin.
            harness_script "$dir/run_server.sh" > "$dir/.aclrt-run_server.sh"
            harness_script "$dir/run_client.sh" > "$dir/.aclrt-run_client.sh"
            cat > "$dir/.aclrt-run.sh" <<'RUN'
bash .aclrt-run_server.sh <<<"" > .aclrt-server.log 2>&1 &
server=$!
# Bound to UDP port 8888 (0x22B8), as /proc/net/udp shows: the server's output is buffered.
while kill -0 "$server" 2>/dev/null && ! grep -q ':22B8 0*:0000 07' /proc/net/udp /proc/net/udp6; do
    sleep 0.1
done
printf '127.0.0.1\n\n' | bash .aclrt-run_client.sh
client=$?
wait "$server"
server_rc=$?
cat .aclrt-server.log
[ "$client" = 0 ] && [ "$server_rc" = 0 ]
RUN
        fi
        (cd "$dir" && timeout -k 5 "$run_timeout" bash .aclrt-run.sh) >"$log" 2>&1 </dev/null
        rc=$?
        # Marks a finished build; one cut short gets the longer limit next time.
        if grep -q -E '^\[100%\] Built target' "$log"; then
            touch "$dir/.aclrt-built"
        else
            rm -f "$dir/.aclrt-built"
        fi
        if [ $rc != 0 ] && grep -q -E '(\*\*\* \[.*\] Error|CMake Error|undefined reference|: (fatal )?error:)' "$log"; then
            status="BUILD-FAIL"
            undef="$(grep -o "undefined reference to \`[A-Za-z0-9_]*'" "$log" | sed "s/.*\`\(.*\)'/\1/" |
                sort -u | tr '\n' ' ' | sed 's/ $//')"
            if [ -n "$undef" ]; then
                reason="undefined: $undef"
            else
                reason="$(grep -m1 -E 'error:|CMake Error|Error [0-9]+' "$log" | cut -c1-160)"
            fi
        elif [ ! -e "$dir/.aclrt-built" ]; then
            status="BUILD-FAIL"
            reason="exit $rc before the build completed"
            { [ $rc = 124 ] || [ $rc = 137 ]; } && reason="no build within ${run_timeout} s"
        elif [ $rc = 124 ] || [ $rc = 137 ]; then
            status="TIMEOUT"
            reason="no exit within ${run_timeout} s"
            [ -n "$stubbed_fns" ] && reason="$reason; calls, not emulated: $stubbed_fns"
        else
            readme="$dir/README_en.md"
            [ -f "$readme" ] || readme="$dir/README.md"
            expected=0 matched=0 unmatched=""
            # Blocks add up (a program's output, then its partner process's), except for the
            # samples listed in alternatives.txt, whose README shows alternative outputs: there
            # the block compared is the first one printed whole, else the one with the most
            # lines printed (b_*: the block being read).
            b_expected=0 b_matched=0 b_unmatched="" have_whole=0 alternatives=0
            grep -qxF "$s" "$data/alternatives.txt" 2>/dev/null && alternatives=1
            take_block() {
                if [ $alternatives = 0 ]; then
                    expected=$((expected + b_expected)) matched=$((matched + b_matched))
                    [ -z "$unmatched" ] && unmatched="$b_unmatched"
                elif [ $have_whole = 0 ] && [ $b_expected -gt 0 ] &&
                    { [ $b_matched = $b_expected ] || [ $((b_matched * (expected + 1))) -gt $((matched * (b_expected + 1))) ] || [ $expected = 0 ]; }; then
                    expected=$b_expected matched=$b_matched unmatched="$b_unmatched"
                    [ $b_matched = $b_expected ] && have_whole=1
                fi
                b_expected=0 b_matched=0 b_unmatched=""
            }
            ignore="$(awk -v s="$s" '$1 == s {sub(/^[^ \t]+[ \t]+/, ""); print}' "$data/differences.txt" 2>/dev/null)"
            while IFS= read -r line; do
                if [ "$line" = "@@block" ]; then
                    take_block
                    continue
                fi
                trimmed="$(sed 's/^[[:space:]]*//; s/[[:space:]]*$//' <<<"$line")"
                case "$trimmed" in "" | "..." | "…") continue ;; esac
                if [ -n "$ignore" ] && grep -q -E -f <(printf '%s\n' "$ignore") <<<"$trimmed"; then
                    continue
                fi
                b_expected=$((b_expected + 1))
                if grep -q -E "$(line_regex "$trimmed")" "$log"; then
                    b_matched=$((b_matched + 1))
                else
                    [ -z "$b_unmatched" ] && b_unmatched="$trimmed"
                fi
            done < <(readme_output "$readme")
            take_block
            codes="$(grep -o -E '(returned|error code|ret[ =:]*)[^0-9]{0,12}(1[0-9]{5}|2[0-9]{5}|5[0-9]{5})' "$log" |
                grep -o -E '[0-9]{6}$' | sort | uniq -c | sort -rn | awk '{printf "%s%s", sep, $2; sep=","}')"
            if [ $rc = 0 ] && [ $expected -gt 0 ] && [ $matched = $expected ]; then
                status="PASS"
                reason="$matched/$expected README lines"
            elif [ $rc = 0 ] && [ $expected = 0 ]; then
                status="RAN"
                reason="exit 0; the README shows no output to compare"
            elif [ $rc = 0 ]; then
                status="OUTPUT"
                reason="$matched/$expected README lines; first missing: ${unmatched:0:90}"
                # run.sh pipes the program through tee, which hides its exit status; an abort
                # also loses its buffered output.
                last="$(grep -m1 -E '^terminate called|Segmentation fault|Aborted' "$log")"
                [ -n "$last" ] && reason="$reason; the program died: $last"
            else
                status="RUN-FAIL"
                reason="exit $rc; $matched/$expected README lines"
                [ -n "$codes" ] && reason="$reason; codes $codes"
                last="$(grep -m1 -E 'failed|FAILURE|ERROR|error' "$log" | cut -c1-120)"
                [ -n "$last" ] && reason="$reason; $last"
            fi
            [ -n "$missing_fns" ] && reason="$reason; not exported: $missing_fns"
            [ "$status" != PASS ] && [ -n "$stubbed_fns" ] && reason="$reason; calls, not emulated: $stubbed_fns"
        fi
    fi
    printf '%s\t%s\t%s\t%s\n' "$s" "$status" "$reason" "$((SECONDS - started))" > "$out"
}

mkdir -p "$logs" "$work/results"
rm -f "$work/results"/*
mapfile -t samples < <(cd "$ex" && find . -name run.sh -o -name run_server.sh | xargs -n1 dirname |
    sed 's|^\./||' | sort -u)
case "${ACLRT_VENDOR_SAMPLES:-listed}" in
all) ;;
listed)
    mapfile -t samples < <(printf '%s\n' "${samples[@]}" | grep -xF -f <(printf '%s\n' "$pass_list"))
    echo "28-vendor-samples.sh: the ${#samples[@]} listed samples (ACLRT_VENDOR_SAMPLES=all: every one)"
    # A listed sample that is not there at the pinned commit fails the part, never drops out.
    missing="$(grep -vxF -f <(printf '%s\n' "${samples[@]}") <<<"$pass_list" || true)"
    if [ -n "$missing" ]; then
        echo "28-vendor-samples.sh: listed but not found at $commit:"
        echo "$missing"
        exit 1
    fi
    ;;
*)
    mapfile -t samples < <(printf '%s\n' "${samples[@]}" | grep -xF -f <(tr ',' '\n' <<<"$ACLRT_VENDOR_SAMPLES"))
    echo "28-vendor-samples.sh: the ${#samples[@]} samples named by ACLRT_VENDOR_SAMPLES"
    ;;
esac
# Several samples at once: most of a run is waiting on emulated kernels (the long one takes
# 2 s) or on a timeout; each build uses two jobs.
jobs_max="${ACLRT_VENDOR_SAMPLES_JOBS:-4}"
running=0
for s in "${samples[@]}"; do
    if [ "$running" -ge "$jobs_max" ]; then
        wait -n
        running=$((running - 1))
    fi
    run_sample "$s" "$work/results/${s//\//__}" &
    running=$((running + 1))
done
wait
results="$work/results.txt"
for s in "${samples[@]}"; do
    cat "$work/results/${s//\//__}" 2>/dev/null || printf '%s\tERROR\tno result\t0\n' "$s"
done > "$results"

failed=0
printf '%-72s %-11s %4s  %s\n' "sample" "status" "secs" "why"
while IFS=$'\t' read -r name status reason secs; do
    mark=""
    if grep -qxF "$name" <<<"$pass_list"; then
        if [ "$status" = PASS ]; then mark=" (listed)"; else mark=" !!! listed as passing"; failed=1; fi
    elif [ "$status" = PASS ]; then
        mark=" (passes, not listed in expected-pass.txt)"
    fi
    printf '%-72s %-11s %4s  %s%s\n' "$name" "$status" "$secs" "$reason" "$mark"
done < "$results"
total="$(wc -l < "$results")"
summary="$(awk -F'\t' '{n[$2]++} END {for (s in n) printf "%s %d, ", s, n[s]}' "$results" | sed 's/, $//')"
echo "vendor samples: $total: $summary (logs: ${logs#"$root"/})"
exit $failed

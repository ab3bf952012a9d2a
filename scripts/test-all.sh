#!/usr/bin/env bash
# Runs every test suite of the project: Rust (unit, integration, model-based, loom, stress),
# C (ABI tests and examples), Python (pytest) and the quick benchmark smoke run.
# Installs what it needs (a Python venv with maturin and pytest) on a fresh machine.
#
# The parts run in two lanes at once: the main lane (Rust, C, CUDA, Python, bench) in the
# foreground, its output on screen; the model checks and sanitizers, which build in their own
# target directories and spend most of their time compiling, beside it, their output kept in
# a log and shown when a part fails. Each part prints a line when it starts and when it ends,
# with the time since the start. ACLRT_TEST_LANES=1 runs everything in one lane, in order.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
# A first build (a fresh clone, a CI machine) gains nothing from incremental compilation, which
# would add over a GB of cache to the target directory; a developer's existing target keeps it.
if [ ! -d target/debug/incremental ]; then
    export CARGO_INCREMENTAL=0
fi
started=$SECONDS

# The parts of the side lane (the rest run in the main lane, in file-name order).
side_parts=(15-loom 50-sanitizers)
lanes="${ACLRT_TEST_LANES:-2}"

is_side() {
    local name="$1" p
    for p in "${side_parts[@]}"; do [ "$p" = "$name" ] && return 0; done
    return 1
}

# Runs part $1; $2 is where its output goes ("-": the screen). Returns its status.
run_part() {
    local part="$1" log="$2" part_start=$SECONDS rc=0 out
    echo "=== ${part} (at $((SECONDS - started)) s)"
    out="$logs/$(basename "$part" .sh).out"
    if [ "$log" = - ]; then
        bash "$part" 2>&1 | tee "$out"
        rc=${PIPESTATUS[0]}
    else
        out="$log"
        bash "$part" >"$log" 2>&1 || rc=$?
    fi
    # A part that cannot run here (no network, no tool) prints `SKIPPED: why` and exits 77;
    # 77 without that line is a failure like any other.
    if [ $rc = 77 ] && ! grep -q '^SKIPPED: ' "$out"; then
        rc=1
    fi
    if [ $rc = 0 ]; then
        echo "=== ${part}: passed in $((SECONDS - part_start)) s"
    elif [ $rc = 77 ]; then
        local why
        why="$(grep -m1 '^SKIPPED: ' "$out" | sed 's/^SKIPPED: //')"
        echo "=== ${part}: SKIPPED after $((SECONDS - part_start)) s (${why})"
        basename "$part" .sh >>"$logs/skipped"
        rc=0
    else
        echo "!!! ${part} failed after $((SECONDS - part_start)) s"
        if [ "$log" != - ]; then
            echo "--- last lines of ${part}'s output:"
            tail -n 60 "$log"
        fi
    fi
    return $rc
}

echo "=== $(nproc) cores, $(df -Pm . | awk 'NR == 2 {print $4}') MB of disk free"
logs="$(mktemp -d)"
side_pid=
# Interrupted: stop both lanes, their builds and tests included.
trap 'trap - INT TERM; kill 0' INT TERM
if [ "$lanes" != 1 ]; then
    (
        status=0
        for part in scripts/test.d/*.sh; do
            name="$(basename "$part" .sh)"
            is_side "$name" || continue
            run_part "$part" "$logs/$name.log" || status=1
        done
        exit $status
    ) &
    side_pid=$!
fi

status=0
for part in scripts/test.d/*.sh; do
    name="$(basename "$part" .sh)"
    if [ "$lanes" != 1 ] && is_side "$name"; then continue; fi
    run_part "$part" - || status=1
done
if [ -n "$side_pid" ]; then
    echo "=== main lane done at $((SECONDS - started)) s; waiting for the side lane"
    wait "$side_pid" || status=1
fi
skipped=
if [ -f "$logs/skipped" ]; then
    skipped="$(sort "$logs/skipped" | paste -sd, - | sed 's/,/, /g')"
fi
rm -rf "$logs"
echo "=== disk used by the build: $(du -sh target 2>/dev/null | cut -f1) in target/"
echo "=== all parts done in $((SECONDS - started)) s: $([ $status = 0 ] && echo passed || echo FAILED)${skipped:+ (skipped: $skipped)}"
exit $status

#!/usr/bin/env bash
# Rust: every crate's tests (unit, integration, model-based, stress, doc tests). The tests of
# one binary share a process; those that use the process's runtime take turns (see
# crates/aclrt-core/tests/exclusive). The core's tests run once more under the scheduler that
# is not the default (ACLRT_SCHEDULER).
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --workspace --no-fail-fast

# The rerun uses the binaries built above: `cargo test -p aclrt-core` would unify features for
# that one package alone and build the core and all its tests a second time.
echo "--- the core's tests under ACLRT_SCHEDULER=threads"
mapfile -t bins < <(cargo test --workspace --no-run --message-format=json 2>/dev/null | python3 -c '
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("reason") != "compiler-artifact" or not msg.get("executable"):
        continue
    if "/crates/aclrt-core" in msg["package_id"] and msg["profile"]["test"]:
        print(msg["executable"])
')
[ ${#bins[@]} -gt 10 ] || { echo "found only ${#bins[@]} test binaries of the core"; exit 1; }
status=0
cd crates/aclrt-core
for bin in "${bins[@]}"; do
    echo "- $(basename "$bin")"
    ACLRT_SCHEDULER=threads "$bin" -q || { echo "!!! $(basename "$bin") failed with a thread per stream"; status=1; }
done
exit $status

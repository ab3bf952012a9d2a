#!/usr/bin/env bash
# Rust: every crate's tests (unit, integration, model-based, stress, doc tests). The tests of
# one binary share a process; those that use the process's runtime take turns (see
# crates/aclrt-core/tests/exclusive). The core's tests run once more under the scheduler that
# is not the default (ACLRT_SCHEDULER).
set -euo pipefail
cargo test --workspace --no-fail-fast
ACLRT_SCHEDULER=pool cargo test -p aclrt-core --no-fail-fast

#!/usr/bin/env bash
# Rust: every crate's tests (unit, integration, model-based, stress, doc tests). The tests of
# one binary share a process; those that use the process's runtime take turns (see
# crates/aclrt-core/tests/exclusive).
set -euo pipefail
cargo test --workspace --no-fail-fast

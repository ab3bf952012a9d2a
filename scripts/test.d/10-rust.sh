#!/usr/bin/env bash
# Rust: every crate's tests, each test in its own process (the runtime is process-global).
set -euo pipefail
if ! command -v cargo-nextest >/dev/null 2>&1; then
    cargo install --locked cargo-nextest
fi
cargo nextest run --workspace --exclude aclrt-python --no-fail-fast
cargo test --workspace --exclude aclrt-python --doc

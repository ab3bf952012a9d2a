#!/usr/bin/env bash
# Model-checks the core's wait/wake protocol and the pooled scheduler's ready queue and run
# states with loom (separate target dir: --cfg loom rebuilds every dependency).
set -euo pipefail
cd "$(dirname "$0")/../.."
RUSTFLAGS="--cfg loom" CARGO_TARGET_DIR=target/loom \
    cargo test -p aclrt-core --release --test loom_waitlist --test loom_doorbell --test loom_workqueue \
    --test loom_pool

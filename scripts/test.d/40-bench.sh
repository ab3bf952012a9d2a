#!/usr/bin/env bash
# Benchmarks: the quick mode as a smoke test (every case runs and the JSON report is written;
# timings are not asserted here, the machine may be busy). The bench crate's own tests run
# with the workspace's in 10-rust.
set -euo pipefail
cargo run --release -p aclrt-bench -- --quick --json target/bench-quick.json
python3 - <<'PY'
import json
report = json.load(open("target/bench-quick.json"))
rows = report["results"]
ids = {r["id"] for r in rows}
for case in ["1", "2", "3a", "3b", "4", "5", "6", "7", "8.16", "9.2", "10", "11c", "11g", "12", "13"]:
    assert case in ids, f"case {case} missing from the report"
for r in rows:
    for key in ["case", "unit", "median", "p10", "p90", "baseline", "ratio"]:
        assert key in r, f"{r['id']}: no {key}"
    assert r["p10"] <= r["median"] <= r["p90"], f"{r['id']}: percentiles out of order"
print(f"bench smoke: {len(rows)} rows")
PY

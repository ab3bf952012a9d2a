//! `aclrt demo`: what it writes and prints. The stage kernels take 20 ms each, so the
//! structural facts checked here (stages overlap, times nest) do not hinge on tight timing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// What one demo run left.
struct Run {
    dir: PathBuf,
    stdout: String,
    events: Vec<Value>,
}

fn run_demo(test: &str) -> Run {
    let dir = std::env::temp_dir().join(format!("aclrt-demo-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(["demo", "--out", "pictures"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = std::fs::read_to_string(dir.join("pictures/trace.json")).unwrap();
    let root: Value = serde_json::from_str(&json).unwrap();
    Run {
        dir,
        stdout: String::from_utf8(out.stdout).unwrap(),
        events: root["traceEvents"].as_array().unwrap().clone(),
    }
}

fn svg(dir: &Path) -> String {
    std::fs::read_to_string(dir.join("pictures/timeline.svg")).unwrap()
}

/// Track names by (pid, tid).
fn track_names(events: &[Value]) -> HashMap<(i64, i64), String> {
    events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| {
            (
                (e["pid"].as_i64().unwrap(), e["tid"].as_i64().unwrap()),
                e["args"]["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Kernel slices (start, end in µs) of the stream whose track name starts with `stage (`.
fn stage_kernels(events: &[Value], stage: &str) -> Vec<(f64, f64, String)> {
    let names = track_names(events);
    let prefix = format!("{stage} (stream ");
    events
        .iter()
        .filter(|e| e["ph"] == "X" && e["args"]["kind"] == "kernel")
        .filter(|e| {
            let track = (e["pid"].as_i64().unwrap(), e["tid"].as_i64().unwrap());
            names.get(&track).is_some_and(|n| n.starts_with(&prefix))
        })
        .map(|e| {
            let ts = e["ts"].as_f64().unwrap();
            (
                ts,
                ts + e["dur"].as_f64().unwrap(),
                e["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn the_demo_writes_a_trace_and_a_picture_into_out() {
    let run = run_demo("files");
    assert!(
        !run.dir.join("out").exists(),
        "--out replaces the default folder"
    );
    for (stage, kernel) in [("load", "unpack"), ("compute", "square"), ("store", "pack")] {
        let names: Vec<String> = stage_kernels(&run.events, stage)
            .into_iter()
            .map(|(_, _, n)| n)
            .collect();
        let want: Vec<String> = (0..6).map(|c| format!("{kernel} {c}")).collect();
        assert_eq!(
            names, want,
            "one {kernel} kernel per chunk on the {stage} stream"
        );
    }
    let names = track_names(&run.events);
    assert!(
        names.values().any(|n| n.starts_with("reporter (")),
        "the report thread is named: {names:?}"
    );

    let svg = svg(&run.dir);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let labels: Vec<&str> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("row-label"))
        .filter_map(|n| n.text())
        .collect();
    assert_eq!(
        labels.len(),
        5,
        "three streams, two host threads: {labels:?}"
    );
    for (i, stage) in ["load", "compute", "store"].iter().enumerate() {
        assert!(
            labels[i].starts_with(&format!("{stage} (device 0, stream ")),
            "{labels:?}"
        );
    }
    assert!(
        labels.iter().any(|l| l.starts_with("host reporter (")),
        "{labels:?}"
    );
}

#[test]
fn the_three_stages_run_at_the_same_time() {
    let run = run_demo("overlap");
    let load = stage_kernels(&run.events, "load");
    let compute = stage_kernels(&run.events, "compute");
    let store = stage_kernels(&run.events, "store");
    // Some instant where a load, a compute and a store kernel all run: look at every slice
    // start, the moments where the set of running slices changes.
    let running = |spans: &[(f64, f64, String)], t: f64| spans.iter().any(|s| s.0 <= t && t < s.1);
    let together: Vec<f64> = load
        .iter()
        .chain(&compute)
        .chain(&store)
        .map(|s| s.0)
        .filter(|&t| running(&load, t) && running(&compute, t) && running(&store, t))
        .collect();
    assert!(
        !together.is_empty(),
        "no instant with all three stages busy:\nload {load:?}\ncompute {compute:?}\nstore {store:?}"
    );
    // The demo says so too.
    assert!(
        run.stdout.contains("all three stages ran at once for "),
        "{}",
        run.stdout
    );
}

#[test]
fn printed_times_are_on_the_trace_clock() {
    let run = run_demo("clock");
    // Lines like "  [  35.86 -   55.98 ms] load     chunk 1: unpack".
    let mut checked = 0;
    for line in run.stdout.lines() {
        let Some(rest) = line.trim_start().strip_prefix('[') else {
            continue;
        };
        let Some((times, text)) = rest.split_once(" ms] ") else {
            continue;
        };
        let Some((start, end)) = times.split_once(" - ") else {
            continue;
        };
        let (start, end): (f64, f64) = (start.trim().parse().unwrap(), end.trim().parse().unwrap());
        let kernel = text.rsplit(": ").next().unwrap();
        let chunk = text
            .split_whitespace()
            .nth(2)
            .unwrap()
            .trim_end_matches(':');
        let name = format!("{kernel} {chunk}");
        let slice = run
            .events
            .iter()
            .find(|e| e["ph"] == "X" && e["name"] == name.as_str())
            .unwrap_or_else(|| panic!("no slice {name} for {line:?}"));
        let ts = slice["ts"].as_f64().unwrap() / 1000.0;
        let te = ts + slice["dur"].as_f64().unwrap() / 1000.0;
        // The kernel body runs inside its task: its printed span lies within the slice
        // (printed to 0.01 ms, hence the rounding allowance).
        assert!(
            ts - 0.006 <= start && end <= te + 0.006,
            "{line:?} outside the trace's {ts:.3}..{te:.3} ms"
        );
        checked += 1;
    }
    assert_eq!(
        checked, 18,
        "every stage kernel is printed:\n{}",
        run.stdout
    );
}

#[test]
fn every_mark_in_the_picture_has_a_legend_entry() {
    let run = run_demo("legend");
    let svg = svg(&run.dir);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    let class = |c: &str| {
        doc.descendants()
            .filter(move |n| n.attribute("class") == Some(c))
            .collect::<Vec<_>>()
    };
    let legend: Vec<&str> = class("legend-entry")
        .iter()
        .map(|n| n.attribute("data-label").unwrap())
        .collect();
    let has = |label: &str| legend.contains(&label);
    for t in class("task") {
        let kind = t.attribute("data-kind").unwrap();
        let label = match kind {
            "wait" | "stream_wait" => format!("{kind} (blocked)"),
            k => k.to_owned(),
        };
        assert!(has(&label), "no legend entry for {kind}: {legend:?}");
    }
    for h in class("host-slice") {
        let label = match h.attribute("data-cat").unwrap() {
            "sync" => "host sync call",
            other => other,
        };
        assert!(has(label), "no legend entry for host {label}: {legend:?}");
    }
    assert!(!class("dep").is_empty() && has("record → the wait it released"));
    assert!(
        !class("callback-edge").is_empty() && has("callback → the host thread that ran it"),
        "{legend:?}"
    );
    // Nothing in the legend that the picture lacks.
    assert_eq!(legend.len(), 8, "{legend:?}");

    // Callbacks are drawn wide enough to see, on the store row and on the reporter's row.
    let callbacks: Vec<f64> = class("task")
        .iter()
        .filter(|n| n.attribute("data-kind") == Some("callback"))
        .chain(
            class("host-slice")
                .iter()
                .filter(|n| n.attribute("data-cat") == Some("callback")),
        )
        .map(|n| n.attribute("width").unwrap().parse().unwrap())
        .collect();
    assert_eq!(
        callbacks.len(),
        12,
        "six callback tasks, six callback bodies"
    );
    assert!(callbacks.iter().all(|&w| w >= 6.0), "{callbacks:?}");
}

#[test]
fn the_picture_axis_is_the_trace_clock() {
    let run = run_demo("axis");
    let svg = svg(&run.dir);
    let doc = roxmltree::Document::parse(&svg).unwrap();
    // (x, ms) of every tick.
    let ticks: Vec<(f64, f64)> = doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("tick"))
        .map(|n| {
            let ms = n.text().unwrap().trim_end_matches(" ms").parse().unwrap();
            (n.attribute("x").unwrap().parse().unwrap(), ms)
        })
        .collect();
    assert!(ticks.len() >= 2, "{ticks:?}");
    let ((xa, ma), (xb, mb)) = (ticks[0], ticks[ticks.len() - 1]);
    let x_of = |ms: f64| xa + (ms - ma) / (mb - ma) * (xb - xa);
    // Each task box starts where its slice's timestamp falls on that axis.
    let starts: HashMap<u64, f64> = run
        .events
        .iter()
        .filter(|e| e["ph"] == "X" && e["args"]["uid"].is_u64() && e["pid"] == 0)
        .map(|e| {
            (
                e["args"]["uid"].as_u64().unwrap(),
                e["ts"].as_f64().unwrap() / 1000.0,
            )
        })
        .collect();
    let mut checked = 0;
    for n in doc
        .descendants()
        .filter(|n| n.attribute("class") == Some("task"))
    {
        let uid: u64 = n.attribute("data-uid").unwrap().parse().unwrap();
        let x: f64 = n.attribute("x").unwrap().parse().unwrap();
        assert!(
            (x - x_of(starts[&uid])).abs() < 0.5,
            "task {uid} at x={x}, its start {} ms maps to {}",
            starts[&uid],
            x_of(starts[&uid])
        );
        checked += 1;
    }
    assert!(checked > 50);
    let label = doc
        .descendants()
        .find(|n| n.attribute("class") == Some("axis-label"))
        .unwrap();
    assert_eq!(label.text(), Some("trace time"));
}

#[test]
fn the_summary_uses_the_trace_clock_too() {
    let run = run_demo("summary");
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(["trace", "summary", "pictures/trace.json"])
        .current_dir(&run.dir)
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains("start ms"))
        .skip(1)
        .collect();
    assert!(!rows.is_empty(), "{text}");
    for row in rows {
        let start: f64 = row.split_whitespace().next().unwrap().parse().unwrap();
        assert!(
            run.events.iter().any(|e| e["ph"] == "X"
                && row.ends_with(&format!(" {}", e["name"].as_str().unwrap()))
                && (e["ts"].as_f64().unwrap() / 1000.0 - start).abs() < 0.0006),
            "no slice for {row:?}"
        );
    }
}

/// With `ACLRT_TRACE` set, the program-wide trace written at `aclFinalize` holds the demo's
/// work too (the demo copies the collection for its own files instead of taking it).
#[test]
fn acl_trace_holds_the_demos_records() {
    let dir = std::env::temp_dir().join(format!("aclrt-demo-{}-env", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let env_trace = dir.join("env.json");
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(["demo", "--out", "pictures"])
        .env("ACLRT_TRACE", &env_trace)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let kernels = |path: &Path| -> Vec<String> {
        let root: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let mut names: Vec<String> = root["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .filter_map(|e| e["name"].as_str())
            .filter(|n| n.starts_with("square "))
            .map(str::to_owned)
            .collect();
        names.sort();
        names
    };
    let want: Vec<String> = (0..6).map(|c| format!("square {c}")).collect();
    assert_eq!(kernels(&env_trace), want, "the ACLRT_TRACE file");
    assert_eq!(
        kernels(&dir.join("pictures/trace.json")),
        want,
        "the demo's own file"
    );
}

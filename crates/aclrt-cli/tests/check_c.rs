//! `aclrt check` on C programs (tests/check/*.c): each racy variant is reported as its
//! `expect:` comment says, with the call sites its marker comments (`/* @A */`) point at, and
//! exits with the checker's code; each fixed twin runs clean and exits 0. Needs gcc (skipped
//! without it) and libascendcl, which building this package's dev-dependencies provides.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The folder holding the newest libascendcl.so (a build as a dependency leaves it in deps/,
/// a build of the package itself beside the binaries).
fn lib_dir() -> PathBuf {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_aclrt"));
    let dir = exe.parent().unwrap().to_path_buf();
    [dir.clone(), dir.join("deps")]
        .into_iter()
        .filter_map(|d| {
            let modified = std::fs::metadata(d.join("libascendcl.so"))
                .and_then(|m| m.modified())
                .ok()?;
            Some((modified, d))
        })
        .max()
        .map(|(_, d)| d)
        .unwrap_or_else(|| panic!("libascendcl.so not found beside {}", exe.display()))
}

fn have_gcc() -> bool {
    Command::new("gcc").arg("--version").output().is_ok()
}

fn compile(src: &Path, out: &Path) {
    let status = Command::new("gcc")
        .args(["-g", "-O0", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I"])
        .arg(root().join("include"))
        .arg(src)
        .arg("-L")
        .arg(lib_dir())
        .args(["-lascendcl", "-lpthread", "-o"])
        .arg(out)
        .status()
        .expect("gcc runs");
    assert!(status.success(), "{} does not compile", src.display());
}

struct Run {
    code: Option<i32>,
    stderr: String,
    findings: Vec<Value>,
}

fn check(exe: &Path, args: &[&str], report: &Path) -> Run {
    check_with(exe, args, report, &[])
}

/// [`check`] with more environment variables.
fn check_with(exe: &Path, args: &[&str], report: &Path, env: &[(&str, &Path)]) -> Run {
    let _ = std::fs::remove_file(report);
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .envs(env.iter().copied())
        .arg("check")
        .arg("--report")
        .arg(report)
        .arg("--")
        .arg(exe)
        .args(args)
        .env("LD_LIBRARY_PATH", lib_dir())
        .env("ACLRT_CHECK_HANG_MS", "5000")
        .output()
        .expect("aclrt check runs");
    // The checker writes its report when it starts: no file, no check.
    let text = std::fs::read_to_string(report).unwrap_or_else(|e| {
        panic!(
            "{}: no report ({e}): {}",
            exe.display(),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let findings = serde_json::from_str::<Value>(&text).unwrap()["findings"]
        .as_array()
        .unwrap()
        .clone();
    Run {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        findings,
    }
}

/// `@X` marker → line number.
fn markers(text: &str) -> std::collections::HashMap<String, u64> {
    let mut m = std::collections::HashMap::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(pos) = line.find("/* @") {
            let name: String = line[pos + 4..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            m.insert(name, i as u64 + 1);
        }
    }
    m
}

#[test]
fn racy_c_programs_are_reported_with_both_sites_and_their_twins_are_silent() {
    if !have_gcc() {
        eprintln!("gcc not installed: the C programs of the checker are not built");
        return;
    }
    let dir = std::env::temp_dir().join(format!("aclrt-check-c-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut sources: Vec<PathBuf> = std::fs::read_dir(root().join("tests/check"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    sources.sort();
    assert!(sources.len() >= 7, "{sources:?}");
    let (mut detected, mut silent) = (0, 0);
    for src in &sources {
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(src).unwrap();
        let expect = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("* expect: "))
            .unwrap_or_else(|| panic!("{name}: no expect: comment"));
        let marks = markers(&text);
        let exe = dir.join(&name);
        compile(src, &exe);
        let report = dir.join(format!("{name}.json"));

        let fixed = check(&exe, &["fixed"], &report);
        assert_eq!(fixed.code, Some(0), "{name} fixed: {}", fixed.stderr);
        assert!(
            fixed.findings.is_empty(),
            "{name} fixed: {:#?}",
            fixed.findings
        );
        assert!(
            fixed.stderr.contains("aclrt check: no findings"),
            "{}",
            fixed.stderr
        );
        silent += 1;

        let racy = check(&exe, &["racy"], &report);
        assert_eq!(racy.code, Some(66), "{name} racy: {}", racy.stderr);
        assert_eq!(racy.findings.len(), 1, "{name}: {:#?}", racy.findings);
        let f = &racy.findings[0];
        let mut words = expect.split_whitespace();
        let kind = words.next().unwrap();
        assert_eq!(f["kind"], kind, "{name}: {f:#}");
        let wanted: Vec<(&str, u64)> = words
            .map(|w| {
                let (what, mark) = w.split_once('@').unwrap();
                (what, marks[mark])
            })
            .collect();
        if kind == "deadlock" || kind == "hang" {
            let sites: Vec<u64> = f["waits"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(|w| w["site"]["line"].as_u64())
                .collect();
            for (_, line) in &wanted {
                assert!(sites.contains(line), "{name}: {f:#}");
            }
            assert_eq!(f["waits"][0]["site"]["function"], "main", "{name}: {f:#}");
        } else {
            let got: Vec<(String, u64)> = f["accesses"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| {
                    assert!(
                        a["site"]["file"]
                            .as_str()
                            .is_some_and(|p| p.ends_with(&format!("{name}.c"))),
                        "{name}: {a:#}"
                    );
                    (
                        a["access"].as_str().unwrap().to_owned(),
                        a["site"]["line"].as_u64().unwrap_or(0),
                    )
                })
                .collect();
            let wanted: Vec<(String, u64)> =
                wanted.iter().map(|(w, l)| (w.to_string(), *l)).collect();
            assert_eq!(got, wanted, "{name}: {f:#}");
        }
        assert!(
            racy.stderr.contains(&format!("aclrt-check: {kind}")),
            "{}",
            racy.stderr
        );
        assert!(racy.stderr.contains("fix: "), "{}", racy.stderr);
        assert!(
            racy.stderr.contains("aclrt check: 1 finding"),
            "{}",
            racy.stderr
        );
        detected += 1;
    }
    eprintln!("{detected} racy programs reported, {silent} fixed twins silent");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_shipped_c_examples_run_clean_under_the_checker() {
    if !have_gcc() {
        eprintln!("gcc not installed: the examples are not built");
        return;
    }
    let dir = std::env::temp_dir().join(format!("aclrt-check-ex-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(root().join("examples/c")).unwrap() {
        let src = entry.unwrap().path();
        if src.extension().is_none_or(|e| e != "c") {
            continue;
        }
        let name = src.file_stem().unwrap().to_string_lossy().into_owned();
        let exe = dir.join(&name);
        let status = Command::new("gcc")
            .args(["-g", "-Wno-deprecated-declarations", "-I"])
            .arg(root().join("include"))
            .arg(&src)
            .arg("-L")
            .arg(lib_dir())
            .args(["-lascendcl", "-lpthread", "-o"])
            .arg(&exe)
            .status()
            .unwrap();
        assert!(status.success());
        let run = check(&exe, &[], &dir.join(format!("{name}.json")));
        assert_eq!(run.code, Some(0), "{name}: {}", run.stderr);
        assert!(run.findings.is_empty(), "{name}: {:#?}", run.findings);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_program_that_never_starts_the_runtime_is_not_called_clean() {
    let report = std::env::temp_dir().join(format!("aclrt-check-none-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&report);
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(["check", "--report"])
        .arg(&report)
        .args(["--", "true"])
        .output()
        .expect("aclrt check runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "the program's status: {stderr}");
    assert!(stderr.contains("the checker never started"), "{stderr}");
    assert!(!stderr.contains("no findings"), "{stderr}");
    assert!(!report.exists());
}

/// `aclrt check` with `ACLRT_TRACE` set: the findings report and the trace file.
fn check_traced(exe: &Path, mode: &str, report: &Path, trace: &Path) -> (Run, Vec<Value>) {
    let _ = std::fs::remove_file(trace);
    let run = check_with(exe, &[mode], report, &[("ACLRT_TRACE", trace)]);
    let text = std::fs::read_to_string(trace)
        .unwrap_or_else(|e| panic!("{}: {e}\n{}", trace.display(), run.stderr));
    let events = serde_json::from_str::<Value>(&text).unwrap()["traceEvents"]
        .as_array()
        .unwrap()
        .clone();
    (run, events)
}

/// Runs `aclrt ARGS…`; its standard output.
fn aclrt(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(args)
        .output()
        .expect("aclrt runs");
    assert!(
        out.status.success(),
        "aclrt {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn findings_in(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["cat"] == "finding").collect()
}

#[test]
fn findings_are_marked_in_the_trace_its_summary_and_its_picture() {
    if !have_gcc() {
        eprintln!("gcc not installed: the C programs of the checker are not built");
        return;
    }
    let dir = std::env::temp_dir().join(format!("aclrt-check-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let exe = dir.join("two_streams");
    compile(&root().join("tests/check/two_streams.c"), &exe);
    let report = dir.join("report.json");
    let trace = dir.join("trace.json");
    let svg = dir.join("trace.svg");

    // The racy variant: one race, marked on both tasks' tracks over the tasks' own slices.
    let (racy, events) = check_traced(&exe, "racy", &report, &trace);
    assert_eq!(racy.code, Some(66), "{}", racy.stderr);
    assert_eq!(racy.findings.len(), 1, "{:#?}", racy.findings);
    let f = &racy.findings[0];
    let marks = findings_in(&events);
    assert_eq!(marks.len(), 2, "{marks:#?}");
    let mut on_tracks = Vec::new();
    for mark in &marks {
        // Either task may start first: each mark names its access by its track.
        let access = (0..2)
            .find(|&i| f["accesses"][i]["stream"] == mark["tid"])
            .unwrap_or_else(|| panic!("{mark:#} on no access's track: {f:#}"));
        let a = &f["accesses"][access];
        assert_eq!(mark["ph"], "X", "{mark:#}");
        assert_eq!(mark["name"], "finding: race");
        assert_eq!(mark["args"]["finding"], 1);
        assert_eq!(mark["args"]["kind"], "race");
        assert_eq!(mark["args"]["message"], f["message"]);
        assert_eq!(mark["args"]["fix"], f["fix"]);
        let sites: Vec<&str> = mark["args"]["sites"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap())
            .collect();
        assert_eq!(sites.len(), 2, "{mark:#}");
        assert!(sites[0].starts_with("write by aclrtMemsetAsync on stream "));
        assert!(sites[0].ends_with("two_streams.c:20)"), "{}", sites[0]);
        assert!(sites[1].starts_with("read by aclrtMemcpyAsync on stream "));
        assert!(sites[1].ends_with("two_streams.c:25)"), "{}", sites[1]);
        // On the track of the stream that made the access, over that task's slice.
        assert_eq!(mark["pid"], a["device"]);
        assert_eq!(mark["tid"], a["stream"]);
        assert_eq!(mark["args"]["task"], a["task"]);
        let task = events
            .iter()
            .find(|e| {
                e["ph"] == "X"
                    && e["cat"] != "finding"
                    && e["args"]["uid"] == mark["args"]["uid"]
                    && e["pid"] == mark["pid"]
            })
            .unwrap_or_else(|| panic!("no task slice for {mark:#}"));
        assert_eq!(task["tid"], mark["tid"]);
        assert_eq!((&task["ts"], &task["dur"]), (&mark["ts"], &mark["dur"]));
        assert_eq!(
            task["args"]["kind"],
            if access == 0 { "memset" } else { "memcpy" }
        );
        on_tracks.push(a["stream"].as_u64().unwrap());
    }
    on_tracks.sort_unstable();
    assert!(on_tracks[0] < on_tracks[1], "{on_tracks:?}");

    let summary = aclrt(&["trace", "summary", trace.to_str().unwrap()]);
    let lines: Vec<&str> = summary.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("checker findings:"))
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(lines[at], "checker findings: 1 (race 1)");
    assert_eq!(
        lines[at + 1],
        format!("  #1 race: {}", f["message"].as_str().unwrap())
    );
    assert_eq!(
        lines[at + 2],
        format!(
            "     marked on device 0 stream {}; device 0 stream {}",
            on_tracks[0], on_tracks[1]
        )
    );

    aclrt(&[
        "trace",
        "render",
        trace.to_str().unwrap(),
        "-o",
        svg.to_str().unwrap(),
    ]);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(
        picture
            .matches(r#"<rect class="finding" data-finding="1" data-kind="race""#)
            .count(),
        2,
        "{picture}"
    );
    assert_eq!(picture.matches(r#"class="finding-flag""#).count(), 2);
    assert_eq!(
        picture
            .matches(r#"class="legend-entry" data-label="checker finding (race)""#)
            .count(),
        1
    );

    // The fixed twin: nothing in the trace, the summary or the picture.
    let (fixed, events) = check_traced(&exe, "fixed", &report, &trace);
    assert_eq!(fixed.code, Some(0), "{}", fixed.stderr);
    assert!(findings_in(&events).is_empty());
    assert!(
        events.iter().any(|e| e["args"]["kind"] == "memcpy"),
        "the trace is not empty"
    );
    let summary = aclrt(&["trace", "summary", trace.to_str().unwrap()]);
    assert!(!summary.contains("checker findings"), "{summary}");
    aclrt(&[
        "trace",
        "render",
        trace.to_str().unwrap(),
        "-o",
        svg.to_str().unwrap(),
    ]);
    let picture = std::fs::read_to_string(&svg).unwrap();
    assert!(!picture.contains("finding"), "{picture}");

    // A deadlock ends the process at once: the trace is written first, the finding marked on
    // the blocked host thread and on the stream whose callback waits for it.
    let exe = dir.join("callback_deadlock");
    compile(&root().join("tests/check/callback_deadlock.c"), &exe);
    let (dead, events) = check_traced(&exe, "racy", &report, &trace);
    assert_eq!(dead.code, Some(66), "{}", dead.stderr);
    let marks = findings_in(&events);
    let kinds: Vec<&Value> = marks.iter().map(|m| &m["args"]["kind"]).collect();
    assert_eq!(kinds, ["deadlock", "deadlock"], "{marks:#?}");
    let host_pid = events
        .iter()
        .find(|e| e["name"] == "process_name" && e["args"]["name"] == "host")
        .map(|e| e["pid"].clone())
        .unwrap();
    let host_marks = marks.iter().filter(|m| m["pid"] == host_pid).count();
    assert_eq!(host_marks, 1, "{marks:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}

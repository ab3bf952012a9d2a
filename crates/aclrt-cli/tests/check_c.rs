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
    let _ = std::fs::remove_file(report);
    let out = Command::new(env!("CARGO_BIN_EXE_aclrt"))
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
    let findings = std::fs::read_to_string(report)
        .ok()
        .map(|t| {
            serde_json::from_str::<Value>(&t).unwrap()["findings"]
                .as_array()
                .unwrap()
                .clone()
        })
        .unwrap_or_default();
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

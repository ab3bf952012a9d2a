//! The command line's conventions: `-` for standard input and output, no folders created on
//! the way to an output file, usage errors (bad options and values) exit with status 2, other
//! failures with 1.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use aclrt::api;

/// A fresh folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("aclrt-cli-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn aclrt(args: &[&str], cwd: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A small trace written by this process, once: one stream, two kernels. (Tracing is
/// process-wide, so tests sharing a process share the one trace.)
fn small_trace(dir: &Path) -> PathBuf {
    static TRACE: OnceLock<PathBuf> = OnceLock::new();
    let made = TRACE.get_or_init(|| {
        let _ = api::init();
        api::set_device(0).unwrap();
        let s = api::create_stream().unwrap();
        aclrt::trace::start();
        for name in ["first", "second"] {
            api::launch_kernel(s, name, Default::default(), Box::new(|| Ok(()))).unwrap();
        }
        api::synchronize_stream(s).unwrap();
        let path = scratch("trace").join("small.json");
        aclrt::trace::stop_and_write(&path).unwrap();
        path
    });
    let path = dir.join("small.json");
    std::fs::copy(made, &path).unwrap();
    path
}

fn svg_tasks(svg: &str) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("well-formed SVG");
    doc.descendants()
        .filter(|n| n.attribute("class") == Some("task"))
        .count()
}

#[test]
fn render_to_a_dash_writes_the_picture_to_standard_output() {
    let dir = scratch("stdout");
    let trace = small_trace(&dir);
    let out = aclrt(
        &["trace", "render", trace.to_str().unwrap(), "-o", "-"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let svg = String::from_utf8(out.stdout).unwrap();
    assert!(svg.starts_with("<svg "), "only the picture on stdout");
    assert_eq!(svg_tasks(&svg), 2);
    assert!(!dir.join("-").exists(), "no file named -");
    assert!(!dir.join("timeline.svg").exists(), "nor the default file");
}

#[test]
fn render_reads_a_dash_as_standard_input() {
    let dir = scratch("stdin");
    let trace = small_trace(&dir);
    let mut child = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(["trace", "render", "-", "-o", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let json = std::fs::read(&trace).unwrap();
    child.stdin.take().unwrap().write_all(&json).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(svg_tasks(&String::from_utf8(out.stdout).unwrap()), 2);

    let mut child = Command::new(env!("CARGO_BIN_EXE_aclrt"))
        .args(["trace", "summary", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&json).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with("trace standard input: 1 stream(s), 2 task(s)"),
        "{text}"
    );
}

#[test]
fn render_to_a_file_writes_it_and_reports_on_stderr() {
    let dir = scratch("file");
    let trace = small_trace(&dir);
    let out = aclrt(
        &["trace", "render", trace.to_str().unwrap(), "-o", "pic.svg"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(out.stdout.is_empty(), "stdout stays clean");
    assert!(
        stderr(&out).starts_with("wrote pic.svg"),
        "{}",
        stderr(&out)
    );
    let svg = std::fs::read_to_string(dir.join("pic.svg")).unwrap();
    assert_eq!(svg_tasks(&svg), 2);
}

#[test]
fn an_output_in_a_missing_folder_fails_and_creates_nothing() {
    let dir = scratch("missing");
    let trace = small_trace(&dir);
    let out = aclrt(
        &[
            "trace",
            "render",
            trace.to_str().unwrap(),
            "-o",
            "no/such/pic.svg",
        ],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "aclrt: cannot write no/such/pic.svg: the folder no/such does not exist"
    );
    assert!(!dir.join("no").exists(), "the folder was not created");

    // The output's folder is checked before the input is read.
    let out = aclrt(
        &["trace", "render", "absent.json", "-o", "no/pic.svg"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("the folder no does not exist"));

    // A folder is no file to write.
    std::fs::create_dir(dir.join("taken")).unwrap();
    let out = aclrt(
        &["trace", "render", trace.to_str().unwrap(), "-o", "taken"],
        &dir,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("taken: it is a folder"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_missing_input_is_an_error_not_a_usage_error() {
    let dir = scratch("noinput");
    let out = aclrt(&["trace", "summary", "absent.json"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("aclrt: cannot read absent.json: "),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_numbers_and_options_are_usage_errors() {
    let dir = scratch("usage");
    let trace = small_trace(&dir);
    let t = trace.to_str().unwrap();
    for args in [
        &["trace", "render", t, "--width", "0"][..],
        &["trace", "render", t, "--width", "99999999"],
        &["trace", "render", t, "--width", "-5"],
        &["trace", "render", t, "--width", "wide"],
        &["trace", "render", t, "--width", "1e3"],
        &["trace", "render", t, "-o", ""],
        &["trace", "summary", t, "--top", "0"],
        &["trace", "summary", t, "--top", "-1"],
        &["trace", "summary", t, "--top", "100000"],
        &["trace", "summary", t, "--frobnicate"],
        &["trace", "render"],
        &["demo", "--out", "-"],
        &["demo", "--out", ""],
        &["demo", "extra"],
        &["nonsense"],
    ] {
        let out = aclrt(args, &dir);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).starts_with("error: "), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(!dir.join("timeline.svg").exists());
    // The limits themselves are accepted.
    for width in ["400", "20000"] {
        let out = aclrt(&["trace", "render", t, "--width", width, "-o", "-"], &dir);
        assert_eq!(out.status.code(), Some(0), "--width {width}");
        let svg = String::from_utf8(out.stdout).unwrap();
        assert!(svg.starts_with(&format!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}""#
        )));
    }
}

#[test]
fn demo_out_into_a_missing_parent_fails_before_running() {
    let dir = scratch("demo-missing");
    let out = aclrt(&["demo", "--out", "a/b"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim_end(),
        "aclrt: cannot create the folder a/b: a does not exist"
    );
    assert!(out.stdout.is_empty(), "the pipeline did not run");
    assert!(!dir.join("a").exists());

    std::fs::write(dir.join("file"), "x").unwrap();
    let out = aclrt(&["demo", "--out", "file"], &dir);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("file exists and is not a folder"));
}

#[test]
fn help_documents_the_defaults() {
    let dir = scratch("help");
    let out = aclrt(&["demo", "--help"], &dir);
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("--out <DIR>"), "{help}");
    assert!(help.contains("[default: out]"), "{help}");
    let out = aclrt(&["trace", "render", "--help"], &dir);
    let help = String::from_utf8(out.stdout).unwrap();
    assert!(help.contains("(- for standard output)"), "{help}");
    assert!(help.contains("400 to 20000"), "{help}");
}

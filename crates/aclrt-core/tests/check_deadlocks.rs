//! Programs that would hang forever end with the checker's report and its exit code instead:
//! deadlocks at once, hangs after `ACLRT_CHECK_HANG_MS`. Each program runs in a child process
//! (this test binary again, one `child_*` test selected), switched on by `ACLRT_CHECK` as any C
//! or Python program would be.

mod common;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::consts::*;
use aclrt::StreamHandle;
use serde_json::Value;

const CHILD: &str = "ACLRT_CHECK_TEST_CHILD";

/// Whether this process is the child asked to run `name`.
fn is_child(name: &str) -> bool {
    std::env::var(CHILD).is_ok_and(|c| c == name)
}

struct Outcome {
    code: Option<i32>,
    stderr: String,
    findings: Vec<Value>,
}

/// Runs child test `name` with the checker on; kills it if it is still running after 60 s.
fn run_child(name: &str, env: &[(&str, &str)]) -> Outcome {
    let report =
        std::env::temp_dir().join(format!("aclrt-check-{name}-{}.json", std::process::id()));
    let _ = std::fs::remove_file(&report);
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .env("ACLRT_CHECK", "1")
        .env("ACLRT_CHECK_REPORT", &report)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{name} still running after 60 s: the checker did not end it");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    use std::io::Read;
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let findings = read_report(&report);
    let _ = std::fs::remove_file(&report);
    Outcome {
        code: status.code(),
        stderr,
        findings,
    }
}

fn read_report(path: &PathBuf) -> Vec<Value> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let v: Value = serde_json::from_str(&text).unwrap();
    v["findings"].as_array().unwrap().clone()
}

fn start_child() {
    api::init().unwrap();
    api::set_device(0).unwrap();
}

fn waits_text(f: &Value) -> String {
    f["waits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| format!("{} -> {}", w["waiter"], w["waits_for"]))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn child_blocking_callback_served_by_the_waiting_thread() {
    if !is_child("child_blocking_callback_served_by_the_waiting_thread") {
        return;
    }
    start_child();
    let s = api::create_stream().unwrap();
    // This thread serves the stream's callbacks, and then waits for the stream: the blocking
    // callback can only run when this thread calls aclrtProcessReport, which it never will.
    api::subscribe_report(aclrt::pthread_id(), s).unwrap();
    api::launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s).unwrap();
    let _ = api::synchronize_stream(s);
    unreachable!("the synchronise cannot return");
}

#[test]
fn a_blocking_callback_whose_thread_waits_for_it_is_a_deadlock() {
    let out = run_child("child_blocking_callback_served_by_the_waiting_thread", &[]);
    assert_eq!(out.code, Some(66), "{}", out.stderr);
    assert_eq!(out.findings.len(), 1, "{:#?}", out.findings);
    let f = &out.findings[0];
    assert_eq!(f["kind"], "deadlock");
    let waits = waits_text(f);
    assert!(waits.contains("in aclrtSynchronizeStream"), "{waits}");
    assert!(waits.contains("to call aclrtProcessReport"), "{waits}");
    assert!(f["fix"].as_str().unwrap().contains("aclrtProcessReport"));
    let first_site = &f["waits"][0]["site"];
    assert_eq!(
        first_site["function"],
        "check_deadlocks::child_blocking_callback_served_by_the_waiting_thread"
    );
    assert!(
        out.stderr.contains("aclrt-check: deadlock:"),
        "{}",
        out.stderr
    );
}

#[test]
fn child_wait_on_a_destroyed_legacy_event() {
    if !is_child("child_wait_on_a_destroyed_legacy_event") {
        return;
    }
    start_child();
    let s = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    // A legacy SYNC wait waits for the next record; the event goes before anyone records it.
    api::stream_wait_event(s, ev).unwrap();
    api::destroy_event(ev).unwrap();
    let _ = api::synchronize_stream(s);
    unreachable!("the synchronise cannot return");
}

#[test]
fn a_wait_on_a_legacy_event_that_can_no_longer_be_recorded_is_a_deadlock() {
    let out = run_child("child_wait_on_a_destroyed_legacy_event", &[]);
    assert_eq!(out.code, Some(66), "{}", out.stderr);
    assert_eq!(out.findings.len(), 1, "{:#?}", out.findings);
    let f = &out.findings[0];
    assert_eq!(f["kind"], "deadlock");
    let waits = waits_text(f);
    assert!(waits.contains("aclrtStreamWaitEvent"), "{waits}");
    assert!(waits.contains("destroyed"), "{waits}");
}

#[test]
fn child_wait_that_nobody_records() {
    if !is_child("child_wait_that_nobody_records") {
        return;
    }
    start_child();
    let s = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    api::stream_wait_event(s, ev).unwrap();
    // Another thread could still record the event: not provably dead, so a hang once the wait
    // made no progress for ACLRT_CHECK_HANG_MS.
    let _ = api::synchronize_stream(s);
    unreachable!("the synchronise cannot return");
}

#[test]
fn a_wait_nobody_records_is_a_hang_after_the_timeout() {
    let started = Instant::now();
    let out = run_child(
        "child_wait_that_nobody_records",
        &[("ACLRT_CHECK_HANG_MS", "300")],
    );
    assert_eq!(out.code, Some(66), "{}", out.stderr);
    assert!(started.elapsed() >= Duration::from_millis(300));
    assert_eq!(out.findings.len(), 1, "{:#?}", out.findings);
    let f = &out.findings[0];
    assert_eq!(f["kind"], "hang");
    let waits = waits_text(f);
    assert!(waits.contains("in aclrtSynchronizeStream"), "{waits}");
    assert!(waits.contains("no record of it is queued"), "{waits}");
    assert!(
        f["fix"].as_str().unwrap().contains("aclrtRecordEvent"),
        "{f}"
    );
}

#[test]
fn child_cycle_of_legacy_waits() {
    if !is_child("child_cycle_of_legacy_waits") {
        return;
    }
    start_child();
    let (a, b) = (api::create_stream().unwrap(), api::create_stream().unwrap());
    let (fa, fb) = (
        api::create_event_with_flag(ACL_EVENT_SYNC).unwrap(),
        api::create_event_with_flag(ACL_EVENT_SYNC).unwrap(),
    );
    // a waits for b's record, b for a's: each record is behind the other stream's wait.
    api::stream_wait_event(a, fb).unwrap();
    api::record_event(fa, a).unwrap();
    api::stream_wait_event(b, fa).unwrap();
    api::record_event(fb, b).unwrap();
    api::destroy_event(fa).unwrap();
    api::destroy_event(fb).unwrap();
    let _ = api::synchronize_device();
    unreachable!("the synchronise cannot return");
}

#[test]
fn a_cycle_of_legacy_waits_is_a_deadlock() {
    let out = run_child("child_cycle_of_legacy_waits", &[]);
    assert_eq!(out.code, Some(66), "{}", out.stderr);
    assert_eq!(out.findings.len(), 1, "{:#?}", out.findings);
    let f = &out.findings[0];
    assert_eq!(f["kind"], "deadlock");
    let waits = waits_text(f);
    assert!(waits.contains("stream 1"), "{waits}");
    assert!(waits.contains("stream 2"), "{waits}");
}

#[test]
fn child_correct_program_exits_normally() {
    if !is_child("child_correct_program_exits_normally") {
        return;
    }
    start_child();
    let s = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    api::stream_wait_event(s, ev).unwrap();
    api::record_event(ev, StreamHandle::NULL).unwrap();
    api::synchronize_stream(s).unwrap();
    api::destroy_event(ev).unwrap();
    api::destroy_stream(s).unwrap();
    api::finalize().unwrap();
}

#[test]
fn a_correct_program_exits_with_its_own_status_and_no_report() {
    let out = run_child(
        "child_correct_program_exits_normally",
        &[("ACLRT_CHECK", "all,leak")],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.findings.is_empty());
    assert!(!out.stderr.contains("aclrt-check:"), "{}", out.stderr);
}

#[test]
fn child_long_kernel_while_the_host_waits() {
    if !is_child("child_long_kernel_while_the_host_waits") {
        return;
    }
    start_child();
    let s = api::create_stream().unwrap();
    // Runs five hang timeouts: the host's synchronise makes no progress all that time, but
    // user code is running, which is not a hang.
    api::launch_kernel(
        s,
        "long",
        aclrt::api::KernelAccess::default(),
        Box::new(|| {
            std::thread::sleep(Duration::from_millis(500));
            Ok(())
        }),
    )
    .unwrap();
    api::synchronize_stream(s).unwrap();
    api::destroy_stream(s).unwrap();
    api::finalize().unwrap();
}

#[test]
fn a_kernel_running_longer_than_the_hang_timeout_is_not_a_hang() {
    let out = run_child(
        "child_long_kernel_while_the_host_waits",
        &[("ACLRT_CHECK_HANG_MS", "100")],
    );
    assert_eq!(out.code, Some(0), "{}", out.stderr);
    assert!(out.findings.is_empty(), "{:#?}", out.findings);
}

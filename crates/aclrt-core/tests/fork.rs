//! `fork()` after `aclInit`: the child starts uninitialised (`100001`, and `100037` for
//! `aclFinalize`), its own `aclInit` gives it a fresh runtime that runs work, and the parent
//! goes on unaffected; an export in the child does not wait for the parent's running kernel.
//! The child of a tracing parent starts with a fresh collector. The child reports through its
//! exit status; the parent kills it if it hangs.

mod common;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::trace;

/// What the child checks; each failed step exits with its own status.
fn child() -> i32 {
    fn c<T>(r: aclrt::Result<T>) -> i32 {
        common::code(r)
    }
    if c(api::create_stream()) != ACL_ERROR_UNINITIALIZE {
        return 10;
    }
    if c(api::get_device()) != ACL_ERROR_UNINITIALIZE {
        return 11;
    }
    if c(api::finalize()) != ACL_ERROR_REPEAT_FINALIZE {
        return 12;
    }
    if c(api::init()) != 0 || c(api::set_device(0)) != 0 {
        return 13;
    }
    let Ok(s) = api::create_stream() else {
        return 14;
    };
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    let launched = api::launch_kernel(
        s,
        "child",
        Default::default(),
        Box::new(move || {
            r.store(true, Ordering::SeqCst);
            Ok(())
        }),
    );
    if launched.is_err() || c(api::synchronize_stream(s)) != 0 || !ran.load(Ordering::SeqCst) {
        return 15;
    }
    // The parent's kernel running at the fork is not there: an export, which waits for the
    // running writers of memory, goes ahead.
    let Ok(dev) = api::malloc(1 << 20, 0) else {
        return 17;
    };
    if c(api::ipc_mem_get_export_key(dev, 1 << 20, 65, 1)) != 0 || c(api::free(dev)) != 0 {
        return 18;
    }
    if c(api::finalize()) != 0 {
        return 16;
    }
    0
}

#[test]
fn a_forked_child_starts_uninitialised_and_may_init_again() {
    let _serial = common::exclusive();
    common::setup();
    // The parent has live streams with running workers when it forks.
    let s = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    let started = Arc::new(AtomicBool::new(false));
    let (g, st) = (gate.clone(), started.clone());
    common::launch(
        s,
        common::kernel(move || {
            st.store(true, Ordering::SeqCst);
            while !g.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        }),
    );
    // The kernel is running (a writer of memory, for an export's move) at the fork.
    while !started.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }

    // SAFETY: the child runs only `child` (no locks the parent's other threads may hold are
    // taken except through the fork handlers, which hand them over free) and leaves with
    // `_exit`, skipping the parent's exit handlers.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let status = std::panic::catch_unwind(child).unwrap_or(99);
        // SAFETY: ends the child at once, as a forked child must.
        unsafe { libc::_exit(status) };
    }

    // The parent is unaffected: its running kernel finishes, new work runs.
    gate.store(true, Ordering::SeqCst);
    api::synchronize_stream(s).unwrap();
    common::launch(s, common::sleeper(0));
    api::synchronize_stream(s).unwrap();

    assert_eq!(exit_status(pid), 0, "the child failed a step");
    api::destroy_stream(s).unwrap();
    api::finalize().unwrap();
}

/// Waits for the child `pid` (killing it if it hangs) and returns its exit status.
fn exit_status(pid: libc::pid_t) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut status = 0;
    loop {
        // SAFETY: waits for our own child; `status` is a valid out-pointer.
        let got = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(got >= 0, "waitpid failed");
        if got == pid {
            break;
        }
        if Instant::now() > deadline {
            // SAFETY: kills our own child, which hung.
            unsafe { libc::kill(pid, libc::SIGKILL) };
            panic!("the forked child hung");
        }
        // Polls the child's state; no ordering depends on this pause.
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        libc::WIFEXITED(status),
        "the child did not exit normally (status {status:#x})"
    );
    libc::WEXITSTATUS(status)
}

/// The child of a tracing parent; each failed step returns its own status. With `own_trace`
/// it traces its own work through `ACLRT_TRACE=child_path`; without, it only looks.
fn traced_child(own_trace: bool, child_path: &Path) -> i32 {
    fn c<T>(r: aclrt::Result<T>) -> i32 {
        common::code(r)
    }
    // The collector is stopped and holds nothing of the parent's.
    if trace::is_collecting() || trace::enabled() {
        return 20;
    }
    let inherited = trace::stop();
    if !inherited.records.is_empty() || !inherited.threads.is_empty() {
        return 21;
    }
    if !inherited.streams.is_empty() || !aclrt::observe::named_streams().is_empty() {
        return 22;
    }
    if !own_trace {
        // Leaves through exit(): the parent's ACLRT_TRACE file must not be written.
        return 0;
    }
    // The child is single-threaded: its environment is its own to change.
    std::env::set_var(trace::ENV_TRACE, child_path);
    if c(api::init()) != 0 || c(api::set_device(0)) != 0 || !trace::is_collecting() {
        return 23;
    }
    let Ok(s) = api::create_stream() else {
        return 24;
    };
    if api::set_stream_name(s, "child_stream").is_err() {
        return 25;
    }
    let launched = api::launch_kernel(s, "child_kernel", Default::default(), Box::new(|| Ok(())));
    if launched.is_err() || c(api::synchronize_stream(s)) != 0 {
        return 26;
    }
    // Its records name its own threads (the forking thread has a new OS id here).
    let snapshot = trace::snapshot();
    let own = |tid: u32| Path::new(&format!("/proc/self/task/{tid}")).exists();
    if snapshot.threads.is_empty() || !snapshot.threads.iter().all(|t| own(t.thread_id)) {
        return 27;
    }
    if c(api::finalize()) != 0 {
        return 28;
    }
    0
}

#[test]
fn a_forked_child_of_a_tracing_parent_starts_with_a_fresh_collector() {
    let _serial = common::exclusive();
    let dir = std::env::temp_dir().join(format!("aclrt-fork-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let parent_path = dir.join("parent.json");
    let child_path = dir.join("child.json");
    // The variable is read at aclInit only; no other thread runs meanwhile.
    std::env::set_var(trace::ENV_TRACE, &parent_path);
    common::setup();
    std::env::remove_var(trace::ENV_TRACE);
    assert!(trace::is_collecting());
    let s = api::create_stream().unwrap();
    api::set_stream_name(s, "parent_stream").unwrap();
    api::launch_kernel(s, "parent_kernel", Default::default(), Box::new(|| Ok(()))).unwrap();
    api::synchronize_stream(s).unwrap();

    // Another thread keeps recording and taking snapshots (the collector's locks) while the
    // children are forked.
    let stop = Arc::new(AtomicBool::new(false));
    let busy = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            api::set_device(0).unwrap();
            let s = api::create_stream().unwrap();
            while !stop.load(Ordering::SeqCst) {
                api::launch_kernel(s, "busy", Default::default(), Box::new(|| Ok(()))).unwrap();
                std::hint::black_box(trace::snapshot());
                api::synchronize_stream(s).unwrap();
            }
            api::destroy_stream(s).unwrap();
        })
    };
    let mut traced_children = Vec::new();
    for i in 0..8 {
        let own_trace = i % 2 == 1;
        // SAFETY: the child runs only `traced_child` (the fork handlers hand it the runtime's
        // and the collector's locks free) and leaves with `exit`, which runs the at-exit trace
        // writer it inherited.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let status =
                std::panic::catch_unwind(|| traced_child(own_trace, &child_path)).unwrap_or(99);
            // SAFETY: ends the child through the C runtime's exit path (its at-exit handlers
            // included), as a program that never finalizes would.
            unsafe { libc::exit(status) };
        }
        assert_eq!(exit_status(pid), 0, "child {i} failed a step");
        assert!(
            !parent_path.exists(),
            "child {i} wrote its parent's ACLRT_TRACE file"
        );
        if own_trace {
            traced_children.push(pid);
        }
    }
    stop.store(true, Ordering::SeqCst);
    busy.join().unwrap();

    assert!(
        !child_path.exists(),
        "a child wrote to the path without its pid"
    );
    for pid in traced_children {
        let own = dir.join(format!("child.json.{pid}"));
        let json = std::fs::read_to_string(&own).expect("the child's trace was written");
        assert!(json.contains("child_kernel") && json.contains("child_stream"));
        assert!(!json.contains("parent_kernel") && !json.contains("parent_stream"));
        assert!(
            !json.contains("busy"),
            "the child's trace holds its parent's records"
        );
    }
    api::destroy_stream(s).unwrap();
    api::finalize().unwrap();
    let json = std::fs::read_to_string(&parent_path).expect("the parent's trace was written");
    assert!(json.contains("parent_kernel") && json.contains("busy"));
    assert!(!json.contains("child_kernel"));
    std::fs::remove_dir_all(&dir).ok();
}

/// The child of a checking parent: each failed step returns its own status.
fn checked_child() -> i32 {
    fn c<T>(r: aclrt::Result<T>) -> i32 {
        common::code(r)
    }
    // The parent's checker is gone: nothing observes, nothing is checked.
    if aclrt::check::is_enabled() || aclrt::observe::enabled() {
        return 30;
    }
    if !aclrt::check::findings().is_empty() {
        return 31;
    }
    // A checker of its own works, with none of the parent's state.
    aclrt::check::enable(aclrt::check::Parts::ALL);
    if c(api::init()) != 0 || c(api::set_device(0)) != 0 {
        return 32;
    }
    let Ok(s) = api::create_stream() else {
        return 33;
    };
    let launched = api::launch_kernel(s, "child_kernel", Default::default(), Box::new(|| Ok(())));
    if launched.is_err() || c(api::synchronize_stream(s)) != 0 {
        return 34;
    }
    if c(api::destroy_stream(s)) != 0 || c(api::finalize()) != 0 {
        return 35;
    }
    if !aclrt::check::disable().is_empty() {
        return 36;
    }
    0
}

#[test]
fn a_forked_child_of_a_checking_parent_runs_unchecked_until_it_checks_again() {
    let _serial = common::exclusive();
    common::setup();
    aclrt::check::enable(aclrt::check::Parts::ALL);
    // Another thread keeps the checker busy (its state lock) while the children are forked.
    let stop = Arc::new(AtomicBool::new(false));
    let busy = {
        let stop = stop.clone();
        std::thread::spawn(move || {
            api::set_device(0).unwrap();
            let s = api::create_stream().unwrap();
            while !stop.load(Ordering::SeqCst) {
                api::launch_kernel(s, "busy", Default::default(), Box::new(|| Ok(()))).unwrap();
                api::synchronize_stream(s).unwrap();
            }
            api::destroy_stream(s).unwrap();
        })
    };
    for i in 0..8 {
        // SAFETY: the child runs only `checked_child` (the fork handlers hand it the runtime's
        // and the observers' locks free, and the parent's checker is abandoned untouched) and
        // leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let status = std::panic::catch_unwind(checked_child).unwrap_or(99);
            // SAFETY: ends the child at once, as a forked child must.
            unsafe { libc::_exit(status) };
        }
        assert_eq!(exit_status(pid), 0, "child {i} failed a step");
    }
    stop.store(true, Ordering::SeqCst);
    busy.join().unwrap();
    assert!(aclrt::check::is_enabled(), "the parent still checks");
    assert_eq!(aclrt::check::disable(), Vec::new());
    api::finalize().unwrap();
}

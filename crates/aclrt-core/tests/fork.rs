//! `fork()` after `aclInit`: the child starts uninitialised (`100001`, and `100037` for
//! `aclFinalize`), its own `aclInit` gives it a fresh runtime that runs work, and the parent
//! goes on unaffected. The child reports through its exit status; the parent kills it if it
//! hangs.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;

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
    common::launch(s, common::gated(&gate));

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
        std::thread::sleep(Duration::from_millis(5));
    }
    assert!(
        libc::WIFEXITED(status),
        "the child did not exit normally (status {status:#x})"
    );
    assert_eq!(libc::WEXITSTATUS(status), 0, "the child failed a step");
    api::destroy_stream(s).unwrap();
    api::finalize().unwrap();
}

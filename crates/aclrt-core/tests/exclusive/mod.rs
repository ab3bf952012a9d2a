//! Tests share one process under `cargo test`, and with it the process's runtime: each test
//! that uses it holds this guard, which also starts it from an uninitialised runtime, as a
//! fresh process would.

use std::sync::{Mutex, MutexGuard};

/// Serialises the tests of this binary that use the process's runtime; finalizes whatever an
/// earlier test left behind.
pub fn exclusive() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    let guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let _ = aclrt::api::finalize();
    // The finalize above may have failed: leave the thread's error state as a new thread's.
    aclrt::api::get_last_error();
    aclrt::api::get_recent_err_msg();
    aclrt::cuda::forget_init_for_tests();
    guard
}

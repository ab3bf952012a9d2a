//! Synchronisation primitives of the emulated device.
//!
//! Everything that blocks a thread in this crate goes through [`WaitList`] (a host thread in
//! `aclrtSynchronizeStream`, a stream worker held by an event wait, the thread in
//! `aclrtProcessReport`) or, for an idle stream worker and its submitters, [`Doorbell`]. The types below are re-exported from `loom` under `cfg(loom)` so the
//! completion and wake-up protocol can be model-checked (see `tests/loom_*.rs`).

mod doorbell;
mod latch;
mod waitlist;
mod workqueue;

pub use doorbell::{Doorbell, Ring};
pub(crate) use latch::Latch;
pub use waitlist::{SpinPolicy, WaitList};
pub use workqueue::WorkQueue;

#[cfg(loom)]
pub(crate) mod shim {
    pub(crate) use loom::hint::spin_loop;
    pub(crate) use loom::sync::atomic::{
        fence, AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub(crate) use loom::sync::Mutex;
    pub(crate) use loom::thread::{current, park, yield_now, Thread};

    pub(crate) fn park_timeout(_d: std::time::Duration) {
        // loom has no clock: a timed park is modelled as a plain park, which loom may
        // still wake spuriously.
        park();
    }
}

#[cfg(not(loom))]
pub(crate) mod shim {
    pub(crate) use std::hint::spin_loop;
    pub(crate) use std::sync::atomic::{
        fence, AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub(crate) use std::sync::Mutex;
    pub(crate) use std::thread::{current, park, park_timeout, yield_now, Thread};
}

/// Locks a runtime mutex, ignoring poisoning: user closures run under `catch_unwind` and never
/// while a runtime lock is held, so a poisoned lock still guards consistent state.
pub(crate) fn lock<T: ?Sized>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

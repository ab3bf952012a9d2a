//! Synchronisation primitives of the emulated device.
//!
//! Everything that blocks a thread in this crate goes through [`WaitList`] (a host thread in
//! `aclrtSynchronizeStream`, a stream worker held by an event wait, the thread in
//! `aclrtProcessReport`) or, for an idle stream worker and its submitters, [`Doorbell`]; with the
//! pooled scheduler a stream that waits suspends instead, leaving a [`Waker`] in the wait list,
//! and idle pool workers park in the [`ReadyQueue`]. The types below are re-exported from `loom` under `cfg(loom)` so the
//! completion and wake-up protocol can be model-checked (see `tests/loom_*.rs`).

mod doorbell;
mod latch;
pub(crate) mod order;
mod ready;
mod runstate;
mod waitlist;
mod workqueue;

pub use doorbell::{Doorbell, Ring};
pub(crate) use latch::Latch;
pub use ready::{Pop, ReadyQueue};
pub use runstate::RunState;
pub use waitlist::{SpinPolicy, WaitList, Waker};
pub use workqueue::WorkQueue;

/// A value alone on its cache line (128 bytes: adjacent-line prefetch pairs 64-byte lines), so
/// that threads writing neighbouring values do not pass one line between their cores.
#[repr(align(128))]
pub(crate) struct CachePadded<T>(pub(crate) T);

impl<T> std::ops::Deref for CachePadded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

#[cfg(loom)]
pub(crate) mod shim {
    pub(crate) use loom::hint::spin_loop;
    pub(crate) use loom::sync::atomic::{
        fence, AtomicBool, AtomicU64, AtomicU8, AtomicUsize, Ordering,
    };
    pub(crate) use loom::sync::{Mutex, MutexGuard};
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
    pub(crate) use std::sync::{Mutex, MutexGuard};
    pub(crate) use std::thread::{current, park, park_timeout, yield_now, Thread};
}

/// Locks a runtime mutex, ignoring poisoning: user closures run under `catch_unwind` and never
/// while a runtime lock is held, so a poisoned lock still guards consistent state. Debug
/// builds check the lock order on the way ([`order`]).
#[cfg(not(all(debug_assertions, not(loom))))]
pub(crate) fn lock<T: ?Sized>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Locks a runtime mutex, ignoring poisoning: user closures run under `catch_unwind` and never
/// while a runtime lock is held, so a poisoned lock still guards consistent state. Debug
/// builds check the lock order on the way ([`order`]).
#[cfg(all(debug_assertions, not(loom)))]
pub(crate) fn lock<T: ?Sized>(m: &std::sync::Mutex<T>) -> Locked<'_, T> {
    let guard = m.lock().unwrap_or_else(|e| e.into_inner());
    let class = order::class_name(std::any::type_name::<T>());
    order::acquired(class);
    Locked { guard, class }
}

/// What [`lock`] returns: the plain guard, or in debug builds one that tells the lock-order
/// checker when it is released. Name this, never `Locked`, in signatures.
#[cfg(all(debug_assertions, not(loom)))]
pub(crate) type Guard<'a, T> = Locked<'a, T>;
/// What [`lock`] returns.
#[cfg(not(all(debug_assertions, not(loom))))]
pub(crate) type Guard<'a, T> = std::sync::MutexGuard<'a, T>;

/// A runtime lock's guard that tells the lock-order checker when it is released.
#[cfg(all(debug_assertions, not(loom)))]
pub(crate) struct Locked<'a, T: ?Sized> {
    guard: std::sync::MutexGuard<'a, T>,
    class: &'static str,
}

#[cfg(all(debug_assertions, not(loom)))]
impl<T: ?Sized> std::ops::Deref for Locked<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.guard
    }
}

#[cfg(all(debug_assertions, not(loom)))]
impl<T: ?Sized> std::ops::DerefMut for Locked<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.guard
    }
}

#[cfg(all(debug_assertions, not(loom)))]
impl<T: ?Sized> Drop for Locked<'_, T> {
    fn drop(&mut self) {
        order::released(self.class);
    }
}

#[cfg(test)]
pub(crate) mod tests_support {
    /// Data of two locks no nesting rule mentions.
    pub(crate) struct Outer;
    pub(crate) struct Inner;
}

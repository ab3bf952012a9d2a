use std::time::Instant;

use super::shim::{AtomicBool, Ordering};
use super::{SpinPolicy, WaitList, Waker};

/// A one-shot flag that threads can wait on: set once, never cleared.
///
/// Record completions are latches: the record task sets it when it executes (or when it is
/// discarded), and every query, synchronise and stream wait on that record reads it.
#[derive(Debug, Default)]
pub(crate) struct Latch {
    set: AtomicBool,
    waiters: WaitList,
}

impl Latch {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    pub(crate) fn is_set(&self) -> bool {
        self.set.load(Ordering::SeqCst)
    }

    /// Sets the latch and wakes its waiters; idempotent.
    pub(crate) fn set(&self) {
        self.set.store(true, Ordering::SeqCst);
        self.waiters.wake_all();
    }

    /// Waits for the latch or for `also()` (an abort condition owned by the caller, whose
    /// producer must unpark this thread itself). Returns whether the latch is set.
    pub(crate) fn wait_or(
        &self,
        also: impl Fn() -> bool,
        deadline: Option<Instant>,
        spin: SpinPolicy,
    ) -> bool {
        self.waiters
            .wait_until(|| self.is_set() || also(), deadline, spin);
        self.is_set()
    }

    /// Registers `waker` for when the latch is set, unless it is set or `also()` holds
    /// already; see [`WaitList::wake_when`] (`false`: no waker is left to count on).
    pub(crate) fn wake_when(&self, also: impl Fn() -> bool, waker: Waker) -> bool {
        self.waiters.wake_when(|| self.is_set() || also(), 0, waker)
    }

    pub(crate) fn wait(&self, deadline: Option<Instant>, spin: SpinPolicy) -> bool {
        self.wait_or(|| false, deadline, spin)
    }
}

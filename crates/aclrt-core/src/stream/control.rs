//! Stopping a stream's work from outside: `aclrtStreamAbort` and `aclrtStreamStop`.
//!
//! Both use the stream's abort state, the one a forced destroy uses: while it is set the worker
//! discards what it takes from the queue (records still complete, carrying the failure, so
//! nobody waits forever on them), waits inside the stream (event waits, implicit stream waits,
//! blocking callbacks, notify and value waits) are released, and new work is refused with
//! `107023`. A task already running is host code and cannot be preempted: it finishes first.
//!
//! - An abort clears the state again once everything queued before it has retired, so the
//!   stream takes work again.
//! - A stop leaves it set: the stream runs nothing more until it is destroyed.

use std::sync::atomic::Ordering;

use super::Stream;
use crate::error::Failure;
use crate::sync::lock;

impl Stream {
    /// The failure that abort and stop leave for the stream's next synchronise, built like a
    /// task failure of this stream.
    pub(crate) fn control_failure(&self, code: crate::error::AclError, message: &str) -> Failure {
        self.failure_for(0, code, message, 0)
    }

    /// `aclrtStreamAbort`: discards everything queued, releases waits inside the stream, waits
    /// for a running task to finish, then takes work again unless `stays_halted()` says the
    /// stream was stopped meanwhile. `failure` becomes the stream's pending failure (unless one
    /// is pending already), so a synchronise that was waiting reports it.
    pub(crate) fn abort_queued(&self, failure: Failure, stays_halted: impl Fn() -> bool) {
        self.begin_abort(failure);
        self.finish_abort(stays_halted);
    }

    /// The first half of [`abort_queued`](Self::abort_queued): notes `failure` and starts
    /// dropping queued work without waiting. A device-wide abort starts every stream's before
    /// waiting for any, so a running task waiting on another stream's queued work is released.
    pub(crate) fn begin_abort(&self, failure: Failure) {
        self.failures.note(failure);
        self.aborted.store(true, Ordering::SeqCst);
        self.wake_worker();
    }

    /// The second half of [`abort_queued`](Self::abort_queued): waits for a running task, then
    /// takes work again unless the stream was closed or `stays_halted()`.
    pub(crate) fn finish_abort(&self, stays_halted: impl Fn() -> bool) {
        self.wait_idle(None);
        let closed = lock(&self.submit_lock);
        if !*closed && !stays_halted() {
            self.aborted.store(false, Ordering::SeqCst);
        }
    }

    /// `aclrtStreamStop`: as an abort, but the stream stays stopped.
    pub(crate) fn halt(&self, failure: Failure) {
        self.failures.note(failure);
        self.aborted.store(true, Ordering::SeqCst);
        self.wake_worker();
        self.wait_idle(None);
    }

    /// Whether queued work is being dropped (an abort, a stop, a forced destroy, or a stopped
    /// context): a task that waits for something checks it to give up its wait.
    pub(crate) fn dropping_work(&self) -> bool {
        self.is_aborting()
    }
}

//! Notifies: device-side signals one stream records and another waits for and resets.
//!
//! A notify holds a latch. A record sets the current latch; a wait-and-reset waits for it and
//! then, under the notify's lock, swaps in a fresh one, so taking the signal and resetting it is
//! one step: a record that completes after the swap sets the new latch and is not lost. Several
//! records before one wait are one signal.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::handle::NotifyHandle;
use crate::stream::Stream;
use crate::sync::{lock, Latch, SpinPolicy};

/// One notify of a device.
pub(crate) struct Notify {
    pub(crate) handle: NotifyHandle,
    /// Logical id of the device it was created on.
    pub(crate) device_id: i32,
    /// `aclrtGetNotifyId`: unique among the device's live notifies.
    pub(crate) id: u32,
    latch: Mutex<Arc<Latch>>,
}

/// How a wait on a notify ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitEnd {
    /// The notify was recorded; it has been reset.
    Taken,
    /// The waiting stream is dropping its work (abort, stop, destroy).
    Dropped,
    /// The deadline passed first.
    TimedOut,
}

impl Notify {
    pub(crate) fn new(handle: NotifyHandle, device_id: i32, id: u32) -> Self {
        Self {
            handle,
            device_id,
            id,
            latch: Mutex::new(Arc::new(Latch::new())),
        }
    }

    /// A record task ran: sets the notify and wakes its waiters.
    pub(crate) fn record(&self) {
        lock(&self.latch).set();
    }

    /// Clears the notify (`aclrtNotifyBatchReset`); a waiting task goes on waiting.
    pub(crate) fn reset(&self) {
        let mut latch = lock(&self.latch);
        if latch.is_set() {
            *latch = Arc::new(Latch::new());
        }
    }

    /// Whether the notify is set now.
    pub(crate) fn is_set(&self) -> bool {
        lock(&self.latch).is_set()
    }

    /// Runs on `stream`'s worker: waits until the notify is set, then resets it.
    pub(crate) fn wait_and_reset(&self, stream: &Stream, deadline: Option<Instant>) -> WaitEnd {
        loop {
            let latch = lock(&self.latch).clone();
            let set = latch.wait_or(|| stream.dropping_work(), deadline, SpinPolicy::Brief);
            if stream.dropping_work() {
                return WaitEnd::Dropped;
            }
            if !set {
                return WaitEnd::TimedOut;
            }
            let mut current = lock(&self.latch);
            // Another waiter may have taken this signal: then wait for the next one.
            if Arc::ptr_eq(&current, &latch) {
                *current = Arc::new(Latch::new());
                return WaitEnd::Taken;
            }
        }
    }
}

//! Notifies: device-side signals one stream records and another waits for and resets.
//!
//! A notify holds a latch. A record sets the current latch; a wait-and-reset waits for it and
//! then, under the notify's lock, swaps in a fresh one, so taking the signal and resetting it is
//! one step: a record that completes after the swap sets the new latch and is not lost. Several
//! records before one wait are one signal.
//!
//! An IPC notify (exported with `aclrtNotifyGetExportKey`, or imported by key) keeps its
//! signal in shared memory instead ([`crate::ipc::Segment`]), so records and waits of every
//! process that holds it meet there; a wait queued on it before its export waits on the latch.
//!
//! Counting notifies ([`CntNotify`]) keep a 32-bit count instead of a signal.
//!
//! While tasks are observed (tracing, checking), each keeps the record task that released a
//! wait, so the wait can name it: the happens-before edge from the record to the waiting
//! stream. For a notify that is the record that set the signal the wait took; for a counting
//! notify, the latest record when the wait's test held (a later record than the one that made
//! it hold at worst, which can hide a race but never invent one).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use crate::handle::{CntNotifyHandle, NotifyHandle};
use crate::ipc::{Segment, Waited};
use crate::observe::TaskRef;
use crate::stream::Stream;
use crate::sync::{lock, Latch, SpinPolicy, WaitList};

/// One notify of a device.
pub(crate) struct Notify {
    pub(crate) handle: NotifyHandle,
    /// Logical id of the device it was created on.
    pub(crate) device_id: i32,
    /// `aclrtGetNotifyId`: unique among the device's live notifies.
    pub(crate) id: u32,
    signal: Mutex<Signal>,
    /// The shared signal, once exported or when imported.
    pub(crate) ipc: OnceLock<Arc<Segment>>,
}

/// A notify's current signal: the latch records set, and the record task that set it first
/// (when observed).
struct Signal {
    latch: Arc<Latch>,
    by: Option<TaskRef>,
}

impl Signal {
    fn new() -> Self {
        Self {
            latch: Arc::new(Latch::new()),
            by: None,
        }
    }
}

/// How a wait on a notify ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitEnd {
    /// The notify was recorded (by this task, where known); it has been reset.
    Taken(Option<TaskRef>),
    /// The waiting stream is dropping its work (abort, stop, destroy).
    Dropped,
    /// The deadline passed first.
    TimedOut,
    /// An IPC notify's other processes are gone (this pid, 0 when several), none set it.
    Gone(i32),
}

impl Notify {
    pub(crate) fn new(handle: NotifyHandle, device_id: i32, id: u32) -> Self {
        Self {
            handle,
            device_id,
            id,
            signal: Mutex::new(Signal::new()),
            ipc: OnceLock::new(),
        }
    }

    /// A record task (`by`, when observed) ran: sets the notify and wakes its waiters.
    pub(crate) fn record(&self, by: Option<TaskRef>) {
        if let Some(seg) = self.ipc.get() {
            if let Some(task) = by {
                crate::ipc::note_recorder(seg.origin().token, crate::ipc::NOTIFY_SEQ, task);
            }
            return seg.notify_record();
        }
        let mut signal = lock(&self.signal);
        if !signal.latch.is_set() {
            signal.by = by;
        }
        signal.latch.set();
    }

    /// Clears the notify (`aclrtNotifyBatchReset`); a waiting task goes on waiting.
    pub(crate) fn reset(&self) {
        if let Some(seg) = self.ipc.get() {
            return seg.notify_reset();
        }
        let mut signal = lock(&self.signal);
        if signal.latch.is_set() {
            *signal = Signal::new();
        }
    }

    /// Whether the notify is set now.
    pub(crate) fn is_set(&self) -> bool {
        if let Some(seg) = self.ipc.get() {
            return seg.notify_is_set();
        }
        lock(&self.signal).latch.is_set()
    }

    /// Runs on `stream`'s worker: waits until the notify is set, then resets it.
    pub(crate) fn wait_and_reset(&self, stream: &Stream, deadline: Option<Instant>) -> WaitEnd {
        if let Some(seg) = self.ipc.get() {
            return match seg.notify_wait_and_reset(&|| stream.dropping_work(), deadline) {
                Waited::Done => WaitEnd::Taken(crate::ipc::recorder_of(
                    seg.origin().token,
                    crate::ipc::NOTIFY_SEQ,
                )),
                Waited::Interrupted => WaitEnd::Dropped,
                Waited::TimedOut => WaitEnd::TimedOut,
                Waited::Gone(pid) => WaitEnd::Gone(pid),
            };
        }
        loop {
            let latch = lock(&self.signal).latch.clone();
            let set = latch.wait_or(|| stream.dropping_work(), deadline, SpinPolicy::Brief);
            if stream.dropping_work() {
                return WaitEnd::Dropped;
            }
            if !set {
                return WaitEnd::TimedOut;
            }
            let mut current = lock(&self.signal);
            // Another waiter may have taken this signal: then wait for the next one.
            if Arc::ptr_eq(&current.latch, &latch) {
                let by = std::mem::replace(&mut *current, Signal::new()).by;
                return WaitEnd::Taken(by);
            }
        }
    }
}

/// How a counting-notify record changes the count (`aclrtCntNotifyRecordMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CountOp {
    /// `ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE`: count = value.
    Set,
    /// `ACL_RT_CNT_NOTIFY_RECORD_ADD_MODE`: count += value (wrapping at 2³²).
    Add,
    /// `ACL_RT_CNT_NOTIFY_RECORD_BIT_OR_MODE`: count |= value.
    Or,
    /// `ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE`: count &= value.
    And,
}

impl CountOp {
    pub(crate) fn from_raw(raw: u32) -> Option<Self> {
        Some(match raw {
            0 => Self::Set,
            1 => Self::Add,
            2 => Self::Or,
            4 => Self::And,
            _ => return None,
        })
    }

    fn apply(self, count: u32, value: u32) -> u32 {
        match self {
            Self::Set => value,
            Self::Add => count.wrapping_add(value),
            Self::Or => count | value,
            Self::And => count & value,
        }
    }
}

/// When a counting-notify wait is released (`aclrtCntNotifyWaitMode`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CountTest {
    /// count < value.
    Less,
    /// count == value.
    Equal,
    /// count > value.
    Bigger,
    /// count >= value.
    BiggerOrEqual,
    /// count & value == value.
    EqualWithBitmask,
}

impl CountTest {
    pub(crate) fn from_raw(raw: u32) -> Option<Self> {
        Some(match raw {
            0 => Self::Less,
            1 => Self::Equal,
            2 => Self::Bigger,
            3 => Self::BiggerOrEqual,
            4 => Self::EqualWithBitmask,
            _ => return None,
        })
    }

    fn holds(self, count: u32, value: u32) -> bool {
        match self {
            Self::Less => count < value,
            Self::Equal => count == value,
            Self::Bigger => count > value,
            Self::BiggerOrEqual => count >= value,
            Self::EqualWithBitmask => count & value == value,
        }
    }
}

/// A counting notify (`aclrtCntNotify`): a 32-bit count that records change and waits test.
///
/// Unlike a notify, a wait does not consume the signal: it is released while its test holds,
/// and clears the count only when asked to. Every change wakes every waiter to test again.
pub(crate) struct CntNotify {
    pub(crate) handle: CntNotifyHandle,
    /// Logical id of the device it was created on.
    pub(crate) device_id: i32,
    /// `aclrtCntNotifyGetId`: unique among the device's live counting notifies.
    pub(crate) id: u32,
    count: AtomicU32,
    changed: WaitList,
    /// The latest record task (when observed).
    recorded_by: Mutex<Option<TaskRef>>,
}

impl CntNotify {
    pub(crate) fn new(handle: CntNotifyHandle, device_id: i32, id: u32) -> Self {
        Self {
            handle,
            device_id,
            id,
            count: AtomicU32::new(0),
            changed: WaitList::new(),
            recorded_by: Mutex::new(None),
        }
    }

    /// The count now.
    pub(crate) fn count(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }

    /// A record task (`by`, when observed) ran: changes the count and wakes the waiters.
    pub(crate) fn record(&self, op: CountOp, value: u32, by: Option<TaskRef>) {
        if by.is_some() {
            *lock(&self.recorded_by) = by;
        }
        // The closure always returns `Some`, so the update cannot fail.
        let _ = self
            .count
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |c| {
                Some(op.apply(c, value))
            });
        self.changed.wake_all();
    }

    /// A reset task ran: the count is 0 again.
    pub(crate) fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
        self.changed.wake_all();
    }

    /// Runs on `stream`'s worker: waits until `test` holds for the count, then clears it if
    /// `clear` (in one step with the test, so a change in between is not lost).
    pub(crate) fn wait(
        &self,
        test: CountTest,
        value: u32,
        clear: bool,
        stream: &Stream,
        deadline: Option<Instant>,
    ) -> WaitEnd {
        loop {
            self.changed.wait_until(
                || test.holds(self.count(), value) || stream.dropping_work(),
                deadline,
                SpinPolicy::Brief,
            );
            if stream.dropping_work() {
                return WaitEnd::Dropped;
            }
            let count = self.count();
            if !test.holds(count, value) {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    return WaitEnd::TimedOut;
                }
                continue;
            }
            if !clear
                || self
                    .count
                    .compare_exchange(count, 0, Ordering::SeqCst, Ordering::SeqCst)
                    .is_ok()
            {
                return WaitEnd::Taken(*lock(&self.recorded_by));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_modes_change_the_count() {
        assert_eq!(CountOp::Set.apply(7, 3), 3);
        assert_eq!(CountOp::Add.apply(u32::MAX, 2), 1);
        assert_eq!(CountOp::Or.apply(0x10, 0x01), 0x11);
        assert_eq!(CountOp::And.apply(0x11, 0x01), 0x01);
        assert_eq!(CountOp::from_raw(3), None);
        assert_eq!(CountOp::from_raw(4), Some(CountOp::And));
    }

    #[test]
    fn wait_modes_test_the_count() {
        assert!(CountTest::Less.holds(1, 2) && !CountTest::Less.holds(2, 2));
        assert!(CountTest::Equal.holds(2, 2) && !CountTest::Equal.holds(3, 2));
        assert!(CountTest::Bigger.holds(3, 2) && !CountTest::Bigger.holds(2, 2));
        assert!(CountTest::BiggerOrEqual.holds(2, 2) && !CountTest::BiggerOrEqual.holds(1, 2));
        assert!(CountTest::EqualWithBitmask.holds(0b111, 0b101));
        assert!(!CountTest::EqualWithBitmask.holds(0b110, 0b101));
        assert_eq!(CountTest::from_raw(5), None);
    }
}

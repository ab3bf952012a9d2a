//! Completion state shared between a task and the calls that wait for it.
//!
//! - [`RecordState`]: one record's completion. It is created when the record is queued and
//!   completed exactly once, when the record task runs or is discarded; snapshot waits, queries
//!   and synchronise read it. Completing it sets its latch last but one (before a legacy flag),
//!   so whoever the latch wakes finds the timestamp and the failure in place.
//! - [`SyncFlag`]: the legacy SYNC flag of an event. A record sets it, a reset swaps in a fresh
//!   latch, and a wait reads whichever latch the flag holds when the wait runs, so a wait may
//!   be queued before the record that releases it.
//! - [`FailureSlot`]: a stream's pending failure, which the next synchronise reports. A record
//!   keeps only a weak reference to it, so records never keep streams alive.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::error::Failure;
use crate::observe::TaskRef;
use crate::sync::{lock, Latch};

/// A stream's pending failure: the first failure since the last synchronise that reported one.
#[derive(Default)]
pub(crate) struct FailureSlot(Mutex<Option<Failure>>);

impl FailureSlot {
    /// The pending failure, left in place.
    pub(crate) fn get(&self) -> Option<Failure> {
        lock(&self.0).clone()
    }

    /// Keeps `failure` unless one is pending already (the first failure wins).
    pub(crate) fn note(&self, failure: Failure) {
        lock(&self.0).get_or_insert(failure);
    }

    /// Takes the pending failure out (a synchronise reports it once).
    pub(crate) fn take(&self) -> Option<Failure> {
        lock(&self.0).take()
    }

    /// Clears the pending failure if it is `failure` (reported through an event instead).
    pub(crate) fn clear_if(&self, failure: &Failure) {
        let mut pending = lock(&self.0);
        if pending.as_ref() == Some(failure) {
            *pending = None;
        }
    }
}

/// Completion state of one record.
pub(crate) struct RecordState {
    done: Latch,
    /// Nanoseconds since the device epoch at which the record task ran.
    timestamp_ns: AtomicU64,
    /// A failure of the stream that the record's capture includes.
    failure: OnceLock<Failure>,
    /// The recording stream's pending failure, which an event synchronise that reports the
    /// record's failure clears.
    stream_failure: Weak<FailureSlot>,
    /// The record task, for observers (its task id is set once the task is queued).
    origin: TaskRef,
    task_id: AtomicU64,
}

impl RecordState {
    /// A record on the stream whose first task is `stream_origin` and whose pending failure is
    /// `stream_failure`.
    pub(crate) fn new(stream_origin: TaskRef, stream_failure: &Arc<FailureSlot>) -> Self {
        Self {
            done: Latch::new(),
            timestamp_ns: AtomicU64::new(0),
            failure: OnceLock::new(),
            stream_failure: Arc::downgrade(stream_failure),
            origin: stream_origin,
            task_id: AtomicU64::new(0),
        }
    }

    pub(crate) fn set_task_id(&self, task_id: u64) {
        self.task_id.store(task_id, Ordering::Relaxed);
    }

    /// The record task, as observers name it.
    pub(crate) fn origin(&self) -> TaskRef {
        TaskRef {
            task_id: self.task_id.load(Ordering::Relaxed),
            ..self.origin
        }
    }

    pub(crate) fn done(&self) -> &Latch {
        &self.done
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done.is_set()
    }

    pub(crate) fn timestamp_ns(&self) -> u64 {
        self.timestamp_ns.load(Ordering::Acquire)
    }

    pub(crate) fn failure(&self) -> Option<&Failure> {
        self.failure.get()
    }

    /// After the record's failure was reported: the recording stream (if it still exists) no
    /// longer reports the same failure at its next synchronise.
    pub(crate) fn clear_stream_failure(&self, failure: &Failure) {
        if let Some(slot) = self.stream_failure.upgrade() {
            slot.clear_if(failure);
        }
    }

    /// Runs once, when the record task executes or is discarded.
    pub(crate) fn complete(&self, failure: Option<Failure>, flag: Option<&SyncFlag>) {
        self.timestamp_ns
            .store(crate::clock::now_ns(), Ordering::Release);
        if let Some(f) = failure {
            let _ = self.failure.set(f);
        }
        // Done before the flag: a wait the flag releases finds its record complete.
        self.done.set();
        if let Some(flag) = flag {
            flag.set();
        }
    }
}

/// A legacy SYNC flag: set by records, cleared by resets (by swapping in a fresh latch, so a
/// waiter of the old one is never un-released).
#[derive(Default)]
pub(crate) struct SyncFlag(Mutex<Arc<Latch>>);

impl SyncFlag {
    pub(crate) fn set(&self) {
        lock(&self.0).set();
    }

    /// The latch a wait running now waits for.
    pub(crate) fn current(&self) -> Arc<Latch> {
        lock(&self.0).clone()
    }

    /// Clears the flag if it is set.
    pub(crate) fn clear(&self) {
        let mut flag = lock(&self.0);
        if flag.is_set() {
            *flag = Arc::new(Latch::new());
        }
    }
}

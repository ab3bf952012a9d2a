//! Events: records (snapshots of a stream's progress) and legacy SYNC flags.
//!
//! A record task carries a [`RecordState`], created at enqueue time and completed when the
//! task runs: snapshot waits, queries and synchronise all look at the latest record's state.
//! A legacy SYNC event additionally owns a *flag* latch that record sets, reset clears (by
//! swapping in a fresh latch) and waits read when they execute, so a wait may be queued before
//! the record it waits for.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::consts::{ACL_EVENT_DEVICE_USE_ONLY, ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE};
use crate::context::Context;
use crate::error::Failure;
use crate::handle::EventHandle;
use crate::sync::{lock, Latch};

/// Which creation call made an event; it decides most of the rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Family {
    /// `aclrtCreateEvent`: snapshot, timing, may be waited on.
    Default,
    /// `aclrtCreateEventWithFlag`: SYNC events are legacy flags.
    Flag,
    /// `aclrtCreateEventExWithFlag`: snapshot, reusable without reset.
    Ex,
    /// `cuEventCreate`: snapshot.
    Cuda,
}

/// Completion state of one record.
pub(crate) struct RecordState {
    done: Latch,
    /// Nanoseconds since the device epoch at which the record task ran.
    timestamp_ns: AtomicU64,
    /// A failure of the stream that the record's capture includes.
    failure: OnceLock<Failure>,
    /// Stream whose pending failure an event synchronise reports and clears.
    pub(crate) stream: std::sync::Weak<crate::stream::Stream>,
    /// The record task, for traces (its task id is set once the task is queued).
    origin: crate::observe::TaskRef,
    task_id: AtomicU64,
}

impl RecordState {
    pub(crate) fn new(stream: &Arc<crate::stream::Stream>) -> Self {
        Self {
            done: Latch::new(),
            timestamp_ns: AtomicU64::new(0),
            failure: OnceLock::new(),
            stream: Arc::downgrade(stream),
            origin: stream.task_ref(0),
            task_id: AtomicU64::new(0),
        }
    }

    pub(crate) fn set_task_id(&self, task_id: u64) {
        self.task_id.store(task_id, Ordering::Relaxed);
    }

    /// The record task, as traces name it.
    pub(crate) fn origin(&self) -> crate::observe::TaskRef {
        crate::observe::TaskRef {
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

    /// Runs when the record task executes or is discarded.
    pub(crate) fn complete(&self, failure: Option<Failure>, flag_event: Option<&Event>) {
        self.timestamp_ns
            .store(crate::clock::now_ns(), Ordering::Release);
        if let Some(f) = failure {
            let _ = self.failure.set(f);
        }
        // Done before the flag: a wait the flag releases finds its record complete.
        self.done.set();
        if let Some(event) = flag_event {
            lock(&event.flag).set();
        }
    }
}

pub(crate) struct EventState {
    /// The latest record; `None` before the first one (or after a reset that forgets it).
    pub(crate) latest: Option<Arc<RecordState>>,
    /// Whether this event holds one of the device's SYNC event resources.
    pub(crate) holds_sync_resource: bool,
    /// The handle is dead: a record racing the destroy must not take a resource.
    pub(crate) destroyed: bool,
}

/// An event.
pub(crate) struct Event {
    pub(crate) handle: EventHandle,
    pub(crate) family: Family,
    pub(crate) flags: u32,
    /// The creating context (its device holds the SYNC resources; CUDA refuses an event and
    /// a stream of different contexts).
    pub(crate) context: Arc<Context>,
    /// `aclrtGetEventId`.
    pub(crate) id: u32,
    pub(crate) state: Mutex<EventState>,
    /// Legacy SYNC flag. Its own lock (taken after `state` when both are), so a record task
    /// discarded while its event's state is locked can still set it.
    flag: Mutex<Arc<Latch>>,
    /// Wait tasks queued on this event and not yet executed.
    pending_waits: AtomicUsize,
}

impl Event {
    pub(crate) fn new(
        handle: EventHandle,
        family: Family,
        flags: u32,
        context: Arc<Context>,
        holds_sync_resource: bool,
    ) -> Self {
        Self {
            handle,
            family,
            flags,
            id: context.device.next_event_id(),
            context,
            state: Mutex::new(EventState {
                latest: None,
                holds_sync_resource,
                destroyed: false,
            }),
            flag: Mutex::new(Arc::new(Latch::new())),
            pending_waits: AtomicUsize::new(0),
        }
    }

    pub(crate) fn has_sync(&self) -> bool {
        self.flags & ACL_EVENT_SYNC != 0
    }

    pub(crate) fn is_device_only(&self) -> bool {
        self.flags & ACL_EVENT_DEVICE_USE_ONLY != 0
    }

    pub(crate) fn has_timing(&self) -> bool {
        self.flags & ACL_EVENT_TIME_LINE != 0
    }

    /// Legacy flag semantics: waits follow the flag, not the latest snapshot.
    pub(crate) fn uses_flag(&self) -> bool {
        self.family == Family::Flag && self.has_sync()
    }

    /// Whether the SYNC resource is taken at the first record rather than at creation.
    pub(crate) fn counts_while_recorded(&self) -> bool {
        match self.family {
            Family::Default => true,
            Family::Ex => self.has_sync(),
            Family::Flag | Family::Cuda => false,
        }
    }

    pub(crate) fn latest(&self) -> Option<Arc<RecordState>> {
        lock(&self.state).latest.clone()
    }

    pub(crate) fn current_flag(&self) -> Arc<Latch> {
        lock(&self.flag).clone()
    }

    pub(crate) fn wait_queued(&self) {
        self.pending_waits.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn wait_executed(&self) {
        self.pending_waits.fetch_sub(1, Ordering::AcqRel);
    }

    pub(crate) fn pending_waits(&self) -> usize {
        self.pending_waits.load(Ordering::Acquire)
    }

    /// Runs when a reset task executes on a legacy SYNC event: clears the flag and forgets a
    /// finished record, so the event reads as not recorded again.
    pub(crate) fn reset_executed(&self) {
        let mut state = lock(&self.state);
        {
            let mut flag = lock(&self.flag);
            if flag.is_set() {
                *flag = Arc::new(Latch::new());
            }
        }
        if state.latest.as_ref().is_some_and(|r| r.is_done()) {
            state.latest = None;
        }
    }

    /// After its handle was removed: marks the event destroyed and gives back its SYNC
    /// resource, under the lock a record takes one with, so none is taken afterwards.
    pub(crate) fn retire(&self) {
        let mut state = lock(&self.state);
        state.destroyed = true;
        self.release_sync_resource(&mut state);
    }

    /// Gives back the SYNC resource, if held.
    pub(crate) fn release_sync_resource(&self, state: &mut EventState) {
        if std::mem::take(&mut state.holds_sync_resource) {
            self.context.device.release_sync_event();
        }
    }
}

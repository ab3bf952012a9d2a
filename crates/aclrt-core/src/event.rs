//! Events: records (snapshots of a stream's progress) and legacy SYNC flags.
//!
//! A record task carries a [`RecordState`], created at enqueue time and completed when the
//! task runs: snapshot waits, queries and synchronise all look at the latest record's state.
//! A legacy SYNC event additionally owns a [`SyncFlag`] that record sets, reset clears and
//! waits read when they execute, so a wait may be queued before the record it waits for.
//! An IPC event (`ACL_EVENT_IPC`, or opened from another process's handle) keeps its records
//! in shared memory instead ([`crate::ipc::Segment`]): records, waits, queries and
//! synchronise of every process that holds it go there.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::consts::{ACL_EVENT_DEVICE_USE_ONLY, ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE};
use crate::exec::{EventSide, RecordState, SyncFlag};
use crate::handle::EventHandle;
use crate::ipc::Segment;
use crate::stream::Context;
use crate::sync::lock;

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
    pub(crate) flag: SyncFlag,
    /// Wait tasks queued on this event and not yet executed.
    pending_waits: AtomicUsize,
    /// An IPC event's shared completion state.
    pub(crate) ipc: Option<Arc<Segment>>,
}

impl Event {
    pub(crate) fn new(
        handle: EventHandle,
        family: Family,
        flags: u32,
        context: Arc<Context>,
        holds_sync_resource: bool,
        ipc: Option<Arc<Segment>>,
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
            flag: SyncFlag::default(),
            pending_waits: AtomicUsize::new(0),
            ipc,
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

    pub(crate) fn wait_queued(&self) {
        self.pending_waits.fetch_add(1, Ordering::AcqRel);
    }

    pub(crate) fn pending_waits(&self) -> usize {
        self.pending_waits.load(Ordering::Acquire)
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

impl EventSide for Event {
    fn id(&self) -> u32 {
        self.id
    }

    fn flag(&self) -> &SyncFlag {
        &self.flag
    }

    fn latest(&self) -> Option<Arc<RecordState>> {
        Event::latest(self)
    }

    fn wait_executed(&self) {
        self.pending_waits.fetch_sub(1, Ordering::AcqRel);
    }

    /// Clears the flag and forgets a finished record, so the event reads as not recorded again.
    fn reset_executed(&self) {
        let mut state = lock(&self.state);
        self.flag.clear();
        if state.latest.as_ref().is_some_and(|r| r.is_done()) {
            state.latest = None;
        }
    }
}

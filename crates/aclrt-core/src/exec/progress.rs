//! A stream's progress counters and the wake-ups of those waiting on them.
//!
//! `submitted` counts tasks ever queued, `retired` tasks finished (run or discarded); both only
//! grow, and `retired <= submitted`. "Everything submitted so far is done" is
//! `retired >= submitted-at-the-time`, which stream and device synchronise wait for, and which
//! an implicit stream wait (CUDA's legacy default stream) waits for on another stream.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::observe::TaskRef;
use crate::sync::{CachePadded, SpinPolicy, WaitList, Waker};

/// How far one stream's tasks have got.
///
/// The submitter writes `submitted` for every task and the stream's worker writes `retired`
/// for every task: each sits on its own cache line, so the two do not take the same line from
/// each other's core on every task.
pub(crate) struct Progress {
    submitted: CachePadded<AtomicU64>,
    retired: CachePadded<AtomicU64>,
    waiters: WaitList,
    /// The stream's first task, as observers name it.
    origin: TaskRef,
}

impl Progress {
    pub(crate) fn new(origin: TaskRef) -> Self {
        Self {
            submitted: CachePadded(AtomicU64::new(0)),
            retired: CachePadded(AtomicU64::new(0)),
            waiters: WaitList::new(),
            origin,
        }
    }

    /// Task `task_id` of this stream, as observers name it.
    pub(crate) fn task_ref(&self, task_id: u64) -> TaskRef {
        TaskRef {
            task_id,
            ..self.origin
        }
    }

    /// Task ids handed out so far.
    pub(crate) fn submitted(&self) -> u64 {
        self.submitted.load(Ordering::SeqCst)
    }

    pub(crate) fn retired(&self) -> u64 {
        self.retired.load(Ordering::SeqCst)
    }

    /// Notes that task `task_id` was queued (called in queue order, under the submit lock).
    pub(crate) fn submitted_one(&self, task_id: u64) {
        self.submitted.store(task_id + 1, Ordering::SeqCst);
    }

    /// Notes that task `task_id` ran or was discarded, waking only the waiters whose target
    /// this reaches: a synchronise is not woken per task.
    pub(crate) fn retire(&self, task_id: u64) {
        self.retired.store(task_id + 1, Ordering::SeqCst);
        self.waiters.wake_reached(task_id + 1);
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.retired() >= self.submitted()
    }

    /// Tasks submitted but not yet retired.
    pub(crate) fn pending(&self) -> u64 {
        self.submitted().saturating_sub(self.retired())
    }

    /// Waits until `until` tasks have retired or `give_up()` holds (whose producer must unpark
    /// this thread itself); `false` on timeout.
    pub(crate) fn wait_retired(
        &self,
        until: u64,
        give_up: impl Fn() -> bool,
        deadline: Option<Instant>,
        spin: SpinPolicy,
    ) -> bool {
        self.waiters.wait_until_key(
            || self.retired() >= until || give_up(),
            deadline,
            spin,
            until,
        )
    }

    /// Registers `waker` for when `until` tasks have retired, unless that or `also()` holds
    /// already; see [`WaitList::wake_when`] (`false`: no waker is left to count on).
    pub(crate) fn wake_when_retired(
        &self,
        until: u64,
        also: impl Fn() -> bool,
        waker: Waker,
    ) -> bool {
        self.waiters
            .wake_when(|| self.retired() >= until || also(), until, waker)
    }
}

//! How observed events reach the checker's state when its lock is taken.
//!
//! The state is one lock. Stream workers and submitting threads never wait for it: a worker's
//! event (which borrows nothing) goes into one FIFO queue when the lock is taken, and whoever
//! holds the lock processes the queue before its own event and again before it lets go. A
//! submission (its borrowed task description copied) always goes into the queue: the
//! submitting thread, usually the busiest, leaves its processing to the workers. A worker also
//! holds back the start of a task that nothing can observe while it runs (no check is due at
//! its start and no other thread can name it) in a slot of its own, and hands it in together
//! with the task's end: one hand-over per task instead of two, unless a reader of the state
//! (the hang watchdog, woken by every host wait; a reader of the findings) queues it first.
//!
//! # Invariants
//! - **Order.** Events are processed in an order consistent with happens-before. The queue is
//!   linearisable, and an event is queued (or processed) before the thread that made it does
//!   anything another thread can see. A held start is handed in before any other event of its
//!   thread, and before the task can be named by another thread: a task that completes a
//!   record is never held, and a task that names itself as a releaser says so first
//!   ([`Observed::TaskShared`]). Its end is handed in before the stream's progress moves.
//! - **Nothing is stranded.** A worker that queues an event looks at the lock again after a
//!   `SeqCst` fence, and the holder looks at the queue again after its own fence following the
//!   unlock: one of the two sees the other, so a worker's event is never left queued with
//!   nobody to process it. A queued submission is always followed by its task's start or
//!   discard (nothing accepted is lost), which a worker offers after processing the queue; and
//!   every reader of the findings processes the queue first.
//! - **Held starts stay visible.** The hang watchdog, and every reader of the findings, queue
//!   every held start before they process the queue (a task held back is still running user
//!   code); each is queued while its slot is locked, so the task's end comes after it.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};

use crossbeam_queue::SegQueue;

use super::lock;
use super::state::Caller;
use crate::observe::{Observed, TaskRef};
use crate::task_info::{TaskKind, TaskMeta};

/// A submission with its borrowed parts copied.
pub(crate) struct Submission {
    task: TaskRef,
    kind: TaskKind,
    meta: TaskMeta,
    thread_id: u32,
    start_ns: u64,
    end_ns: u64,
    caller: Caller,
}

impl Submission {
    /// A copy of `event`, if it is a submission that may be processed away from its thread.
    /// Not a wait: whether it is a legacy SYNC wait, whose site is captured where it is
    /// processed, is known only to the state.
    pub(crate) fn of(event: &Observed<'_>, caller: &mut Caller) -> Option<Submission> {
        match *event {
            Observed::Submitted {
                task,
                kind,
                meta,
                thread_id,
                start_ns,
                end_ns,
            } if kind != TaskKind::Wait => Some(Submission {
                task,
                kind,
                meta: meta.clone(),
                thread_id,
                start_ns,
                end_ns,
                caller: std::mem::replace(caller, Caller::none()),
            }),
            _ => None,
        }
    }

    /// The event again, and the caller it was made with.
    pub(crate) fn event(&mut self) -> (Observed<'_>, Caller) {
        let caller = std::mem::replace(&mut self.caller, Caller::none());
        let event = Observed::Submitted {
            task: self.task,
            kind: self.kind,
            meta: &self.meta,
            thread_id: self.thread_id,
            start_ns: self.start_ns,
            end_ns: self.end_ns,
        };
        (event, caller)
    }
}

/// What waits in the queue.
pub(crate) enum Deferred {
    /// One event that borrows nothing.
    Event(Observed<'static>),
    /// A held start and the end that followed it.
    Pair(Observed<'static>, Observed<'static>),
    /// A submission (in place: a box would be freed by another thread than the one that
    /// allocated it, which costs the allocator's lock).
    Submitted(Submission),
}

/// A worker's held start, where the watchdog and the readers of the findings can queue it.
#[derive(Default)]
struct Slot(Mutex<Option<Observed<'static>>>);

/// Tells inboxes apart in a thread's slot (a checker replaced by another).
static NEXT_INBOX: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// This thread's slot, with the inbox it belongs to.
    static SLOT: RefCell<Option<(u64, Arc<Slot>)>> = const { RefCell::new(None) };
}

/// The queue and the workers' slots of one checker.
pub(crate) struct Inbox {
    id: u64,
    queue: SegQueue<Deferred>,
    slots: Mutex<Vec<Weak<Slot>>>,
}

impl Inbox {
    pub(crate) fn new() -> Inbox {
        Inbox {
            id: NEXT_INBOX.fetch_add(1, Ordering::Relaxed),
            queue: SegQueue::new(),
            slots: Mutex::new(Vec::new()),
        }
    }

    /// Whether a task of `kind` may have its start held back: not a record (its completion
    /// releases waits that name it), not a wait or a callback (their start is when the checker
    /// looks for a deadlock), not an implicit stream wait (the pooled scheduler may announce
    /// it on one worker, suspend it and finish it on another: a start held on the first would
    /// come after the end).
    pub(crate) fn may_hold(kind: TaskKind) -> bool {
        !matches!(
            kind,
            TaskKind::Record | TaskKind::Wait | TaskKind::Callback | TaskKind::StreamWait
        )
    }

    /// Holds `started` back in the calling thread's slot; gives it back when the thread has
    /// no slot any more (it is being torn down), to be handed in at once.
    #[must_use]
    pub(crate) fn hold(&self, started: Observed<'static>) -> Option<Observed<'static>> {
        let mut started = Some(started);
        let _ = SLOT.try_with(|slot| {
            let mut slot = slot.borrow_mut();
            let fresh = match slot.as_ref() {
                Some((id, _)) => *id != self.id,
                None => true,
            };
            if fresh {
                let new = Arc::new(Slot::default());
                let mut slots = lock(&self.slots);
                slots.retain(|s| s.strong_count() > 0);
                slots.push(Arc::downgrade(&new));
                *slot = Some((self.id, new));
            }
            let (_, s) = slot.as_ref().expect("set above");
            *lock(&s.0) = started.take();
        });
        started
    }

    /// The calling thread's held start, if any.
    pub(crate) fn take_held(&self) -> Option<Observed<'static>> {
        SLOT.try_with(|slot| {
            let slot = slot.borrow();
            match slot.as_ref() {
                Some((id, s)) if *id == self.id => lock(&s.0).take(),
                _ => None,
            }
        })
        .ok()
        .flatten()
    }

    /// Queues every thread's held start, each while its slot is locked: its thread's next
    /// event (the task's end) then finds the slot empty and is queued after it. The queue, not
    /// the caller, orders them: the events their threads queued before go first.
    pub(crate) fn queue_all_held(&self) {
        let slots = lock(&self.slots);
        for slot in slots.iter().filter_map(Weak::upgrade) {
            let mut held = lock(&slot.0);
            if let Some(started) = held.take() {
                self.queue.push(Deferred::Event(started));
            }
        }
    }

    pub(crate) fn push(&self, item: Deferred) {
        self.queue.push(item);
    }

    pub(crate) fn pop(&self) -> Option<Deferred> {
        self.queue.pop()
    }

    /// After an unlock: whether something was queued meanwhile.
    pub(crate) fn pending_after_unlock(&self) -> bool {
        std::sync::atomic::fence(Ordering::SeqCst);
        !self.queue.is_empty()
    }
}

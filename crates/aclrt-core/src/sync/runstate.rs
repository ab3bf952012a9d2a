//! Where a pooled stream stands with the scheduler: idle, queued to run, running on a worker,
//! or suspended on something it waits for.
//!
//! A stream run by the pool (`exec::pool`) has no thread of its own. Whoever makes it
//! runnable (a submitter, a completed record, an abort) moves it into `QUEUED` and puts it on
//! the ready queue; only the party whose compare-exchange made that move does so.
//!
//! # Invariants
//! - **A stream is scheduled on at most one worker.** Only a move into `QUEUED` (or a worker
//!   re-claiming its own stream, into `RUNNING`) lets anyone run the stream, and each such
//!   move is one compare-exchange from `IDLE` or `SUSPENDED`, which only the running worker
//!   enters: so at any time at most one party holds the stream.
//! - **A suspended stream is re-queued exactly once per wake.** Leaving `SUSPENDED` is a
//!   compare-exchange: of the wakers that fire and the worker that re-checks after
//!   registering, exactly one wins; the others do nothing.
//! - **No lost wake-up between "target not done" and "register waker".** The worker publishes
//!   `SUSPENDED` (and registers its waker) before its last check of the condition, with a
//!   `SeqCst` fence between; a producer makes the condition true before it looks for wakers
//!   (`WaitList::wake_when`). Likewise a submitter publishes its task before it reads the
//!   state and the worker publishes `IDLE` before it looks at the queue once more
//!   ([`RunState::ring`] / [`RunState::idle`], the `Doorbell` handshake).
//!
//! Model-checked with the ready queue in `tests/loom_pool.rs`.

use super::shim::{fence, AtomicU8, Ordering};

const IDLE: u8 = 0;
const QUEUED: u8 = 1;
const RUNNING: u8 = 2;
const SUSPENDED: u8 = 3;

/// See the module documentation.
#[derive(Debug)]
pub struct RunState(AtomicU8);

impl Default for RunState {
    fn default() -> Self {
        Self::new()
    }
}

impl RunState {
    /// An idle stream.
    pub fn new() -> Self {
        Self(AtomicU8::new(IDLE))
    }

    fn claim(&self, from: u8, to: u8) -> bool {
        self.0
            .compare_exchange(from, to, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    }

    /// Submitter side, after its work is published: `true` means this caller alone must put
    /// the stream on the ready queue.
    pub fn ring(&self) -> bool {
        fence(Ordering::SeqCst);
        self.0.load(Ordering::SeqCst) == IDLE && self.claim(IDLE, QUEUED)
    }

    /// Worker side: it took the stream off the ready queue (or was handed it) and runs it.
    pub fn start(&self) {
        self.0.store(RUNNING, Ordering::SeqCst);
    }

    /// Worker side, having found no work: the stream becomes idle unless `has_work()` finds
    /// work that arrived meanwhile and the worker re-claims the stream; `true` means it did
    /// and goes on running it. After `false` the worker must not touch the stream's queue.
    pub fn idle(&self, has_work: impl Fn() -> bool) -> bool {
        self.0.store(IDLE, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        has_work() && self.claim(IDLE, RUNNING)
    }

    /// Worker side: the task at the head waits for something not yet done. Call before
    /// registering the waker; then [`RunState::resume_self`] if the condition held on the
    /// check after registering.
    pub fn suspend(&self) {
        self.0.store(SUSPENDED, Ordering::SeqCst);
    }

    /// Worker side, after [`RunState::suspend`]: the condition already holds. `true` means the
    /// worker goes on running the stream; `false` that a waker won and queued it.
    pub fn resume_self(&self) -> bool {
        self.claim(SUSPENDED, RUNNING)
    }

    /// Waker side (a completion, an abort): `true` means this caller alone must put the
    /// stream on the ready queue. Does nothing for a stream that is not suspended (a stale or
    /// repeated wake-up).
    pub fn wake(&self) -> bool {
        self.claim(SUSPENDED, QUEUED)
    }

    /// Worker side: it leaves a stream that still has work (its turn is over) and puts it back
    /// on the ready queue itself; submitters meanwhile see it queued and do nothing.
    pub fn requeue(&self) {
        self.0.store(QUEUED, Ordering::SeqCst);
    }

    /// Submitter side, after [`RunState::ring`] said to queue the stream but no worker could be
    /// had: the caller has discarded what was queued and hands the duty back. `true` means
    /// more work arrived meanwhile and the caller holds the duty again.
    pub fn give_up(&self, has_work: impl Fn() -> bool) -> bool {
        self.0.store(IDLE, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        has_work() && self.claim(IDLE, QUEUED)
    }
}

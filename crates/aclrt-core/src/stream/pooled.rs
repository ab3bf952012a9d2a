//! Running a stream on the runtime's pool (`Scheduler::Pool`).
//!
//! The stream is a job of `exec::pool`: a turn takes tasks off the queue and runs them in
//! order, as a worker thread would, until the queue is empty, the head waits for something not
//! yet done, or its turn is over while other streams wait. Its `sync::RunState` says who holds
//! it; the tasks taken but not run stay in `head`, in order, between turns.
//!
//! # Invariants
//! - A stream runs on at most one worker at a time, so its tasks run strictly in order: only
//!   the holder of the run state (`RUNNING`) touches `head` or pops the queue, and it touches
//!   nothing of the stream once it has let go (idle, suspended, re-queued).
//! - A suspended stream is re-queued exactly once per wake: the waker it left (see
//!   `exec::Blocker`) and an abort both go through `RunState::wake`.
//! - No lost wake-up: `head` is stored and `SUSPENDED` published before the waker is
//!   registered, and the blocker (or an abort) is checked once more after that.
//! - Closing: once closed and empty, the turn that finds it so sets `drained`, which joining
//!   the stream waits for; a stream that never ran is drained by the close itself.

use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::Stream;
use crate::codes::ACL_ERROR_RT_RESOURCE_ALLOC_FAIL;
use crate::exec::{self, pool};
use crate::observe;
use crate::sync::{lock, SpinPolicy, Waker};
use crate::task_info::TaskKind;

/// Spins an emptied stream's worker looks for more of its work before the stream goes idle.
const LINGER_SPINS: u32 = 256;

/// Tasks a turn runs before it lets other waiting streams go first.
const TURN_TASKS: usize = 256;

thread_local! {
    /// The stream whose turn this thread runs now, if any (so a task that destroys its own
    /// stream does not wait for itself).
    static CURRENT: Cell<*const Stream> = const { Cell::new(std::ptr::null()) };
}

/// Marks the stream as this thread's current one for a turn.
struct Turn(*const Stream);

impl Turn {
    fn enter(stream: &Stream) -> Self {
        Turn(CURRENT.with(|c| c.replace(stream)))
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        CURRENT.with(|c| c.set(self.0));
    }
}

impl pool::Job for Stream {
    fn run(self: Arc<Self>) {
        self.run_turn();
    }
}

impl Stream {
    /// Puts the stream (whose run state this caller just moved to `QUEUED`) on the pool. When
    /// no worker can be had, everything queued is discarded with the failure, as when a
    /// threaded stream's worker is refused.
    pub(super) fn schedule(self: &Arc<Self>) -> crate::error::Result<()> {
        let pool = self
            .pool
            .as_ref()
            .expect("only pooled streams are scheduled");
        let job: Arc<dyn pool::Job> = self.clone();
        let Err(refused) = pool.push(job, true) else {
            return Ok(());
        };
        loop {
            let error = self.refused_pooled(&refused);
            // Work queued meanwhile by other submitters rang no further: it is discarded too.
            if !self.run_state.give_up(|| self.has_work()) {
                return Err(error);
            }
        }
    }

    /// The pool could not start a worker: what is queued (and kept in `head`) is discarded
    /// with the failure, which the next synchronise reports.
    fn refused_pooled(&self, refused: &std::io::Error) -> crate::error::Error {
        let message = format!(
            "the OS refused to start a worker thread for stream {} ({refused}); the queued \
             work was discarded",
            self.id
        );
        let failure = self.failure_for(0, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, &message, 0);
        let mut head = std::mem::take(&mut *lock(&self.head));
        while let Some(task) = head.pop_front().or_else(|| self.queue.try_pop()) {
            if observe::enabled() {
                observe::task_discarded(self.task_ref(task.id), task.kind, failure.code);
            }
            exec::discard(task.work, &failure);
            self.progress.retire(task.id);
        }
        self.failures.note(failure);
        if self.queue.is_closed() {
            // Nothing more can be queued: this was the last of it.
            self.drained.set();
        }
        crate::error::Error::new(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, message)
    }

    /// Whether a turn has something to do: queued tasks, or a close to finish.
    fn has_work(&self) -> bool {
        !self.queue.is_empty() || (self.queue.is_closed() && !self.drained.is_set())
    }

    /// The waker a suspended stream leaves with what it waits for: one per stream, made at
    /// its first suspension (it holds the stream weakly, so it keeps nothing alive).
    fn waker(self: &Arc<Self>) -> Waker {
        self.waker
            .get_or_init(|| {
                let me = Arc::downgrade(self);
                Arc::new(move || {
                    if let Some(stream) = me.upgrade() {
                        if stream.run_state.wake() {
                            let _ = stream.schedule();
                        }
                    }
                })
            })
            .clone()
    }

    /// `wake_worker` of a pooled stream: a suspended stream is queued (it re-checks its head
    /// and its abort state), and idle workers are unparked so one blocked inside a task of the
    /// stream re-checks its give-up condition.
    pub(super) fn wake_pooled(&self, pool: &pool::Pool) {
        if self.run_state.wake() {
            // Suspended, so it was scheduled before and knows itself.
            if let Some(me) = self.me.upgrade() {
                let _ = me.schedule();
            }
        }
        pool.unpark_workers();
    }

    /// `close` of a pooled stream: it is queued once more so a turn finds it closed and sets
    /// `drained`; a stream with nothing queued and nobody running it is drained at once.
    pub(super) fn close_pooled(&self, pool: &pool::Pool) {
        if self.run_state.ring() {
            if self.queue.is_empty() && lock(&self.head).is_empty() {
                self.drained.set();
                self.run_state.give_up(|| false);
            } else if let Some(me) = self.me.upgrade() {
                let _ = me.schedule();
            }
        } else {
            self.wake_pooled(pool);
        }
    }

    /// `join_worker` of a pooled stream: waits until it is closed and drained (not from a task
    /// of the stream itself).
    pub(super) fn join_pooled(&self) {
        if CURRENT
            .try_with(|c| std::ptr::eq(c.get(), self))
            .unwrap_or(false)
        {
            return;
        }
        self.drained.wait(None, SpinPolicy::Brief);
    }

    /// Before letting an empty stream go idle, looks at its queue a little longer while no
    /// other stream waits for a worker (queued or handed off): a submitter that is about to queue more then needs
    /// no trip through the ready queue (as a threaded stream's worker spins before parking).
    fn linger(&self, pool: &pool::Pool) -> bool {
        if pool::holds_hand_off() {
            return false;
        }
        for i in 0..LINGER_SPINS {
            if !self.queue.is_empty() {
                return true;
            }
            if pool.has_waiting_jobs() || self.queue.is_closed() {
                return false;
            }
            if i % 16 == 15 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        }
        false
    }

    /// One turn on a pool worker; see the module documentation.
    fn run_turn(self: Arc<Self>) {
        let pool = self.pool.clone().expect("only pooled streams run turns");
        self.run_state.start();
        let _turn = Turn::enter(&self);
        let mut batch = std::mem::take(&mut *lock(&self.head));
        let mut ran = 0;
        loop {
            // Straight off the queue, one at a time: a task is moved once less than through a
            // batch, and `batch` only ever holds what a suspension kept in `head`.
            let Some(mut task) = batch.pop_front().or_else(|| self.queue.try_pop()) else {
                if self.queue.is_closed() && !self.drained.is_set() {
                    // `closed` is set after the last push: empty now means empty for good.
                    if self.queue.is_empty() {
                        self.drained.set();
                    }
                    continue;
                }
                if self.linger(&pool) || self.run_state.idle(|| self.has_work()) {
                    continue;
                }
                return;
            };
            if !self.is_aborting() {
                if observe::enabled()
                    && self.announced.load(Ordering::Relaxed) != task.id + 1
                    && matches!(task.work, exec::Work::Callback { block: true, .. })
                {
                    // Delivering is part of the task, as on a blocked worker.
                    observe::task_started(self.task_ref(task.id), task.kind);
                    self.announced.store(task.id + 1, Ordering::Relaxed);
                }
                exec::begin(&mut task.work, &*self, task.id);
                if let Some(blocker) = exec::blocker(&mut task.work) {
                    if observe::enabled() && self.announced.load(Ordering::Relaxed) != task.id + 1 {
                        // The wait begins now, as a blocked worker's would.
                        observe::task_started(self.task_ref(task.id), task.kind);
                        self.announced.store(task.id + 1, Ordering::Relaxed);
                    }
                    batch.push_front(task);
                    *lock(&self.head) = batch;
                    self.run_state.suspend();
                    if blocker.wake_when(|| self.is_aborting(), self.waker())
                        || !self.run_state.resume_self()
                    {
                        // A waker (now or later) queues the stream again.
                        return;
                    }
                    batch = std::mem::take(&mut *lock(&self.head));
                    continue;
                }
            }
            // User code may block, and so may a wait that runs in place (one with a timeout):
            // a job handed to this worker must not sit behind either. A wait without one got
            // here only because its target is done (`exec::blocker`): it returns at once.
            let may_block = match &task.work {
                exec::Work::Wait { timeout, .. } => timeout.is_some(),
                exec::Work::StreamWait { .. } | exec::Work::CallbackDelivered { .. } => false,
                _ => !matches!(
                    task.kind,
                    TaskKind::Memcpy | TaskKind::Memset | TaskKind::Record | TaskKind::Reset
                ),
            };
            pool::task_begins(&pool, may_block);
            self.run(task);
            pool::task_ends();
            ran += 1;
            if ran >= TURN_TASKS && pool.has_waiting_jobs() {
                *lock(&self.head) = batch;
                self.run_state.requeue();
                let job: Arc<dyn pool::Job> = self.clone();
                // This worker exists, so the push cannot fail.
                let _ = pool.push(job, false);
                return;
            }
        }
    }
}

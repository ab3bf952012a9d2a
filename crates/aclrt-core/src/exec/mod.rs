//! The executor seam: how a stream's tasks are performed.
//!
//! A stream (the model) takes its tasks in order, decides whether each runs or is discarded,
//! and handles a failed task; *performing* a task is the executor's job, one handler per kind
//! of [`Work`] behind the [`Executor`] trait. Host threads ([`host::HostThreads`]) are the
//! implementation: copies are `memcpy`, kernels are called, waits block the thread that runs
//! them. Who runs a stream's tasks is the scheduler's: a thread per stream, or the pool
//! ([`pool`]), which asks [`blocker`] before a wait runs and suspends the stream instead of
//! blocking while its target is not done ([`begin`] delivers a blocking callback first, so
//! that its completion is such a target).
//!
//! This layer names no model type: a handler learns what it needs of the stream that runs the
//! task through [`Site`] and of an event through [`EventSide`], both implemented by the model.
//! [`execute`] is the one place that matches on a task's kind to run it, [`discard`] the one
//! that drops it.
//!
//! # Invariants
//! - Every task is either executed or discarded, exactly once, by the stream's own runner;
//!   either way its record completes and its wait is counted off, so nothing waits forever on
//!   a task that will never run.
//! - Handlers hold no runtime lock while they run user code or block (a kernel may call the
//!   runtime; see `sync::order`).

pub(crate) mod host;
pub(crate) mod pool;
pub(crate) mod progress;
pub(crate) mod record;
pub(crate) mod task;

use std::sync::Arc;
use std::time::Duration;

use crate::callback::CallbackDone;
use crate::error::{AclError, Failure};
use crate::observe::TaskRef;
use crate::sync::{Latch, Waker};
use crate::task_info::{HostFn, KernelFn};

pub(crate) use progress::Progress;
pub(crate) use record::{FailureSlot, RecordState, SyncFlag};
pub(crate) use task::{Channel, Task, WaitTarget, Work};

/// What a task ended with: `Err((code, message))` fails it.
pub(crate) type Outcome = Result<(), (AclError, String)>;

/// The executor every stream uses (a unit value).
pub(crate) use host::HostThreads as Active;

/// What a handler may ask of the stream that runs its task.
pub(crate) trait Site {
    /// Task `task_id` of this stream, as observers name it.
    fn task_ref(&self, task_id: u64) -> TaskRef;
    /// Whether the stream is dropping its work (abort, stop, forced destroy, stopped context):
    /// a task that waits for something gives up its wait. Whoever makes it true unparks the
    /// stream's runner.
    fn dropping_work(&self) -> bool;
    /// The stream's pending failure, which a record's capture includes.
    fn pending_failure(&self) -> Option<Failure>;
    /// Hands a callback that became due to the thread subscribed to the stream through
    /// `channel`.
    fn deliver_callback(
        &self,
        task_id: u64,
        body: HostFn,
        done: Option<Arc<CallbackDone>>,
        channel: Channel,
    ) -> Outcome;
}

/// What a record, wait or reset task needs of its event.
pub(crate) trait EventSide: Send + Sync {
    /// `aclrtGetEventId`, for messages.
    fn id(&self) -> u32;
    /// The event's legacy SYNC flag.
    fn flag(&self) -> &SyncFlag;
    /// The latest record, if any.
    fn latest(&self) -> Option<Arc<RecordState>>;
    /// A wait queued on the event has executed or been discarded.
    fn wait_executed(&self);
    /// A reset of a legacy SYNC event executes: the flag clears and a finished record is
    /// forgotten.
    fn reset_executed(&self);
}

/// How each kind of task is performed. `site` is the stream running the task, `task_id` its
/// sequence number there.
pub(crate) trait Executor {
    fn kernel(&self, task_id: u64, kernel: KernelFn) -> Outcome;
    fn copy(&self, dst: usize, src: usize, len: usize) -> Outcome;
    fn set(&self, dst: usize, value: u8, len: usize) -> Outcome;
    fn record(&self, site: &dyn Site, record: &RecordState, flag: Option<&SyncFlag>) -> Outcome;
    fn wait(
        &self,
        site: &dyn Site,
        task_id: u64,
        target: &WaitTarget,
        event: &dyn EventSide,
        timeout: Option<Duration>,
    ) -> Outcome;
    fn reset(&self, event: &dyn EventSide) -> Outcome;
    fn callback(
        &self,
        site: &dyn Site,
        task_id: u64,
        body: HostFn,
        block: bool,
        channel: Channel,
    ) -> Outcome;
    /// The second half of a blocking callback, delivered already: waits for it to finish.
    fn callback_await(&self, site: &dyn Site, task_id: u64, done: &CallbackDone) -> Outcome;
    fn host_func(&self, task_id: u64, body: HostFn) -> Outcome;
    fn stream_wait(&self, site: &dyn Site, task_id: u64, other: &Progress, until: u64) -> Outcome;
}

/// Performs `work`, task `task_id` of `site`, with `executor`'s handler for its kind.
pub(crate) fn execute(
    executor: &impl Executor,
    site: &dyn Site,
    task_id: u64,
    work: Work,
) -> Outcome {
    match work {
        Work::Kernel(kernel) => executor.kernel(task_id, kernel),
        Work::Copy {
            dst,
            src,
            len,
            keep,
        } => {
            let outcome = executor.copy(dst, src, len);
            // Only now may the library a side lies in close.
            drop(keep);
            outcome
        }
        Work::Set { dst, value, len } => executor.set(dst, value, len),
        Work::Record(record, flag_of) => {
            executor.record(site, &record, flag_of.as_deref().map(|e| e.flag()))
        }
        Work::Wait {
            target,
            event,
            timeout,
        } => {
            let outcome = executor.wait(site, task_id, &target, &*event, timeout);
            event.wait_executed();
            outcome
        }
        Work::Reset(event) => executor.reset(&*event),
        Work::Callback {
            body,
            block,
            channel,
        } => executor.callback(site, task_id, body, block, channel),
        Work::CallbackDelivered { delivered, done } => {
            delivered?;
            executor.callback_await(site, task_id, &done)
        }
        Work::HostFunc(body) => executor.host_func(task_id, body),
        Work::StreamWait { stream, until } => executor.stream_wait(site, task_id, &stream, until),
    }
}

/// What a task at the head of a stream waits for while it is not done: a pooled stream
/// suspends on it instead of blocking its worker.
pub(crate) enum Blocker {
    Record(Arc<RecordState>),
    Flag(Arc<Latch>),
    Retired(Arc<Progress>, u64),
    Callback(Arc<CallbackDone>),
}

/// What `work` would block on if it ran now; `None` when it would not block, or when it must
/// block in place (a wait with a timeout, which the pool's monitor makes up for). A legacy
/// flag wait begins here: it keeps the latch the flag holds now, as a blocked wait would.
pub(crate) fn blocker(work: &mut Work) -> Option<Blocker> {
    match work {
        Work::Wait {
            target,
            event,
            timeout: None,
        } => match target {
            WaitTarget::Snapshot(record) => {
                (!record.is_done()).then(|| Blocker::Record(record.clone()))
            }
            WaitTarget::Flag => {
                // Pinned whether set or not: the wait that runs must test this latch, not
                // the flag again (a reset in between would swap in an unset one).
                let latch = event.flag().current();
                *target = WaitTarget::Began(latch.clone());
                (!latch.is_set()).then_some(Blocker::Flag(latch))
            }
            WaitTarget::Began(latch) => (!latch.is_set()).then(|| Blocker::Flag(latch.clone())),
        },
        Work::StreamWait { stream, until } => {
            (stream.retired() < *until).then(|| Blocker::Retired(stream.clone(), *until))
        }
        Work::CallbackDelivered {
            delivered: Ok(()),
            done,
        } => (!done.is_finished()).then(|| Blocker::Callback(done.clone())),
        _ => None,
    }
}

/// The first step of a task that reached the head of a pooled stream, taken once, before
/// [`blocker`]: a blocking callback is delivered to its thread now (as a blocked worker
/// would), and the task becomes the wait for it ([`Work::CallbackDelivered`]).
pub(crate) fn begin(work: &mut Work, site: &dyn Site, task_id: u64) {
    if !matches!(work, Work::Callback { block: true, .. }) {
        return;
    }
    let placeholder = Work::Copy {
        dst: 0,
        src: 0,
        len: 0,
        keep: None,
    };
    let Work::Callback { body, channel, .. } = std::mem::replace(work, placeholder) else {
        unreachable!("matched above")
    };
    let done = Arc::new(CallbackDone::default());
    let delivered = site.deliver_callback(task_id, body, Some(done.clone()), channel);
    *work = Work::CallbackDelivered { delivered, done };
}

impl Blocker {
    /// Registers `waker` for when the blocker is done; `false` if it is done (or `also()`
    /// holds) already, see `sync::WaitList::wake_when`.
    pub(crate) fn wake_when(&self, also: impl Fn() -> bool, waker: Waker) -> bool {
        match self {
            Blocker::Record(record) => record.done().wake_when(also, waker),
            Blocker::Flag(latch) => latch.wake_when(also, waker),
            Blocker::Retired(progress, until) => progress.wake_when_retired(*until, also, waker),
            Blocker::Callback(done) => done.latch().wake_when(also, waker),
        }
    }
}

/// Drops work without running it, releasing anything that waits for it.
pub(crate) fn discard(work: Work, failure: &Failure) {
    match work {
        Work::Record(record, flag_of) => {
            record.complete(Some(failure.clone()), flag_of.as_deref().map(|e| e.flag()))
        }
        Work::Wait { event, .. } => event.wait_executed(),
        Work::Kernel(_)
        | Work::Copy { .. }
        | Work::Set { .. }
        | Work::Reset(_)
        | Work::Callback { .. }
        | Work::CallbackDelivered { .. }
        | Work::HostFunc(_)
        | Work::StreamWait { .. } => {}
    }
}

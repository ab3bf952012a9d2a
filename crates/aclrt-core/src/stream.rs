//! Streams and their workers.
//!
//! Two ways to run a stream (`config::Scheduler`):
//! - **Threads**: each stream owns one worker thread, started with its first task, that runs
//!   the stream's tasks strictly in order and parks when the queue is empty. A stream blocked
//!   on an event holds only its own worker, so no wait order among streams can deadlock the
//!   device, and N streams really run N tasks at once.
//! - **Pool** (`stream/pooled.rs`): the stream is a queue that the runtime's pool
//!   (`exec::pool`) runs a turn at a time on whichever worker is free; a wait whose target is
//!   not done suspends the stream instead of blocking a worker.
//!
//! The stream decides, task by task, whether work runs or is discarded and what a failure
//! does; performing a task is the executor's (`exec`). Progress counters are `exec::Progress`.

use std::collections::VecDeque;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::callback::{CallbackDone, Subscriber};
use crate::codes::*;
use crate::consts::{ACL_STOP_ON_FAILURE, ACL_STREAM_FAST_SYNC};
use crate::context::{ContextOf, Member};
use crate::error::{err, AclError, Failure, Result};
use crate::exec::{self, Channel, FailureSlot, Outcome, Progress, Site, Task, Work};
use crate::handle::StreamHandle;
use crate::observe::{self, TaskRef};
use crate::policy::LegacySync;
use crate::res_limit::CoreLimits;
use crate::sync::{lock, Latch, Ring, RunState, SpinPolicy, WorkQueue};
use crate::task_info::{HostFn, TaskKind, TaskMeta};

/// A context of this crate: its members are streams.
pub(crate) type Context = ContextOf<Stream>;

mod control;
mod pooled;

/// Most tasks the worker takes off the queue before running them.
const WORKER_BATCH: usize = 64;

/// A stream: an in-order task queue with its worker.
pub(crate) struct Stream {
    pub(crate) handle: StreamHandle,
    pub(crate) id: u32,
    pub(crate) context: Arc<Context>,
    pub(crate) is_default: bool,
    /// 0 (highest) to 7: set at creation, changed by `aclrtSetStreamAttribute`.
    pub(crate) priority: AtomicU32,
    /// `ACL_STREAM_ATTR_USER_CUSTOM_TAG`: kept for the program, 0 until set.
    pub(crate) user_tag: AtomicU32,
    /// `ACL_STREAM_ATTR_CACHE_OP_INFO`: 0 or 1, kept for the program, 0 until set.
    pub(crate) cache_op_info: AtomicU32,
    pub(crate) flags: u32,
    /// Whether it synchronises with a legacy default stream (CUDA contexts only).
    pub(crate) legacy_sync: LegacySync,
    /// The tasks between submitters and the worker: pushing never waits for the worker, the
    /// worker parks when it finds none (`sync::WorkQueue`, model-checked).
    queue: WorkQueue<Task>,
    /// Serialises submitters so task ids follow queue order; holds "closed" for them.
    submit_lock: Mutex<bool>,
    /// Tasks queued and retired; shared with implicit waits of other streams.
    pub(crate) progress: Arc<Progress>,
    worker_join: Mutex<Option<JoinHandle<()>>>,
    aborted: AtomicBool,
    failure_mode: OnceLock<u32>,
    /// What the next synchronise reports; records capture it.
    pub(crate) failures: Arc<FailureSlot>,
    pub(crate) subscriber: Mutex<Option<Arc<Subscriber>>>,
    /// The thread that runs the stream's host functions (`aclrtSubscribeHostFunc`), if any;
    /// without one they run on a runtime thread.
    pub(crate) host_func_subscriber: Mutex<Option<Arc<Subscriber>>>,
    /// Core limits of this stream (`aclrtSetStreamResLimit`); unset ones follow the device.
    pub(crate) core_limits: CoreLimits,
    /// `aclrtSetStreamOverflowSwitch`: overflow detection of the stream's tasks, 0 or 1.
    pub(crate) overflow_switch: AtomicU32,
    /// The pool that runs the stream, if the runtime pools its streams (else it has a thread).
    pool: Option<Arc<exec::pool::Pool>>,
    /// Pooled: where the stream stands with the pool.
    run_state: RunState,
    /// Pooled: tasks taken off the queue but not yet run, kept while the stream is suspended
    /// or waits for its next turn (its head first).
    head: Mutex<VecDeque<Task>>,
    /// Pooled: set once the stream is closed and everything queued has retired (what joining
    /// its worker thread is for a threaded stream).
    drained: Latch,
    /// Pooled: 1 + the id of the task whose start observers were told of when it suspended
    /// (a wait begins when it first reaches the head, as a blocked wait would), so that
    /// running it later does not announce it twice; 0 when none.
    announced: std::sync::atomic::AtomicU64,
    /// Pooled: the stream itself, known from its first scheduling on (a job is an `Arc`).
    me: std::sync::Weak<Stream>,
    /// Pooled: the waker a suspension leaves, made once (a suspension then costs a reference
    /// count, not an allocation).
    waker: OnceLock<crate::sync::Waker>,
}

impl Stream {
    /// A stream, knowing itself from birth (a pooled stream hands itself to the pool as a
    /// job from wherever it is woken, its first scheduling included).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new_arc(
        handle: StreamHandle,
        id: u32,
        context: Arc<Context>,
        is_default: bool,
        priority: u32,
        flags: u32,
        legacy_sync: LegacySync,
    ) -> Arc<Self> {
        Arc::new_cyclic(|me| {
            let mut stream = Self::new(
                handle,
                id,
                context,
                is_default,
                priority,
                flags,
                legacy_sync,
            );
            stream.me = me.clone();
            stream
        })
    }

    fn new(
        handle: StreamHandle,
        id: u32,
        context: Arc<Context>,
        is_default: bool,
        priority: u32,
        flags: u32,
        legacy_sync: LegacySync,
    ) -> Self {
        // In a CUDA context every task failure is sticky, as device faults are there: its
        // streams are born in stop-on-failure mode.
        let failure_mode = OnceLock::new();
        if context.policy.failures_stop_the_context {
            let _ = failure_mode.set(ACL_STOP_ON_FAILURE);
        }
        let progress = Arc::new(Progress::new(TaskRef {
            device_id: context.device.id,
            stream_id: id,
            stream: handle.as_raw(),
            task_id: 0,
        }));
        Self {
            handle,
            id,
            is_default,
            priority: AtomicU32::new(priority),
            user_tag: AtomicU32::new(0),
            cache_op_info: AtomicU32::new(0),
            flags,
            legacy_sync,
            queue: WorkQueue::new(),
            submit_lock: Mutex::new(false),
            progress,
            worker_join: Mutex::new(None),
            aborted: AtomicBool::new(false),
            failure_mode,
            failures: Arc::default(),
            subscriber: Mutex::new(None),
            host_func_subscriber: Mutex::new(None),
            core_limits: CoreLimits::unset(),
            overflow_switch: AtomicU32::new(0),
            pool: context.device.pool.clone(),
            run_state: RunState::new(),
            head: Mutex::new(VecDeque::new()),
            drained: Latch::new(),
            announced: std::sync::atomic::AtomicU64::new(0),
            me: std::sync::Weak::new(),
            waker: OnceLock::new(),
            context,
        }
    }

    /// Queues a task; returns its task id.
    pub(crate) fn submit(
        self: &Arc<Self>,
        kind: TaskKind,
        work: Work,
        meta: TaskMeta,
    ) -> Result<u64> {
        if self.context.stopped().is_some() {
            return err(
                ACL_ERROR_RT_STREAM_ABORT,
                "the context stopped after a task failure (stop-on-failure mode): no new work is accepted",
            );
        }
        if self.aborted.load(Ordering::Acquire) {
            return err(ACL_ERROR_RT_STREAM_ABORT, "the stream is being aborted");
        }
        let tracing = observe::enabled();
        let submit_start = if tracing { observe::now_ns() } else { 0 };
        let id = {
            let closed = lock(&self.submit_lock);
            if *closed {
                return err(ACL_ERROR_RT_INVALID_HANDLE, "the stream has been destroyed");
            }
            let id = self.progress.submitted();
            if tracing {
                observe::task_submitted(self.task_ref(id), kind, &meta, submit_start);
            }
            self.queue.push(Task {
                id,
                kind,
                submitter_thread: meta.submitter_thread,
                work,
            });
            self.progress.submitted_one(id);
            id
        };
        crate::thread_state::note_task_queued(id);
        if self.pool.is_some() {
            if self.run_state.ring() {
                self.schedule()?;
            }
        } else if self.queue.notify() == Ring::Start {
            if let Err(refused) = self.spawn_worker() {
                return Err(self.worker_refused(&refused));
            }
        }
        Ok(id)
    }

    /// Queues the implicit waits a legacy default stream needs before new work on this stream
    /// (contexts with that policy only): work on the legacy stream first waits for every busy
    /// blocking stream, work on a blocking stream first waits for a busy legacy stream.
    /// Expressed as `StreamWait` tasks queued just before.
    pub(crate) fn add_implicit_waits(self: &Arc<Self>) -> Result<()> {
        let stream = self;
        let ctx = &stream.context;
        if !ctx.policy.legacy_default_stream {
            return Ok(());
        }
        let waits: Vec<Arc<Stream>> = if stream.is_default {
            ctx.streams_where(|s| {
                s.legacy_sync == LegacySync::Blocking && !s.is_default && !s.is_idle()
            })
        } else if stream.legacy_sync == LegacySync::Blocking {
            ctx.default_stream()
                .filter(|legacy| !legacy.is_idle())
                .into_iter()
                .collect()
        } else {
            Vec::new()
        };
        for other in waits {
            let until = other.submitted();
            stream.submit(
                TaskKind::StreamWait,
                Work::StreamWait {
                    stream: other.progress.clone(),
                    until,
                },
                TaskMeta::default(),
            )?;
        }
        Ok(())
    }

    fn spawn_worker(self: &Arc<Self>) -> std::io::Result<()> {
        let stream = Arc::clone(self);
        let name = format!("aclrt-stream-{}-{}", self.context.device.id, self.id);
        let handle = self
            .context
            .device
            .threads
            .spawn(name, Box::new(move || stream.run_worker()))?;
        // The worker registers itself as the queue's consumer before it can ever park.
        *lock(&self.worker_join) = Some(handle);
        Ok(())
    }

    /// The OS refused the worker thread this submitter was told to start: nothing will run the
    /// queue, so every task in it is discarded with the failure (records complete, waits are
    /// released, the next synchronise reports it) and the doorbell is handed back, so a later
    /// submit tries to start a worker again. Tasks queued meanwhile by other threads are
    /// discarded too, never stranded.
    fn worker_refused(&self, refused: &std::io::Error) -> crate::error::Error {
        let message = format!(
            "the OS refused to start the worker thread of stream {} ({refused}); the queued \
             work was discarded",
            self.id
        );
        let failure = self.failure_for(0, ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, &message, 0);
        loop {
            while let Some(task) = self.queue.try_pop() {
                if observe::enabled() {
                    observe::task_discarded(self.task_ref(task.id), task.kind, failure.code);
                }
                exec::discard(task.work, &failure);
                self.progress.retire(task.id);
            }
            self.failures.note(failure.clone());
            // A submit that rang while this thread held the start duty saw a running worker and
            // rang no further: `give_up_start` looks once more.
            if !self.queue.give_up_start() {
                break;
            }
        }
        crate::error::Error::new(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, message)
    }

    /// Task `task_id` of this stream, as observers name it.
    pub(crate) fn task_ref(&self, task_id: u64) -> TaskRef {
        self.progress.task_ref(task_id)
    }

    /// Unparks the worker so it re-checks its queue and abort conditions (pooled: queues the
    /// stream if it is suspended).
    pub(crate) fn wake_worker(&self) {
        match &self.pool {
            Some(pool) => self.wake_pooled(pool),
            None => self.queue.wake(),
        }
    }

    fn run_worker(self: Arc<Self>) {
        // Registered before the worker can ever sleep, so a wake-up always finds the thread.
        self.queue.register_current_consumer();
        let mut batch = VecDeque::with_capacity(WORKER_BATCH);
        while self.queue.take(&mut batch, WORKER_BATCH, || {
            self.aborted.load(Ordering::Relaxed)
        }) {
            while let Some(task) = batch.pop_front() {
                self.run(task);
            }
        }
    }

    /// Whether queued work should be dropped instead of run.
    fn abort_reason(&self) -> Option<Failure> {
        if let Some(f) = self.context.stopped() {
            return Some(f.clone());
        }
        if self.aborted.load(Ordering::Acquire) {
            return Some(self.failure_for(
                0,
                ACL_ERROR_RT_STREAM_ABORT,
                "the stream was aborted, stopped or destroyed with work still queued",
                0,
            ));
        }
        None
    }

    fn is_aborting(&self) -> bool {
        self.aborted.load(Ordering::Acquire) || self.context.stopped().is_some()
    }

    fn failure_for(&self, task_id: u64, code: AclError, message: &str, thread_id: u32) -> Failure {
        Failure {
            code,
            message: message.to_owned(),
            task_id,
            stream_id: self.id,
            device_id: self.context.device.id,
            thread_id,
            kernel: None,
        }
    }

    fn run(&self, task: Task) {
        let Task {
            id,
            kind,
            submitter_thread,
            work,
        } = task;
        if let Some(failure) = self.abort_reason() {
            if observe::enabled() {
                observe::task_discarded(self.task_ref(id), kind, failure.code);
            }
            exec::discard(work, &failure);
            // A synchronise that covers discarded work reports the discard, never success.
            self.failures.note(failure);
            self.progress.retire(id);
            return;
        }
        let tracing = observe::enabled();
        if tracing && self.announced.load(Ordering::Relaxed) != id + 1 {
            observe::task_started(self.task_ref(id), kind);
        }
        // Work that writes device memory passes the memory's gate: an export never moves pages
        // under it (`memory::writers`). Copies and sets only where they write; host functions
        // and callbacks are the program's host code (the runtime calls they make pass the
        // gate themselves), and they may wait for the thread that exports.
        let gate = crate::memory::writers::gate();
        let writer = match &work {
            exec::Work::Kernel(_) => Some(gate.enter()),
            exec::Work::Copy { dst, len, .. } | exec::Work::Set { dst, len, .. } => {
                Some(gate.enter_range(*dst, *len))
            }
            _ => None,
        };
        let outcome = exec::execute(&exec::Active, self, id, work);
        drop(writer);
        if tracing {
            observe::task_finished(self.task_ref(id), kind, outcome.as_ref().err());
        }
        if let Err((code, message)) = outcome {
            let mut failure = self.failure_for(id, code, &message, submitter_thread);
            failure.kernel = crate::kernel::failed_kernel();
            self.fail(failure);
            crate::kernel::forget_failed_kernel();
        }
        self.progress.retire(id);
    }

    fn fail(&self, failure: Failure) {
        self.context.device.exceptions.report(&failure);
        self.failures.note(failure.clone());
        if self.failure_mode.get() == Some(&ACL_STOP_ON_FAILURE) {
            self.context.stop(failure);
        }
    }

    /// The failure mode (`ACL_CONTINUE_ON_FAILURE` until set).
    pub(crate) fn failure_mode(&self) -> u32 {
        self.failure_mode
            .get()
            .copied()
            .unwrap_or(crate::consts::ACL_CONTINUE_ON_FAILURE)
    }

    /// Sets the failure mode; only once per stream.
    pub(crate) fn set_failure_mode(&self, mode: u32) -> Result<()> {
        self.failure_mode.set(mode).or_else(|_| {
            err(
                ACL_ERROR_RT_PARAM_INVALID,
                "the failure mode of a stream can be set only once",
            )
        })
    }

    /// Task ids handed out so far.
    pub(crate) fn submitted(&self) -> u64 {
        self.progress.submitted()
    }

    pub(crate) fn is_idle(&self) -> bool {
        self.progress.is_idle()
    }

    /// Waits until every task submitted before the call has retired; `false` on timeout.
    pub(crate) fn wait_idle(&self, deadline: Option<Instant>) -> bool {
        let target = self.submitted();
        let spin = if self.flags & ACL_STREAM_FAST_SYNC != 0 {
            SpinPolicy::Always
        } else {
            SpinPolicy::Brief
        };
        self.progress.wait_retired(target, || false, deadline, spin)
    }

    /// The failure a synchronise must report now, cleared for continue-mode streams.
    pub(crate) fn take_failure(&self) -> Option<Failure> {
        if let Some(f) = self.context.stopped() {
            return Some(f.clone());
        }
        self.failures.take()
    }

    /// Stops accepting work; with `discard`, queued tasks are dropped (their waiters released)
    /// and only a task already running finishes.
    pub(crate) fn close(&self, discard: bool) {
        if discard {
            self.aborted.store(true, Ordering::SeqCst);
        }
        *lock(&self.submit_lock) = true;
        self.queue.close();
        if let Some(pool) = &self.pool {
            self.close_pooled(pool);
        }
    }

    /// Waits for the worker thread to exit (after [`Stream::close`]). Must not be called from
    /// the worker itself.
    pub(crate) fn join_worker(&self) {
        if self.pool.is_some() {
            self.join_pooled();
            return;
        }
        let handle = lock(&self.worker_join).take();
        if let Some(handle) = handle {
            if handle.thread().id() != std::thread::current().id() {
                let _ = handle.join();
            }
        }
    }

    /// Tasks submitted but not yet retired.
    pub(crate) fn pending(&self) -> u64 {
        self.progress.pending()
    }
}

impl Site for Stream {
    fn task_ref(&self, task_id: u64) -> TaskRef {
        self.progress.task_ref(task_id)
    }

    fn dropping_work(&self) -> bool {
        self.is_aborting()
    }

    fn pending_failure(&self) -> Option<Failure> {
        self.failures.get()
    }

    fn deliver_callback(
        &self,
        task_id: u64,
        body: HostFn,
        done: Option<Arc<CallbackDone>>,
        channel: Channel,
    ) -> Outcome {
        // Delivering under the subscription lock: an unsubscribe either happens before
        // (nothing to deliver to) or releases what was delivered.
        let subscription = lock(self.subscription(channel));
        let Some(subscriber) = subscription.as_ref() else {
            return Err((
                ACL_ERROR_RT_STREAM_NO_CB_REG,
                format!(
                    "callback (task {task_id}) became due after the stream was unsubscribed: \
                     it did not run"
                ),
            ));
        };
        subscriber.deliver(self.handle, self.task_ref(task_id), body, done)
    }
}

impl Stream {
    /// The stream's subscription slot for `channel`.
    pub(crate) fn subscription(&self, channel: Channel) -> &Mutex<Option<Arc<Subscriber>>> {
        match channel {
            Channel::Report => &self.subscriber,
            Channel::HostFunc => &self.host_func_subscriber,
        }
    }
}

impl Member for Stream {
    fn wake(&self) {
        self.wake_worker();
    }
}

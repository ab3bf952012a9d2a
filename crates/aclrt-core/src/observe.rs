//! Observers: what tools (the trace collector, a race checker, a user's own tool) see of the
//! runtime.
//!
//! The runtime reports, through one interface, every task with its kind, stream, submitting
//! thread and the memory it reads and writes; when each task starts, finishes or is discarded;
//! every happens-before edge that is not plain stream order (an event record releasing a wait,
//! a host thread learning that work completed, CUDA's legacy stream); synchronous copies and
//! sets made by host threads; callbacks run, host waits and failed calls.
//!
//! # Invariants
//! - With no observer installed, every hook costs one relaxed load and a branch
//!   ([`enabled`]).
//! - Events of one thread reach each observer in the order they happened on that thread.
//!   Observers are called on the thread where the event happened, while no runtime lock is held,
//!   and must not call back into the runtime.
//! - Stream order is implicit: task ids of one stream (a [`TaskRef`]'s `stream` and
//!   `task_id`) increase in submission order, and a stream runs its tasks in that order.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use crate::error::AclError;
use crate::task_info::{MemRange, TaskKind, TaskMeta};

/// One task, named so that it stays unique for a whole run: stream ids are reused after a
/// stream is destroyed, stream handles are not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TaskRef {
    /// Logical device.
    pub device_id: i32,
    /// Stream id (`aclrtStreamGetId`).
    pub stream_id: u32,
    /// Raw stream handle.
    pub stream: u64,
    /// Per-stream task sequence number.
    pub task_id: u64,
}

/// Where a happens-before edge starts or ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Point {
    /// A task (its completion, at the start of an edge; its start, at the end of one).
    Task(TaskRef),
    /// A host thread (OS thread id), at the moment of the event.
    Host(u32),
}

/// Why one point happens before another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EdgeKind {
    /// An event record released a stream wait (`aclrtStreamWaitEvent`, `cuStreamWaitEvent`).
    EventWait,
    /// A host thread learned that a task completed: a stream, event or device synchronise
    /// returned, or a query reported completion. Everything that thread does afterwards comes
    /// after the task.
    HostSync,
    /// CUDA's legacy default stream: a task waits for everything queued before it on another
    /// stream of the context.
    LegacyStream,
    /// A notify or counting notify record released a wait (`aclrtWaitAndResetNotify`,
    /// `aclrtCntNotifyWaitWithTimeout`).
    Notify,
    /// A memory value write released a value wait (`aclrtValueWrite` → `aclrtValueWait`).
    ValueWrite,
}

/// One thing that happened. Times are nanoseconds of the device clock ([`crate::now_ns`]);
/// thread ids are OS thread ids (`gettid`).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum Observed<'a> {
    /// A host thread queued a task (`start_ns..end_ns` covers taking the stream's queue).
    Submitted {
        /// The task.
        task: TaskRef,
        /// What it is.
        kind: TaskKind,
        /// Name, memory read and written, the event it refers to.
        meta: &'a TaskMeta,
        /// The submitting thread.
        thread_id: u32,
        /// The submit entered the stream.
        start_ns: u64,
        /// The task was queued.
        end_ns: u64,
    },
    /// A task began to run.
    Started {
        /// The task.
        task: TaskRef,
        /// What it is.
        kind: TaskKind,
        /// The thread that runs it.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// A task finished; `failure` holds its code and message if it failed.
    Finished {
        /// The task.
        task: TaskRef,
        /// What it is.
        kind: TaskKind,
        /// The failure, if any.
        failure: Option<(AclError, &'a str)>,
        /// When.
        at_ns: u64,
    },
    /// A queued task was dropped without running (stream destroyed, context stopped, …).
    Discarded {
        /// The task.
        task: TaskRef,
        /// What it is.
        kind: TaskKind,
        /// The failure that dropped it.
        error: AclError,
        /// When.
        at_ns: u64,
    },
    /// `before` happens before `after`.
    Edge {
        /// Why.
        kind: EdgeKind,
        /// The earlier point.
        before: Point,
        /// The later point.
        after: Point,
        /// When the edge was established.
        at_ns: u64,
    },
    /// A waiting task (event wait, implicit stream wait) was released, by the task `by` where
    /// known (an abort releases waits too).
    WaitReleased {
        /// The waiting task.
        task: TaskRef,
        /// What released it.
        by: Option<TaskRef>,
        /// When.
        at_ns: u64,
    },
    /// A host thread copied or set memory synchronously (`aclrtMemcpy`, `aclrtMemset`, …).
    HostAccess {
        /// The call.
        call: &'static str,
        /// Ranges read.
        reads: &'a [MemRange],
        /// Ranges written.
        writes: &'a [MemRange],
        /// The calling thread.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// A subscribed thread ran a callback task's body.
    CallbackRan {
        /// The callback task.
        task: TaskRef,
        /// The thread that ran it.
        thread_id: u32,
        /// Start.
        start_ns: u64,
        /// End.
        end_ns: u64,
    },
    /// A host thread blocked in a synchronising call.
    HostWait {
        /// The call, e.g. `aclrtSynchronizeStream`.
        call: &'static str,
        /// The thread.
        thread_id: u32,
        /// Start.
        start_ns: u64,
        /// End.
        end_ns: u64,
    },
    /// A runtime call failed on a host thread.
    ApiFailed {
        /// The code.
        code: AclError,
        /// The message `aclGetRecentErrMsg` reports.
        message: &'a str,
        /// The calling thread.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// A stream was named (`aclxSetStreamName`) or its name removed (`name: None`).
    StreamNamed {
        /// Logical device.
        device_id: i32,
        /// Stream id.
        stream_id: u32,
        /// Raw stream handle.
        stream: u64,
        /// The name.
        name: Option<&'a str>,
    },
    /// A host thread began a blocking call (synchronise, destroy that waits, `aclrtProcessReport`);
    /// [`Observed::HostWait`] tells when it ended.
    HostWaitBegin {
        /// The call, e.g. `aclrtSynchronizeStream`.
        call: &'static str,
        /// The tasks whose completion it waits for (empty: none known, e.g. callbacks).
        waits_for: &'a [TaskRef],
        /// The thread.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// A subscribed thread is about to run a callback task's body.
    CallbackStarting {
        /// The callback task.
        task: TaskRef,
        /// `ACL_CALLBACK_BLOCK`: the stream waits until the body returned.
        blocking: bool,
        /// The thread that runs it.
        thread_id: u32,
    },
    /// A callback task was queued (`aclrtLaunchCallback`).
    CallbackLaunched {
        /// The callback task.
        task: TaskRef,
        /// `ACL_CALLBACK_BLOCK`.
        blocking: bool,
    },
    /// Runtime memory was allocated (`aclrtMalloc`, `aclrtMallocHost`).
    Allocated {
        /// First byte.
        address: usize,
        /// Bytes asked for.
        size: usize,
        /// The device for device memory; `None` for host memory.
        device_id: Option<i32>,
        /// The calling thread.
        thread_id: u32,
    },
    /// A host thread is about to free runtime memory (`aclrtFree`, `aclrtFreeHost`); the free
    /// has passed its argument checks.
    Freeing {
        /// The call.
        call: &'static str,
        /// The pointer freed.
        address: usize,
        /// The calling thread.
        thread_id: u32,
    },
    /// A stream was created (default streams are not reported).
    StreamCreated {
        /// The stream (its first task id is 0).
        stream: TaskRef,
        /// The calling thread.
        thread_id: u32,
    },
    /// A stream was destroyed (its handle is dead).
    StreamDestroyed {
        /// Raw stream handle.
        stream: u64,
    },
    /// An event was created.
    EventCreated {
        /// Raw event handle.
        event: u64,
        /// `aclrtGetEventId`.
        id: u32,
        /// Legacy SYNC flag semantics: a wait waits for the next record to execute.
        legacy_flag: bool,
        /// The calling thread.
        thread_id: u32,
    },
    /// An event was destroyed (its handle is dead; queued work still uses it).
    EventDestroyed {
        /// Raw event handle.
        event: u64,
        /// The calling thread.
        thread_id: u32,
    },
    /// A thread subscribed to, or unsubscribed from, a stream's callbacks.
    Subscription {
        /// Raw stream handle.
        stream: u64,
        /// The thread's `pthread_self()` value.
        pthread: u64,
        /// Subscribed (`true`) or unsubscribed.
        subscribed: bool,
    },
    /// A tool (the checker) found a problem in the program, so that other observers (the
    /// trace collector) can show it beside the work it concerns.
    Finding {
        /// What kind of problem (`"race"`, `"use_after_free"`, `"deadlock"`, …).
        kind: &'a str,
        /// One sentence.
        message: &'a str,
        /// The tasks and host threads involved, earlier first.
        involved: &'a [Point],
        /// One line per access or wait involved, each naming its call site.
        sites: &'a [String],
        /// What would fix it.
        fix: &'a str,
        /// The thread that made the finding.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// A thread that the runtime saw is ending (its thread-local state is being torn down).
    /// Whoever joins the thread comes after everything it did: programs order the work of
    /// their threads by joining them, which the runtime cannot see otherwise.
    ThreadExited {
        /// OS thread id.
        thread_id: u32,
    },
    /// The process is about to end at once (`_exit`), with neither `aclFinalize` nor exit
    /// handlers to come: observers that keep something for the end (a trace file) write it now.
    ProcessEnding {
        /// The exit status.
        code: i32,
    },
    /// The runtime took the running task's reference to name it elsewhere (as the releaser a
    /// notify, value or IPC wait on another stream will name in its `Edge`, or as a waiter):
    /// whatever an observer holds back about this task's start must be known from now on.
    TaskShared {
        /// The running task.
        task: TaskRef,
    },
}

/// Receives what the runtime does. Must be cheap, must not block for long and must not call
/// back into the runtime.
pub trait Observer: Send + Sync {
    /// One event.
    fn observe(&self, event: &Observed<'_>);
}

/// Identifies an installed observer, for [`remove`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObserverId(u64);

type List = Arc<Vec<(ObserverId, Arc<dyn Observer>)>>;

static ENABLED: AtomicBool = AtomicBool::new(false);
static LIST: RwLock<Option<List>> = RwLock::new(None);
/// Changes whenever the list does, so threads know their cached copy is stale.
static GENERATION: AtomicU64 = AtomicU64::new(1);
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The list as this thread last saw it, behind a thread-local count: delivering clones
    /// the `Rc`, never the shared `Arc`, whose count every thread would write on every event.
    static CACHED: RefCell<(u64, Option<Rc<List>>)> = const { RefCell::new((0, None)) };
    static THREAD_ID: ThreadIdentity = const { ThreadIdentity(Cell::new(0)) };
}

/// The calling thread's OS id, once asked; tells observers when the thread ends.
struct ThreadIdentity(Cell<u32>);

impl Drop for ThreadIdentity {
    fn drop(&mut self) {
        let thread_id = self.0.get();
        if thread_id != 0 && enabled() {
            // Thread-locals of this thread may already be gone: `emit` and the observers reach
            // theirs only through `try_with`.
            emit(&Observed::ThreadExited { thread_id });
        }
    }
}

/// Installs an observer; it sees events from now on.
pub fn install(observer: Arc<dyn Observer>) -> ObserverId {
    watch_forks();
    let id = ObserverId(NEXT_ID.fetch_add(1, Ordering::Relaxed));
    update(|list| list.push((id, observer)));
    id
}

/// Removes an observer; `false` if it was not installed. Events already being delivered on
/// other threads may still reach it.
pub fn remove(id: ObserverId) -> bool {
    let mut found = false;
    update(|list| {
        let before = list.len();
        list.retain(|(i, _)| *i != id);
        found = list.len() != before;
    });
    found
}

fn update(change: impl FnOnce(&mut Vec<(ObserverId, Arc<dyn Observer>)>)) {
    let mut slot = LIST.write().unwrap_or_else(|e| e.into_inner());
    let mut list: Vec<_> = slot.as_ref().map(|l| l.to_vec()).unwrap_or_default();
    change(&mut list);
    ENABLED.store(!list.is_empty(), Ordering::Release);
    *slot = (!list.is_empty()).then(|| Arc::new(list));
    GENERATION.fetch_add(1, Ordering::Release);
}

/// Whether any observer is installed: what every hook site checks first.
#[inline]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

/// Delivers `event` to every installed observer, on the calling thread.
pub(crate) fn emit(event: &Observed<'_>) {
    let generation = GENERATION.load(Ordering::Acquire);
    let delivered = CACHED.try_with(|cached| {
        let Ok(mut cached) = cached.try_borrow_mut() else {
            return false; // An observer emitting from inside `observe`: deliver uncached.
        };
        if cached.0 != generation {
            *cached = (generation, current().map(Rc::new));
        }
        let list = cached.1.clone();
        drop(cached);
        deliver(list.as_deref().map(|l| &**l), event);
        true
    });
    if delivered != Ok(true) {
        deliver(current().as_deref(), event);
    }
}

fn current() -> Option<List> {
    LIST.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn deliver(list: Option<&Vec<(ObserverId, Arc<dyn Observer>)>>, event: &Observed<'_>) {
    for (_, observer) in list.into_iter().flatten() {
        observer.observe(event);
    }
}

/// A named stream (`aclxSetStreamName`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedStream {
    /// Logical device.
    pub device_id: i32,
    /// Stream id.
    pub stream_id: u32,
    /// Raw stream handle.
    pub stream: u64,
    /// The name.
    pub name: Arc<str>,
}

/// Names of the live named streams, kept whether or not anyone observes, so an observer
/// installed later (a trace started mid-run) can name their tracks.
static NAMED_STREAMS: std::sync::Mutex<Vec<NamedStream>> = std::sync::Mutex::new(Vec::new());
/// Whether [`NAMED_STREAMS`] is non-empty: destroying a stream looks only then.
static ANY_NAMED: AtomicBool = AtomicBool::new(false);

/// A stream was named, or its name removed (`None`).
pub(crate) fn stream_named(device_id: i32, stream_id: u32, stream: u64, name: Option<Arc<str>>) {
    {
        let mut named = crate::sync::lock(&NAMED_STREAMS);
        named.retain(|n| n.stream != stream);
        if let Some(name) = &name {
            named.push(NamedStream {
                device_id,
                stream_id,
                stream,
                name: name.clone(),
            });
        }
        ANY_NAMED.store(!named.is_empty(), Ordering::Release);
    }
    if enabled() {
        emit(&Observed::StreamNamed {
            device_id,
            stream_id,
            stream,
            name: name.as_deref(),
        });
    }
}

/// A stream was destroyed: its name goes with it.
pub(crate) fn stream_retired(stream: u64) {
    if enabled() {
        emit(&Observed::StreamDestroyed { stream });
    }
    if ANY_NAMED.load(Ordering::Acquire) {
        let mut named = crate::sync::lock(&NAMED_STREAMS);
        named.retain(|n| n.stream != stream);
        ANY_NAMED.store(!named.is_empty(), Ordering::Release);
    }
}

/// What the forking thread holds across `fork()` so the child never inherits it half-taken:
/// the observer list and the stream names.
/// Registers the fork handlers of the observer list (see [`crate::fork`]): a forked child
/// starts with no observer.
pub(crate) fn watch_forks() {
    crate::fork::watch(crate::fork::Rank::Observe, before_fork, after_fork_in_child);
}

struct ForkHeld {
    named: std::sync::MutexGuard<'static, Vec<NamedStream>>,
    list: std::sync::RwLockWriteGuard<'static, Option<List>>,
}

/// Before `fork()`: takes the observer list and the stream names (both leaves: nothing else is
/// taken while either is held, so the forking thread may take them last).
fn before_fork() -> ForkHeld {
    ForkHeld {
        named: NAMED_STREAMS.lock().unwrap_or_else(|e| e.into_inner()),
        list: LIST.write().unwrap_or_else(|e| e.into_inner()),
    }
}

/// In a forked child: no observer of the parent stays installed (the trace collector and the
/// checker start afresh, or not at all, with the child's own `aclInit` or `start`; their
/// parent state is abandoned, never touched), the names of the parent's streams (whose handles
/// are dead here) are forgotten, and the calling thread's cached OS id is asked again (the
/// child's thread has a new one).
fn after_fork_in_child(mut held: ForkHeld) {
    std::mem::forget(std::mem::take(&mut *held.named));
    ANY_NAMED.store(false, Ordering::Release);
    std::mem::forget(held.list.take());
    ENABLED.store(false, Ordering::Release);
    GENERATION.fetch_add(1, Ordering::Release);
    let _ = THREAD_ID.try_with(|c| c.0.set(0));
}

/// The live named streams.
pub fn named_streams() -> Vec<NamedStream> {
    crate::sync::lock(&NAMED_STREAMS).clone()
}

/// The calling thread's OS id, asked of the kernel once per thread.
pub fn thread_id() -> u32 {
    THREAD_ID
        .try_with(|c| {
            if c.0.get() == 0 {
                c.0.set(crate::thread_state::os_thread_id());
            }
            c.0.get()
        })
        .unwrap_or_else(|_| crate::thread_state::os_thread_id())
}

/// The device clock, for observers and hook sites.
pub fn now_ns() -> u64 {
    crate::clock::now_ns()
}

// ---- hook sites: each is called only after `enabled()` said yes ------------------------------

pub(crate) fn task_submitted(task: TaskRef, kind: TaskKind, meta: &TaskMeta, start_ns: u64) {
    emit(&Observed::Submitted {
        task,
        kind,
        meta,
        thread_id: thread_id(),
        start_ns,
        end_ns: now_ns(),
    });
}

thread_local! {
    /// The task the calling thread runs, while tasks are observed.
    static RUNNING: std::cell::Cell<Option<TaskRef>> = const { std::cell::Cell::new(None) };
}

/// The task the calling thread is running, when tasks are observed (a runtime worker inside
/// a task; `None` elsewhere or while nothing observes), for a task that releases another with
/// itself as the releaser: observers are told ([`Observed::TaskShared`]) before it is returned.
pub(crate) fn running_task() -> Option<TaskRef> {
    if !enabled() {
        return None;
    }
    let task = RUNNING.try_with(std::cell::Cell::get).ok().flatten()?;
    emit(&Observed::TaskShared { task });
    Some(task)
}

pub(crate) fn task_started(task: TaskRef, kind: TaskKind) {
    let _ = RUNNING.try_with(|r| r.set(Some(task)));
    emit(&Observed::Started {
        task,
        kind,
        thread_id: thread_id(),
        at_ns: now_ns(),
    });
}

pub(crate) fn task_finished(task: TaskRef, kind: TaskKind, failure: Option<&(AclError, String)>) {
    let _ = RUNNING.try_with(|r| r.set(None));
    emit(&Observed::Finished {
        task,
        kind,
        failure: failure.map(|(code, text)| (*code, text.as_str())),
        at_ns: now_ns(),
    });
}

pub(crate) fn task_discarded(task: TaskRef, kind: TaskKind, error: AclError) {
    emit(&Observed::Discarded {
        task,
        kind,
        error,
        at_ns: now_ns(),
    });
}

/// A wait task was released by `by`: the `WaitReleased` event and, where the releaser is
/// known, the happens-before edge.
pub(crate) fn wait_released(task: TaskRef, by: Option<TaskRef>, kind: EdgeKind) {
    let at_ns = now_ns();
    emit(&Observed::WaitReleased { task, by, at_ns });
    if let Some(by) = by {
        emit(&Observed::Edge {
            kind,
            before: Point::Task(by),
            after: Point::Task(task),
            at_ns,
        });
    }
}

/// The calling thread learned that `task` completed.
pub(crate) fn host_synchronized(task: TaskRef) {
    emit(&Observed::Edge {
        kind: EdgeKind::HostSync,
        before: Point::Task(task),
        after: Point::Host(thread_id()),
        at_ns: now_ns(),
    });
}

pub(crate) fn host_access(call: &'static str, reads: &[MemRange], writes: &[MemRange]) {
    emit(&Observed::HostAccess {
        call,
        reads,
        writes,
        thread_id: thread_id(),
        at_ns: now_ns(),
    });
}

pub(crate) fn callback_ran(task: TaskRef, start_ns: u64) {
    emit(&Observed::CallbackRan {
        task,
        thread_id: thread_id(),
        start_ns,
        end_ns: now_ns(),
    });
}

pub(crate) fn host_wait(call: &'static str, start_ns: u64) {
    emit(&Observed::HostWait {
        call,
        thread_id: thread_id(),
        start_ns,
        end_ns: now_ns(),
    });
}

pub(crate) fn host_wait_begin(call: &'static str, waits_for: &[TaskRef]) {
    emit(&Observed::HostWaitBegin {
        call,
        waits_for,
        thread_id: thread_id(),
        at_ns: now_ns(),
    });
}

pub(crate) fn callback_starting(task: TaskRef, blocking: bool) {
    emit(&Observed::CallbackStarting {
        task,
        blocking,
        thread_id: thread_id(),
    });
}

pub(crate) fn callback_launched(task: TaskRef, blocking: bool) {
    emit(&Observed::CallbackLaunched { task, blocking });
}

pub(crate) fn allocated(address: usize, size: usize, device_id: Option<i32>) {
    emit(&Observed::Allocated {
        address,
        size,
        device_id,
        thread_id: thread_id(),
    });
}

pub(crate) fn freeing(call: &'static str, address: usize) {
    emit(&Observed::Freeing {
        call,
        address,
        thread_id: thread_id(),
    });
}

pub(crate) fn stream_created(stream: TaskRef) {
    emit(&Observed::StreamCreated {
        stream,
        thread_id: thread_id(),
    });
}

pub(crate) fn event_created(event: u64, id: u32, legacy_flag: bool) {
    emit(&Observed::EventCreated {
        event,
        id,
        legacy_flag,
        thread_id: thread_id(),
    });
}

pub(crate) fn event_destroyed(event: u64) {
    emit(&Observed::EventDestroyed {
        event,
        thread_id: thread_id(),
    });
}

pub(crate) fn subscription(stream: u64, pthread: u64, subscribed: bool) {
    emit(&Observed::Subscription {
        stream,
        pthread,
        subscribed,
    });
}

/// A tool found a problem: tells every observer (the tool itself included, which ignores it).
/// Must be called with none of the tool's own locks held.
pub(crate) fn finding(kind: &str, message: &str, involved: &[Point], sites: &[String], fix: &str) {
    if enabled() {
        emit(&Observed::Finding {
            kind,
            message,
            involved,
            sites,
            fix,
            thread_id: thread_id(),
            at_ns: now_ns(),
        });
    }
}

/// The process is about to `_exit(code)`: observers write what they keep for the end.
pub(crate) fn process_ending(code: i32) {
    if enabled() {
        emit(&Observed::ProcessEnding { code });
    }
}

pub(crate) fn api_failed(code: AclError, message: &str) {
    emit(&Observed::ApiFailed {
        code,
        message,
        thread_id: thread_id(),
        at_ns: now_ns(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    struct Count(Mutex<Vec<String>>);

    impl Observer for Count {
        fn observe(&self, event: &Observed<'_>) {
            if let Observed::ApiFailed { code, message, .. } = event {
                self.0.lock().unwrap().push(format!("{code} {message}"));
            }
        }
    }

    #[test]
    fn installed_observers_see_events_until_removed() {
        let a = Arc::new(Count(Mutex::new(Vec::new())));
        let id = install(a.clone());
        assert!(enabled());
        api_failed(7, "seen");
        assert!(remove(id));
        assert!(!remove(id), "removed once");
        api_failed(8, "not seen");
        assert_eq!(*a.0.lock().unwrap(), vec!["7 seen".to_owned()]);
    }
}

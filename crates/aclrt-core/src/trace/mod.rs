//! Tracing: what the runtime tells a tracer about tasks, events, callbacks and host waits, and
//! a built-in collector that writes a Chrome Trace Event file (Perfetto, `chrome://tracing`).
//!
//! Switch the collector on with the `ACLRT_TRACE=path` environment variable (started at
//! `aclInit`, written at `aclFinalize` or, without one, at process exit, so C and Python
//! programs get it too) or from Rust with
//! [`start`] and [`stop_and_write`]. The collector is one [`observe::Observer`]; other tools
//! install their own beside it.
//!
//! With nothing installed every hook costs one relaxed load and a branch. With the collector
//! on, each thread appends fixed-size records to its own buffer (no shared lock on the hot
//! path); a task costs three records (submit, start, finish), names are shared `Arc<str>`.

mod chrome;
mod collector;

use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use crate::error::AclError;
use crate::observe::{self, ObserverId};
use crate::sync::lock;
use crate::task_info::TaskKind;

pub use chrome::{FINDING_CATEGORY, HOST_PROCESS_NAME};

/// The environment variable that switches the collector on: the path the trace is written to.
pub const ENV_TRACE: &str = "ACLRT_TRACE";

pub use crate::observe::TaskRef;

/// One thing that happened, as a tracer sees it. Times are nanoseconds since the device epoch;
/// thread ids are OS thread ids (`gettid`).
#[derive(Debug, Clone)]
pub enum TraceRecord {
    /// A host thread queued a task (`start_ns..end_ns` covers taking the stream's queue).
    Submitted {
        /// The task.
        task: TaskRef,
        /// What the task is.
        kind: TaskKind,
        /// Kernel name, where given.
        name: Option<Arc<str>>,
        /// The event a record, wait or reset refers to (raw handle).
        event: Option<u64>,
        /// Submitting thread.
        thread_id: u32,
        /// Submit call entered the stream.
        start_ns: u64,
        /// Task queued.
        end_ns: u64,
    },
    /// A task began to run on its stream.
    Started {
        /// The task.
        task: TaskRef,
        /// What the task is.
        kind: TaskKind,
        /// The stream's worker thread, which runs kernels and host functions.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// A task finished (or failed).
    Finished {
        /// The task.
        task: TaskRef,
        /// What the task is.
        kind: TaskKind,
        /// The failure code, if it failed.
        error: Option<AclError>,
        /// What went wrong, if it failed.
        message: Option<Arc<str>>,
        /// When.
        at_ns: u64,
    },
    /// A queued task was dropped without running (stream destroyed, context stopped).
    Discarded {
        /// The task.
        task: TaskRef,
        /// What the task is.
        kind: TaskKind,
        /// Why: the failure that stopped the stream or context.
        error: AclError,
        /// When.
        at_ns: u64,
    },
    /// A waiting task (event wait, implicit stream wait) was released.
    WaitReleased {
        /// The waiting task.
        task: TaskRef,
        /// The task that released it (an event record, or the last task of the stream waited
        /// for); `None` when unknown (e.g. released by an abort).
        by: Option<TaskRef>,
        /// When.
        at_ns: u64,
    },
    /// A subscribed thread ran a callback task's body.
    CallbackRan {
        /// The callback task.
        task: TaskRef,
        /// Thread that ran it.
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
        /// Thread that blocked.
        thread_id: u32,
        /// Start.
        start_ns: u64,
        /// End.
        end_ns: u64,
    },
    /// A runtime call failed on a host thread.
    ApiFailed {
        /// The `aclError`.
        code: AclError,
        /// The message `aclGetRecentErrMsg` reports.
        message: Arc<str>,
        /// Calling thread.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
    /// The checker (or another tool) found a problem.
    Finding {
        /// What it found.
        finding: Arc<FindingInfo>,
        /// The thread that made the finding.
        thread_id: u32,
        /// When.
        at_ns: u64,
    },
}

/// A problem a tool found, as the trace shows it: marks on the tracks of the tasks and host
/// threads involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FindingInfo {
    /// `"race"`, `"use_after_free"`, `"free_while_in_use"`, `"deadlock"`, `"hang"`, `"leak"`.
    pub kind: String,
    /// One sentence.
    pub message: String,
    /// The tasks and host threads involved.
    pub involved: Vec<observe::Point>,
    /// One line per access or wait involved, with its call site.
    pub sites: Vec<String>,
    /// What would fix it.
    pub fix: String,
}

impl TraceRecord {
    /// When the record starts, for ordering.
    pub fn at_ns(&self) -> u64 {
        match self {
            TraceRecord::Submitted { start_ns, .. }
            | TraceRecord::CallbackRan { start_ns, .. }
            | TraceRecord::HostWait { start_ns, .. } => *start_ns,
            TraceRecord::Started { at_ns, .. }
            | TraceRecord::Finished { at_ns, .. }
            | TraceRecord::Discarded { at_ns, .. }
            | TraceRecord::WaitReleased { at_ns, .. }
            | TraceRecord::ApiFailed { at_ns, .. }
            | TraceRecord::Finding { at_ns, .. } => *at_ns,
        }
    }
}

/// A host thread that left records, for naming its track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadInfo {
    /// OS thread id.
    pub thread_id: u32,
    /// The thread's name, where it has one.
    pub name: Option<String>,
}

/// A stream's name (`aclxSetStreamName`), for naming its track.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInfo {
    /// Logical device.
    pub device_id: i32,
    /// Stream id (`aclrtStreamGetId`).
    pub stream_id: u32,
    /// Raw stream handle: names belong to one stream, even when its id is reused later.
    pub stream: u64,
    /// The name; `None` once it was removed.
    pub name: Option<String>,
}

/// What the collector gathered between [`start`] and [`stop`].
#[derive(Debug, Clone, Default)]
pub struct Trace {
    /// Every record, ordered by start time.
    pub records: Vec<TraceRecord>,
    /// Threads that left records, with their OS names.
    pub threads: Vec<ThreadInfo>,
    /// Stream names: those of named streams alive at [`start`], then every naming until
    /// [`stop`], in order (the last one for a handle holds).
    pub streams: Vec<StreamInfo>,
}

impl Trace {
    /// The trace as Chrome Trace Event JSON.
    pub fn to_chrome_json(&self) -> String {
        chrome::to_json(self)
    }

    /// Writes the trace as Chrome Trace Event JSON, creating parent folders.
    pub fn write_chrome(&self, path: impl AsRef<Path>) -> io::Result<()> {
        let path = path.as_ref();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, self.to_chrome_json())
    }
}

/// The installed collector, while it gathers.
static COLLECTOR: Mutex<Option<ObserverId>> = Mutex::new(None);
/// Where `aclFinalize` writes a trace started by [`ENV_TRACE`].
static ENV_PATH: Mutex<Option<PathBuf>> = Mutex::new(None);

/// Set in a forked child: an [`ENV_TRACE`] collection it starts writes to the path with
/// `.<pid>` appended, never over its parent's file.
static FORKED_CHILD: AtomicBool = AtomicBool::new(false);

/// Starts (or restarts) the built-in collector, dropping anything gathered before.
pub fn start() {
    // A process that traces and forks gives its child a fresh collector (see `before_fork`).
    watch_forks();
    // Read before the collector's lock: the names have their own lock.
    let named_before = observe::named_streams();
    let mut installed = lock(&COLLECTOR);
    collector::clear_all();
    if installed.is_none() {
        *installed = Some(observe::install(Arc::new(collector::Collector)));
    }
    // Streams named before the trace began keep their names in it.
    for named in named_before {
        collector::stream_named(StreamInfo {
            device_id: named.device_id,
            stream_id: named.stream_id,
            stream: named.stream,
            name: Some(named.name.to_string()),
        });
    }
}

/// Whether the built-in collector is gathering.
pub fn is_collecting() -> bool {
    lock(&COLLECTOR).is_some()
}

/// Stops the collector and returns what it gathered (empty if it was not started).
pub fn stop() -> Trace {
    let mut installed = lock(&COLLECTOR);
    if let Some(id) = installed.take() {
        observe::remove(id);
    }
    collector::drain_all()
}

/// What the collector gathered so far, leaving it running (empty if it was not started).
pub fn snapshot() -> Trace {
    let _installed = lock(&COLLECTOR);
    collector::copy_all()
}

/// Stops the collector and writes what it gathered as Chrome Trace Event JSON.
pub fn stop_and_write(path: impl AsRef<Path>) -> io::Result<Trace> {
    let trace = stop();
    trace.write_chrome(path)?;
    Ok(trace)
}

/// Whether any observer (the collector or another) is installed: [`observe::enabled`].
#[inline]
pub fn enabled() -> bool {
    observe::enabled()
}

/// `aclInit`: starts the collector when [`ENV_TRACE`] names a file (with `.<pid>` appended in
/// a forked child).
pub(crate) fn on_init() {
    let Some(mut path) = std::env::var_os(ENV_TRACE).filter(|p| !p.is_empty()) else {
        return;
    };
    if FORKED_CHILD.load(Ordering::SeqCst) {
        path.push(format!(".{}", std::process::id()));
    }
    *lock(&ENV_PATH) = Some(PathBuf::from(path));
    start();
    // Programs that exit without aclFinalize still get their trace.
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    AT_EXIT.call_once(|| {
        // SAFETY: registers a plain function with no preconditions; a failed registration
        // only means the trace is written at aclFinalize alone.
        unsafe { libc::atexit(write_at_exit) };
    });
}

extern "C" fn write_at_exit() {
    // A panic must not unwind into the C runtime's exit path.
    let _ = std::panic::catch_unwind(on_finalize);
}

/// `aclFinalize`: writes the trace started by [`ENV_TRACE`]. A trace that cannot be written
/// must not fail the finalize, so the problem goes to stderr.
pub(crate) fn on_finalize() {
    let Some(path) = lock(&ENV_PATH).take() else {
        return;
    };
    if let Err(e) = stop_and_write(&path) {
        eprintln!("aclrt: cannot write the trace to {}: {e}", path.display());
    }
}

/// Registers the collector's fork handlers (see [`crate::fork`]): [`before_fork`] in the
/// forking thread, the guards released in the parent, [`after_fork_in_child`] in the child.
pub(crate) fn watch_forks() {
    crate::fork::watch(crate::fork::Rank::Trace, before_fork, after_fork_in_child);
}

/// Everything of the collector (and of the observer list it sits in) that the forking thread
/// holds across `fork()`.
pub(crate) struct ForkHeld {
    env_path: MutexGuard<'static, Option<PathBuf>>,
    collector: MutexGuard<'static, Option<ObserverId>>,
    lists: collector::ForkHeld,
}

/// Before `fork()` (the runtime's fork handlers, after the lifecycle locks): takes the
/// collector's locks in their order, then the observer list's, so that no other thread of the
/// parent holds one at the fork and the child never inherits one half-taken. A per-thread
/// buffer's own lock is not taken: the child never touches the parent's buffers.
fn before_fork() -> ForkHeld {
    ForkHeld {
        env_path: ENV_PATH.lock().unwrap_or_else(|e| e.into_inner()),
        collector: COLLECTOR.lock().unwrap_or_else(|e| e.into_inner()),
        lists: collector::before_fork(),
    }
}

/// In the child of a `fork()`: the collector starts afresh, stopped and empty, as the runtime
/// does. What the parent gathered, its stream names and its [`ENV_TRACE`] file are the
/// parent's: the child neither continues nor writes them (not at its `aclFinalize`, not at its
/// exit). Its own `aclInit` starts a new [`ENV_TRACE`] collection, written to the path with
/// `.<pid>` appended; [`start`] starts one from Rust.
fn after_fork_in_child(mut held: ForkHeld) {
    FORKED_CHILD.store(true, Ordering::SeqCst);
    *held.env_path = None;
    held.collector.take();
    collector::after_fork_in_child(held.lists);
}

/// Nanoseconds since the device epoch.
pub fn host_now_ns() -> u64 {
    crate::clock::now_ns()
}

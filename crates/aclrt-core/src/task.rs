//! Tasks: the units of work a stream runs in order.

use std::sync::Arc;
use std::time::Duration;

use crate::error::AclError;
use crate::event::{Event, RecordState};
use crate::stream::Stream;

/// What kind of work a task is; also what a trace shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskKind {
    /// A host kernel (user closure).
    Kernel,
    /// `aclrtMemcpyAsync`.
    Memcpy,
    /// `aclrtMemsetAsync`.
    Memset,
    /// An event record.
    Record,
    /// A stream wait on an event.
    Wait,
    /// An event reset.
    Reset,
    /// A host callback delivered to a subscribed thread.
    Callback,
    /// A host function run on a runtime thread.
    HostFunc,
    /// An implicit wait for another stream (CUDA legacy default stream).
    StreamWait,
}

/// A byte range of memory a task reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct MemRange {
    /// First byte.
    pub start: usize,
    /// Length in bytes.
    pub len: usize,
}

/// What is known about a task for tools (traces, the race checker): who submitted it, what it
/// is called and which memory it touches.
#[derive(Debug, Clone, Default)]
pub struct TaskMeta {
    /// Kernel name, where given.
    pub name: Option<Arc<str>>,
    /// Memory the task reads.
    pub reads: Vec<MemRange>,
    /// Memory the task writes.
    pub writes: Vec<MemRange>,
    /// OS thread id (`gettid`) of the submitting thread.
    pub submitter_thread: u32,
    /// The event a record, wait or reset refers to (raw handle).
    pub event: Option<u64>,
}

/// A host kernel: returns `Err(code)` to fail the task with that `aclError`.
pub type KernelFn = Box<dyn FnOnce() -> Result<(), AclError> + Send>;
/// A host function or callback body.
pub type HostFn = Box<dyn FnOnce() + Send>;

/// Where a stream wait gets the latch it waits for.
pub(crate) enum WaitTarget {
    /// A snapshot event: the record seen at enqueue time.
    Snapshot(Arc<RecordState>),
    /// A legacy SYNC event: whatever flag the event holds when the wait executes.
    Flag(Arc<Event>),
}

/// What a task does. Apart from user code (kernels, callbacks, host functions), plain data: an
/// executor decides how each kind runs, and observers can see what it touches.
pub(crate) enum Work {
    Kernel(KernelFn),
    /// Copies `len` bytes from `src` to `dst` (the ranges may overlap). The submitter
    /// guaranteed both ranges stay valid until the task has run (`aclrtMemcpyAsync`'s
    /// contract); runtime allocations were bounds-checked at submit time.
    Copy {
        dst: usize,
        src: usize,
        len: usize,
    },
    /// Sets `len` bytes at `dst` to `value`; the same guarantee as [`Work::Copy`].
    Set {
        dst: usize,
        value: u8,
        len: usize,
    },
    Record(Arc<RecordState>, Option<Arc<Event>>),
    Wait {
        target: WaitTarget,
        event: Arc<Event>,
        timeout: Option<Duration>,
    },
    Reset(Arc<Event>),
    /// Delivered, when due, to whichever thread serves the stream then.
    Callback {
        body: HostFn,
        block: bool,
    },
    HostFunc(HostFn),
    StreamWait {
        stream: Arc<Stream>,
        until: u64,
    },
}

/// A queued task.
pub(crate) struct Task {
    /// Per-stream sequence number, from 0.
    pub(crate) id: u64,
    pub(crate) kind: TaskKind,
    pub(crate) work: Work,
    pub(crate) meta: TaskMeta,
}

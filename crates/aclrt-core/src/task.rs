//! Tasks: the units of work a stream runs in order.

use std::sync::Arc;
use std::time::Duration;

use crate::event::{Event, RecordState};
use crate::stream::Stream;

pub use crate::task_info::{HostFn, KernelFn, MemRange, TaskKind, TaskMeta};

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

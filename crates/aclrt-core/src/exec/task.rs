//! Tasks: the units of work a stream runs in order.
//!
//! [`Work`] is plain data apart from user code (kernels, callbacks, host functions): it names
//! the completion state it touches ([`RecordState`], [`Progress`]) and the event
//! it belongs to through [`EventSide`], never a stream or context, so this layer sits below
//! the model.

use std::sync::Arc;
use std::time::Duration;

use super::progress::Progress;
use super::record::RecordState;
use super::{EventSide, Outcome};
use crate::callback::CallbackDone;
use crate::hostlib::HostLibrary;
use crate::sync::Latch;
use crate::task_info::{HostFn, KernelFn, TaskKind};

/// Where a stream wait gets the latch it waits for.
pub(crate) enum WaitTarget {
    /// A snapshot event: the record seen at enqueue time.
    Snapshot(Arc<RecordState>),
    /// A legacy SYNC event: whatever latch the event's flag holds when the wait executes.
    Flag,
    /// A legacy SYNC event wait that began (its stream suspended on it, see
    /// [`super::blocker`]): the latch the flag held then, as a blocked wait keeps it.
    Began(Arc<Latch>),
}

/// What a task does.
pub(crate) enum Work {
    Kernel(KernelFn),
    /// Copies `len` bytes from `src` to `dst` (the ranges may overlap). The submitter
    /// guaranteed both ranges stay valid until the task has run (`aclrtMemcpyAsync`'s
    /// contract); runtime allocations were bounds-checked at submit time.
    Copy {
        dst: usize,
        src: usize,
        len: usize,
        /// The library a side of the copy lies in (a device variable's), held open until the
        /// task has run so that unloading its binary meanwhile does not unmap it.
        keep: Option<Arc<HostLibrary>>,
    },
    /// Sets `len` bytes at `dst` to `value`; the same guarantee as [`Work::Copy`].
    Set {
        dst: usize,
        value: u8,
        len: usize,
    },
    /// Completes a record; with an event, sets that event's legacy flag too.
    Record(Arc<RecordState>, Option<Arc<dyn EventSide>>),
    Wait {
        target: WaitTarget,
        event: Arc<dyn EventSide>,
        timeout: Option<Duration>,
    },
    Reset(Arc<dyn EventSide>),
    /// Delivered, when due, to whichever thread serves the stream then.
    Callback {
        body: HostFn,
        block: bool,
        channel: Channel,
    },
    /// A blocking callback already delivered to its thread when it reached the head of a
    /// pooled stream (see [`super::begin`]): what the delivery returned, and the completion
    /// the stream waits for.
    CallbackDelivered {
        delivered: Outcome,
        done: Arc<CallbackDone>,
    },
    HostFunc(HostFn),
    /// Waits until `until` tasks of another stream have retired.
    StreamWait {
        stream: Arc<Progress>,
        until: u64,
    },
}

/// A queued task.
///
/// Only what running it needs: the rest of its [`TaskMeta`](crate::task_info::TaskMeta) (name, memory ranges, event) is
/// for observers, told at submission, and stays with the submitter. A task crosses from the
/// submitter's core to a worker's, so every byte here is a cache line moved per task.
pub(crate) struct Task {
    /// Per-stream sequence number, from 0.
    pub(crate) id: u64,
    pub(crate) kind: TaskKind,
    /// OS thread id of the submitting thread, for a failure's report.
    pub(crate) submitter_thread: u32,
    pub(crate) work: Work,
}

#[cfg(test)]
mod size {
    /// What a submitter hands a worker is one cache line (64 bytes on the machines the pool is
    /// measured on): the task's bytes moving between cores were the workers' largest cost.
    #[test]
    fn a_task_fits_in_one_cache_line() {
        assert!(std::mem::size_of::<super::Task>() <= 64);
    }
}

/// Which subscription of its stream a callback task is delivered through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    /// `aclrtLaunchCallback`, for the thread of `aclrtSubscribeReport` (`aclrtProcessReport`).
    Report,
    /// `aclrtLaunchHostFunc` on a stream with a host-function thread (`aclrtSubscribeHostFunc`,
    /// `aclrtProcessHostFunc`).
    HostFunc,
}

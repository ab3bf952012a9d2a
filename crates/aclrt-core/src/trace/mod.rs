//! Tracing hooks: what the runtime tells a tracer about tasks, callbacks and host waits.
//!
//! With no tracer installed every hook costs one relaxed load and a branch.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

use crate::handle::StreamHandle;
use crate::runtime::RUNTIME;
use crate::stream::Stream;
use crate::task::{TaskKind, TaskMeta};
use crate::thread_state::os_thread_id;

/// One thing that happened, as a tracer sees it. Times are nanoseconds since the device epoch.
#[derive(Debug, Clone)]
pub enum TraceRecord {
    /// A task was queued.
    Submitted {
        /// Logical device.
        device_id: i32,
        /// Stream id.
        stream_id: u32,
        /// Raw stream handle.
        stream: u64,
        /// Task id.
        task_id: u64,
        /// What the task is.
        kind: TaskKind,
        /// Name, memory and submitter.
        meta: TaskMeta,
        /// When.
        at_ns: u64,
    },
    /// A task began to run on its stream.
    Started {
        /// Logical device.
        device_id: i32,
        /// Stream id.
        stream_id: u32,
        /// Task id.
        task_id: u64,
        /// What the task is.
        kind: TaskKind,
        /// When.
        at_ns: u64,
    },
    /// A task finished (or failed).
    Finished {
        /// Logical device.
        device_id: i32,
        /// Stream id.
        stream_id: u32,
        /// Task id.
        task_id: u64,
        /// What the task is.
        kind: TaskKind,
        /// The failure code, if it failed.
        error: Option<i32>,
        /// When.
        at_ns: u64,
    },
    /// A subscribed thread ran a callback.
    CallbackRan {
        /// Raw handle of the callback's stream.
        stream: u64,
        /// OS thread that ran it.
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
        /// OS thread that blocked.
        thread_id: u32,
        /// Start.
        start_ns: u64,
        /// End.
        end_ns: u64,
    },
}

/// Receives trace records; must be cheap and must not call back into the runtime.
pub trait Tracer: Send + Sync {
    /// One record.
    fn record(&self, record: TraceRecord);
}

static ENABLED: AtomicBool = AtomicBool::new(false);
static TRACER: RwLock<Option<Arc<dyn Tracer>>> = RwLock::new(None);

/// Installs a tracer (or removes it with `None`).
pub fn set_tracer(tracer: Option<Arc<dyn Tracer>>) {
    let mut slot = TRACER.write().unwrap_or_else(|e| e.into_inner());
    ENABLED.store(tracer.is_some(), Ordering::Release);
    *slot = tracer;
}

/// Whether a tracer is installed.
#[inline]
pub fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed)
}

fn emit(record: TraceRecord) {
    let tracer = TRACER.read().unwrap_or_else(|e| e.into_inner()).clone();
    if let Some(t) = tracer {
        t.record(record);
    }
}

/// Nanoseconds since the device epoch.
pub fn host_now_ns() -> u64 {
    RUNTIME.now_ns()
}

pub(crate) fn task_submitted(stream: &Stream, task_id: u64, kind: TaskKind, meta: &TaskMeta) {
    emit(TraceRecord::Submitted {
        device_id: stream.context.device.id,
        stream_id: stream.id,
        stream: stream.handle.as_raw(),
        task_id,
        kind,
        meta: meta.clone(),
        at_ns: host_now_ns(),
    });
}

pub(crate) fn task_started(stream: &Stream, task_id: u64, kind: TaskKind) {
    emit(TraceRecord::Started {
        device_id: stream.context.device.id,
        stream_id: stream.id,
        task_id,
        kind,
        at_ns: host_now_ns(),
    });
}

pub(crate) fn task_finished(stream: &Stream, task_id: u64, kind: TaskKind, error: Option<i32>) {
    emit(TraceRecord::Finished {
        device_id: stream.context.device.id,
        stream_id: stream.id,
        task_id,
        kind,
        error,
        at_ns: host_now_ns(),
    });
}

pub(crate) fn callback_ran(stream: StreamHandle, start_ns: u64) {
    emit(TraceRecord::CallbackRan {
        stream: stream.as_raw(),
        thread_id: os_thread_id(),
        start_ns,
        end_ns: host_now_ns(),
    });
}

pub(crate) fn host_wait(call: &'static str, start_ns: u64) {
    emit(TraceRecord::HostWait {
        call,
        thread_id: os_thread_id(),
        start_ns,
        end_ns: host_now_ns(),
    });
}

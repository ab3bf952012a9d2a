//! Per-thread record buffers.
//!
//! Each thread appends to its own buffer, registered once in a global list; the buffer's mutex
//! is only ever contended by [`drain_all`] and [`clear_all`], which run when tracing is switched
//! on or off, never on the hot path.

use std::cell::OnceCell;
use std::sync::{Arc, Mutex};

use super::{thread_id, ThreadInfo, Trace, TraceRecord};
use crate::sync::lock;

struct ThreadBuffer {
    info: ThreadInfo,
    records: Mutex<Vec<TraceRecord>>,
}

static BUFFERS: Mutex<Vec<Arc<ThreadBuffer>>> = Mutex::new(Vec::new());

thread_local! {
    static LOCAL: OnceCell<Arc<ThreadBuffer>> = const { OnceCell::new() };
}

fn register() -> Arc<ThreadBuffer> {
    let buffer = Arc::new(ThreadBuffer {
        info: ThreadInfo {
            thread_id: thread_id(),
            name: std::thread::current().name().map(str::to_owned),
        },
        records: Mutex::new(Vec::new()),
    });
    lock(&BUFFERS).push(buffer.clone());
    buffer
}

/// Appends a record to the calling thread's buffer. A thread that is exiting (its locals
/// already gone) loses the record rather than the process.
pub(super) fn push(record: TraceRecord) {
    let _ = LOCAL.try_with(|local| {
        lock(&local.get_or_init(register).records).push(record);
    });
}

/// Drops everything gathered, and the buffers of threads that have exited.
pub(super) fn clear_all() {
    let mut buffers = lock(&BUFFERS);
    buffers.retain(|b| Arc::strong_count(b) > 1);
    for b in buffers.iter() {
        let mut records = lock(&b.records);
        records.clear();
        records.shrink_to_fit();
    }
}

/// Takes everything gathered, ordered by start time.
pub(super) fn drain_all() -> Trace {
    let mut buffers = lock(&BUFFERS);
    let mut trace = Trace::default();
    for b in buffers.iter() {
        let records = std::mem::take(&mut *lock(&b.records));
        if !records.is_empty() {
            trace.threads.push(b.info.clone());
            trace.records.extend(records);
        }
    }
    buffers.retain(|b| Arc::strong_count(b) > 1);
    trace.records.sort_by_key(TraceRecord::at_ns);
    trace.threads.sort_by_key(|t| t.thread_id);
    trace
}

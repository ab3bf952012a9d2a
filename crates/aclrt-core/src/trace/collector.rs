//! Per-thread record buffers.
//!
//! Each thread appends to its own buffer, registered once in a global list; the buffer's mutex
//! is only ever contended by [`drain_all`] and [`clear_all`], which run when tracing is switched
//! on or off, never on the hot path.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use super::{FindingInfo, StreamInfo, ThreadInfo, Trace, TraceRecord};
use crate::observe::{thread_id, Observed, Observer};
use crate::sync::lock;

/// Records per chunk: buffers grow by whole chunks, so a long trace never copies what it
/// already holds.
const CHUNK: usize = 4096;

struct ThreadBuffer {
    info: ThreadInfo,
    chunks: Mutex<Vec<Vec<TraceRecord>>>,
}

static BUFFERS: Mutex<Vec<Arc<ThreadBuffer>>> = Mutex::new(Vec::new());
/// Stream names, in naming order (rare, so one shared list).
static STREAM_NAMES: Mutex<Vec<StreamInfo>> = Mutex::new(Vec::new());

thread_local! {
    /// The calling thread's buffer, once it left a record (forgotten in a forked child).
    static LOCAL: RefCell<Option<Arc<ThreadBuffer>>> = const { RefCell::new(None) };
}

/// A thread's OS name (`pthread_setname_np`, `prctl(PR_SET_NAME)`), as the kernel reports it.
fn os_thread_name(tid: u32) -> Option<String> {
    let comm = std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).ok()?;
    let name = comm.trim_end_matches('\n');
    (!name.is_empty()).then(|| name.to_owned())
}

fn register() -> Arc<ThreadBuffer> {
    let tid = thread_id();
    let buffer = Arc::new(ThreadBuffer {
        info: ThreadInfo {
            thread_id: tid,
            name: os_thread_name(tid).or_else(|| std::thread::current().name().map(str::to_owned)),
        },
        chunks: Mutex::new(Vec::new()),
    });
    lock(&BUFFERS).push(buffer.clone());
    buffer
}

/// Appends a record to the calling thread's buffer. A thread that is exiting (its locals
/// already gone) loses the record rather than the process.
fn push(record: TraceRecord) {
    let _ = LOCAL.try_with(|local| {
        let Ok(mut local) = local.try_borrow_mut() else {
            return;
        };
        let mut chunks = lock(&local.get_or_insert_with(register).chunks);
        match chunks.last_mut() {
            Some(chunk) if chunk.len() < CHUNK => chunk.push(record),
            _ => {
                let mut chunk = Vec::with_capacity(CHUNK);
                chunk.push(record);
                chunks.push(chunk);
            }
        }
    });
}

/// The collector as an observer: turns what it sees into fixed-size records.
pub(super) struct Collector;

impl Observer for Collector {
    fn observe(&self, event: &Observed<'_>) {
        let record = match *event {
            Observed::Submitted {
                task,
                kind,
                meta,
                thread_id,
                start_ns,
                end_ns,
            } => TraceRecord::Submitted {
                task,
                kind,
                name: meta.name.clone(),
                event: meta.event,
                thread_id,
                start_ns,
                end_ns,
            },
            Observed::Started {
                task,
                kind,
                thread_id,
                at_ns,
            } => TraceRecord::Started {
                task,
                kind,
                thread_id,
                at_ns,
            },
            Observed::Finished {
                task,
                kind,
                failure,
                at_ns,
            } => TraceRecord::Finished {
                task,
                kind,
                error: failure.map(|(code, _)| code),
                message: failure.map(|(_, text)| Arc::from(text)),
                at_ns,
            },
            Observed::Discarded {
                task,
                kind,
                error,
                at_ns,
            } => TraceRecord::Discarded {
                task,
                kind,
                error,
                at_ns,
            },
            Observed::WaitReleased { task, by, at_ns } => {
                TraceRecord::WaitReleased { task, by, at_ns }
            }
            Observed::CallbackRan {
                task,
                thread_id,
                start_ns,
                end_ns,
            } => TraceRecord::CallbackRan {
                task,
                thread_id,
                start_ns,
                end_ns,
            },
            Observed::HostWait {
                call,
                thread_id,
                start_ns,
                end_ns,
            } => TraceRecord::HostWait {
                call,
                thread_id,
                start_ns,
                end_ns,
            },
            Observed::ApiFailed {
                code,
                message,
                thread_id,
                at_ns,
            } => TraceRecord::ApiFailed {
                code,
                message: Arc::from(message),
                thread_id,
                at_ns,
            },
            Observed::StreamNamed {
                device_id,
                stream_id,
                stream,
                name,
            } => {
                stream_named(StreamInfo {
                    device_id,
                    stream_id,
                    stream,
                    name: name.map(str::to_owned),
                });
                return;
            }
            Observed::Finding {
                kind,
                message,
                involved,
                sites,
                fix,
                thread_id,
                at_ns,
            } => TraceRecord::Finding {
                finding: Arc::new(FindingInfo {
                    kind: kind.to_owned(),
                    message: message.to_owned(),
                    involved: involved.to_vec(),
                    sites: sites.to_vec(),
                    fix: fix.to_owned(),
                }),
                thread_id,
                at_ns,
            },
            // Nothing else will write a trace started by the environment: write it now.
            Observed::ProcessEnding { .. } => {
                super::on_finalize();
                return;
            }
            // Edges other than wait releases and synchronous host accesses are not drawn.
            _ => return,
        };
        push(record);
    }
}

/// Notes a stream's name.
pub(super) fn stream_named(info: StreamInfo) {
    lock(&STREAM_NAMES).push(info);
}

/// The collector's shared lists, held by the forking thread across `fork()`.
pub(super) struct ForkHeld {
    buffers: std::sync::MutexGuard<'static, Vec<Arc<ThreadBuffer>>>,
    names: std::sync::MutexGuard<'static, Vec<StreamInfo>>,
}

/// Before `fork()`: takes the buffer list, then the stream names (the collector's order).
pub(super) fn before_fork() -> ForkHeld {
    ForkHeld {
        buffers: BUFFERS.lock().unwrap_or_else(|e| e.into_inner()),
        names: STREAM_NAMES.lock().unwrap_or_else(|e| e.into_inner()),
    }
}

/// In a forked child: the parent's buffers and names are abandoned (never locked, never
/// freed: another parent thread may have held a buffer's lock at the fork, and freeing would
/// only copy pages the child shares with its parent), and the calling thread gets a new
/// buffer, under its new OS id, when it next leaves a record.
pub(super) fn after_fork_in_child(mut held: ForkHeld) {
    std::mem::forget(std::mem::take(&mut *held.buffers));
    std::mem::forget(std::mem::take(&mut *held.names));
    let _ = LOCAL.try_with(|local| {
        if let Ok(mut local) = local.try_borrow_mut() {
            std::mem::forget(local.take());
        }
    });
}

/// Drops everything gathered, and the buffers of threads that have exited.
pub(super) fn clear_all() {
    lock(&STREAM_NAMES).clear();
    let mut buffers = lock(&BUFFERS);
    buffers.retain(|b| Arc::strong_count(b) > 1);
    for b in buffers.iter() {
        *lock(&b.chunks) = Vec::new();
    }
}

/// Takes everything gathered, ordered by start time.
pub(super) fn drain_all() -> Trace {
    gather(true)
}

/// Copies everything gathered so far, ordered by start time.
pub(super) fn copy_all() -> Trace {
    gather(false)
}

fn gather(take: bool) -> Trace {
    let mut buffers = lock(&BUFFERS);
    let mut trace = Trace::default();
    for b in buffers.iter() {
        let chunks = if take {
            std::mem::take(&mut *lock(&b.chunks))
        } else {
            lock(&b.chunks).clone()
        };
        if !chunks.is_empty() {
            let mut info = b.info.clone();
            // A live thread may have been renamed since it first left a record.
            if Arc::strong_count(b) > 1 {
                if let Some(name) = os_thread_name(info.thread_id) {
                    info.name = Some(name);
                }
            }
            trace.threads.push(info);
            trace.records.extend(chunks.into_iter().flatten());
        }
    }
    if take {
        buffers.retain(|b| Arc::strong_count(b) > 1);
    }
    trace.records.sort_by_key(TraceRecord::at_ns);
    trace.threads.sort_by_key(|t| t.thread_id);
    trace.streams = if take {
        std::mem::take(&mut *lock(&STREAM_NAMES))
    } else {
        lock(&STREAM_NAMES).clone()
    };
    trace
}

//! The lock-order checker (debug builds).
//!
//! Every runtime mutex is taken through [`super::lock`], which in debug builds notes the lock's
//! class (the type of the data it guards, named by [`class_name`]) on a per-thread list while
//! the guard lives. Two rules are checked, and a break of either panics at once with both
//! locks named:
//!
//! 1. **Order.** A lock may be taken while another is held only if the pair (held, taken) is
//!    listed in [`NESTING`], the table `docs/ARCHITECTURE.md` ("Lock order") describes. The
//!    table is acyclic (a unit test checks it), so no two threads can wait for each other's
//!    locks.
//! 2. **No lock across user code.** Nothing may be held while the runtime runs user code (a
//!    kernel, a callback, a host function, the exception callback) or blocks waiting for it
//!    (a synchronise, a stream wait, a report wait, joining a worker): [`assert_none_held`].
//!    User code may call back into the runtime and need any lock.
//!
//! Release builds compile all of this away: [`super::lock`] returns the plain guard.

#![cfg_attr(not(all(debug_assertions, not(loom))), allow(dead_code))]

/// Short names of the runtime's lock classes, keyed by the guarded type as written without
/// module paths (the compiler's full type names differ between versions).
const CLASSES: &[(&str, &str)] = &[
    ("Lifecycle", "lifecycle"),
    ("LifecycleCallbacks", "lifecycle.callbacks"),
    ("Binding", "device.binding"),
    ("IdPool", "device.stream_ids"),
    ("Vec<Arc<Stream>>", "context.streams"),
    ("EventState", "event.state"),
    ("Arc<Latch>", "event.flag"),
    ("bool", "stream.submit"),
    ("Option<Failure>", "stream.pending_failure"),
    ("Option<Arc<Subscriber>>", "stream.subscriber"),
    ("Option<JoinHandle<()>>", "stream.worker_join"),
    ("VecDeque<Task>", "stream.head"),
    ("Due", "subscriber.due"),
    ("Vec<StreamHandle>", "subscriber.streams"),
    ("HashMap<u64, Arc<Subscriber>>", "reports.subscribers"),
    ("Option<ObserverId>", "trace.collector"),
    ("Option<PathBuf>", "trace.env_path"),
    ("Vec<Arc<ThreadBuffer>>", "trace.buffers"),
    ("Vec<Vec<TraceRecord>>", "trace.chunks"),
    ("Vec<StreamInfo>", "trace.stream_names"),
    ("Vec<NamedStream>", "observe.named_streams"),
    ("Vec<usize>", "exception.live_infos"),
    ("BTreeSet<u64>", "extras.halted"),
    ("TaskAbortCallbacks", "extras.task_abort"),
    ("BTreeSet<(i32, i32)>", "extras.peers"),
    ("Option<Box<dyn Any + Send>>", "cuda.state"),
    ("PoolState", "memory.pool"),
    ("Order", "memory.pool_order"),
    ("DevicePools", "memory.device_pools"),
    ("Vec<Arc<Pool>>", "memory.retired_pools"),
    ("ManagedState", "memory.managed"),
    ("PendingSet", "memory.pending_frees"),
    ("BinaryFunctions", "kernel.binary_functions"),
    ("FunctionArgs", "kernel.function_args"),
    ("ArgsState", "kernel.args_state"),
    ("UserArgs", "kernel.user_args"),
    ("Recorders", "ipc.recorders"),
    ("VmmState", "memory.vmm"),
    ("IpcState", "memory.ipc"),
    // The writers' gate (`memory/writers.rs`) sleeps on a leaf lock of its own, taken outside
    // the checker only to sleep or to wake sleepers, like the pool's.
];

/// Which lock may be taken while which is held: (held, taken). Everything not listed is
/// refused. Kept in step with the "Lock order" section of `docs/ARCHITECTURE.md`.
pub(crate) const NESTING: &[(&str, &str)] = &[
    // aclInit / aclFinalize swap the installed runtime; finalize ends report threads' waits.
    ("lifecycle", "trace.env_path"),
    ("lifecycle", "trace.collector"),
    // An abort decides, under the stream's submit lock, whether the stream takes work again.
    ("stream.submit", "extras.halted"),
    // aclInit starts an ACLRT_TRACE collection, which reads the names of live streams.
    ("lifecycle", "observe.named_streams"),
    // aclrtSetDevice makes the default context (its default stream's id and list entry).
    ("device.binding", "device.stream_ids"),
    ("device.binding", "context.streams"),
    // A record or reset is queued under the event's lock, so the latest record follows queue
    // order; queuing may start the worker, or (worker refused) discard queued records, which
    // set their event's flag.
    ("event.state", "event.flag"),
    ("event.state", "context.streams"),
    ("event.state", "stream.submit"),
    ("event.state", "stream.worker_join"),
    // A pooled stream refused a worker discards the tasks it keeps, under the same lock.
    ("event.state", "stream.head"),
    ("event.state", "stream.pending_failure"),
    // Subscriptions: the stream's slot, then the hub, then the subscriber's own lists.
    ("stream.subscriber", "reports.subscribers"),
    ("stream.subscriber", "subscriber.streams"),
    ("stream.subscriber", "subscriber.due"),
    ("reports.subscribers", "subscriber.streams"),
    ("reports.subscribers", "subscriber.due"),
    ("subscriber.due", "subscriber.streams"),
    // Queuing a task: its trace record goes to the thread's buffer.
    ("stream.submit", "trace.buffers"),
    ("stream.submit", "trace.chunks"),
    ("event.state", "trace.buffers"),
    ("event.state", "trace.chunks"),
    ("stream.worker_join", "trace.buffers"),
    ("stream.worker_join", "trace.chunks"),
    ("stream.pending_failure", "trace.buffers"),
    ("stream.pending_failure", "trace.chunks"),
    ("stream.subscriber", "trace.buffers"),
    ("stream.subscriber", "trace.chunks"),
    ("event.flag", "trace.buffers"),
    ("event.flag", "trace.chunks"),
    ("context.streams", "trace.buffers"),
    ("context.streams", "trace.chunks"),
    // An args handle placed in the caller's memory is entered by address while its function's
    // list is held open, so an unload cannot clean the addresses up in between.
    ("kernel.function_args", "kernel.user_args"),
    // The trace collector.
    ("trace.collector", "trace.stream_names"),
    ("trace.collector", "trace.buffers"),
    ("trace.collector", "trace.chunks"),
    ("trace.buffers", "trace.chunks"),
    ("trace.buffers", "trace.stream_names"),
    ("trace.env_path", "trace.collector"),
    ("trace.env_path", "trace.stream_names"),
    ("trace.env_path", "trace.buffers"),
    ("trace.env_path", "trace.chunks"),
];

/// Whether `inner` may be taken while `outer` is held: the table leads from one to the
/// other, directly or through locks taken in between.
pub(crate) fn allowed(outer: &str, inner: &str) -> bool {
    let mut seen = vec![outer];
    let mut next = 0;
    while next < seen.len() {
        let from = seen[next];
        next += 1;
        for &(a, b) in NESTING {
            if a == from && !seen.contains(&b) {
                if b == inner {
                    return true;
                }
                seen.push(b);
            }
        }
    }
    false
}

/// The short name of the lock guarding a `T` (the type's own name when it is not listed).
pub(crate) fn class_name(type_name: &'static str) -> &'static str {
    let mut buffer = [0u8; 256];
    let plain = without_paths(type_name, &mut buffer);
    CLASSES
        .iter()
        .find(|(t, _)| t.as_bytes() == plain)
        .map_or(type_name, |(_, short)| short)
}

/// `type_name` with every path prefix dropped (`alloc::sync::Arc<a::B>` → `Arc<B>`), written
/// into `out` (cut at its length: long names match nothing, which is fine).
fn without_paths<'a>(type_name: &str, out: &'a mut [u8]) -> &'a [u8] {
    let bytes = type_name.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        let mut j = i;
        while j < bytes.len() && is_ident(bytes[j]) {
            j += 1;
        }
        if j > i && bytes[j..].starts_with(b"::") {
            i = j + 2;
            continue;
        }
        let end = j.max(i + 1);
        for &b in &bytes[i..end] {
            if n < out.len() {
                out[n] = b;
                n += 1;
            }
        }
        i = end;
    }
    &out[..n]
}

#[cfg(all(debug_assertions, not(loom)))]
mod imp {
    use std::cell::RefCell;

    thread_local! {
        static HELD: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
    }

    /// Notes that the calling thread took a lock of `class`, after checking the order.
    pub(crate) fn acquired(class: &'static str) {
        let _ = HELD.try_with(|held| {
            let mut held = held.borrow_mut();
            for &outer in held.iter() {
                if !super::allowed(outer, class) && !std::thread::panicking() {
                    let list = held.clone();
                    drop(held);
                    panic!(
                        "lock order: {class} taken while {outer} is held (held: {list:?}); \
                         allowed nestings are listed in docs/ARCHITECTURE.md, Lock order"
                    );
                }
            }
            held.push(class);
        });
    }

    /// Notes that the calling thread released a lock of `class`.
    pub(crate) fn released(class: &'static str) {
        let _ = HELD.try_with(|held| {
            let mut held = held.borrow_mut();
            if let Some(i) = held.iter().rposition(|c| *c == class) {
                held.remove(i);
            }
        });
    }

    /// Panics if the calling thread holds a runtime lock: it is about to `what` (run user
    /// code, or wait for it).
    pub(crate) fn assert_none_held(what: &str) {
        let held = HELD
            .try_with(|held| held.borrow().clone())
            .unwrap_or_default();
        if !held.is_empty() && !std::thread::panicking() {
            panic!(
                "lock order: {what} while holding {held:?}; no runtime lock may be held while \
                 user code runs or is waited for (docs/ARCHITECTURE.md, Lock order)"
            );
        }
    }
}

#[cfg(not(all(debug_assertions, not(loom))))]
mod imp {
    #[inline(always)]
    pub(crate) fn assert_none_held(_what: &str) {}
}

pub(crate) use imp::*;

#[cfg(test)]
mod tests {
    use super::*;

    /// The nesting table admits no cycle: a topological order of its classes exists.
    #[test]
    fn nesting_is_acyclic() {
        let mut edges: Vec<(&str, &str)> = NESTING.to_vec();
        loop {
            // A class nothing is taken under (no outgoing edge) can be ordered last.
            let sinks: Vec<&str> = edges
                .iter()
                .map(|e| e.1)
                .filter(|c| !edges.iter().any(|e| e.0 == *c))
                .collect();
            let before = edges.len();
            edges.retain(|e| !sinks.contains(&e.1));
            if edges.is_empty() || edges.len() == before {
                break;
            }
        }
        assert!(edges.is_empty(), "cycle among {edges:?}");
    }

    #[test]
    fn classes_are_named_without_paths() {
        let mut buffer = [0u8; 256];
        assert_eq!(
            without_paths(
                "core::option::Option<alloc::rcs::arc::Arc<x::Y>>",
                &mut buffer
            ),
            b"Option<Arc<Y>>"
        );
        assert_eq!(
            class_name("std::collections::hash::map::HashMap<u64, alloc::sync::Arc<aclrt::callback::Subscriber>>"),
            "reports.subscribers"
        );
        assert_eq!(class_name("bool"), "stream.submit");
        assert_eq!(class_name("some::Other"), "some::Other");
    }

    #[test]
    fn every_nested_class_is_a_known_lock() {
        for (outer, inner) in NESTING {
            for class in [outer, inner] {
                assert!(
                    CLASSES.iter().any(|(_, short)| short == class),
                    "{class} is not a lock class"
                );
            }
        }
    }

    #[cfg(debug_assertions)]
    #[test]
    fn an_unlisted_nesting_panics() {
        let a = std::sync::Mutex::new(super::super::tests_support::Outer);
        let b = std::sync::Mutex::new(super::super::tests_support::Inner);
        let caught = std::panic::catch_unwind(|| {
            let _a = super::super::lock(&a);
            let _b = super::super::lock(&b);
        });
        let message = crate::panic_text(&caught.expect_err("the nesting is refused"));
        assert!(message.contains("lock order"), "{message}");
        // Released in either order, nothing stays noted.
        assert_none_held("checking");
    }

    #[cfg(debug_assertions)]
    #[test]
    fn waiting_with_a_lock_held_panics() {
        let a = std::sync::Mutex::new(super::super::tests_support::Outer);
        let caught = std::panic::catch_unwind(|| {
            let _a = super::super::lock(&a);
            assert_none_held("waiting for a kernel");
        });
        let message = crate::panic_text(&caught.expect_err("refused"));
        assert!(
            message.contains("waiting for a kernel") && message.contains("Outer"),
            "{message}"
        );
        assert_none_held("checking");
    }
}

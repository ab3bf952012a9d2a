//! Host callbacks: threads subscribed to streams, and the due callbacks they run in
//! `aclrtProcessReport`.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::codes::*;
use crate::error::{bail, Error, Result};
use crate::handle::StreamHandle;
use crate::observe::{self, TaskRef};
use crate::sync::{lock, Latch, SpinPolicy, WaitList};
use crate::task_info::HostFn;
use crate::user_code;

/// Subscribed threads per process.
pub const MAX_CALLBACK_THREADS: usize = 1024;

/// A callback whose stream reached it, waiting for its subscribed thread.
pub(crate) struct DueCallback {
    stream: StreamHandle,
    /// The callback task, for traces.
    origin: TaskRef,
    body: HostFn,
    /// Set when the body returned; present for `ACL_CALLBACK_BLOCK`.
    done: Option<Arc<CallbackDone>>,
}

/// How a blocking callback's stream learns that the callback finished, or was dropped unrun.
#[derive(Default)]
pub(crate) struct CallbackDone {
    latch: Latch,
    ran: AtomicBool,
}

impl CallbackDone {
    /// Waits until the callback ran or was released, or until `abort()`.
    pub(crate) fn wait_or(&self, abort: impl Fn() -> bool) {
        self.latch.wait_or(abort, None, SpinPolicy::Brief);
    }

    pub(crate) fn ran(&self) -> bool {
        self.ran.load(Ordering::Acquire)
    }

    fn finish(&self, ran: bool) {
        self.ran.store(ran, Ordering::Release);
        self.latch.set();
    }
}

/// A thread subscribed with `aclrtSubscribeReport`.
pub(crate) struct Subscriber {
    pub(crate) thread_id: u64,
    pub(crate) device_id: i32,
    due: Mutex<VecDeque<DueCallback>>,
    due_count: AtomicUsize,
    ready: WaitList,
    /// Streams this thread serves.
    streams: Mutex<Vec<StreamHandle>>,
}

impl Subscriber {
    /// Hands a callback to the subscribed thread.
    pub(crate) fn deliver(
        &self,
        stream: StreamHandle,
        origin: TaskRef,
        body: HostFn,
        done: Option<Arc<CallbackDone>>,
    ) {
        lock(&self.due).push_back(DueCallback {
            stream,
            origin,
            body,
            done,
        });
        self.due_count.fetch_add(1, Ordering::SeqCst);
        self.ready.wake_all();
    }

    /// Waits for due callbacks and runs them on the calling thread; `Ok(false)` if none came
    /// before the deadline. A callback that fails (panics, or is failed by its face with
    /// [`crate::fail_user_code`]) does not stop the others; the first failure is returned once
    /// all have run.
    pub(crate) fn process(&self, deadline: Option<Instant>) -> Result<bool> {
        let arrived = self.ready.wait_until(
            || self.due_count.load(Ordering::SeqCst) > 0,
            deadline,
            SpinPolicy::Brief,
        );
        if !arrived {
            return Ok(false);
        }
        let batch: Vec<DueCallback> = {
            let mut due = lock(&self.due);
            self.due_count.fetch_sub(due.len(), Ordering::SeqCst);
            due.drain(..).collect()
        };
        let mut first_failure = None;
        for callback in batch {
            let started = observe::enabled().then(observe::now_ns);
            if started.is_some() {
                observe::callback_starting(callback.origin, callback.done.is_some());
            }
            let what = format!("callback (task {})", callback.origin.task_id);
            if let Err((code, message)) = user_code::run(&what, callback.body) {
                first_failure.get_or_insert(Error::new(code, message));
            }
            if let Some(start) = started {
                observe::callback_ran(callback.origin, start);
            }
            if let Some(done) = callback.done {
                done.finish(true);
            }
        }
        first_failure.map_or(Ok(true), Err)
    }

    /// Releases the callbacks of `stream` that were delivered but never processed.
    fn release_stream(&self, stream: StreamHandle) {
        let mut due = lock(&self.due);
        let before = due.len();
        due.retain(|c| {
            if c.stream == stream {
                if let Some(done) = &c.done {
                    done.finish(false);
                }
                false
            } else {
                true
            }
        });
        self.due_count
            .fetch_sub(before - due.len(), Ordering::SeqCst);
    }
}

/// Every subscription of the process.
#[derive(Default)]
pub(crate) struct ReportHub {
    subscribers: Mutex<HashMap<u64, Arc<Subscriber>>>,
}

impl ReportHub {
    /// Subscribes `thread_id` to `stream` (already checked: not yet subscribed).
    pub(crate) fn subscribe(
        &self,
        thread_id: u64,
        device_id: i32,
        stream: StreamHandle,
    ) -> Result<Arc<Subscriber>> {
        let mut subscribers = lock(&self.subscribers);
        if let Some(existing) = subscribers.get(&thread_id) {
            if existing.device_id != device_id {
                bail!(
                    ACL_ERROR_RT_THREAD_SUBSCRIBE,
                    "thread {thread_id:#x} already serves streams of device {}, not device {device_id}",
                    existing.device_id
                );
            }
            lock(&existing.streams).push(stream);
            return Ok(existing.clone());
        }
        if subscribers.len() >= MAX_CALLBACK_THREADS {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "at most {MAX_CALLBACK_THREADS} threads can be subscribed for callbacks"
            );
        }
        let subscriber = Arc::new(Subscriber {
            thread_id,
            device_id,
            due: Mutex::new(VecDeque::new()),
            due_count: AtomicUsize::new(0),
            ready: WaitList::new(),
            streams: Mutex::new(vec![stream]),
        });
        subscribers.insert(thread_id, subscriber.clone());
        Ok(subscriber)
    }

    /// Removes `stream` from its subscriber; a thread left with no streams is forgotten.
    pub(crate) fn unsubscribe(&self, subscriber: &Subscriber, stream: StreamHandle) {
        subscriber.release_stream(stream);
        let mut subscribers = lock(&self.subscribers);
        let mut streams = lock(&subscriber.streams);
        streams.retain(|s| *s != stream);
        if streams.is_empty() {
            subscribers.remove(&subscriber.thread_id);
        }
    }

    pub(crate) fn find(&self, thread_id: u64) -> Option<Arc<Subscriber>> {
        lock(&self.subscribers).get(&thread_id).cloned()
    }

    pub(crate) fn clear(&self) {
        lock(&self.subscribers).clear();
    }

    pub(crate) fn count(&self) -> usize {
        lock(&self.subscribers).len()
    }
}

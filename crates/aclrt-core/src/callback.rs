//! Host callbacks: threads subscribed to streams, and the due callbacks they run in
//! `aclrtProcessReport`.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::Instant;

use crate::codes::*;
use crate::error::{bail, AclError, Error, Result};
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
    /// Why the callback was dropped unrun, when it was.
    unrun: OnceLock<String>,
}

impl CallbackDone {
    /// Waits until the callback ran or was released, or until `abort()`.
    pub(crate) fn wait_or(&self, abort: impl Fn() -> bool) {
        self.latch.wait_or(abort, None, SpinPolicy::Brief);
    }

    /// Whether the callback ran or was released unrun.
    pub(crate) fn is_finished(&self) -> bool {
        self.latch.is_set()
    }

    /// The latch set when it finished, for a stream that suspends on it.
    pub(crate) fn latch(&self) -> &Latch {
        &self.latch
    }

    pub(crate) fn ran(&self) -> bool {
        self.ran.load(Ordering::Acquire)
    }

    /// The failure of a blocking callback task whose callback was released unrun.
    pub(crate) fn unrun_error(&self, task_id: u64) -> (AclError, String) {
        let why = self.unrun.get().map_or(
            "the stream was unsubscribed before its thread processed it",
            String::as_str,
        );
        (
            ACL_ERROR_RT_STREAM_NO_CB_REG,
            format!("blocking callback (task {task_id}) was released unrun: {why}"),
        )
    }

    fn finish(&self, ran: bool) {
        self.ran.store(ran, Ordering::Release);
        self.latch.set();
    }

    fn finish_unrun(&self, why: &str) {
        let _ = self.unrun.set(why.to_owned());
        self.finish(false);
    }
}

/// The callbacks handed to a subscribed thread and not yet taken by it.
pub(crate) struct Due {
    queue: VecDeque<DueCallback>,
    /// Set when the subscription ended without an unsubscribe (the thread exited, or the
    /// runtime was finalized): why. Nothing is delivered any more.
    ended: Option<String>,
}

/// What one [`Subscriber::process`] call did.
pub(crate) enum Processed {
    /// Ran the callbacks that were due.
    Ran,
    /// Ran the callbacks that were due; one failed (panicked, or was failed by its face with
    /// [`crate::fail_user_code`]): the first failure. The others still ran.
    Failed(Error),
    /// Nothing became due before the deadline.
    TimedOut,
    /// The subscription ended (see [`Due::ended`]).
    Ended(String),
}

type SubscriberMap = Mutex<HashMap<u64, Arc<Subscriber>>>;

/// A thread subscribed with `aclrtSubscribeReport`.
pub(crate) struct Subscriber {
    pub(crate) thread_id: u64,
    pub(crate) device_id: i32,
    due: Mutex<Due>,
    due_count: AtomicUsize,
    ended: AtomicBool,
    ready: WaitList,
    /// Streams this thread serves.
    streams: Mutex<Vec<StreamHandle>>,
    /// The hub that lists this subscriber, so its end can take it off the list.
    hub: Weak<SubscriberMap>,
}

thread_local! {
    /// The hubs in which the calling thread called `aclrtProcessReport`: when the thread exits,
    /// its subscription in each ends.
    static EXIT_WATCH: ExitWatch = const { ExitWatch(RefCell::new(Vec::new())) };
}

/// Ends the subscriptions of a thread that exits without unsubscribing.
struct ExitWatch(RefCell<Vec<(Weak<SubscriberMap>, u64)>>);

impl Drop for ExitWatch {
    fn drop(&mut self) {
        for (hub, thread_id) in self.0.take() {
            let Some(hub) = hub.upgrade() else { continue };
            let subscriber = lock(&hub).get(&thread_id).cloned();
            if let Some(subscriber) = subscriber {
                subscriber.end(&format!(
                    "the thread subscribed for it ({thread_id:#x}) exited without \
                     aclrtUnSubscribeReport"
                ));
            }
        }
    }
}

/// Forgets what the calling thread watches (a forked child: the subscriptions belong to the
/// parent's runtime, which the child never touches).
pub(crate) fn forget_exit_watch() {
    let _ = EXIT_WATCH.try_with(|watch| {
        if let Ok(mut list) = watch.0.try_borrow_mut() {
            std::mem::forget(std::mem::take(&mut *list));
        }
    });
}

impl Subscriber {
    /// Hands a callback to the subscribed thread; refused (with the task's failure) once the
    /// subscription has ended.
    pub(crate) fn deliver(
        &self,
        stream: StreamHandle,
        origin: TaskRef,
        body: HostFn,
        done: Option<Arc<CallbackDone>>,
    ) -> Result<(), (AclError, String)> {
        let mut due = lock(&self.due);
        if let Some(why) = &due.ended {
            return Err((
                ACL_ERROR_RT_STREAM_NO_CB_REG,
                format!("callback (task {}) did not run: {why}", origin.task_id),
            ));
        }
        due.queue.push_back(DueCallback {
            stream,
            origin,
            body,
            done,
        });
        self.due_count.fetch_add(1, Ordering::SeqCst);
        drop(due);
        self.ready.wake_all();
        Ok(())
    }

    /// Whether the subscription ended without an unsubscribe.
    pub(crate) fn has_ended(&self) -> bool {
        self.ended.load(Ordering::SeqCst)
    }

    /// Ends the subscription: nothing is delivered any more, blocking callbacks delivered and
    /// not yet run are released unrun (their tasks fail with `107015` and `why`), a thread
    /// waiting in `aclrtProcessReport` is woken, and the thread is taken off the hub.
    pub(crate) fn end(&self, why: &str) {
        let released = {
            let mut due = lock(&self.due);
            if due.ended.is_some() {
                return;
            }
            due.ended = Some(why.to_owned());
            self.ended.store(true, Ordering::SeqCst);
            self.due_count.store(0, Ordering::SeqCst);
            std::mem::take(&mut due.queue)
        };
        for callback in released {
            if let Some(done) = callback.done {
                done.finish_unrun(why);
            }
        }
        self.ready.wake_all();
        if let Some(hub) = self.hub.upgrade() {
            let mut subscribers = lock(&hub);
            if subscribers
                .get(&self.thread_id)
                .is_some_and(|s| std::ptr::eq(Arc::as_ptr(s), self))
            {
                subscribers.remove(&self.thread_id);
            }
        }
    }

    /// Waits for due callbacks and runs them on the calling thread. A callback that fails does
    /// not stop the others; the first failure is reported once all have run.
    pub(crate) fn process(&self, deadline: Option<Instant>) -> Processed {
        let arrived = self.ready.wait_until(
            || self.due_count.load(Ordering::SeqCst) > 0 || self.has_ended(),
            deadline,
            SpinPolicy::Brief,
        );
        let batch: Vec<DueCallback> = {
            let mut due = lock(&self.due);
            if let Some(why) = &due.ended {
                return Processed::Ended(why.clone());
            }
            if !arrived {
                return Processed::TimedOut;
            }
            self.due_count.fetch_sub(due.queue.len(), Ordering::SeqCst);
            due.queue.drain(..).collect()
        };
        let mut first_failure = None;
        for callback in batch {
            let started = observe::enabled().then(observe::now_ns);
            if started.is_some() {
                observe::callback_starting(callback.origin, callback.done.is_some());
            }
            let what = format_args!("callback (task {})", callback.origin.task_id);
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
        match first_failure {
            Some(error) => Processed::Failed(error),
            None => Processed::Ran,
        }
    }

    /// Releases the callbacks of `stream` that were delivered but never processed.
    fn release_stream(&self, stream: StreamHandle) {
        let mut due = lock(&self.due);
        let before = due.queue.len();
        due.queue.retain(|c| {
            if c.stream == stream {
                if let Some(done) = &c.done {
                    done.finish(false);
                }
                false
            } else {
                true
            }
        });
        let released = before - due.queue.len();
        if due.ended.is_none() {
            self.due_count.fetch_sub(released, Ordering::SeqCst);
        }
    }
}

/// Every subscription of the process.
#[derive(Default)]
pub(crate) struct ReportHub {
    subscribers: Arc<SubscriberMap>,
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
            due: Mutex::new(Due {
                queue: VecDeque::new(),
                ended: None,
            }),
            due_count: AtomicUsize::new(0),
            ended: AtomicBool::new(false),
            ready: WaitList::new(),
            streams: Mutex::new(vec![stream]),
            hub: Arc::downgrade(&self.subscribers),
        });
        subscribers.insert(thread_id, subscriber.clone());
        Ok(subscriber)
    }

    /// Removes `stream` from its subscriber; a thread left with no streams is forgotten.
    /// A thread waiting in `aclrtProcessReport` for a subscriber forgotten this way wakes and is
    /// told it is not subscribed.
    pub(crate) fn unsubscribe(&self, subscriber: &Subscriber, stream: StreamHandle) {
        subscriber.release_stream(stream);
        let forgotten = {
            let mut subscribers = lock(&self.subscribers);
            let mut streams = lock(&subscriber.streams);
            streams.retain(|s| *s != stream);
            let listed = subscribers
                .get(&subscriber.thread_id)
                .is_some_and(|s| std::ptr::eq(Arc::as_ptr(s), subscriber));
            if streams.is_empty() && listed {
                subscribers.remove(&subscriber.thread_id);
            }
            streams.is_empty()
        };
        if forgotten {
            subscriber.end("the thread no longer serves any stream");
        }
    }

    /// Watches the calling thread (`thread_id`, its `pthread_self()`) for its exit: from then
    /// on, its subscription in this hub ends when it exits (see [`Subscriber::end`]).
    pub(crate) fn watch_calling_thread(&self, thread_id: u64) {
        let _ = EXIT_WATCH.try_with(|watch| {
            let mut watched = watch.0.borrow_mut();
            let me = Arc::as_ptr(&self.subscribers);
            if !watched.iter().any(|(hub, _)| hub.as_ptr() == me) {
                // Hubs of runtimes gone since are dropped from the list on the way.
                watched.retain(|(hub, _)| hub.strong_count() > 0);
                watched.push((Arc::downgrade(&self.subscribers), thread_id));
            }
        });
    }

    /// The live subscription of `thread_id`.
    pub(crate) fn find(&self, thread_id: u64) -> Option<Arc<Subscriber>> {
        lock(&self.subscribers)
            .get(&thread_id)
            .filter(|s| !s.has_ended())
            .cloned()
    }

    /// Ends every subscription (finalize): waiting report threads wake with `why`.
    pub(crate) fn clear(&self, why: &str) {
        let all: Vec<_> = lock(&self.subscribers).drain().map(|(_, s)| s).collect();
        for subscriber in all {
            subscriber.end(why);
        }
    }

    pub(crate) fn count(&self) -> usize {
        lock(&self.subscribers).len()
    }
}

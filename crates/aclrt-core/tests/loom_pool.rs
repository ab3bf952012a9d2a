//! Model checks of the pooled scheduler's protocols, with the real `RunState`, `ReadyQueue`
//! and `WaitList` code:
//! - a pushed stream is taken by a parked worker (no lost wake-up in the ready queue);
//! - a stream that suspends on a condition is resumed exactly once, by its own worker (the
//!   condition held on its re-check) or by the waker (queued), never both, never neither;
//! - work submitted while the worker goes idle is run: the worker re-claims the stream or the
//!   submitter queues it, exactly one of them;
//! - an abort racing a suspension resumes the stream exactly once.
#![cfg(loom)]

use std::collections::VecDeque;

use aclrt::sync::{Pop, ReadyQueue, RunState, WaitList};
use loom::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

#[test]
fn a_parked_worker_takes_what_is_pushed() {
    loom::model(|| {
        let ready = Arc::new(ReadyQueue::<u32>::new());
        let worker = {
            let ready = ready.clone();
            thread::spawn(move || ready.pop(1, None))
        };
        ready.push(7);
        assert_eq!(worker.join().unwrap(), Pop::Item(7));
        assert!(ready.is_empty());
    });
}

#[test]
fn two_workers_take_two_pushes() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(2);
    model.check(|| {
        let ready = Arc::new(ReadyQueue::<u32>::new());
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let ready = ready.clone();
                thread::spawn(move || match ready.pop(1, None) {
                    Pop::Item(n) => n,
                    other => panic!("{other:?}"),
                })
            })
            .collect();
        ready.push(1);
        ready.push(2);
        let mut got: Vec<u32> = workers.into_iter().map(|w| w.join().unwrap()).collect();
        got.sort();
        assert_eq!(got, vec![1, 2]);
    });
}

#[test]
fn shutting_down_releases_a_parked_worker() {
    loom::model(|| {
        let ready = Arc::new(ReadyQueue::<u32>::new());
        let worker = {
            let ready = ready.clone();
            thread::spawn(move || ready.pop(1, None))
        };
        ready.shut_down();
        assert_eq!(worker.join().unwrap(), Pop::ShutDown);
    });
}

/// A suspended stream: its run state, the condition it waits for and its wait list.
struct Suspended {
    state: RunState,
    done: AtomicBool,
    list: WaitList,
    aborted: AtomicBool,
    /// Times the stream was queued by a waker (each would run it on some worker).
    queued: AtomicUsize,
}

impl Suspended {
    fn new() -> Arc<Self> {
        let s = Arc::new(Self {
            state: RunState::new(),
            done: AtomicBool::new(false),
            list: WaitList::new(),
            aborted: AtomicBool::new(false),
            queued: AtomicUsize::new(0),
        });
        // A worker took it off the ready queue.
        assert!(s.state.ring());
        s.state.start();
        s
    }
}

/// The worker: the head of `s` is not done, so it suspends; `true` if it goes on itself.
fn suspend(s: &Arc<Suspended>) -> bool {
    s.state.suspend();
    let me = s.clone();
    let waker: aclrt::sync::Waker = std::sync::Arc::new(move || {
        if me.state.wake() {
            me.queued.fetch_add(1, Ordering::SeqCst);
        }
    });
    let ready = || s.done.load(Ordering::SeqCst) || s.aborted.load(Ordering::SeqCst);
    !s.list.wake_when(ready, 0, waker) && s.state.resume_self()
}

#[test]
fn a_suspended_stream_resumes_exactly_once() {
    loom::model(|| {
        let s = Suspended::new();
        let producer = {
            let s = s.clone();
            thread::spawn(move || {
                s.done.store(true, Ordering::SeqCst);
                s.list.wake_all();
            })
        };
        let went_on = suspend(&s);
        producer.join().unwrap();
        let queued = s.queued.load(Ordering::SeqCst);
        assert_eq!(
            usize::from(went_on) + queued,
            1,
            "resumed {went_on} + {queued}"
        );
    });
}

#[test]
fn an_abort_racing_a_suspension_resumes_it_once() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(|| {
        let s = Suspended::new();
        let aborter = {
            let s = s.clone();
            thread::spawn(move || {
                // What `Stream::wake_worker` does after setting the abort flag.
                s.aborted.store(true, Ordering::SeqCst);
                if s.state.wake() {
                    s.queued.fetch_add(1, Ordering::SeqCst);
                }
            })
        };
        let producer = {
            let s = s.clone();
            thread::spawn(move || {
                s.done.store(true, Ordering::SeqCst);
                s.list.wake_all();
            })
        };
        let went_on = suspend(&s);
        aborter.join().unwrap();
        producer.join().unwrap();
        let queued = s.queued.load(Ordering::SeqCst);
        assert_eq!(
            usize::from(went_on) + queued,
            1,
            "resumed {went_on} + {queued}"
        );
    });
}

#[test]
fn work_submitted_while_the_worker_goes_idle_is_run() {
    loom::model(|| {
        let state = Arc::new(RunState::new());
        let queue = Arc::new(Mutex::new(VecDeque::<u32>::new()));
        // The worker holds the stream and found its queue empty.
        assert!(state.ring());
        state.start();
        let submitter = {
            let (state, queue) = (state.clone(), queue.clone());
            thread::spawn(move || {
                queue.lock().unwrap().push_back(1);
                state.ring()
            })
        };
        let has_work = || !queue.lock().unwrap().is_empty();
        let worker_kept_it = state.idle(has_work);
        let submitter_queued_it = submitter.join().unwrap();
        // Exactly one of them holds the stream, and the task is still there for it.
        assert!(worker_kept_it ^ submitter_queued_it);
        assert_eq!(queue.lock().unwrap().len(), 1);
    });
}

//! Model checks of the worker doorbell: producers publish work and ring; the consumer parks
//! when it finds none. Every published item must be consumed, whatever the interleaving: a
//! lost wake-up leaves the consumer parked with work pending, which loom reports as a deadlock,
//! and a doubled start or wake shows as a broken count.
#![cfg(loom)]

use aclrt::sync::{Doorbell, Ring};
use loom::sync::atomic::{AtomicUsize, Ordering};
use loom::sync::{Arc, Mutex};
use loom::thread;

struct Shared {
    bell: Doorbell,
    published: AtomicUsize,
    consumer: Mutex<Option<thread::Thread>>,
    starts: AtomicUsize,
}

/// Consumes until `total` items were taken, parking whenever it finds none.
fn consume(shared: &Shared, total: usize) {
    // As the stream worker does: registered before it can ever sleep.
    *shared.consumer.lock().unwrap() = Some(thread::current());
    let mut taken = 0;
    while taken < total {
        let available = shared.published.load(Ordering::SeqCst);
        if available > taken {
            taken = available;
            continue;
        }
        if shared
            .bell
            .prepare_to_park(|| shared.published.load(Ordering::SeqCst) > taken)
        {
            thread::park();
        }
        shared.bell.awake();
    }
}

fn produce(shared: &Arc<Shared>, total: usize) {
    shared.published.fetch_add(1, Ordering::SeqCst);
    match shared.bell.ring() {
        Ring::Start => {
            assert_eq!(
                shared.starts.fetch_add(1, Ordering::SeqCst),
                0,
                "started twice"
            );
            let s = shared.clone();
            // Not joined: loom still requires it to finish (a consumer parked forever is a
            // reported deadlock).
            drop(thread::spawn(move || consume(&s, total)));
        }
        Ring::Unpark => {
            // The consumer registered itself before it could sleep.
            if let Some(t) = shared.consumer.lock().unwrap().as_ref() {
                t.unpark();
            }
        }
        Ring::None => {}
    }
}

fn shared() -> Arc<Shared> {
    Arc::new(Shared {
        bell: Doorbell::new(),
        published: AtomicUsize::new(0),
        consumer: Mutex::new(None),
        starts: AtomicUsize::new(0),
    })
}

#[test]
fn a_running_consumer_never_misses_work() {
    loom::model(|| {
        let shared = shared();
        // The consumer is already running (started by an earlier item).
        shared.published.fetch_add(1, Ordering::SeqCst);
        assert_eq!(shared.bell.ring(), Ring::Start);
        let consumer = {
            let s = shared.clone();
            thread::spawn(move || consume(&s, 2))
        };
        let producer = {
            let s = shared.clone();
            thread::spawn(move || produce(&s, 2))
        };
        producer.join().unwrap();
        consumer.join().unwrap();
    });
}

#[test]
fn two_producers_wake_a_sleeping_consumer_once_each_time() {
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(|| {
        let shared = shared();
        shared.published.fetch_add(1, Ordering::SeqCst);
        assert_eq!(shared.bell.ring(), Ring::Start);
        let consumer = {
            let s = shared.clone();
            thread::spawn(move || consume(&s, 3))
        };
        let producers: Vec<_> = (0..2)
            .map(|_| {
                let s = shared.clone();
                thread::spawn(move || produce(&s, 3))
            })
            .collect();
        for p in producers {
            p.join().unwrap();
        }
        consumer.join().unwrap();
        assert_eq!(shared.published.load(Ordering::SeqCst), 3);
    });
}

#[test]
fn only_one_producer_starts_the_consumer() {
    loom::model(|| {
        let shared = shared();
        let a = {
            let s = shared.clone();
            thread::spawn(move || produce(&s, 2))
        };
        produce(&shared, 2);
        a.join().unwrap();
        assert_eq!(shared.starts.load(Ordering::SeqCst), 1);
    });
}

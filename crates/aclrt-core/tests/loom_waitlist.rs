//! Model checks of the wake-up protocol: a producer makes a condition true and calls
//! `wake_all`; waiters in `wait_until` must always return, whatever the interleaving. A lost
//! wake-up leaves a waiter parked forever, which loom reports as a deadlock.
#![cfg(loom)]

use aclrt::sync::{SpinPolicy, WaitList};
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::sync::Arc;
use loom::thread;

fn producer(list: &Arc<WaitList>, flag: &Arc<AtomicBool>) -> thread::JoinHandle<()> {
    let (list, flag) = (list.clone(), flag.clone());
    thread::spawn(move || {
        flag.store(true, Ordering::SeqCst);
        list.wake_all();
    })
}

#[test]
fn one_waiter_is_never_lost() {
    loom::model(|| {
        let list = Arc::new(WaitList::new());
        let flag = Arc::new(AtomicBool::new(false));
        let p = producer(&list, &flag);
        assert!(list.wait_until(|| flag.load(Ordering::SeqCst), None, SpinPolicy::Brief));
        p.join().unwrap();
    });
}

#[test]
fn two_waiters_are_both_woken() {
    // Three threads make the full state space too large to finish in seconds; three
    // preemptions cover every ordering of the announce / check / wake steps that matter.
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(|| {
        let list = Arc::new(WaitList::new());
        let flag = Arc::new(AtomicBool::new(false));
        let other = {
            let (list, flag) = (list.clone(), flag.clone());
            thread::spawn(move || {
                assert!(list.wait_until(|| flag.load(Ordering::SeqCst), None, SpinPolicy::Brief));
            })
        };
        let p = producer(&list, &flag);
        assert!(list.wait_until(|| flag.load(Ordering::SeqCst), None, SpinPolicy::Brief));
        p.join().unwrap();
        other.join().unwrap();
    });
}

#[test]
fn waiter_with_deadline_sees_the_condition() {
    loom::model(|| {
        let list = Arc::new(WaitList::new());
        let flag = Arc::new(AtomicBool::new(false));
        let p = producer(&list, &flag);
        // Far enough away that the real clock never expires it while the model runs.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(3600);
        assert!(list.wait_until(
            || flag.load(Ordering::SeqCst),
            Some(deadline),
            SpinPolicy::Brief
        ));
        p.join().unwrap();
    });
}

#[test]
fn list_is_reusable_after_a_wake() {
    // A second round on the same list: the first waiter must have left the list cleanly, so
    // the second round's wake reaches the second waiter.
    loom::model(|| {
        let list = Arc::new(WaitList::new());
        let first = Arc::new(AtomicBool::new(false));
        let second = Arc::new(AtomicBool::new(false));
        let p = {
            let (list, first, second) = (list.clone(), first.clone(), second.clone());
            thread::spawn(move || {
                first.store(true, Ordering::SeqCst);
                list.wake_all();
                second.store(true, Ordering::SeqCst);
                list.wake_all();
            })
        };
        assert!(list.wait_until(|| first.load(Ordering::SeqCst), None, SpinPolicy::Brief));
        assert!(list.wait_until(|| second.load(Ordering::SeqCst), None, SpinPolicy::Brief));
        p.join().unwrap();
    });
}

#[test]
fn spinning_waiter_yields_to_the_producer() {
    loom::model(|| {
        let list = Arc::new(WaitList::new());
        let flag = Arc::new(AtomicBool::new(false));
        let p = producer(&list, &flag);
        assert!(list.wait_until(|| flag.load(Ordering::SeqCst), None, SpinPolicy::Always));
        p.join().unwrap();
    });
}

#[test]
fn keyed_waiters_wake_when_their_key_is_reached() {
    // A progress counter advanced twice; one waiter needs 1, another 2. Wake-ups for 1 pass
    // the second waiter by, so a lost wake-up for 2 would leave it parked forever.
    let mut model = loom::model::Builder::new();
    model.preemption_bound = Some(3);
    model.check(|| {
        use loom::sync::atomic::AtomicU64;
        let list = Arc::new(WaitList::new());
        let progress = Arc::new(AtomicU64::new(0));
        let producer = {
            let (list, progress) = (list.clone(), progress.clone());
            thread::spawn(move || {
                for value in 1..=2 {
                    progress.store(value, Ordering::SeqCst);
                    list.wake_reached(value);
                }
            })
        };
        let first = {
            let (list, progress) = (list.clone(), progress.clone());
            thread::spawn(move || {
                assert!(list.wait_until_key(
                    || progress.load(Ordering::SeqCst) >= 1,
                    None,
                    SpinPolicy::Brief,
                    1
                ));
            })
        };
        assert!(list.wait_until_key(
            || progress.load(Ordering::SeqCst) >= 2,
            None,
            SpinPolicy::Brief,
            2
        ));
        producer.join().unwrap();
        first.join().unwrap();
    });
}

//! The pooled scheduler (`Scheduler::Pool`), on runtimes of its own whatever `ACLRT_SCHEDULER`
//! says: streams run in order on a few shared workers, waits suspend their stream instead of
//! holding a worker, kernels that block are made up for with extra workers, and a stream
//! that is aborted or destroyed while suspended lets go.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::codes::*;
use aclrt::config::Scheduler;
use aclrt::{Config, Runtime, StreamHandle};

fn pooled() -> Arc<Runtime> {
    let rt = Runtime::new(&Config {
        scheduler: Scheduler::Pool,
        ..Config::default()
    });
    rt.set_device(0).unwrap();
    rt
}

/// The pool's workers (`used`) are far fewer than `streams` — about one per core, and a few
/// more when the host deschedules one mid-task — where the machine has few enough cores for
/// that to tell (on one with more cores than streams, one worker per stream is fine).
fn assert_fewer_workers_than(used: usize, streams: usize) {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let bound = cores + 16;
    if bound < streams {
        assert!(
            used < bound,
            "{used} workers for {streams} streams on {cores} cores"
        );
    }
}

fn code<T>(r: aclrt::Result<T>) -> i32 {
    r.err().map_or(0, |e| e.code())
}

/// The name of the thread running the calling code.
fn thread_name() -> String {
    std::thread::current().name().unwrap_or("").to_owned()
}

fn launch(rt: &Runtime, s: StreamHandle, f: impl FnOnce() + Send + 'static) {
    rt.launch_kernel(
        s,
        "k",
        Default::default(),
        Box::new(move || {
            f();
            Ok(())
        }),
    )
    .unwrap();
}

#[test]
fn streams_run_in_order_on_pool_workers() {
    let rt = pooled();
    let streams: Vec<_> = (0..32).map(|_| rt.create_stream().unwrap()).collect();
    let seen: Vec<Arc<Mutex<Vec<u32>>>> = streams.iter().map(|_| Arc::default()).collect();
    let threads = Arc::new(Mutex::new(BTreeSet::new()));
    for i in 0..50u32 {
        for (s, seen) in streams.iter().zip(&seen) {
            let (seen, threads) = (seen.clone(), threads.clone());
            launch(&rt, *s, move || {
                seen.lock().unwrap().push(i);
                threads.lock().unwrap().insert(thread_name());
            });
        }
    }
    for s in &streams {
        rt.synchronize_stream(*s).unwrap();
    }
    for seen in &seen {
        assert_eq!(*seen.lock().unwrap(), (0..50).collect::<Vec<_>>());
    }
    let threads = threads.lock().unwrap();
    assert!(
        threads.iter().all(|t| t.starts_with("aclrt-pool-")),
        "{threads:?}"
    );
    // Far fewer than one per stream: nothing blocked, so no extra worker was needed (a few
    // may be started when the host deschedules a worker mid-task for over a millisecond).
    assert_fewer_workers_than(threads.len(), streams.len());
    rt.shut_down();
}

/// 64 streams wait on one event that is recorded last: suspended, they hold no worker, so
/// the pool needs no extra workers to get to the record, and every wait sees it.
#[test]
fn waits_suspend_instead_of_holding_workers() {
    let rt = pooled();
    let ev = rt.create_event().unwrap();
    let producer = rt.create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    {
        // The record cannot run before every wait below is queued.
        let gate = gate.clone();
        launch(&rt, producer, move || {
            while !gate.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        });
    }
    rt.record_event(ev, producer).unwrap();
    let released = Arc::new(AtomicUsize::new(0));
    let threads = Arc::new(Mutex::new(BTreeSet::new()));
    let waiters: Vec<_> = (0..64).map(|_| rt.create_stream().unwrap()).collect();
    for s in &waiters {
        rt.stream_wait_event(*s, ev).unwrap();
        let (released, threads) = (released.clone(), threads.clone());
        launch(&rt, *s, move || {
            released.fetch_add(1, Ordering::SeqCst);
            threads.lock().unwrap().insert(thread_name());
        });
    }
    gate.store(true, Ordering::SeqCst);
    for s in &waiters {
        rt.synchronize_stream(*s).unwrap();
    }
    assert_eq!(released.load(Ordering::SeqCst), 64);
    let threads = threads.lock().unwrap();
    assert_fewer_workers_than(threads.len(), waiters.len());
    rt.shut_down();
}

/// 256 streams each blocked in a 200 ms kernel finish together: the monitor sees the workers
/// stuck and starts extra ones for the streams still queued (serially, on two workers, they
/// would take over 25 s).
#[test]
fn blocking_kernels_do_not_starve_other_streams() {
    let rt = pooled();
    let streams: Vec<_> = (0..256).map(|_| rt.create_stream().unwrap()).collect();
    let start = Instant::now();
    for s in &streams {
        launch(&rt, *s, || std::thread::sleep(Duration::from_millis(200)));
    }
    for s in &streams {
        rt.synchronize_stream(*s).unwrap();
    }
    let took = start.elapsed();
    assert!(took < Duration::from_secs(3), "took {took:?}");
    rt.shut_down();
}

/// Aborting a stream suspended on an event that is never recorded releases it: what was
/// queued behind the wait is discarded, and the stream takes work again.
#[test]
fn an_abort_releases_a_suspended_stream() {
    let rt = pooled();
    let ev = rt.create_event().unwrap();
    let never = rt.create_stream().unwrap();
    let s = rt.create_stream().unwrap();
    // Recorded behind a kernel that waits for the gate, which opens only at the end.
    let gate = Arc::new(AtomicBool::new(false));
    {
        let gate = gate.clone();
        launch(&rt, never, move || {
            while !gate.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
    rt.record_event(ev, never).unwrap();
    rt.stream_wait_event(s, ev).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    {
        let ran = ran.clone();
        launch(&rt, s, move || ran.store(true, Ordering::SeqCst));
    }
    rt.stream_abort(s).unwrap();
    assert!(
        !ran.load(Ordering::SeqCst),
        "the kernel behind the wait ran"
    );
    assert_eq!(code(rt.synchronize_stream(s)), ACL_ERROR_RT_STREAM_ABORT);
    let after = Arc::new(AtomicBool::new(false));
    {
        let after = after.clone();
        launch(&rt, s, move || after.store(true, Ordering::SeqCst));
    }
    rt.synchronize_stream(s).unwrap();
    assert!(after.load(Ordering::SeqCst));
    gate.store(true, Ordering::SeqCst);
    rt.synchronize_stream(never).unwrap();
    // The record the wait was for has happened now: the discarded kernel still never runs.
    rt.synchronize_device().unwrap();
    assert!(!ran.load(Ordering::SeqCst), "a discarded kernel ran");
    rt.shut_down();
}

/// A forced destroy of a suspended stream returns at once and its work still runs once the
/// wait is released; a plain destroy of a stream that never ran anything needs no worker.
#[test]
fn destroying_suspended_and_unused_streams() {
    let rt = pooled();
    let ev = rt.create_event().unwrap();
    let never = rt.create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    {
        let gate = gate.clone();
        launch(&rt, never, move || {
            while !gate.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
        });
    }
    rt.record_event(ev, never).unwrap();
    let s = rt.create_stream().unwrap();
    rt.stream_wait_event(s, ev).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    {
        let ran = ran.clone();
        launch(&rt, s, move || ran.store(true, Ordering::SeqCst));
    }
    // Returns while the record it waits for is held at the gate.
    rt.destroy_stream_force(s).unwrap();
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(code(rt.synchronize_stream(s)), ACL_ERROR_RT_INVALID_HANDLE);
    for _ in 0..100 {
        let unused = rt.create_stream().unwrap();
        rt.destroy_stream(unused).unwrap();
    }
    gate.store(true, Ordering::SeqCst);
    rt.synchronize_stream(never).unwrap();
    // The destroyed stream's queue is the device's work: it has run once this returns.
    rt.synchronize_device().unwrap();
    assert!(
        ran.load(Ordering::SeqCst),
        "work queued before the forced destroy did not run"
    );
    rt.shut_down();
}

/// Blocking callbacks suspend their streams until their thread has run them: 32 streams
/// whose callbacks this thread runs only after another stream's kernel ran (which needs a
/// free worker) still each run their next kernel after their callback, on a few workers.
#[test]
fn blocking_callbacks_suspend_their_streams() {
    let rt = pooled();
    let me = aclrt::pthread_id();
    let streams: Vec<_> = (0..32).map(|_| rt.create_stream().unwrap()).collect();
    let log = Arc::new(Mutex::new(Vec::new()));
    let threads = Arc::new(Mutex::new(BTreeSet::new()));
    for (i, s) in streams.iter().enumerate() {
        rt.subscribe_report(me, *s).unwrap();
        let l = log.clone();
        rt.launch_callback(
            Box::new(move || l.lock().unwrap().push(format!("callback {i}"))),
            aclrt::consts::ACL_CALLBACK_BLOCK,
            *s,
        )
        .unwrap();
        let (l, threads) = (log.clone(), threads.clone());
        launch(&rt, *s, move || {
            l.lock().unwrap().push(format!("kernel {i}"));
            threads.lock().unwrap().insert(thread_name());
        });
    }
    let other = rt.create_stream().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    {
        let ran = ran.clone();
        launch(&rt, other, move || ran.store(true, Ordering::SeqCst));
    }
    rt.synchronize_stream(other).unwrap();
    assert!(ran.load(Ordering::SeqCst));
    // One call runs every callback due by then.
    let callbacks = || {
        let log = log.lock().unwrap();
        log.iter().filter(|e| e.starts_with("callback")).count()
    };
    while callbacks() < 32 {
        rt.process_report(10_000).unwrap();
    }
    for s in &streams {
        rt.synchronize_stream(*s).unwrap();
    }
    let log = log.lock().unwrap();
    for i in 0..32 {
        let callback = log.iter().position(|e| *e == format!("callback {i}"));
        let kernel = log.iter().position(|e| *e == format!("kernel {i}"));
        assert!(
            callback.is_some() && kernel > callback,
            "stream {i}: {log:?}"
        );
    }
    let threads = threads.lock().unwrap();
    assert_fewer_workers_than(threads.len(), streams.len());
    for s in &streams {
        rt.unsubscribe_report(me, *s).unwrap();
    }
    rt.shut_down();
}

/// A record wakes a stream whose next record the recording stream then waits for with a
/// timeout (a wait that blocks its worker): the woken stream is not left behind that wait, so
/// the wait ends by the record, not by its timeout.
#[test]
fn a_woken_stream_is_not_left_behind_a_blocking_wait() {
    let rt = pooled();
    let (a, b) = (rt.create_stream().unwrap(), rt.create_stream().unwrap());
    let (e1, e2) = (rt.create_event().unwrap(), rt.create_event().unwrap());
    // b waits for a's first record, then records e2.
    let gate = Arc::new(AtomicBool::new(false));
    {
        let gate = gate.clone();
        launch(&rt, a, move || {
            while !gate.load(Ordering::SeqCst) {
                std::thread::yield_now();
            }
        });
    }
    rt.record_event(e1, a).unwrap();
    rt.stream_wait_event(b, e1).unwrap();
    rt.record_event(e2, b).unwrap();
    // a then waits for e2, for at most 10 s.
    rt.stream_wait_event_with_timeout(a, e2, 10_000).unwrap();
    let start = Instant::now();
    gate.store(true, Ordering::SeqCst);
    rt.synchronize_stream(a).unwrap();
    rt.synchronize_stream(b).unwrap();
    assert!(
        start.elapsed() < Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    rt.shut_down();
}

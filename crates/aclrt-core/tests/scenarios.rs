//! End-to-end scenarios: cross-stream ordering, callbacks against stream progress,
//! concurrency, and wait graphs that must never deadlock.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{EventHandle, StreamHandle};
use common::*;

type Log = Arc<Mutex<Vec<String>>>;

fn logger(log: &Log, entry: String, sleep_ms: u64) -> aclrt::KernelFn {
    let log = log.clone();
    Box::new(move || {
        std::thread::sleep(Duration::from_millis(sleep_ms));
        log.lock().unwrap().push(entry);
        Ok(())
    })
}

#[test]
fn two_streams_ordered_by_record_wait_reset() {
    let _serial = common::exclusive();
    setup();
    let producer = api::create_stream().unwrap();
    let consumer = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    let log: Log = Arc::default();
    // A legacy event is a flag: two records before the consumer's reset would set it once.
    // So each round's producer starts only after the previous round was consumed (which is
    // after the consumer's reset), whatever the machine's timing.
    let consumed: Arc<(Mutex<u32>, std::sync::Condvar)> = Arc::default();
    for round in 0..5 {
        // The consumer queues its wait first; the producer is slow.
        api::stream_wait_event(consumer, ev).unwrap();
        api::reset_event(ev, consumer).unwrap();
        let (log_c, done) = (log.clone(), consumed.clone());
        launch(
            consumer,
            Box::new(move || {
                log_c.lock().unwrap().push(format!("consume {round}"));
                *done.0.lock().unwrap() += 1;
                done.1.notify_all();
                Ok(())
            }),
        );
        let (log_p, done) = (log.clone(), consumed.clone());
        launch(
            producer,
            Box::new(move || {
                let mut n = done.0.lock().unwrap();
                while *n < round {
                    n = done.1.wait(n).unwrap();
                }
                drop(n);
                log_p.lock().unwrap().push(format!("produce {round}"));
                Ok(())
            }),
        );
        api::record_event(ev, producer).unwrap();
    }
    api::synchronize_stream_with_timeout(consumer, 10_000).unwrap();
    api::synchronize_stream_with_timeout(producer, 10_000).unwrap();
    let log = log.lock().unwrap();
    for round in 0..5 {
        let p = log.iter().position(|e| *e == format!("produce {round}"));
        let c = log.iter().position(|e| *e == format!("consume {round}"));
        assert!(p.unwrap() < c.unwrap(), "round {round}: {log:?}");
    }
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_COMPLETE
    );
}

#[test]
fn snapshot_events_order_two_streams() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let ev = api::create_event().unwrap();
    let log: Log = Arc::default();
    launch(a, logger(&log, "a".into(), 50));
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    launch(b, logger(&log, "b".into(), 0));
    // Work submitted to `a` after the record is not waited for.
    launch(a, logger(&log, "a-late".into(), 200));
    api::synchronize_stream(b).unwrap();
    assert_eq!(*log.lock().unwrap(), ["a", "b"]);
    api::synchronize_stream(a).unwrap();
}

#[test]
fn legacy_wait_queued_before_its_record() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    let log: Log = Arc::default();
    api::stream_wait_event(b, ev).unwrap();
    launch(b, logger(&log, "b".into(), 0));
    std::thread::sleep(Duration::from_millis(30));
    assert!(log.lock().unwrap().is_empty(), "b ran before the record");
    assert_eq!(api::stream_query(b).unwrap(), ACL_STREAM_STATUS_NOT_READY);
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_NOT_READY
    );
    launch(a, logger(&log, "a".into(), 30));
    api::record_event(ev, a).unwrap();
    api::synchronize_stream_with_timeout(b, 10_000).unwrap();
    assert_eq!(*log.lock().unwrap(), ["a", "b"]);
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_COMPLETE
    );
}

#[test]
fn blocking_callback_holds_the_stream() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let reporter = Reporter::start();
    api::subscribe_report(reporter.tid, s).unwrap();
    let t0 = Instant::now();
    let next_ran_at = Arc::new(Mutex::new(None));
    api::launch_callback(
        Box::new(|| std::thread::sleep(Duration::from_millis(200))),
        ACL_CALLBACK_BLOCK,
        s,
    )
    .unwrap();
    let n = next_ran_at.clone();
    launch(s, kernel(move || *n.lock().unwrap() = Some(t0.elapsed())));
    api::synchronize_stream(s).unwrap();
    let after = next_ran_at.lock().unwrap().unwrap();
    assert!(
        after >= Duration::from_millis(200),
        "next task ran at {after:?}"
    );
    assert!(t0.elapsed() >= Duration::from_millis(200));
    reporter.stop();
}

#[test]
fn non_blocking_callback_does_not_hold_the_stream() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let reporter = Reporter::start();
    api::subscribe_report(reporter.tid, s).unwrap();
    // The callback waits at a gate the test opens only after the synchronise returned: a
    // synchronise that waited for it would time out instead.
    let gate: Arc<(Mutex<bool>, std::sync::Condvar)> = Arc::default();
    let done = Arc::new(AtomicBool::new(false));
    let (g, d) = (gate.clone(), done.clone());
    api::launch_callback(
        Box::new(move || {
            let mut open = g.0.lock().unwrap();
            while !*open {
                open = g.1.wait(open).unwrap();
            }
            d.store(true, Ordering::SeqCst);
        }),
        ACL_CALLBACK_NO_BLOCK,
        s,
    )
    .unwrap();
    launch(s, sleeper(1));
    api::synchronize_stream_with_timeout(s, 10_000).unwrap();
    assert!(!done.load(Ordering::SeqCst), "sync waited for the callback");
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    // The callback still runs to completion.
    let t0 = Instant::now();
    while !done.load(Ordering::SeqCst) {
        assert!(t0.elapsed() < Duration::from_secs(10));
        std::thread::sleep(Duration::from_millis(5));
    }
    reporter.stop();
}

#[test]
fn destroying_an_event_with_pending_waits() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let c = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    let log: Log = Arc::default();
    for ev in [
        api::create_event().unwrap(),
        api::create_event_with_flag(ACL_EVENT_SYNC).unwrap(),
        api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap(),
    ] {
        log.lock().unwrap().clear();
        gate.store(false, Ordering::SeqCst);
        launch(a, gated(&gate));
        launch(a, logger(&log, "a".into(), 0));
        api::record_event(ev, a).unwrap();
        api::stream_wait_event(b, ev).unwrap();
        api::stream_wait_event(c, ev).unwrap();
        launch(b, logger(&log, "b".into(), 0));
        // Returns while `a` is still held at the gate (a destroy that waited would hang here).
        api::destroy_event(ev).unwrap();
        assert_eq!(code(api::query_event(ev)), ACL_ERROR_RT_INVALID_HANDLE);
        assert_eq!(
            code(api::stream_wait_event(b, ev)),
            ACL_ERROR_RT_INVALID_HANDLE
        );
        assert_eq!(api::stream_query(b).unwrap(), ACL_STREAM_STATUS_NOT_READY);
        gate.store(true, Ordering::SeqCst);
        api::synchronize_stream_with_timeout(b, 10_000).unwrap();
        api::synchronize_stream_with_timeout(c, 10_000).unwrap();
        assert_eq!(*log.lock().unwrap(), ["a", "b"]);
    }
}

#[test]
fn sixty_four_streams_run_concurrently() {
    let _serial = common::exclusive();
    setup();
    let streams: Vec<StreamHandle> = (0..64).map(|_| api::create_stream().unwrap()).collect();
    // Warm the workers so thread start-up is not measured.
    for &s in &streams {
        launch(s, sleeper(0));
    }
    api::synchronize_device().unwrap();
    // Each kernel waits until all 64 are inside at once: only streams that really run
    // concurrently get there (how fast is the bench's question).
    let all_in = all_inside(&streams);
    assert_eq!(all_in, streams.len(), "kernels inside at once");
}

/// Stream `i` waits on stream `i + 1`, so earlier-created streams wait on later ones; the
/// chain must complete in reverse creation order.
fn check_chain(log: &Log, n: usize) {
    let log = log.lock().unwrap();
    let expected: Vec<String> = (0..n).rev().map(|i| i.to_string()).collect();
    assert_eq!(*log, expected);
}

#[test]
fn wait_chain_on_later_streams_snapshot_events() {
    let _serial = common::exclusive();
    setup();
    const N: usize = 32;
    let streams: Vec<StreamHandle> = (0..N).map(|_| api::create_stream().unwrap()).collect();
    let events: Vec<EventHandle> = (0..N).map(|_| api::create_event().unwrap()).collect();
    let log: Log = Arc::default();
    // Snapshot waits need their record first: submit from the end of the chain.
    for i in (0..N).rev() {
        if i + 1 < N {
            api::stream_wait_event(streams[i], events[i + 1]).unwrap();
        }
        launch(streams[i], logger(&log, i.to_string(), 2));
        api::record_event(events[i], streams[i]).unwrap();
    }
    api::synchronize_stream_with_timeout(streams[0], 10_000).unwrap();
    check_chain(&log, N);
}

#[test]
fn wait_chain_on_later_streams_legacy_events_waits_first() {
    let _serial = common::exclusive();
    setup();
    const N: usize = 32;
    let streams: Vec<StreamHandle> = (0..N).map(|_| api::create_stream().unwrap()).collect();
    let events: Vec<EventHandle> = (0..N)
        .map(|_| api::create_event_with_flag(ACL_EVENT_SYNC).unwrap())
        .collect();
    let log: Log = Arc::default();
    // Every wait is queued before the record it needs, in creation order.
    for i in 0..N {
        if i + 1 < N {
            api::stream_wait_event(streams[i], events[i + 1]).unwrap();
        }
        launch(streams[i], logger(&log, i.to_string(), 2));
        api::record_event(events[i], streams[i]).unwrap();
    }
    api::synchronize_device_with_timeout(10_000).unwrap();
    check_chain(&log, N);
}

#[test]
fn random_wait_graphs_never_deadlock() {
    let _serial = common::exclusive();
    setup();
    const N: usize = 16;
    let streams: Vec<StreamHandle> = (0..N).map(|_| api::create_stream().unwrap()).collect();
    let done = Arc::new(AtomicU32::new(0));
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut rand = move |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    // Streams are visited in a random order; each waits on a snapshot of random earlier
    // visited streams, so every wait refers to work already submitted.
    for round in 0..8 {
        let mut order: Vec<usize> = (0..N).collect();
        for i in (1..N).rev() {
            order.swap(i, rand(i + 1));
        }
        let mut recorded: Vec<EventHandle> = Vec::new();
        for &i in &order {
            for _ in 0..2 {
                if !recorded.is_empty() {
                    let ev = recorded[rand(recorded.len())];
                    api::stream_wait_event(streams[i], ev).unwrap();
                }
            }
            let d = done.clone();
            launch(
                streams[i],
                kernel(move || {
                    d.fetch_add(1, Ordering::SeqCst);
                }),
            );
            let ev = api::create_event().unwrap();
            api::record_event(ev, streams[i]).unwrap();
            recorded.push(ev);
        }
        api::synchronize_device_with_timeout(10_000)
            .unwrap_or_else(|e| panic!("round {round}: {e}"));
        for ev in recorded {
            api::destroy_event(ev).unwrap();
        }
    }
    assert_eq!(done.load(Ordering::SeqCst), 8 * N as u32);
}

#[test]
fn stop_on_failure_scenario() {
    let _serial = common::exclusive();
    setup();
    let infos = Arc::new(Mutex::new(Vec::new()));
    let i = infos.clone();
    api::set_exception_info_callback(Some(Arc::new(move |info: &aclrt::ExceptionInfo| {
        i.lock().unwrap().push(info.error_code);
    })))
    .unwrap();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    api::set_stream_failure_mode(a, ACL_STOP_ON_FAILURE as u64).unwrap();
    let ev = api::create_event().unwrap();
    let ran = Arc::new(AtomicU32::new(0));
    launch(a, sleeper(20));
    launch(a, failing(ACL_ERROR_RT_AICORE_EXCEPTION));
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    let r = ran.clone();
    launch(
        b,
        kernel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }),
    );
    // The record is discarded, which releases the waiting stream; its own queued work is
    // discarded too, and the event reports the original failure.
    assert_eq!(
        code(api::synchronize_event_with_timeout(ev, 10_000)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(
        code(api::synchronize_stream_with_timeout(b, 10_000)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    assert_eq!(
        *infos.lock().unwrap(),
        [ACL_ERROR_RT_AICORE_EXCEPTION as u32]
    );
    assert_eq!(
        code(api::launch_kernel(b, "k", Default::default(), sleeper(0))),
        ACL_ERROR_RT_STREAM_ABORT
    );
}

//! Stream calls: creation, limits, destroy, synchronise, query, failure modes.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::StreamHandle;
use common::*;

#[test]
fn priority_is_clamped_and_flags_ignored() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(api::stream_priority(StreamHandle::NULL).unwrap(), 0);
    let s = api::create_stream().unwrap();
    assert_eq!(api::stream_priority(s).unwrap(), 0);
    let s3 = api::create_stream_with_config(3, ACL_STREAM_FAST_LAUNCH).unwrap();
    assert_eq!(api::stream_priority(s3).unwrap(), 3);
    let s9 = api::create_stream_with_config(9, 0xFFFF_0000 | ACL_STREAM_FAST_SYNC).unwrap();
    assert_eq!(api::stream_priority(s9).unwrap(), 7);
    let big = api::create_stream_with_config(u32::MAX, 0).unwrap();
    assert_eq!(api::stream_priority(big).unwrap(), 7);
    // A FAST_SYNC stream synchronises like any other.
    launch(s9, sleeper(20));
    api::synchronize_stream(s9).unwrap();
    assert_eq!(api::stream_query(s9).unwrap(), ACL_STREAM_STATUS_COMPLETE);
}

#[test]
fn stream_limit_counts_the_default_stream() {
    let _serial = common::exclusive();
    setup();
    let mut streams = Vec::new();
    for i in 0..1983 {
        match api::create_stream() {
            Ok(s) => streams.push(s),
            Err(e) => panic!("stream {i} refused: {e}"),
        }
    }
    assert_eq!(code(api::create_stream()), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    assert_eq!(
        code(api::create_stream_with_config(1, 0)),
        ACL_ERROR_RT_NO_STREAM_RESOURCE
    );
    // A new context needs a default stream too.
    assert_eq!(
        code(api::create_context(0)),
        ACL_ERROR_RT_NO_STREAM_RESOURCE
    );
    api::destroy_stream(streams.pop().unwrap()).unwrap();
    let s = api::create_stream().unwrap();
    assert_eq!(code(api::create_stream()), ACL_ERROR_RT_NO_STREAM_RESOURCE);
    api::destroy_stream(s).unwrap();
    api::destroy_stream(streams.pop().unwrap()).unwrap();
    api::create_context(0).unwrap();
}

#[test]
fn stream_ids_are_unique_among_live_streams() {
    let _serial = common::exclusive();
    setup();
    let streams: Vec<_> = (0..16).map(|_| api::create_stream().unwrap()).collect();
    let mut ids: Vec<i32> = streams
        .iter()
        .map(|&s| api::stream_get_id(s).unwrap())
        .collect();
    ids.push(api::stream_get_id(StreamHandle::NULL).unwrap());
    let n = ids.len();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n);
    assert_eq!(
        code(api::stream_get_id(StreamHandle::from_raw(7))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
fn destroy_rules() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(
        code(api::destroy_stream(StreamHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::destroy_stream_force(StreamHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::destroy_stream(StreamHandle::from_raw(0x99))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    let s = api::create_stream().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    launch(s, sleeper(100));
    launch(s, kernel(move || d.store(true, Ordering::SeqCst)));
    // Destroy waits for the pending tasks.
    api::destroy_stream(s).unwrap();
    assert!(done.load(Ordering::SeqCst));
    assert_eq!(code(api::destroy_stream(s)), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(
        code(api::launch_kernel(s, "k", Default::default(), sleeper(0))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // An event handle is not a stream handle.
    let ev = api::create_event().unwrap();
    assert_eq!(
        code(api::destroy_stream(StreamHandle::from_raw(ev.as_raw()))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
fn destroy_force_returns_at_once_and_queued_tasks_still_run() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    // The first task holds the stream at a gate the test opens only after the destroy
    // returned: were the destroy to wait for it, the test would never get there.
    let gate: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)> = Arc::default();
    let ran: Arc<std::sync::Mutex<Vec<u32>>> = Arc::default();
    let (g, r) = (gate.clone(), ran.clone());
    launch(
        s,
        kernel(move || {
            let mut open = g.0.lock().unwrap();
            while !*open {
                open = g.1.wait(open).unwrap();
            }
            r.lock().unwrap().push(1);
        }),
    );
    let r = ran.clone();
    launch(s, kernel(move || r.lock().unwrap().push(2)));
    let ev = api::create_event().unwrap();
    api::record_event(ev, s).unwrap();
    api::destroy_stream_force(s).unwrap();
    // The handle is dead at once; nothing has run yet.
    assert_eq!(code(api::stream_query(s)), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(
        code(api::launch_kernel(
            s,
            "late",
            Default::default(),
            kernel(|| {})
        )),
        ACL_ERROR_RT_INVALID_HANDLE,
        "a destroyed stream takes no work"
    );
    assert!(ran.lock().unwrap().is_empty());
    *gate.0.lock().unwrap() = true;
    gate.1.notify_all();
    // Both queued tasks run, in order, and the record after them completes.
    api::synchronize_event(ev).unwrap();
    assert_eq!(*ran.lock().unwrap(), [1, 2]);
    api::destroy_event(ev).unwrap();
}

#[test]
fn work_left_by_destroy_force_is_waited_for_by_device_sync_and_context_destroy() {
    let _serial = common::exclusive();
    setup();
    // A device synchronise covers the destroyed stream's queue: held at a gate, it times out.
    let gate = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let s = api::create_stream().unwrap();
    launch(s, gated(&gate));
    let d = done.clone();
    launch(s, kernel(move || d.store(true, Ordering::SeqCst)));
    api::destroy_stream_force(s).unwrap();
    assert_eq!(
        code(api::synchronize_device_with_timeout(20)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    gate.store(true, Ordering::SeqCst);
    api::synchronize_device().unwrap();
    assert!(done.load(Ordering::SeqCst));

    // Destroying the context (as a device reset does for its default one) waits too: the
    // gate opens only once the destroy has taken the context's handle, so a destroy that
    // did not wait would return with the last kernel not yet run.
    let ctx = api::create_context(0).unwrap();
    let s = api::create_stream().unwrap();
    let (gate, done) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
    );
    launch(s, gated(&gate));
    let d = done.clone();
    launch(s, kernel(move || d.store(true, Ordering::SeqCst)));
    api::destroy_stream_force(s).unwrap();
    let contexts = api::live_objects().contexts;
    let g = gate.clone();
    let opener = std::thread::spawn(move || {
        while api::live_objects().contexts == contexts {
            std::thread::yield_now();
        }
        g.store(true, Ordering::SeqCst);
    });
    api::destroy_context(ctx).unwrap();
    assert!(
        done.load(Ordering::SeqCst),
        "context destroy returned first"
    );
    opener.join().unwrap();
    api::set_device(0).unwrap();
}

#[test]
fn synchronise_timeouts() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    for bad in [0, -2, i32::MIN] {
        assert_eq!(
            code(api::synchronize_stream_with_timeout(s, bad)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            code(api::synchronize_device_with_timeout(bad)),
            ACL_ERROR_RT_PARAM_INVALID
        );
    }
    // Nothing pending: any valid timeout succeeds.
    api::synchronize_stream_with_timeout(s, 1).unwrap();
    api::synchronize_stream_with_timeout(s, -1).unwrap();
    // A kernel held at a gate until both timeouts have been seen.
    let gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&gate));
    assert_eq!(api::stream_query(s).unwrap(), ACL_STREAM_STATUS_NOT_READY);
    let t0 = Instant::now();
    assert_eq!(
        code(api::synchronize_stream_with_timeout(s, 30)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    assert!(t0.elapsed() >= Duration::from_millis(30));
    assert_eq!(
        code(api::synchronize_device_with_timeout(30)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    gate.store(true, Ordering::SeqCst);
    api::synchronize_device_with_timeout(5_000).unwrap();
    assert_eq!(api::stream_query(s).unwrap(), ACL_STREAM_STATUS_COMPLETE);
}

#[test]
fn device_synchronise_covers_every_stream_of_the_context() {
    let _serial = common::exclusive();
    setup();
    let count = Arc::new(AtomicU32::new(0));
    let streams: Vec<_> = (0..4).map(|_| api::create_stream().unwrap()).collect();
    for &s in streams.iter().chain([StreamHandle::NULL].iter()) {
        let c = count.clone();
        launch(s, sleeper(50));
        launch(
            s,
            kernel(move || {
                c.fetch_add(1, Ordering::SeqCst);
            }),
        );
    }
    api::synchronize_device().unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 5);
}

#[test]
fn continue_mode_reports_once_then_clears() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let after = Arc::new(AtomicBool::new(false));
    launch(s, failing(ACL_ERROR_RT_AICORE_TIMEOUT));
    let a = after.clone();
    launch(s, kernel(move || a.store(true, Ordering::SeqCst)));
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_TIMEOUT
    );
    assert!(after.load(Ordering::SeqCst), "later tasks still run");
    api::synchronize_stream(s).unwrap();
    // A panicking kernel is an AI core exception; device sync reports it too.
    launch(s, Box::new(|| panic!("kernel bug")));
    assert_eq!(
        code(api::synchronize_device()),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    api::synchronize_device().unwrap();
    api::synchronize_stream(s).unwrap();
    // The first failure is kept until reported.
    launch(s, failing(ACL_ERROR_RT_AICORE_TIMEOUT));
    launch(s, failing(ACL_ERROR_RT_AICORE_EXCEPTION));
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_TIMEOUT
    );
    launch(s, sleeper(1));
    api::synchronize_stream(s).unwrap();
}

#[test]
fn failure_mode_is_set_once() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    assert_eq!(
        code(api::set_stream_failure_mode(s, 2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::set_stream_failure_mode(s, ACL_CONTINUE_ON_FAILURE as u64).unwrap();
    assert_eq!(
        code(api::set_stream_failure_mode(s, ACL_STOP_ON_FAILURE as u64)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let s2 = api::create_stream().unwrap();
    api::set_stream_failure_mode(s2, ACL_STOP_ON_FAILURE as u64).unwrap();
    assert_eq!(
        code(api::set_stream_failure_mode(s2, ACL_STOP_ON_FAILURE as u64)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::set_stream_failure_mode(StreamHandle::from_raw(3), 0)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
fn stop_mode_stops_every_stream_of_the_context() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let other = api::create_stream().unwrap();
    api::set_stream_failure_mode(s, ACL_STOP_ON_FAILURE as u64).unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    let ran = Arc::new(AtomicU32::new(0));
    // `other` is busy when the failure happens; its queued task must be discarded.
    launch(other, gated(&gate));
    let r = ran.clone();
    launch(
        other,
        kernel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }),
    );
    // `s` is held until both of its tasks are queued: the failure stops the context, after
    // which nothing can be queued, so the task behind it must be in before it runs.
    let s_gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&s_gate));
    launch(s, failing(ACL_ERROR_RT_AICORE_EXCEPTION));
    let r = ran.clone();
    launch(
        s,
        kernel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }),
    );
    s_gate.store(true, Ordering::SeqCst);
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    gate.store(true, Ordering::SeqCst);
    assert_eq!(
        code(api::synchronize_stream(other)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    // The failure is not cleared by reporting it.
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(
        code(api::synchronize_device()),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "queued tasks ran after the stop"
    );
    // New launches on any stream of the context are refused.
    for st in [s, other, StreamHandle::NULL] {
        assert_eq!(
            code(api::launch_kernel(st, "k", Default::default(), sleeper(0))),
            ACL_ERROR_RT_STREAM_ABORT
        );
    }
    let ev = api::create_event().unwrap();
    assert_eq!(
        code(api::record_event(ev, other)),
        ACL_ERROR_RT_STREAM_ABORT
    );
    // Another context is unaffected.
    api::create_context(0).unwrap();
    let fresh = api::create_stream().unwrap();
    launch(fresh, sleeper(1));
    api::synchronize_stream(fresh).unwrap();
    api::synchronize_device().unwrap();
}

//! CUDA event semantics: snapshots, flags, elapsed time, exact `CUresult` codes.

mod cuda_common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aclrt::cuda::codes::*;
use aclrt::cuda::{self, *};
use aclrt::{api, EventHandle, StreamHandle};
use cuda_common::*;

#[test]
fn creation_flags() {
    let _serial = cuda_common::exclusive();
    setup();
    for ok in [
        CU_EVENT_DEFAULT,
        CU_EVENT_BLOCKING_SYNC,
        CU_EVENT_DISABLE_TIMING,
        CU_EVENT_BLOCKING_SYNC | CU_EVENT_DISABLE_TIMING,
        CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING,
        CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC,
    ] {
        let e = cuda::event_create(ok).unwrap_or_else(|e| panic!("flags {ok:#x}: {e}"));
        cuda::event_destroy(e).unwrap();
    }
    for bad in [
        CU_EVENT_INTERPROCESS,
        CU_EVENT_INTERPROCESS | CU_EVENT_BLOCKING_SYNC,
        0x8,
        0x10,
        0xFFFF_FFFF,
    ] {
        assert_eq!(
            code(cuda::event_create(bad)),
            CUDA_ERROR_INVALID_VALUE,
            "flags {bad:#x}"
        );
    }
}

#[test]
fn never_recorded_event_is_an_empty_set_of_work() {
    let _serial = cuda_common::exclusive();
    setup();
    let e = cuda::event_create(0).unwrap();
    let f = cuda::event_create(0).unwrap();
    assert_eq!(code(cuda::event_query(e)), CUDA_SUCCESS);
    assert_eq!(code(cuda::event_synchronize(e)), CUDA_SUCCESS);
    assert_eq!(
        code(cuda::event_elapsed_time(e, f)),
        CUDA_ERROR_INVALID_HANDLE
    );
    // One of the two recorded is still "not recorded on either".
    cuda::event_record(e, StreamHandle::NULL).unwrap();
    cuda::stream_synchronize(StreamHandle::NULL).unwrap();
    assert_eq!(
        code(cuda::event_elapsed_time(e, f)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::event_elapsed_time_v2(f, e)),
        CUDA_ERROR_INVALID_HANDLE
    );
    // Waiting on a never-recorded event waits for nothing.
    let s = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    cuda::stream_wait_event(s, f, 0).unwrap();
    cuda::stream_synchronize(s).unwrap();
}

#[test]
fn query_is_not_ready_while_captured_work_is_pending() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let e = cuda::event_create(0).unwrap();
    let gate = Gate::new();
    gated(s, &gate, Ok(()));
    cuda::event_record(e, s).unwrap();
    assert_eq!(code(cuda::event_query(e)), CUDA_ERROR_NOT_READY);
    assert_eq!(code(cuda::stream_query(s)), CUDA_ERROR_NOT_READY);
    gate.open();
    cuda::event_synchronize(e).unwrap();
    assert_eq!(code(cuda::event_query(e)), CUDA_SUCCESS);
}

#[test]
fn record_is_a_snapshot_later_work_does_not_join_it() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let e = cuda::event_create(0).unwrap();
    let (g1, g2) = (Gate::new(), Gate::new());
    gated(s, &g1, Ok(()));
    cuda::event_record(e, s).unwrap();
    gated(s, &g2, Ok(()));
    g1.open();
    // The event completes although later work on its stream is still blocked.
    cuda::event_synchronize(e).unwrap();
    assert_eq!(code(cuda::event_query(e)), CUDA_SUCCESS);
    assert_eq!(code(cuda::stream_query(s)), CUDA_ERROR_NOT_READY);
    g2.open();
    cuda::stream_synchronize(s).unwrap();
}

#[test]
fn rerecord_overwrites_but_an_enqueued_wait_keeps_its_snapshot() {
    let _serial = cuda_common::exclusive();
    setup();
    let producer = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let consumer = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let e = cuda::event_create(CU_EVENT_DISABLE_TIMING).unwrap();
    let (g1, g2) = (Gate::new(), Gate::new());
    gated(producer, &g1, Ok(()));
    cuda::event_record(e, producer).unwrap();
    cuda::stream_wait_event(consumer, e, CU_EVENT_WAIT_DEFAULT).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    cuda::launch_host_func(consumer, Box::new(move || r.store(true, Ordering::SeqCst))).unwrap();
    // Re-record after more (blocked) work: the event now means g2's work too.
    gated(producer, &g2, Ok(()));
    cuda::event_record(e, producer).unwrap();
    assert!(!ran.load(Ordering::SeqCst));
    g1.open();
    // The consumer was released by the first snapshot, though the event is not complete.
    assert!(eventually(10, || ran.load(Ordering::SeqCst)));
    assert_eq!(code(cuda::event_query(e)), CUDA_ERROR_NOT_READY);
    g2.open();
    cuda::event_synchronize(e).unwrap();
}

#[test]
fn stream_wait_event_orders_two_streams() {
    let _serial = cuda_common::exclusive();
    setup();
    let a = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let b = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let e = cuda::event_create(0).unwrap();
    let log = Arc::new(std::sync::Mutex::new(Vec::new()));
    let gate = Gate::new();
    gated(a, &gate, Ok(()));
    logger(a, &log, "a");
    cuda::event_record(e, a).unwrap();
    cuda::stream_wait_event(b, e, 0).unwrap();
    logger(b, &log, "b");
    std::thread::sleep(Duration::from_millis(50));
    assert!(log.lock().unwrap().is_empty(), "b ran before the event");
    gate.open();
    cuda::stream_synchronize(b).unwrap();
    assert_eq!(*log.lock().unwrap(), ["a", "b"]);
}

#[test]
fn elapsed_time_rules() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let start = cuda::event_create(0).unwrap();
    let end = cuda::event_create(CU_EVENT_BLOCKING_SYNC).unwrap();
    let untimed = cuda::event_create(CU_EVENT_DISABLE_TIMING).unwrap();
    let gate = Gate::new();
    cuda::event_record(start, s).unwrap();
    cuda::event_record(untimed, s).unwrap();
    gated(s, &gate, Ok(()));
    cuda::launch_host_kernel(
        s,
        "sleep",
        Box::new(|| {
            std::thread::sleep(Duration::from_millis(3));
            Ok(())
        }),
    )
    .unwrap();
    cuda::event_record(end, s).unwrap();
    assert_eq!(
        code(cuda::event_elapsed_time(start, end)),
        CUDA_ERROR_NOT_READY
    );
    assert_eq!(
        code(cuda::event_elapsed_time_v2(start, end)),
        CUDA_ERROR_NOT_READY
    );
    gate.open();
    cuda::event_synchronize(end).unwrap();
    // DISABLE_TIMING refuses even a complete event, on either side.
    assert_eq!(
        code(cuda::event_elapsed_time(untimed, end)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::event_elapsed_time(start, untimed)),
        CUDA_ERROR_INVALID_HANDLE
    );
    let ms = cuda::event_elapsed_time(start, end).unwrap();
    assert!((3.0..10_000.0).contains(&ms), "{ms} ms");
    assert_eq!(cuda::event_elapsed_time_v2(start, end).unwrap(), ms);
    assert_eq!(cuda::event_elapsed_time(end, start).unwrap(), -ms);
}

#[test]
fn elapsed_time_resolution_is_finer_than_half_a_microsecond() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let events: Vec<EventHandle> = (0..8).map(|_| cuda::event_create(0).unwrap()).collect();
    for &e in &events {
        cuda::event_record(e, s).unwrap();
        cuda::launch_host_kernel(
            s,
            "spin",
            Box::new(|| {
                let t = Instant::now();
                while t.elapsed() < Duration::from_micros(20) {}
                Ok(())
            }),
        )
        .unwrap();
    }
    cuda::stream_synchronize(s).unwrap();
    let gaps: Vec<f32> = events
        .windows(2)
        .map(|w| cuda::event_elapsed_time(w[0], w[1]).unwrap())
        .collect();
    // Every gap is at least the 20 µs spin, and the values are not quantised to 0.5 µs.
    assert!(gaps.iter().all(|&g| g >= 0.020), "{gaps:?}");
    let quantised = gaps
        .iter()
        .filter(|&&g| ((g as f64) * 2000.0).fract().abs() < 1e-3)
        .count();
    assert!(
        quantised < gaps.len(),
        "all gaps on a 0.5 µs grid: {gaps:?}"
    );
}

#[test]
fn record_flags() {
    let _serial = cuda_common::exclusive();
    setup();
    let e = cuda::event_create(0).unwrap();
    cuda::event_record_with_flags(e, StreamHandle::NULL, CU_EVENT_RECORD_DEFAULT).unwrap();
    assert_eq!(
        code(cuda::event_record_with_flags(
            e,
            StreamHandle::NULL,
            CU_EVENT_RECORD_EXTERNAL
        )),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        code(cuda::event_record_with_flags(e, StreamHandle::NULL, 2)),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        code(cuda::stream_wait_event(
            StreamHandle::NULL,
            e,
            CU_EVENT_WAIT_EXTERNAL
        )),
        CUDA_ERROR_INVALID_VALUE
    );
    assert_eq!(
        code(cuda::stream_wait_event(StreamHandle::NULL, e, 7)),
        CUDA_ERROR_INVALID_VALUE
    );
}

#[test]
fn event_and_stream_of_different_contexts() {
    let _serial = cuda_common::exclusive();
    let ctx_a = setup();
    let ev_a = cuda::event_create(0).unwrap();
    let s_a = cuda::stream_create(0).unwrap();
    let ctx_b = cuda::ctx_create(0, 0).unwrap();
    let s_b = cuda::stream_create(0).unwrap();
    assert_eq!(
        code(cuda::event_record(ev_a, StreamHandle::NULL)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::event_record(ev_a, s_b)),
        CUDA_ERROR_INVALID_HANDLE
    );
    // Same context as the event, but not the current one.
    assert_eq!(
        code(cuda::event_record(ev_a, s_a)),
        CUDA_ERROR_INVALID_CONTEXT
    );
    // Waiting on another context's event is allowed.
    cuda::stream_wait_event(s_b, ev_a, 0).unwrap();
    cuda::ctx_set_current(ctx_a).unwrap();
    cuda::event_record(ev_a, s_a).unwrap();
    cuda::ctx_set_current(ctx_b).unwrap();
    cuda::stream_wait_event(s_b, ev_a, 0).unwrap();
    cuda::stream_synchronize(s_b).unwrap();
}

#[test]
fn destroying_an_incomplete_event_returns_at_once() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let e = cuda::event_create(0).unwrap();
    let gate = Gate::new();
    gated(s, &gate, Ok(()));
    cuda::event_record(e, s).unwrap();
    // The gate is still closed: a destroy that waited would never return.
    cuda::event_destroy(e).unwrap();
    assert_eq!(code(cuda::event_query(e)), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(code(cuda::event_destroy(e)), CUDA_ERROR_INVALID_HANDLE);
    gate.open();
    cuda::stream_synchronize(s).unwrap();
}

#[test]
fn garbage_and_foreign_handles() {
    let _serial = cuda_common::exclusive();
    setup();
    let garbage = EventHandle::from_raw(0x1234_5678);
    assert_eq!(code(cuda::event_query(garbage)), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(
        code(cuda::event_synchronize(garbage)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::event_record(garbage, StreamHandle::NULL)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::event_destroy(EventHandle::NULL)),
        CUDA_ERROR_INVALID_HANDLE
    );
    // An event of the ACL families is not a CUDA event.
    let acl_event = api::create_event().unwrap();
    assert_eq!(
        code(cuda::event_query(acl_event)),
        CUDA_ERROR_INVALID_HANDLE
    );
    let e = cuda::event_create(0).unwrap();
    assert_eq!(
        code(cuda::event_record(e, StreamHandle::from_raw(0x77))),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::event_elapsed_time(e, garbage)),
        CUDA_ERROR_INVALID_HANDLE
    );
}

#[test]
fn blocking_sync_sleeps_default_spins() {
    let _serial = cuda_common::exclusive();
    setup();
    let wait = Duration::from_millis(150);
    // (voluntary context switches, share of a core) of the thread during the synchronise.
    let measure = |flags: u32| {
        let s = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
        let e = cuda::event_create(flags).unwrap();
        let launched = Instant::now();
        cuda::launch_host_kernel(
            s,
            "sleep",
            Box::new(move || {
                std::thread::sleep(wait);
                Ok(())
            }),
        )
        .unwrap();
        cuda::event_record(e, s).unwrap();
        let (sw0, cpu0, t0) = (voluntary_switches(), thread_cpu_time(), Instant::now());
        cuda::event_synchronize(e).unwrap();
        let (sw, cpu, wall) = (
            voluntary_switches() - sw0,
            thread_cpu_time() - cpu0,
            t0.elapsed(),
        );
        // The kernel may start sleeping before `t0`: measure from its launch.
        assert!(
            launched.elapsed() >= wait,
            "synchronise returned before the kernel ended"
        );
        (sw, cpu.as_secs_f64() / wall.as_secs_f64())
    };
    // A loaded machine blurs single measurements (a virtual CPU descheduled across the whole
    // wait shows neither CPU time nor a switch), so each mode gets three tries; a wrong mode
    // fails all three.
    let blocking: Vec<_> = (0..3).map(|_| measure(CU_EVENT_BLOCKING_SYNC)).collect();
    assert!(
        blocking.iter().any(|&(_, share)| share < 0.2),
        "blocking sync burnt CPU: {blocking:?}"
    );
    // A spinning wait never blocks, however loaded the machine (yielding is involuntary).
    let spinning: Vec<_> = (0..3).map(|_| measure(CU_EVENT_DEFAULT)).collect();
    assert!(
        spinning.iter().any(|&(sw, _)| sw == 0),
        "default sync blocked instead of spinning: {spinning:?}"
    );
}

#[test]
fn synchronize_reports_a_failure_it_captured() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let e = cuda::event_create(0).unwrap();
    cuda::launch_host_kernel(s, "boom", Box::new(|| Err(CUDA_ERROR_LAUNCH_FAILED))).unwrap();
    cuda::event_record_with_flags(e, s, 0)
        .or_else(|err| {
            // The failure may already have stopped the context.
            assert_eq!(err.code(), CUDA_ERROR_LAUNCH_FAILED);
            Ok::<(), CuError>(())
        })
        .unwrap();
    assert_eq!(code(cuda::event_synchronize(e)), CUDA_ERROR_LAUNCH_FAILED);
    assert_eq!(code(cuda::event_query(e)), CUDA_ERROR_LAUNCH_FAILED);
}

#[test]
fn elapsed_v1_reports_the_sticky_error_v2_does_not() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let (a, b) = (
        cuda::event_create(0).unwrap(),
        cuda::event_create(0).unwrap(),
    );
    cuda::event_record(a, s).unwrap();
    cuda::event_record(b, s).unwrap();
    cuda::stream_synchronize(s).unwrap();
    cuda::launch_host_kernel(s, "boom", Box::new(|| Err(CUDA_ERROR_LAUNCH_FAILED))).unwrap();
    assert_eq!(code(cuda::stream_synchronize(s)), CUDA_ERROR_LAUNCH_FAILED);
    assert_eq!(
        code(cuda::event_elapsed_time(a, b)),
        CUDA_ERROR_LAUNCH_FAILED
    );
    assert!(cuda::event_elapsed_time_v2(a, b).unwrap() >= 0.0);
}

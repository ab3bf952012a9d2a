//! CUDA stream semantics: the legacy default stream, per-thread streams, host functions and
//! sticky context errors.

mod cuda_common;

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aclrt::cuda::codes::*;
use aclrt::cuda::{self, *};
use aclrt::StreamHandle;
use cuda_common::*;

type Log = Arc<Mutex<Vec<&'static str>>>;

fn new_log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn flag_setter(stream: StreamHandle) -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = flag.clone();
    cuda::launch_host_func(stream, Box::new(move || f.store(true, Ordering::SeqCst))).unwrap();
    flag
}

/// Work on the legacy stream (as NULL or CU_STREAM_LEGACY) waits for a blocking stream.
fn legacy_waits_for_blocking(legacy: StreamHandle) {
    setup();
    let blocking = cuda::stream_create(CU_STREAM_DEFAULT).unwrap();
    let log = new_log();
    let gate = Gate::new();
    gated(blocking, &gate, Ok(()));
    logger(blocking, &log, "blocking");
    logger(legacy, &log, "legacy");
    std::thread::sleep(Duration::from_millis(100));
    assert!(log.lock().unwrap().is_empty(), "legacy work overtook");
    assert_eq!(code(cuda::stream_query(legacy)), CUDA_ERROR_NOT_READY);
    gate.open();
    cuda::stream_synchronize(legacy).unwrap();
    assert_eq!(*log.lock().unwrap(), ["blocking", "legacy"]);
}

#[test]
fn null_stream_waits_for_blocking_streams() {
    let _serial = cuda_common::exclusive();
    legacy_waits_for_blocking(StreamHandle::NULL);
}

#[test]
fn cu_stream_legacy_waits_for_blocking_streams() {
    let _serial = cuda_common::exclusive();
    legacy_waits_for_blocking(CU_STREAM_LEGACY);
}

#[test]
fn blocking_streams_wait_for_the_legacy_stream() {
    let _serial = cuda_common::exclusive();
    setup();
    let blocking = cuda::stream_create(0).unwrap();
    let log = new_log();
    let gate = Gate::new();
    gated(CU_STREAM_LEGACY, &gate, Ok(()));
    logger(CU_STREAM_LEGACY, &log, "legacy");
    logger(blocking, &log, "blocking");
    std::thread::sleep(Duration::from_millis(100));
    assert!(log.lock().unwrap().is_empty());
    gate.open();
    cuda::stream_synchronize(blocking).unwrap();
    assert_eq!(*log.lock().unwrap(), ["legacy", "blocking"]);
}

#[test]
fn non_blocking_streams_overlap_with_the_legacy_stream() {
    let _serial = cuda_common::exclusive();
    setup();
    let nb = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let gate = Gate::new();
    // Kernel on a non-blocking stream, then legacy work: the legacy work does not wait ...
    gated(nb, &gate, Ok(()));
    let legacy_ran = flag_setter(StreamHandle::NULL);
    assert!(eventually(10, || legacy_ran.load(Ordering::SeqCst)));
    // ... and the other way round.
    let gate2 = Gate::new();
    gated(StreamHandle::NULL, &gate2, Ok(()));
    let nb_ran = flag_setter(nb);
    gate.open();
    assert!(eventually(10, || nb_ran.load(Ordering::SeqCst)));
    gate2.open();
    cuda::ctx_synchronize().unwrap();
}

#[test]
fn blocking_streams_do_not_wait_for_each_other() {
    let _serial = cuda_common::exclusive();
    setup();
    let a = cuda::stream_create(0).unwrap();
    let b = cuda::stream_create(0).unwrap();
    let gate = Gate::new();
    gated(a, &gate, Ok(()));
    let ran = flag_setter(b);
    assert!(eventually(10, || ran.load(Ordering::SeqCst)));
    gate.open();
    cuda::ctx_synchronize().unwrap();
}

#[test]
fn record_on_the_legacy_stream_captures_blocking_streams() {
    let _serial = cuda_common::exclusive();
    setup();
    let blocking = cuda::stream_create(0).unwrap();
    let e = cuda::event_create(0).unwrap();
    let gate = Gate::new();
    gated(blocking, &gate, Ok(()));
    cuda::event_record(e, CU_STREAM_LEGACY).unwrap();
    assert_eq!(code(cuda::event_query(e)), CUDA_ERROR_NOT_READY);
    gate.open();
    cuda::event_synchronize(e).unwrap();
    assert_eq!(code(cuda::stream_query(blocking)), CUDA_SUCCESS);
}

#[test]
fn synchronous_copies_are_ordered_with_blocking_streams() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let dev = cuda::mem_alloc(16).unwrap();
    let gate = Gate::new();
    gated(s, &gate, Ok(()));
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memset_d8_async(dev, 7, 16, s).unwrap() };
    let opener = {
        let g = gate.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            g.open();
        })
    };
    let mut out = [0u8; 16];
    // Goes through the legacy stream, so it sees the blocking stream's set.
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memcpy_dtoh(out.as_mut_ptr(), dev, 16).unwrap() };
    assert_eq!(out, [7; 16]);
    opener.join().unwrap();
    let data: Vec<u8> = (0..16).collect();
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memcpy_htod(dev, data.as_ptr(), 16).unwrap() };
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memset_d8(dev + 8, 0xAB, 8).unwrap() };
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memcpy_dtoh_async(out.as_mut_ptr(), dev, 16, s).unwrap() };
    cuda::stream_synchronize(s).unwrap();
    assert_eq!(&out[..8], &data[..8]);
    assert_eq!(&out[8..], &[0xAB; 8]);
    // SAFETY: the host buffers are live locals of at least the copied size, and the device ranges are this test's allocations.
    unsafe { cuda::memcpy_htod_async(dev, data.as_ptr(), 4, CU_STREAM_PER_THREAD).unwrap() };
    cuda::stream_synchronize(CU_STREAM_PER_THREAD).unwrap();
    cuda::mem_free(dev).unwrap();
}

#[test]
fn per_thread_stream_syncs_only_with_the_legacy_stream() {
    let _serial = cuda_common::exclusive();
    setup();
    let log = new_log();
    // Same handle, same stream, for the calling thread.
    let gate = Gate::new();
    gated(CU_STREAM_PER_THREAD, &gate, Ok(()));
    logger(CU_STREAM_PER_THREAD, &log, "per-thread");
    assert_eq!(
        code(cuda::stream_query(CU_STREAM_PER_THREAD)),
        CUDA_ERROR_NOT_READY
    );
    // A blocking stream and a non-blocking one do not wait for it.
    let blocking = cuda::stream_create(0).unwrap();
    let nb = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let b = flag_setter(blocking);
    let n = flag_setter(nb);
    assert!(eventually(10, || b.load(Ordering::SeqCst) && n.load(Ordering::SeqCst)));
    // Another thread's per-thread stream is a different stream.
    let ctx = cuda::ctx_get_current().unwrap();
    let other = std::thread::spawn(move || {
        cuda::ctx_set_current(ctx).unwrap();
        let f = flag_setter(CU_STREAM_PER_THREAD);
        cuda::stream_synchronize(CU_STREAM_PER_THREAD).unwrap();
        f.load(Ordering::SeqCst)
    });
    assert!(other.join().unwrap());
    // The legacy stream waits for it.
    logger(CU_STREAM_LEGACY, &log, "legacy");
    std::thread::sleep(Duration::from_millis(50));
    assert!(log.lock().unwrap().is_empty());
    gate.open();
    cuda::stream_synchronize(CU_STREAM_LEGACY).unwrap();
    assert_eq!(*log.lock().unwrap(), ["per-thread", "legacy"]);
}

#[test]
fn stream_create_destroy_query() {
    let _serial = cuda_common::exclusive();
    setup();
    assert_eq!(code(cuda::stream_create(2)), CUDA_ERROR_INVALID_VALUE);
    assert_eq!(code(cuda::stream_create(0x11)), CUDA_ERROR_INVALID_VALUE);
    for special in [StreamHandle::NULL, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD] {
        assert_eq!(
            code(cuda::stream_destroy(special)),
            CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(code(cuda::stream_query(special)), CUDA_SUCCESS);
    }
    let s = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    assert_eq!(code(cuda::stream_query(s)), CUDA_SUCCESS);
    cuda::stream_destroy(s).unwrap();
    assert_eq!(code(cuda::stream_query(s)), CUDA_ERROR_INVALID_HANDLE);
    assert_eq!(code(cuda::stream_destroy(s)), CUDA_ERROR_INVALID_HANDLE);
    let garbage = StreamHandle::from_raw(0xdead_beef);
    assert_eq!(
        code(cuda::stream_synchronize(garbage)),
        CUDA_ERROR_INVALID_HANDLE
    );
    assert_eq!(
        code(cuda::launch_host_func(garbage, Box::new(|| {}))),
        CUDA_ERROR_INVALID_HANDLE
    );
}

#[test]
fn host_functions_run_in_order_and_block_later_work() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let counter = Arc::new(AtomicU32::new(0));
    let seen = Arc::new(Mutex::new(Vec::new()));
    for _ in 0..5 {
        let (c, v) = (counter.clone(), seen.clone());
        cuda::launch_host_func(
            s,
            Box::new(move || {
                std::thread::sleep(Duration::from_millis(5));
                v.lock().unwrap().push(c.fetch_add(1, Ordering::SeqCst));
            }),
        )
        .unwrap();
        let (c, v) = (counter.clone(), seen.clone());
        cuda::launch_host_kernel(
            s,
            "after",
            Box::new(move || {
                v.lock().unwrap().push(c.load(Ordering::SeqCst) + 100);
                Ok(())
            }),
        )
        .unwrap();
    }
    cuda::stream_synchronize(s).unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        [0, 101, 1, 102, 2, 103, 3, 104, 4, 105]
    );
}

#[test]
fn failing_kernel_is_sticky_and_skips_host_functions() {
    let _serial = cuda_common::exclusive();
    setup();
    let s = cuda::stream_create(0).unwrap();
    let other = cuda::stream_create(CU_STREAM_NON_BLOCKING).unwrap();
    let gate = Gate::new();
    gated(s, &gate, Err(CUDA_ERROR_LAUNCH_FAILED));
    // Queued behind the failure: skipped.
    let behind = flag_setter(s);
    let gate2 = Gate::new();
    gated(other, &gate2, Ok(()));
    let on_other = flag_setter(other);
    // The launch itself succeeded; the failure is asynchronous.
    gate.open();
    assert_eq!(code(cuda::stream_synchronize(s)), CUDA_ERROR_LAUNCH_FAILED);
    gate2.open();
    // Sticky: every stream of the context reports it, and queued host functions never ran.
    assert_eq!(
        code(cuda::stream_synchronize(other)),
        CUDA_ERROR_LAUNCH_FAILED
    );
    assert_eq!(code(cuda::stream_synchronize(s)), CUDA_ERROR_LAUNCH_FAILED);
    assert_eq!(code(cuda::ctx_synchronize()), CUDA_ERROR_LAUNCH_FAILED);
    assert!(!behind.load(Ordering::SeqCst));
    assert!(!on_other.load(Ordering::SeqCst));
    // New work is refused with the same error and never runs.
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    assert_eq!(
        code(cuda::launch_host_func(
            s,
            Box::new(move || r.store(true, Ordering::SeqCst))
        )),
        CUDA_ERROR_LAUNCH_FAILED
    );
    assert_eq!(code(cuda::event_create(0)), CUDA_ERROR_LAUNCH_FAILED);
    assert_eq!(code(cuda::stream_query(s)), CUDA_ERROR_LAUNCH_FAILED);
    assert_eq!(code(cuda::mem_alloc(64)), CUDA_ERROR_LAUNCH_FAILED);
    std::thread::sleep(Duration::from_millis(20));
    assert!(!ran.load(Ordering::SeqCst));
    // Recovery: destroy the context, make a new one.
    let ctx = cuda::ctx_get_current().unwrap();
    cuda::ctx_destroy(ctx).unwrap();
    assert_eq!(code(cuda::stream_create(0)), CUDA_ERROR_INVALID_CONTEXT);
    cuda::ctx_create(0, 0).unwrap();
    let fresh = flag_setter(StreamHandle::NULL);
    cuda::ctx_synchronize().unwrap();
    assert!(fresh.load(Ordering::SeqCst));
}

#[test]
fn illegal_address_keeps_its_code_and_panics_are_launch_failures() {
    let _serial = cuda_common::exclusive();
    setup();
    cuda::launch_host_kernel(
        StreamHandle::NULL,
        "oob",
        Box::new(|| Err(CUDA_ERROR_ILLEGAL_ADDRESS)),
    )
    .unwrap();
    assert_eq!(
        code(cuda::stream_synchronize(StreamHandle::NULL)),
        CUDA_ERROR_ILLEGAL_ADDRESS
    );
    assert_eq!(code(cuda::stream_create(0)), CUDA_ERROR_ILLEGAL_ADDRESS);
    cuda::ctx_destroy(cuda::ctx_get_current().unwrap()).unwrap();
    cuda::ctx_create(0, 0).unwrap();
    cuda::launch_host_kernel(
        StreamHandle::NULL,
        "panic",
        Box::new(|| panic!("kernel bug")),
    )
    .unwrap();
    assert_eq!(
        code(cuda::stream_synchronize(StreamHandle::NULL)),
        CUDA_ERROR_LAUNCH_FAILED
    );
}

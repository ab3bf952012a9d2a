//! Notifies and counting notifies between streams, and stream memory operations (value write
//! and wait).

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::vendor_consts as vc;
use aclrt::{Config, NotifyHandle, StreamHandle};
use common::*;

static CLOCK: AtomicU64 = AtomicU64::new(1);

/// A kernel that stores the next tick of a shared clock into `at`.
fn stamp(at: &Arc<AtomicU64>) -> aclrt::KernelFn {
    let at = at.clone();
    kernel(move || at.store(CLOCK.fetch_add(1, Ordering::SeqCst), Ordering::SeqCst))
}

/// A notify recorded on one stream and waited on another: the waiting stream's later work runs
/// only after the record, and the wait resets the notify.
#[test]
fn a_notify_recorded_on_one_stream_releases_a_wait_on_another() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let n = api::create_notify(vc::ACL_NOTIFY_DEFAULT as u64).unwrap();
    let before_record = Arc::new(AtomicU64::new(0));
    let after_wait = Arc::new(AtomicU64::new(0));
    api::wait_and_reset_notify(n, b, 0).unwrap();
    launch(b, stamp(&after_wait));
    launch(a, sleeper(50));
    launch(a, stamp(&before_record));
    api::record_notify(n, a).unwrap();
    api::synchronize_stream(b).unwrap();
    api::synchronize_stream(a).unwrap();
    let (r, w) = (
        before_record.load(Ordering::SeqCst),
        after_wait.load(Ordering::SeqCst),
    );
    assert!(
        r > 0 && w > r,
        "the waiting stream ran ahead of the record ({r} vs {w})"
    );
    assert!(
        !api::notify_is_set(n).unwrap(),
        "the wait did not reset the notify"
    );

    // A record before the wait is kept until a wait takes it; two records are one signal.
    api::record_notify(n, a).unwrap();
    api::record_notify(n, a).unwrap();
    api::synchronize_stream(a).unwrap();
    assert!(api::notify_is_set(n).unwrap());
    api::wait_and_reset_notify(n, b, 1).unwrap();
    api::synchronize_stream(b).unwrap();
    assert!(!api::notify_is_set(n).unwrap());
    // So a second wait needs a second record: it times out.
    let t0 = Instant::now();
    api::wait_and_reset_notify(n, b, 1).unwrap();
    assert_eq!(code(api::synchronize_stream(b)), ACL_ERROR_RT_TASK_TIMEOUT);
    assert!(t0.elapsed() >= Duration::from_millis(900));

    // Reset at once from the host.
    api::record_notify(n, StreamHandle::NULL).unwrap();
    api::synchronize_stream(StreamHandle::NULL).unwrap();
    assert!(api::notify_is_set(n).unwrap());
    api::notify_batch_reset(&[n]).unwrap();
    assert!(!api::notify_is_set(n).unwrap());
    api::destroy_notify(n).unwrap();
    api::finalize().unwrap();
}

#[test]
fn notify_rules_and_codes() {
    let _serial = common::exclusive();
    assert_eq!(code(api::create_notify(0)), ACL_ERROR_UNINITIALIZE);
    api::configure(Config {
        device_count: 2,
        ..Config::default()
    })
    .unwrap();
    api::init().unwrap();
    assert_eq!(code(api::create_notify(0)), ACL_ERROR_RT_CONTEXT_NULL);
    api::set_device(0).unwrap();
    assert_eq!(code(api::create_notify(2)), ACL_ERROR_RT_PARAM_INVALID);
    let n0 = api::create_notify(vc::ACL_NOTIFY_DEFAULT as u64).unwrap();
    let n1 = api::create_notify(vc::ACL_NOTIFY_DEVICE_USE_ONLY as u64).unwrap();
    assert_eq!(api::get_notify_id(n0).unwrap(), 0);
    assert_eq!(api::get_notify_id(n1).unwrap(), 1);
    assert_eq!(
        code(api::get_notify_id(NotifyHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::record_notify(NotifyHandle::NULL, StreamHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    let garbage = NotifyHandle::from_raw(0x5400_0001_0000_0007);
    assert_eq!(
        code(api::get_notify_id(garbage)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(
        code(api::record_notify(n0, StreamHandle::from_raw(3))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(code(api::notify_batch_reset(&[])), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(api::notify_batch_reset(&[n0, garbage])),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // Device 1 has its own ids; a notify is used on streams of its own device only.
    api::set_device(1).unwrap();
    let other = api::create_notify(0).unwrap();
    assert_eq!(api::get_notify_id(other).unwrap(), 0);
    assert_eq!(
        code(api::record_notify(n0, StreamHandle::NULL)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::wait_and_reset_notify(n0, StreamHandle::NULL, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::set_device(0).unwrap();
    api::destroy_notify(n0).unwrap();
    assert_eq!(code(api::destroy_notify(n0)), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(code(api::get_notify_id(n0)), ACL_ERROR_RT_INVALID_HANDLE);
    // The freed id is handed out again.
    let again = api::create_notify(0).unwrap();
    assert_eq!(api::get_notify_id(again).unwrap(), 0);
    api::finalize().unwrap();
    assert_eq!(code(api::get_notify_id(again)), ACL_ERROR_UNINITIALIZE);
}

#[test]
fn notifies_per_device_are_limited() {
    let _serial = common::exclusive();
    setup();
    let all: Vec<_> = (0..api::MAX_NOTIFIES_PER_DEVICE)
        .map(|_| api::create_notify(0).unwrap())
        .collect();
    assert_eq!(code(api::create_notify(0)), ACL_ERROR_RT_NO_NOTIFY_RESOURCE);
    api::destroy_notify(all[17]).unwrap();
    let n = api::create_notify(0).unwrap();
    assert_eq!(api::get_notify_id(n).unwrap(), 17);
    api::finalize().unwrap();
}

#[test]
fn an_abort_releases_a_notify_wait() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let n = api::create_notify(0).unwrap();
    api::wait_and_reset_notify(n, s, 0).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    launch(s, kernel(move || r.store(true, Ordering::SeqCst)));
    std::thread::sleep(Duration::from_millis(20));
    api::stream_abort(s).unwrap();
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(code(api::synchronize_stream(s)), ACL_ERROR_RT_STREAM_ABORT);
    api::finalize().unwrap();
}

/// `aclrtValueWait` on one stream is released by `aclrtValueWrite` from another.
#[test]
fn a_value_wait_is_released_by_a_value_write_from_another_stream() {
    let _serial = common::exclusive();
    setup();
    let writer = api::create_stream().unwrap();
    let waiter = api::create_stream().unwrap();
    let word = api::malloc(64, 0).unwrap();
    let written = Arc::new(AtomicU64::new(0));
    let released = Arc::new(AtomicU64::new(0));
    api::value_wait(word, 5, vc::ACL_STREAM_WAIT_VALUE_GEQ as u32, waiter).unwrap();
    launch(waiter, stamp(&released));
    launch(writer, sleeper(30));
    // A smaller value does not release it.
    api::value_write(word, 4, 0, writer).unwrap();
    launch(writer, sleeper(30));
    launch(writer, stamp(&written));
    api::value_write(word, 7, 0, writer).unwrap();
    api::synchronize_stream(waiter).unwrap();
    api::synchronize_stream(writer).unwrap();
    let (w, r) = (
        written.load(Ordering::SeqCst),
        released.load(Ordering::SeqCst),
    );
    assert!(
        w > 0 && r > w,
        "released before the value was written ({w} vs {r})"
    );
    let mut value = 0u64;
    // SAFETY: 8 bytes each.
    unsafe {
        api::memcpy(
            &mut value as *mut u64 as usize,
            8,
            word,
            8,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }
    .unwrap();
    assert_eq!(value, 7);
    api::finalize().unwrap();
}

#[test]
fn value_wait_conditions() {
    let _serial = common::exclusive();
    setup();
    let word = api::malloc(8, 0).unwrap();
    let s = api::create_stream().unwrap();
    let set = |v: u64| {
        api::value_write(word, v, 0, s).unwrap();
        api::synchronize_stream(s).unwrap();
    };
    // Each wait is satisfied by the value already there, so the stream finishes at once.
    let passes = |value: u64, flag: i64| {
        api::value_wait(word, value, flag as u32, s).unwrap();
        api::synchronize_stream_with_timeout(s, 2000).is_ok()
    };
    set(10);
    assert!(passes(10, vc::ACL_STREAM_WAIT_VALUE_GEQ));
    assert!(passes(3, vc::ACL_STREAM_WAIT_VALUE_GEQ));
    assert!(passes(10, vc::ACL_STREAM_WAIT_VALUE_EQ));
    assert!(passes(0b0010, vc::ACL_STREAM_WAIT_VALUE_AND));
    assert!(passes(0b0101, vc::ACL_STREAM_WAIT_VALUE_NOR));
    // GEQ compares the difference as signed.
    set(u64::MAX);
    assert!(passes(u64::MAX - 1, vc::ACL_STREAM_WAIT_VALUE_GEQ));
    // A condition that does not hold keeps the stream waiting until the memory changes, even
    // when the change is a plain copy.
    set(1);
    api::value_wait(word, 2, vc::ACL_STREAM_WAIT_VALUE_EQ as u32, s).unwrap();
    assert_eq!(
        code(api::synchronize_stream_with_timeout(s, 50)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    let two = 2u64;
    // SAFETY: 8 bytes each.
    unsafe {
        api::memcpy(
            word,
            8,
            &two as *const u64 as usize,
            8,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    api::synchronize_stream_with_timeout(s, 2000).unwrap();
    api::finalize().unwrap();
}

#[test]
fn value_write_and_wait_codes() {
    let _serial = common::exclusive();
    setup();
    let dev = api::malloc(64, 0).unwrap();
    let host = api::malloc_host(64).unwrap();
    let s = StreamHandle::NULL;
    let geq = vc::ACL_STREAM_WAIT_VALUE_GEQ as u32;
    assert_eq!(code(api::value_write(0, 1, 0, s)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::value_wait(0, 1, geq, s)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(api::value_write(dev + 4, 1, 0, s)),
        ACL_ERROR_RT_ADDR_UNALIGNED
    );
    assert_eq!(
        code(api::value_wait(dev + 4, 1, geq, s)),
        ACL_ERROR_RT_ADDR_UNALIGNED
    );
    assert_eq!(
        code(api::value_write(host, 1, 0, s)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::value_write(dev + 64, 1, 0, s)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::value_write(dev, 1, 1, s)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(code(api::value_wait(dev, 1, 4, s)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(api::value_write(dev, 1, 0, StreamHandle::from_raw(9))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    api::free(dev).unwrap();
    assert_eq!(
        code(api::value_write(dev, 1, 0, s)),
        ACL_ERROR_INVALID_PARAM
    );
    api::finalize().unwrap();
    assert_eq!(code(api::value_write(dev, 1, 0, s)), ACL_ERROR_UNINITIALIZE);
}

/// A counting notify through the Rust face: stream `b` waits until stream `a` has added to the
/// count three times, the wait clears it, and a reset on a stream sets it to 0.
#[test]
fn a_counting_notify_counts_records_from_another_stream() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let n = api::cnt_notify_create(0).unwrap();
    assert_eq!(api::cnt_notify_get_id(n).unwrap(), 0);
    let after_wait = Arc::new(AtomicU64::new(0));
    let before_last = Arc::new(AtomicU64::new(0));
    const ADD: u32 = 1;
    const AT_LEAST: u32 = 3;
    api::cnt_notify_wait_with_timeout(n, b, AT_LEAST, 3, 0, true).unwrap();
    launch(b, stamp(&after_wait));
    launch(a, sleeper(30));
    api::cnt_notify_record(n, a, ADD, 1).unwrap();
    api::cnt_notify_record(n, a, ADD, 1).unwrap();
    launch(a, stamp(&before_last));
    api::cnt_notify_record(n, a, ADD, 1).unwrap();
    api::synchronize_stream(a).unwrap();
    api::synchronize_stream(b).unwrap();
    let (r, w) = (
        before_last.load(Ordering::SeqCst),
        after_wait.load(Ordering::SeqCst),
    );
    assert!(
        r > 0 && w > r,
        "the wait passed before the third record ({r} vs {w})"
    );
    assert_eq!(
        api::cnt_notify_count(n).unwrap(),
        0,
        "the wait did not clear the count"
    );

    api::cnt_notify_record(n, a, 0, 9).unwrap();
    api::synchronize_stream(a).unwrap();
    assert_eq!(api::cnt_notify_count(n).unwrap(), 9);
    api::cnt_notify_reset(n, a).unwrap();
    api::synchronize_stream(a).unwrap();
    assert_eq!(api::cnt_notify_count(n).unwrap(), 0);

    assert_eq!(
        code(api::cnt_notify_record(n, a, 3, 1)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(code(api::cnt_notify_create(1)), ACL_ERROR_RT_PARAM_INVALID);
    api::cnt_notify_destroy(n).unwrap();
    assert_eq!(code(api::cnt_notify_get_id(n)), ACL_ERROR_RT_INVALID_HANDLE);
    api::destroy_stream(a).unwrap();
    api::destroy_stream(b).unwrap();
}

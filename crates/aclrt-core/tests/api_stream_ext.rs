//! The default stream as a handle, stream flags, streams left, configured creation, abort, stop
//! and stream state callbacks.

mod common;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::api::{self, StreamConfig};
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::vendor_consts as vc;
use aclrt::StreamHandle;
use common::*;

#[test]
fn current_default_stream_flags_and_streams_left() {
    let _serial = common::exclusive();
    api::init().unwrap();
    assert_eq!(
        code(api::ctx_get_current_default_stream()),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    api::set_device(0).unwrap();
    let default = api::ctx_get_current_default_stream().unwrap();
    assert!(!default.is_null());
    assert_eq!(api::ctx_get_current_default_stream().unwrap(), default);
    // It is the default stream: work on it is work on NULL, and it cannot be destroyed.
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    launch(default, kernel(move || r.store(true, Ordering::SeqCst)));
    api::synchronize_stream(StreamHandle::NULL).unwrap();
    assert!(ran.load(Ordering::SeqCst));
    assert_eq!(
        api::stream_get_id(default).unwrap(),
        api::stream_get_id(StreamHandle::NULL).unwrap()
    );
    assert_eq!(code(api::destroy_stream(default)), ACL_ERROR_INVALID_PARAM);

    assert_eq!(api::stream_get_flags(StreamHandle::NULL).unwrap(), 0);
    assert_eq!(api::stream_get_flags(default).unwrap(), 0);
    let flagged =
        api::create_stream_with_config(3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC).unwrap();
    assert_eq!(api::stream_get_flags(flagged).unwrap(), 0x3);
    assert_eq!(
        code(api::stream_get_flags(StreamHandle::from_raw(0x1234))),
        ACL_ERROR_RT_INVALID_HANDLE
    );

    // One default stream and `flagged` exist.
    let left = api::get_stream_available_num().unwrap();
    assert_eq!(left as usize, aclrt::MAX_STREAMS_PER_DEVICE - 2);
    let s = api::create_stream().unwrap();
    assert_eq!(api::get_stream_available_num().unwrap(), left - 1);
    api::destroy_stream(s).unwrap();
    assert_eq!(api::get_stream_available_num().unwrap(), left);
    api::finalize().unwrap();
    assert_eq!(
        code(api::get_stream_available_num()),
        ACL_ERROR_UNINITIALIZE
    );
}

#[test]
fn stream_config_and_create_stream_v2() {
    let _serial = common::exclusive();
    let mut config = StreamConfig::default();
    let word = std::mem::size_of::<usize>();
    let prio = |p: u32| p.to_ne_bytes();
    config
        .set(vc::ACL_RT_STREAM_PRIORITY as u32, &prio(5))
        .unwrap();
    config
        .set(
            vc::ACL_RT_STREAM_FLAG as u32,
            &(ACL_STREAM_FAST_SYNC as usize).to_ne_bytes(),
        )
        .unwrap();
    config
        .set(
            vc::ACL_RT_STREAM_WORK_ADDR_PTR as u32,
            &0x1000usize.to_ne_bytes(),
        )
        .unwrap();
    config
        .set(vc::ACL_RT_STREAM_WORK_SIZE as u32, &64usize.to_ne_bytes())
        .unwrap();
    assert_eq!(
        config,
        StreamConfig {
            work_ptr: 0x1000,
            work_size: 64,
            flags: ACL_STREAM_FAST_SYNC as usize,
            priority: 5
        }
    );
    // Sizes must be the C types', priorities at most 7, attributes known; nothing changes.
    let before = config;
    for (attr, value) in [
        (vc::ACL_RT_STREAM_PRIORITY, vec![0u8; 8]),
        (vc::ACL_RT_STREAM_PRIORITY, prio(8).to_vec()),
        (vc::ACL_RT_STREAM_FLAG, vec![0u8; 2]),
        (vc::ACL_RT_STREAM_WORK_ADDR_PTR, vec![0u8; word - 1]),
        (vc::ACL_RT_STREAM_WORK_SIZE, vec![]),
        (4, vec![0u8; 4]),
    ] {
        assert_eq!(
            code(config.set(attr as u32, &value)),
            ACL_ERROR_INVALID_PARAM,
            "attribute {attr} with {} bytes",
            value.len()
        );
    }
    assert_eq!(config, before);
    // The flag may also be a `uint32_t`.
    let mut narrow = StreamConfig::default();
    narrow
        .set(
            vc::ACL_RT_STREAM_FLAG as u32,
            &ACL_STREAM_FAST_LAUNCH.to_ne_bytes(),
        )
        .unwrap();
    assert_eq!(narrow.flags, ACL_STREAM_FAST_LAUNCH as usize);

    assert_eq!(code(api::create_stream_v2(&config)), ACL_ERROR_UNINITIALIZE);
    setup();
    let s = api::create_stream_v2(&config).unwrap();
    assert_eq!(api::stream_priority(s).unwrap(), 5);
    assert_eq!(api::stream_get_flags(s).unwrap(), ACL_STREAM_FAST_SYNC);
    let plain = api::create_stream_v2(&StreamConfig::default()).unwrap();
    assert_eq!(api::stream_priority(plain).unwrap(), 0);
    assert_eq!(api::stream_get_flags(plain).unwrap(), 0);
    let wide = StreamConfig {
        flags: 1 << 40,
        ..StreamConfig::default()
    };
    if std::mem::size_of::<usize>() == 8 {
        assert_eq!(code(api::create_stream_v2(&wide)), ACL_ERROR_INVALID_PARAM);
    }
    api::finalize().unwrap();
}

#[test]
fn abort_discards_queued_work_and_the_stream_goes_on() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    let ran = Arc::new(AtomicUsize::new(0));
    launch_running_gate(s, &gate);
    let r = ran.clone();
    launch(
        s,
        kernel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }),
    );
    let ev = api::create_event().unwrap();
    api::record_event(ev, s).unwrap();
    // The running task is host code: the abort returns once it has finished.
    let g = gate.clone();
    let opener = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        g.store(true, Ordering::SeqCst);
    });
    let t0 = Instant::now();
    api::stream_abort(s).unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(40));
    opener.join().unwrap();
    assert_eq!(
        ran.load(Ordering::SeqCst),
        0,
        "queued work ran after the abort"
    );
    // The discarded record completes with the abort's failure.
    assert_eq!(code(api::synchronize_event(ev)), ACL_ERROR_RT_STREAM_ABORT);
    // The next synchronise reports it once; the stream then takes work again.
    assert_eq!(code(api::synchronize_stream(s)), ACL_ERROR_RT_STREAM_ABORT);
    api::synchronize_stream(s).unwrap();
    let r = ran.clone();
    launch(
        s,
        kernel(move || {
            r.fetch_add(1, Ordering::SeqCst);
        }),
    );
    api::synchronize_stream(s).unwrap();
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    // The default stream may be aborted too (NULL); an idle abort is quick.
    api::stream_abort(StreamHandle::NULL).unwrap();
    assert_eq!(
        code(api::stream_abort(StreamHandle::from_raw(77))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    api::finalize().unwrap();
    assert_eq!(code(api::stream_abort(s)), ACL_ERROR_UNINITIALIZE);
}

#[test]
fn abort_releases_a_stream_blocked_on_an_event() {
    let _serial = common::exclusive();
    setup();
    let producer = api::create_stream().unwrap();
    let consumer = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch(producer, gated(&gate));
    let ev = api::create_event().unwrap();
    api::record_event(ev, producer).unwrap();
    api::stream_wait_event(consumer, ev).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    launch(consumer, kernel(move || r.store(true, Ordering::SeqCst)));
    std::thread::sleep(Duration::from_millis(20));
    let t0 = Instant::now();
    api::stream_abort(consumer).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(5));
    assert!(!ran.load(Ordering::SeqCst));
    assert_eq!(
        code(api::synchronize_stream(consumer)),
        ACL_ERROR_RT_STREAM_ABORT
    );
    gate.store(true, Ordering::SeqCst);
    api::synchronize_stream(producer).unwrap();
    api::finalize().unwrap();
}

#[test]
fn a_synchronise_waiting_during_an_abort_reports_it() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch_running_gate(s, &gate);
    launch(s, sleeper(1));
    let waiter = std::thread::spawn(move || {
        api::set_device(0).unwrap();
        code(api::synchronize_stream(s))
    });
    std::thread::sleep(Duration::from_millis(30));
    let g = gate.clone();
    let opener = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(30));
        g.store(true, Ordering::SeqCst);
    });
    api::stream_abort(s).unwrap();
    opener.join().unwrap();
    assert_eq!(waiter.join().unwrap(), ACL_ERROR_RT_STREAM_ABORT);
    api::finalize().unwrap();
}

#[test]
fn stop_halts_the_stream_for_good() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(
        code(api::stream_stop(StreamHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    let default = api::ctx_get_current_default_stream().unwrap();
    assert_eq!(code(api::stream_stop(default)), ACL_ERROR_INVALID_PARAM);
    let s = api::create_stream_with_config(0, ACL_STREAM_DEVICE_USE_ONLY).unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    let ran = Arc::new(AtomicBool::new(false));
    launch_running_gate(s, &gate);
    let r = ran.clone();
    launch(s, kernel(move || r.store(true, Ordering::SeqCst)));
    let g = gate.clone();
    let opener = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        g.store(true, Ordering::SeqCst);
    });
    api::stream_stop(s).unwrap();
    opener.join().unwrap();
    assert!(
        !ran.load(Ordering::SeqCst),
        "queued work ran after the stop"
    );
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    // Stopped: new work is refused, an abort does not restart it.
    assert_eq!(
        code(api::launch_kernel(s, "k", Default::default(), sleeper(0))),
        ACL_ERROR_RT_STREAM_ABORT
    );
    api::stream_abort(s).unwrap();
    assert_eq!(
        code(api::launch_kernel(s, "k", Default::default(), sleeper(0))),
        ACL_ERROR_RT_STREAM_ABORT
    );
    api::destroy_stream(s).unwrap();
    assert_eq!(code(api::stream_stop(s)), ACL_ERROR_RT_INVALID_HANDLE);
    api::finalize().unwrap();
}

/// Launches a kernel that blocks until `gate` opens and returns once it is running.
fn launch_running_gate(stream: StreamHandle, gate: &Arc<AtomicBool>) {
    let started = Arc::new(AtomicBool::new(false));
    let st = started.clone();
    let inner = gated(gate);
    launch(
        stream,
        Box::new(move || {
            st.store(true, Ordering::SeqCst);
            inner()
        }),
    );
    while !started.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(1));
    }
}

type Seen = Arc<Mutex<Vec<(StreamHandle, u32)>>>;

fn recorder(seen: &Seen) -> aclrt::StreamStateCallback {
    let seen = seen.clone();
    Arc::new(move |stream, state| seen.lock().unwrap().push((stream, state)))
}

#[test]
fn stream_state_callback_registration_rules() {
    let _serial = common::exclusive();
    let seen: Seen = Default::default();
    assert_eq!(
        code(api::reg_stream_state_callback("a", Some(recorder(&seen)))),
        ACL_ERROR_UNINITIALIZE
    );
    api::init().unwrap();
    assert_eq!(
        code(api::reg_stream_state_callback("", Some(recorder(&seen)))),
        ACL_ERROR_INVALID_PARAM
    );
    api::reg_stream_state_callback("a", Some(recorder(&seen))).unwrap();
    assert_eq!(
        code(api::reg_stream_state_callback("a", Some(recorder(&seen)))),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::reg_stream_state_callback("a", None).unwrap();
    assert_eq!(
        code(api::reg_stream_state_callback("a", None)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::set_device(0).unwrap();
    api::create_stream().unwrap();
    assert!(
        seen.lock().unwrap().is_empty(),
        "an unregistered callback was called"
    );
    api::finalize().unwrap();
}

/// A stream state callback sees the default stream and two streams created, then, before they
/// are destroyed, the stream that was stopped and the one that was aborted.
#[test]
fn stream_state_callback_sees_streams_that_were_stopped_and_aborted() {
    let _serial = common::exclusive();
    api::init().unwrap();
    let seen: Seen = Default::default();
    let second: Seen = Default::default();
    api::reg_stream_state_callback("first", Some(recorder(&seen))).unwrap();
    api::reg_stream_state_callback("second", Some(recorder(&second))).unwrap();
    let create = vc::ACL_RT_STREAM_STATE_CREATE_POST as u32;
    let destroy = vc::ACL_RT_STREAM_STATE_DESTROY_PRE as u32;

    api::set_device(0).unwrap();
    let default = api::ctx_get_current_default_stream().unwrap();
    let stopped = api::create_stream_with_config(0, ACL_STREAM_DEVICE_USE_ONLY).unwrap();
    let aborted = api::create_stream().unwrap();
    // A callback runs as user code: it may query, it may not synchronise.
    let from_callback = Arc::new(Mutex::new(Vec::new()));
    let fc = from_callback.clone();
    api::reg_stream_state_callback(
        "queries",
        Some(Arc::new(move |stream, state| {
            if state == destroy {
                fc.lock().unwrap().push((
                    api::stream_query(stream).ok(),
                    code(api::synchronize_stream(stream)),
                ));
            }
        })),
    )
    .unwrap();
    launch(stopped, sleeper(10));
    launch(aborted, sleeper(10));
    launch(aborted, sleeper(10));
    api::stream_stop(stopped).unwrap();
    api::stream_abort(aborted).unwrap();
    api::destroy_stream_force(stopped).unwrap();
    api::destroy_stream(aborted).unwrap();
    api::reset_device(0).unwrap();

    let expected = vec![
        (default, create),
        (stopped, create),
        (aborted, create),
        (stopped, destroy),
        (aborted, destroy),
        (default, destroy),
    ];
    assert_eq!(*seen.lock().unwrap(), expected);
    assert_eq!(*second.lock().unwrap(), expected);
    let fc = from_callback.lock().unwrap();
    assert_eq!(fc.len(), 3);
    // The destroyed streams could be queried (the default stream goes with its context, which
    // is no longer current then); none could be synchronised.
    assert_eq!(fc[0].0, Some(ACL_STREAM_STATUS_COMPLETE));
    assert_eq!(fc[1].0, Some(ACL_STREAM_STATUS_COMPLETE));
    for (_, sync) in fc.iter() {
        assert_ne!(*sync, ACL_SUCCESS, "synchronise from a callback");
    }
    assert_eq!(fc[0].1, ACL_ERROR_RT_PARAM_INVALID);
    api::finalize().unwrap();
    // Registrations end with the runtime.
    api::init().unwrap();
    api::set_device(0).unwrap();
    api::finalize().unwrap();
    assert_eq!(seen.lock().unwrap().len(), expected.len());
}

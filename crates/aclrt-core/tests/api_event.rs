//! Event calls: the three creation families, status queries, reset and wait rules, timing,
//! the SYNC resource limit.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{EventHandle, StreamHandle, MAX_SYNC_EVENTS_PER_DEVICE};
use common::*;

#[test]
fn create_event_with_flag_validation() {
    let _serial = common::exclusive();
    setup();
    for bad in [
        0,
        0x40,
        0x80,
        0xFFFF_FFFF,
        ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_SYNC,
        ACL_EVENT_EXTERNAL | ACL_EVENT_TIME_LINE,
        ACL_EVENT_DEVICE_USE_ONLY | ACL_EVENT_EXTERNAL,
    ] {
        assert_eq!(
            code(api::create_event_with_flag(bad)),
            ACL_ERROR_RT_PARAM_INVALID,
            "flags {bad:#x}"
        );
    }
    for good in [
        ACL_EVENT_SYNC,
        ACL_EVENT_CAPTURE_STREAM_PROGRESS,
        ACL_EVENT_TIME_LINE,
        ACL_EVENT_DEVICE_USE_ONLY,
        ACL_EVENT_EXTERNAL,
        ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE | ACL_EVENT_CAPTURE_STREAM_PROGRESS,
        0x0F,
    ] {
        api::create_event_with_flag(good).unwrap_or_else(|e| panic!("{good:#x}: {e}"));
    }
}

#[test]
fn create_event_ex_with_flag_validation() {
    let _serial = common::exclusive();
    setup();
    for bad in [
        0,
        ACL_EVENT_DEVICE_USE_ONLY,
        ACL_EVENT_EXTERNAL,
        0x4,
        ACL_EVENT_IPC | ACL_EVENT_SYNC,
        0x80,
    ] {
        assert_eq!(
            code(api::create_event_ex_with_flag(bad)),
            ACL_ERROR_RT_PARAM_INVALID,
            "flags {bad:#x}"
        );
    }
    for good in [
        ACL_EVENT_SYNC,
        ACL_EVENT_CAPTURE_STREAM_PROGRESS,
        ACL_EVENT_TIME_LINE,
        ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE,
        ACL_EVENT_IPC,
    ] {
        api::create_event_ex_with_flag(good).unwrap_or_else(|e| panic!("{good:#x}: {e}"));
    }
}

struct Statuses {
    query: i32,
    recorded: i32,
    wait: i32,
}

fn statuses(ev: EventHandle) -> Statuses {
    let as_i32 = |r: aclrt::Result<u32>| match r {
        Ok(v) => v as i32,
        Err(e) => -e.code(),
    };
    Statuses {
        query: as_i32(api::query_event(ev)),
        recorded: as_i32(api::query_event_status(ev)),
        wait: as_i32(api::query_event_wait_status(ev)),
    }
}

/// Checks the three queries before the first record, while the record is pending, and after
/// synchronising. `refuses_query`: the family refuses query and wait-status with 207000.
fn check_family(ev: EventHandle, refuses_query: bool, before_recorded: u32) {
    let refused = -ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    let q = |v: u32| if refuses_query { refused } else { v as i32 };
    let s = api::create_stream().unwrap();

    let st = statuses(ev);
    assert_eq!(
        st.query,
        q(ACL_EVENT_STATUS_COMPLETE),
        "query before record"
    );
    assert_eq!(st.recorded, before_recorded as i32, "status before record");
    assert_eq!(
        st.wait,
        q(ACL_EVENT_WAIT_STATUS_COMPLETE),
        "wait status before"
    );

    let gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&gate));
    api::record_event(ev, s).unwrap();
    let st = statuses(ev);
    assert_eq!(
        st.query,
        q(ACL_EVENT_STATUS_NOT_READY),
        "query while pending"
    );
    assert_eq!(
        st.recorded, ACL_EVENT_RECORDED_STATUS_NOT_READY as i32,
        "status while pending"
    );
    assert_eq!(
        st.wait,
        q(ACL_EVENT_WAIT_STATUS_COMPLETE),
        "no waits queued"
    );

    gate.store(true, Ordering::SeqCst);
    api::synchronize_event(ev).unwrap();
    let st = statuses(ev);
    assert_eq!(st.query, q(ACL_EVENT_STATUS_COMPLETE), "query after sync");
    assert_eq!(
        st.recorded, ACL_EVENT_RECORDED_STATUS_COMPLETE as i32,
        "status after sync"
    );
    assert_eq!(
        st.wait,
        q(ACL_EVENT_WAIT_STATUS_COMPLETE),
        "wait status after"
    );
}

#[test]
fn status_per_family_default() {
    let _serial = common::exclusive();
    setup();
    check_family(
        api::create_event().unwrap(),
        false,
        ACL_EVENT_RECORDED_STATUS_NOT_READY,
    );
}

#[test]
fn status_per_family_flag() {
    let _serial = common::exclusive();
    setup();
    check_family(
        api::create_event_with_flag(ACL_EVENT_SYNC).unwrap(),
        false,
        ACL_EVENT_RECORDED_STATUS_NOT_READY,
    );
    check_family(
        api::create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap(),
        false,
        ACL_EVENT_RECORDED_STATUS_NOT_READY,
    );
}

#[test]
fn status_per_family_ex() {
    let _serial = common::exclusive();
    setup();
    check_family(
        api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap(),
        true,
        ACL_EVENT_RECORDED_STATUS_COMPLETE,
    );
    check_family(
        api::create_event_ex_with_flag(ACL_EVENT_TIME_LINE).unwrap(),
        true,
        ACL_EVENT_RECORDED_STATUS_COMPLETE,
    );
}

#[test]
fn wait_status_tracks_queued_waits() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let ev = api::create_event().unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch(a, gated(&gate));
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_NOT_READY
    );
    assert_eq!(api::stream_query(b).unwrap(), ACL_STREAM_STATUS_NOT_READY);
    gate.store(true, Ordering::SeqCst);
    api::synchronize_stream(b).unwrap();
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_COMPLETE
    );
}

#[test]
fn device_use_only_events_refuse_host_use() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_DEVICE_USE_ONLY).unwrap();
    assert_eq!(code(api::record_event(ev, s)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        code(api::stream_wait_event(s, ev)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(code(api::reset_event(ev, s)), ACL_ERROR_RT_PARAM_INVALID);
}

#[test]
fn reset_rules() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let no_sync = api::create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    assert_eq!(
        code(api::reset_event(no_sync, s)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    for flags in [ACL_EVENT_SYNC, ACL_EVENT_TIME_LINE, ACL_EVENT_IPC] {
        let ex = api::create_event_ex_with_flag(flags).unwrap();
        assert_eq!(
            code(api::reset_event(ex, s)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
    }
    let flag = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    api::reset_event(flag, s).unwrap();

    // Resetting an aclrtCreateEvent event returns it to "never recorded".
    let ev = api::create_event().unwrap();
    let other = api::create_event().unwrap();
    api::record_event(ev, s).unwrap();
    api::record_event(other, s).unwrap();
    api::synchronize_stream(s).unwrap();
    api::event_elapsed_time(ev, other).unwrap();
    api::reset_event(ev, s).unwrap();
    api::synchronize_stream(s).unwrap();
    assert_eq!(
        api::query_event_status(ev).unwrap(),
        ACL_EVENT_RECORDED_STATUS_NOT_READY
    );
    assert_eq!(
        code(api::stream_wait_event(s, ev)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::event_elapsed_time(ev, other)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    assert_eq!(
        code(api::event_get_timestamp(ev)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    // Reset is a stream task: ownership and handle checks apply.
    assert_eq!(
        code(api::reset_event(ev, StreamHandle::from_raw(5))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
fn wait_rules() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    // Without SYNC (flag and Ex families): 207000, recorded or not.
    let flag_plain = api::create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    let ex_plain = api::create_event_ex_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    for ev in [flag_plain, ex_plain] {
        assert_eq!(
            code(api::stream_wait_event(s, ev)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
        api::record_event(ev, s).unwrap();
        api::synchronize_stream(s).unwrap();
        assert_eq!(
            code(api::stream_wait_event(s, ev)),
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT
        );
    }
    // aclrtCreateEvent never recorded: 107000.
    let ev = api::create_event().unwrap();
    assert_eq!(
        code(api::stream_wait_event(s, ev)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // Ex SYNC never recorded: a no-op, the stream is not held.
    let ex = api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap();
    api::stream_wait_event(s, ex).unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    launch(s, kernel(move || r.store(true, Ordering::SeqCst)));
    api::synchronize_stream_with_timeout(s, 5_000).unwrap();
    assert!(ran.load(Ordering::SeqCst));
    // Recorded events of every waitable family can be waited on.
    let flag = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    for ev in [ev, ex, flag] {
        api::record_event(ev, s).unwrap();
        api::stream_wait_event(s, ev).unwrap();
    }
    api::synchronize_stream_with_timeout(s, 5_000).unwrap();
    // Negative wait timeouts are invalid; 0 means no limit.
    assert_eq!(
        code(api::stream_wait_event_with_timeout(s, flag, -1)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::stream_wait_event_with_timeout(s, flag, 0).unwrap();
    api::synchronize_stream_with_timeout(s, 5_000).unwrap();
    // Flag arguments.
    assert_eq!(
        code(api::record_event_with_flag(flag, s, 2)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::stream_wait_event_with_flag(s, flag, 0, 2)),
        ACL_ERROR_INVALID_PARAM
    );
    api::record_event_with_flag(flag, s, ACL_EVENT_RECORD_EXTERNAL).unwrap();
    api::stream_wait_event_with_flag(s, flag, 0, ACL_EVENT_WAIT_EXTERNAL).unwrap();
    api::synchronize_stream_with_timeout(s, 5_000).unwrap();
}

#[test]
fn ex_rerecord_overwrites_the_snapshot() {
    let _serial = common::exclusive();
    setup();
    let slow = api::create_stream().unwrap();
    let idle = api::create_stream().unwrap();
    let ex = api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch(slow, gated(&gate));
    api::record_event(ex, slow).unwrap();
    assert_eq!(
        api::query_event_status(ex).unwrap(),
        ACL_EVENT_RECORDED_STATUS_NOT_READY
    );
    api::record_event(ex, idle).unwrap();
    api::synchronize_event_with_timeout(ex, 5_000).unwrap();
    assert_eq!(
        api::query_event_status(ex).unwrap(),
        ACL_EVENT_RECORDED_STATUS_COMPLETE
    );
    assert_eq!(
        api::stream_query(slow).unwrap(),
        ACL_STREAM_STATUS_NOT_READY
    );
    gate.store(true, Ordering::SeqCst);
    api::synchronize_stream(slow).unwrap();
}

#[test]
fn legacy_flag_stays_set_until_reset() {
    let _serial = common::exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    api::record_event(ev, a).unwrap();
    api::synchronize_stream(a).unwrap();
    // Re-record behind a held kernel without a reset: the flag is still set, so a wait
    // passes at once.
    let gate = Arc::new(AtomicBool::new(false));
    launch(a, gated(&gate));
    api::record_event(ev, a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    api::synchronize_stream_with_timeout(b, 5_000).unwrap();
    // After a reset the next wait holds until the next record runs.
    api::reset_event(ev, b).unwrap();
    api::synchronize_stream(b).unwrap();
    gate.store(true, Ordering::SeqCst);
    api::synchronize_stream(a).unwrap();
    api::reset_event(ev, a).unwrap();
    api::synchronize_stream(a).unwrap();
    api::stream_wait_event(b, ev).unwrap();
    assert_eq!(
        code(api::synchronize_stream_with_timeout(b, 50)),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    api::record_event(ev, a).unwrap();
    api::synchronize_stream_with_timeout(b, 5_000).unwrap();
}

#[test]
fn synchronise_event_rules() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ev = api::create_event().unwrap();
    // Never recorded: returns at once.
    api::synchronize_event(ev).unwrap();
    api::synchronize_event_with_timeout(ev, 1).unwrap();
    for bad in [0, -2] {
        assert_eq!(
            code(api::synchronize_event_with_timeout(ev, bad)),
            ACL_ERROR_RT_PARAM_INVALID
        );
    }
    // The record waits behind a kernel held at a gate until the timeout has been seen.
    let gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&gate));
    api::record_event(ev, s).unwrap();
    let t0 = Instant::now();
    assert_eq!(
        code(api::synchronize_event_with_timeout(ev, 30)),
        ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
    );
    assert!(t0.elapsed() >= Duration::from_millis(30));
    gate.store(true, Ordering::SeqCst);
    api::synchronize_event_with_timeout(ev, 5_000).unwrap();
    // A failure the record captured is reported by the event and then cleared for the stream.
    launch(s, failing(ACL_ERROR_RT_AICORE_EXCEPTION));
    api::record_event(ev, s).unwrap();
    assert_eq!(
        code(api::synchronize_event(ev)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
    api::synchronize_stream(s).unwrap();
}

#[test]
fn destroyed_and_garbage_handles() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ev = api::create_event().unwrap();
    let other = api::create_event().unwrap();
    api::destroy_event(ev).unwrap();
    let garbage = EventHandle::from_raw(0x1234_5678);
    let as_event = EventHandle::from_raw(s.as_raw());
    for h in [ev, garbage, as_event] {
        let all = [
            code(api::destroy_event(h)),
            code(api::record_event(h, s)),
            code(api::reset_event(h, s)),
            code(api::query_event(h)),
            code(api::query_event_status(h)),
            code(api::query_event_wait_status(h)),
            code(api::synchronize_event(h)),
            code(api::event_elapsed_time(h, other)),
            code(api::event_elapsed_time(other, h)),
            code(api::event_get_timestamp(h)),
            code(api::stream_wait_event(s, h)),
            code(api::get_event_id(h)),
        ];
        assert!(
            all.iter().all(|&c| c == ACL_ERROR_RT_INVALID_HANDLE),
            "{h:?}: {all:?}"
        );
    }
}

#[test]
fn event_ids_are_distinct() {
    let _serial = common::exclusive();
    setup();
    let a = api::get_event_id(api::create_event().unwrap()).unwrap();
    let b = api::get_event_id(api::create_event_with_flag(ACL_EVENT_SYNC).unwrap()).unwrap();
    let c = api::get_event_id(api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap()).unwrap();
    assert!(a != b && b != c && a != c);
}

#[test]
fn elapsed_time_rules() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let start = api::create_event().unwrap();
    let end = api::create_event().unwrap();
    assert_eq!(
        code(api::event_elapsed_time(start, end)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    api::record_event(start, s).unwrap();
    api::synchronize_stream(s).unwrap();
    // Only one of the two recorded.
    assert_eq!(
        code(api::event_elapsed_time(start, end)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    let gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&gate));
    api::record_event(end, s).unwrap();
    assert_eq!(
        code(api::event_elapsed_time(start, end)),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    );
    assert_eq!(
        code(api::event_get_timestamp(end)),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    );
    gate.store(true, Ordering::SeqCst);
    api::synchronize_event(end).unwrap();
    assert!(api::event_elapsed_time(start, end).unwrap() >= 0.0);
    // No TIME_LINE: recorded and complete, but no timestamp.
    let untimed = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    assert_eq!(
        code(api::event_get_timestamp(untimed)),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    api::record_event(untimed, s).unwrap();
    api::synchronize_stream(s).unwrap();
    assert_eq!(
        code(api::event_elapsed_time(start, untimed)),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    );
    assert_eq!(
        code(api::event_get_timestamp(untimed)),
        ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID
    );
    // Ex with TIME_LINE takes timestamps.
    let ex = api::create_event_ex_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    api::record_event(ex, s).unwrap();
    api::synchronize_stream(s).unwrap();
    assert!(api::event_elapsed_time(start, ex).unwrap() >= 0.0);
}

#[test]
fn timestamps_and_elapsed_time_around_a_kernel() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let t_set = Instant::now();
    let start = api::create_event().unwrap();
    let end = api::create_event_ex_with_flag(ACL_EVENT_TIME_LINE | ACL_EVENT_SYNC).unwrap();
    api::record_event(start, s).unwrap();
    launch(s, sleeper(100));
    api::record_event(end, s).unwrap();
    api::synchronize_event(end).unwrap();
    let wall_us = t_set.elapsed().as_micros() as u64;
    let ms = api::event_elapsed_time(start, end).unwrap();
    assert!((100.0..1000.0).contains(&ms), "elapsed {ms} ms");
    assert!(api::event_elapsed_time(end, start).unwrap() < 0.0);
    let t0 = api::event_get_timestamp(start).unwrap();
    let t1 = api::event_get_timestamp(end).unwrap();
    assert!(t1 > t0);
    let diff_ms = (t1 - t0) as f32 / 1000.0;
    assert!(
        (diff_ms - ms).abs() < 1.0,
        "timestamps {diff_ms} vs elapsed {ms}"
    );
    // Timestamps count from the first device set, which no test of this binary makes before
    // its first `setup`.
    let since_first_setup = common::first_setup().elapsed().as_micros() as u64;
    assert!(t1 <= since_first_setup, "{t1} us vs {since_first_setup} us");
    assert!(t1 - t0 <= wall_us, "{t0}..{t1} us within {wall_us} us");
}

#[test]
fn sync_event_resource_limit() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let full = MAX_SYNC_EVENTS_PER_DEVICE as u32;
    assert_eq!(api::get_event_avail_num().unwrap(), full);
    // aclrtCreateEvent and Ex SYNC events take a resource at their first record.
    let d = api::create_event().unwrap();
    let ex = api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap();
    let ex_plain = api::create_event_ex_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), full);
    api::record_event(d, s).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), full - 1);
    api::record_event(d, s).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), full - 1);
    api::record_event(ex, s).unwrap();
    api::record_event(ex_plain, s).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), full - 2);
    // Resetting an aclrtCreateEvent event gives its resource back.
    api::reset_event(d, s).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), full - 1);
    api::destroy_event(ex).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), full);
    // Flag-family SYNC events take one at creation.
    let mut flags = Vec::with_capacity(MAX_SYNC_EVENTS_PER_DEVICE);
    for _ in 0..MAX_SYNC_EVENTS_PER_DEVICE {
        flags.push(api::create_event_with_flag(ACL_EVENT_SYNC).unwrap());
    }
    assert_eq!(api::get_event_avail_num().unwrap(), 0);
    assert_eq!(
        code(api::create_event_with_flag(ACL_EVENT_SYNC)),
        ACL_ERROR_RT_NO_EVENT_RESOURCE
    );
    // Events that count from their first record can be created but not recorded.
    let d2 = api::create_event().unwrap();
    let ex2 = api::create_event_ex_with_flag(ACL_EVENT_SYNC).unwrap();
    api::create_event_with_flag(ACL_EVENT_TIME_LINE).unwrap();
    assert_eq!(
        code(api::record_event(d2, s)),
        ACL_ERROR_RT_NO_EVENT_RESOURCE
    );
    assert_eq!(
        code(api::record_event(ex2, s)),
        ACL_ERROR_RT_NO_EVENT_RESOURCE
    );
    // Events without SYNC still record.
    api::record_event(ex_plain, s).unwrap();
    api::destroy_event(flags.pop().unwrap()).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), 1);
    api::record_event(d2, s).unwrap();
    assert_eq!(api::get_event_avail_num().unwrap(), 0);
    api::synchronize_stream(s).unwrap();
}

#[test]
fn stream_wait_with_timeout_fails_the_waiting_stream() {
    let _serial = common::exclusive();
    setup();
    let infos = Arc::new(Mutex::new(Vec::new()));
    let i = infos.clone();
    api::set_exception_info_callback(Some(Arc::new(move |info: &aclrt::ExceptionInfo| {
        i.lock().unwrap().push(*info);
    })))
    .unwrap();
    let s = api::create_stream().unwrap();
    let never = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    api::stream_wait_event_with_timeout(s, never, 50).unwrap();
    let after = Arc::new(AtomicBool::new(false));
    let a = after.clone();
    launch(s, kernel(move || a.store(true, Ordering::SeqCst)));
    let t0 = Instant::now();
    assert_eq!(code(api::synchronize_stream(s)), ACL_ERROR_RT_TASK_TIMEOUT);
    assert!(t0.elapsed() >= Duration::from_millis(40));
    // Continue mode: later work ran, and the failure was cleared by reporting it.
    assert!(after.load(Ordering::SeqCst));
    api::synchronize_stream(s).unwrap();
    let infos = infos.lock().unwrap();
    assert_eq!(infos.len(), 1, "{infos:?}");
    assert_eq!(infos[0].error_code, ACL_ERROR_RT_TASK_TIMEOUT as u32);
    assert_eq!(infos[0].task_id, 0);
    assert_eq!(infos[0].stream_id, api::stream_get_id(s).unwrap() as u32);
    assert_eq!(infos[0].thread_id, aclrt::os_thread_id());
}

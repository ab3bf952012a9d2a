use std::sync::atomic::{AtomicU32, Ordering};
mod common;
use common::{all_inside, exclusive};

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::StreamHandle;

fn setup() {
    let _ = api::init();
    api::set_device(0).unwrap();
}

fn sleeper(ms: u64) -> aclrt::KernelFn {
    Box::new(move || {
        std::thread::sleep(Duration::from_millis(ms));
        Ok(())
    })
}

#[test]
fn streams_overlap() {
    let _serial = exclusive();
    setup();
    let streams: Vec<StreamHandle> = (0..64).map(|_| api::create_stream().unwrap()).collect();
    // Every stream's kernel runs at the same time as every other's.
    assert_eq!(
        all_inside(&streams),
        streams.len(),
        "kernels inside at once"
    );
    for s in streams {
        api::destroy_stream(s).unwrap();
    }
}

#[test]
fn cross_stream_order_and_legacy_wait_before_record() {
    let _serial = exclusive();
    setup();
    let a = api::create_stream().unwrap();
    let b = api::create_stream().unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let ev = api::create_event_with_flag(ACL_EVENT_SYNC).unwrap();
    // Wait queued before the record: legal for legacy SYNC events.
    api::stream_wait_event(b, ev).unwrap();
    let l = log.clone();
    api::launch_kernel(
        b,
        "second",
        Default::default(),
        Box::new(move || {
            l.lock().unwrap().push("b");
            Ok(())
        }),
    )
    .unwrap();
    let l = log.clone();
    api::launch_kernel(
        a,
        "first",
        Default::default(),
        Box::new(move || {
            std::thread::sleep(Duration::from_millis(50));
            l.lock().unwrap().push("a");
            Ok(())
        }),
    )
    .unwrap();
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_NOT_READY
    );
    api::record_event(ev, a).unwrap();
    api::synchronize_stream(b).unwrap();
    assert_eq!(*log.lock().unwrap(), vec!["a", "b"]);
    assert_eq!(
        api::query_event_wait_status(ev).unwrap(),
        ACL_EVENT_WAIT_STATUS_COMPLETE
    );
}

#[test]
fn blocking_callback_delays_stream() {
    let _serial = exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ran = Arc::new(AtomicU32::new(0));
    let (tx, rx) = std::sync::mpsc::channel();
    let reporter = std::thread::spawn(move || {
        tx.send(aclrt::pthread_id()).unwrap();
        // Serve until two callbacks ran.
        let mut served = 0;
        while served < 1 {
            if api::process_report(2000).is_ok() {
                served += 1;
            }
        }
    });
    let tid = rx.recv().unwrap();
    api::subscribe_report(tid, s).unwrap();
    let r = ran.clone();
    let t0 = Instant::now();
    api::launch_callback(
        Box::new(move || {
            std::thread::sleep(Duration::from_millis(200));
            r.fetch_add(1, Ordering::SeqCst);
        }),
        ACL_CALLBACK_BLOCK,
        s,
    )
    .unwrap();
    api::synchronize_stream(s).unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(200));
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    reporter.join().unwrap();
    api::unsubscribe_report(tid, s).unwrap();
    assert_eq!(
        api::launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s)
            .unwrap_err()
            .code(),
        ACL_ERROR_RT_STREAM_NO_CB_REG
    );
}

#[test]
fn elapsed_time_and_failures() {
    let _serial = exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let e0 = api::create_event().unwrap();
    let e1 = api::create_event().unwrap();
    assert_eq!(
        api::event_elapsed_time(e0, e1).unwrap_err().code(),
        ACL_ERROR_RT_INTERNAL_ERROR
    );
    api::record_event(e0, s).unwrap();
    api::launch_kernel(s, "k", Default::default(), sleeper(20)).unwrap();
    api::record_event(e1, s).unwrap();
    api::synchronize_event(e1).unwrap();
    let ms = api::event_elapsed_time(e0, e1).unwrap();
    // At least the kernel's 20 ms; how much more depends on the machine's load.
    assert!((20.0..10_000.0).contains(&ms), "{ms}");
    api::launch_kernel(
        s,
        "bad",
        Default::default(),
        Box::new(|| Err(ACL_ERROR_RT_AICORE_EXCEPTION)),
    )
    .unwrap();
    let e = api::synchronize_stream(s).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_AICORE_EXCEPTION);
    api::synchronize_stream(s).unwrap();
    assert_eq!(api::get_last_error(), ACL_ERROR_RT_AICORE_EXCEPTION);
    assert!(api::get_recent_err_msg().unwrap().contains("failed"));
    assert_eq!(
        api::synchronize_stream_with_timeout(s, 0)
            .unwrap_err()
            .code(),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // A kernel held at a gate until the timeout has been seen.
    let gate = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let g = gate.clone();
    api::launch_kernel(
        s,
        "held",
        Default::default(),
        Box::new(move || {
            while !g.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(1));
            }
            Ok(())
        }),
    )
    .unwrap();
    assert_eq!(
        api::synchronize_stream_with_timeout(s, 20)
            .unwrap_err()
            .code(),
        ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    );
    gate.store(true, Ordering::SeqCst);
    api::destroy_stream(s).unwrap();
    assert_eq!(
        api::synchronize_stream(s).unwrap_err().code(),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
fn kernel_failing_with_a_message_reports_code_and_message() {
    let _serial = exclusive();
    setup();
    let s = api::create_stream().unwrap();
    api::launch_kernel(
        s,
        "explains",
        Default::default(),
        Box::new(|| {
            api::fail_kernel(aclrt::Error::new(
                ACL_ERROR_RT_AICORE_TIMEOUT,
                "took too long",
            ))
        }),
    )
    .unwrap();
    let e = api::synchronize_stream(s).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_AICORE_TIMEOUT);
    assert!(e.message().contains("took too long"), "{}", e.message());
    assert!(!e.message().contains("panicked"), "{}", e.message());
}

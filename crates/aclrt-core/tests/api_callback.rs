//! Host callbacks, host functions and the exception callback.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{Config, ExceptionInfo, StreamHandle};
use common::*;

#[test]
fn subscribe_and_unsubscribe_rules() {
    let _serial = common::exclusive();
    api::configure(Config {
        device_count: 2,
        ..Config::default()
    })
    .unwrap();
    setup();
    let s = api::create_stream().unwrap();
    let s2 = api::create_stream().unwrap();
    let me = aclrt::pthread_id();
    assert_eq!(
        code(api::unsubscribe_report(me, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    api::subscribe_report(me, s).unwrap();
    assert_eq!(
        code(api::subscribe_report(me, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    assert_eq!(
        code(api::subscribe_report(me + 1, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    // One thread may serve several streams of one device, also the default stream.
    api::subscribe_report(me, s2).unwrap();
    api::subscribe_report(me, StreamHandle::NULL).unwrap();
    assert_eq!(
        code(api::unsubscribe_report(me + 1, s)),
        ACL_ERROR_RT_THREAD_SUBSCRIBE
    );
    // ... but not streams of another device.
    api::set_device(1).unwrap();
    let on_dev1 = api::create_stream().unwrap();
    assert_eq!(
        code(api::subscribe_report(me, on_dev1)),
        ACL_ERROR_RT_THREAD_SUBSCRIBE
    );
    api::subscribe_report(me + 1, on_dev1).unwrap();
    api::set_device(0).unwrap();
    api::unsubscribe_report(me, s).unwrap();
    assert_eq!(
        code(api::unsubscribe_report(me, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    assert_eq!(
        code(api::subscribe_report(me, StreamHandle::from_raw(77))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(api::live_objects().callback_threads, 2);
}

#[test]
fn launch_and_process_report_rules() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    assert_eq!(
        code(api::launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s)),
        ACL_ERROR_RT_STREAM_NO_CB_REG
    );
    assert_eq!(
        code(api::launch_callback(Box::new(|| {}), 2, s)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(code(api::process_report(0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::process_report(-2)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(api::process_report(10)), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    let me = aclrt::pthread_id();
    api::subscribe_report(me, s).unwrap();
    assert_eq!(code(api::process_report(20)), ACL_ERROR_RT_REPORT_TIMEOUT);
    assert_eq!(
        code(api::launch_callback(Box::new(|| {}), 7, s)),
        ACL_ERROR_INVALID_PARAM
    );
    // A callback runs on the thread calling aclrtProcessReport, here this one.
    let ran_on = Arc::new(AtomicU64::new(0));
    let r = ran_on.clone();
    api::launch_callback(
        Box::new(move || r.store(aclrt::pthread_id(), Ordering::SeqCst)),
        ACL_CALLBACK_NO_BLOCK,
        s,
    )
    .unwrap();
    api::process_report(5_000).unwrap();
    assert_eq!(ran_on.load(Ordering::SeqCst), me);
    // Destroying the stream unsubscribes the thread.
    api::destroy_stream(s).unwrap();
    assert_eq!(code(api::process_report(10)), ACL_ERROR_RT_THREAD_SUBSCRIBE);
    assert_eq!(api::live_objects().callback_threads, 0);
}

#[test]
fn callbacks_run_in_order_after_earlier_work_on_the_subscribed_thread() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let reporter = Reporter::start();
    api::subscribe_report(reporter.tid, s).unwrap();
    let log = Arc::new(Mutex::new(Vec::new()));
    let l = log.clone();
    launch(
        s,
        kernel(move || {
            std::thread::sleep(Duration::from_millis(50));
            l.lock().unwrap().push(("kernel".to_string(), 0));
        }),
    );
    for i in 0..5 {
        let l = log.clone();
        let block = if i % 2 == 0 {
            ACL_CALLBACK_BLOCK
        } else {
            ACL_CALLBACK_NO_BLOCK
        };
        api::launch_callback(
            Box::new(move || {
                l.lock()
                    .unwrap()
                    .push((format!("cb{i}"), aclrt::pthread_id()))
            }),
            block,
            s,
        )
        .unwrap();
    }
    let l = log.clone();
    api::launch_callback(
        Box::new(move || l.lock().unwrap().push(("last".into(), aclrt::pthread_id()))),
        ACL_CALLBACK_BLOCK,
        s,
    )
    .unwrap();
    api::synchronize_stream(s).unwrap();
    let log = log.lock().unwrap();
    let names: Vec<&str> = log.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["kernel", "cb0", "cb1", "cb2", "cb3", "cb4", "last"]);
    assert!(log[1..].iter().all(|&(_, tid)| tid == reporter.tid));
    reporter.stop();
}

#[test]
fn callbacks_and_host_functions_refuse_blocking_calls() {
    let _serial = common::exclusive();
    setup();
    let ctx = api::get_current_context().unwrap();
    let s = api::create_stream().unwrap();
    let reporter = Reporter::start();
    api::subscribe_report(reporter.tid, s).unwrap();
    let (tx, rx) = mpsc::channel();
    let probe = move |tx: mpsc::Sender<Vec<i32>>| {
        move || {
            api::set_current_context(ctx).unwrap();
            let codes = vec![
                code(api::synchronize_stream(s)),
                code(api::synchronize_stream(StreamHandle::NULL)),
                code(api::synchronize_device()),
                code(api::malloc(64, 0)),
                code(api::malloc_host(64)),
                code(api::launch_kernel(s, "k", Default::default(), sleeper(0))),
                code(api::launch_host_func(s, Box::new(|| {}))),
                code(api::create_stream().and_then(api::destroy_stream)),
                code(api::reset_device(0)),
                code(api::process_report(10)),
            ];
            tx.send(codes).unwrap();
        }
    };
    api::launch_callback(Box::new(probe(tx.clone())), ACL_CALLBACK_BLOCK, s).unwrap();
    api::synchronize_stream(s).unwrap();
    let from_callback = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(
        from_callback[..8],
        [ACL_ERROR_RT_PARAM_INVALID; 8],
        "{from_callback:?}"
    );
    assert_eq!(from_callback[8], ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(from_callback[9], ACL_ERROR_RT_PARAM_INVALID);
    reporter.stop();

    let s2 = api::create_stream().unwrap();
    api::launch_host_func(s2, Box::new(probe(tx.clone()))).unwrap();
    api::synchronize_stream(s2).unwrap();
    let from_host_fn = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(
        from_host_fn[..9]
            .iter()
            .all(|&c| c == ACL_ERROR_RT_PARAM_INVALID),
        "{from_host_fn:?}"
    );
    // Kernels too.
    let (ktx, krx) = mpsc::channel();
    launch(
        s2,
        kernel(move || {
            api::set_current_context(ctx).unwrap();
            ktx.send(code(api::synchronize_stream(s))).unwrap();
        }),
    );
    api::synchronize_stream(s2).unwrap();
    assert_eq!(krx.recv().unwrap(), ACL_ERROR_RT_PARAM_INVALID);
    // The runtime still works afterwards.
    launch(s, sleeper(1));
    api::synchronize_device().unwrap();
}

#[test]
fn host_function_runs_on_a_runtime_thread_and_blocks_the_stream() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let caller = aclrt::os_thread_id();
    let ran_on = Arc::new(AtomicU64::new(0));
    let done = Arc::new(AtomicBool::new(false));
    let (r, d) = (ran_on.clone(), done.clone());
    api::launch_host_func(
        s,
        Box::new(move || {
            r.store(aclrt::os_thread_id() as u64, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(100));
            d.store(true, Ordering::SeqCst);
        }),
    )
    .unwrap();
    let seen = Arc::new(AtomicBool::new(false));
    let (d, sn) = (done.clone(), seen.clone());
    launch(
        s,
        kernel(move || sn.store(d.load(Ordering::SeqCst), Ordering::SeqCst)),
    );
    api::synchronize_stream(s).unwrap();
    let tid = ran_on.load(Ordering::SeqCst);
    assert_ne!(tid, 0);
    assert_ne!(tid, caller as u64);
    assert!(
        seen.load(Ordering::SeqCst),
        "the kernel after the host function ran early"
    );
    // A panicking host function fails its task.
    api::launch_host_func(s, Box::new(|| panic!("host fn bug"))).unwrap();
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_EXCEPTION
    );
}

#[test]
fn exception_callback_ids() {
    let _serial = common::exclusive();
    api::configure(Config {
        device_count: 2,
        ..Config::default()
    })
    .unwrap();
    api::init().unwrap();
    api::set_device(1).unwrap();
    let ctx = api::get_current_context().unwrap();
    let infos = Arc::new(Mutex::new(Vec::<ExceptionInfo>::new()));
    let i = infos.clone();
    api::set_exception_info_callback(Some(Arc::new(move |info: &ExceptionInfo| {
        i.lock().unwrap().push(*info);
    })))
    .unwrap();
    let s = api::create_stream().unwrap();
    // Give the stream a non-zero task id for the failing task.
    launch(s, sleeper(1));
    api::record_event(api::create_event().unwrap(), s).unwrap();
    let (task_id, submitter) = std::thread::spawn(move || {
        api::set_current_context(ctx).unwrap();
        let id = launch(s, failing(ACL_ERROR_RT_AICORE_TIMEOUT));
        (id, aclrt::os_thread_id())
    })
    .join()
    .unwrap();
    assert_eq!(task_id, 2);
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_TIMEOUT
    );
    {
        let infos = infos.lock().unwrap();
        assert_eq!(infos.len(), 1);
        let info = infos[0];
        assert_eq!(info.task_id as u64, task_id);
        assert_eq!(info.stream_id, api::stream_get_id(s).unwrap() as u32);
        assert_eq!(info.thread_id, submitter);
        assert_ne!(info.thread_id, aclrt::os_thread_id());
        assert_eq!(info.device_id, 1);
        assert_eq!(info.error_code, ACL_ERROR_RT_AICORE_TIMEOUT as u32);
    }
    // Last call wins.
    let second = Arc::new(Mutex::new(Vec::<ExceptionInfo>::new()));
    let i2 = second.clone();
    api::set_exception_info_callback(Some(Arc::new(move |info: &ExceptionInfo| {
        i2.lock().unwrap().push(*info);
    })))
    .unwrap();
    launch(s, failing(ACL_ERROR_RT_AICORE_EXCEPTION));
    api::synchronize_stream(s).unwrap_err();
    assert_eq!(infos.lock().unwrap().len(), 1);
    assert_eq!(second.lock().unwrap().len(), 1);
    assert_eq!(second.lock().unwrap()[0].task_id, 3);
    // None clears it.
    api::set_exception_info_callback(None).unwrap();
    launch(s, failing(ACL_ERROR_RT_AICORE_EXCEPTION));
    api::synchronize_stream(s).unwrap_err();
    assert_eq!(second.lock().unwrap().len(), 1);
}

/// A thread id that is subscribed but never processes reports.
fn idle_thread() -> (u64, std::thread::JoinHandle<()>, mpsc::Sender<()>) {
    let (tid_tx, tid_rx) = mpsc::channel();
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    let join = std::thread::spawn(move || {
        tid_tx.send(aclrt::pthread_id()).unwrap();
        let _ = stop_rx.recv();
    });
    (tid_rx.recv().unwrap(), join, stop_tx)
}

#[test]
fn callback_due_after_unsubscribe_fails_instead_of_hanging() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let (idle, join, stop) = idle_thread();
    api::subscribe_report(idle, s).unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&gate));
    let ran = Arc::new(AtomicBool::new(false));
    let r = ran.clone();
    let body = Box::new(move || r.store(true, Ordering::SeqCst));
    api::launch_callback(body, ACL_CALLBACK_BLOCK, s).unwrap();
    api::unsubscribe_report(idle, s).unwrap();
    gate.store(true, Ordering::SeqCst);
    let e = api::synchronize_stream_with_timeout(s, 5000).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_STREAM_NO_CB_REG, "{e}");
    assert!(!ran.load(Ordering::SeqCst));
    // The stream goes on with later work.
    launch(s, kernel(|| {}));
    api::synchronize_stream_with_timeout(s, 5000).unwrap();
    drop(stop);
    join.join().unwrap();
}

#[test]
fn delivered_blocking_callback_released_by_unsubscribe_fails_the_task() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let (idle, join, stop) = idle_thread();
    api::subscribe_report(idle, s).unwrap();
    api::launch_callback(Box::new(|| {}), ACL_CALLBACK_BLOCK, s).unwrap();
    // Delivered and waiting for a thread that never processes it.
    std::thread::sleep(Duration::from_millis(50));
    assert_eq!(api::stream_query(s).unwrap(), ACL_STREAM_STATUS_NOT_READY);
    api::unsubscribe_report(idle, s).unwrap();
    let e = api::synchronize_stream_with_timeout(s, 5000).unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_STREAM_NO_CB_REG, "{e}");
    drop(stop);
    join.join().unwrap();
}

#[test]
fn callback_goes_to_the_thread_subscribed_when_it_becomes_due() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let (idle, join, stop) = idle_thread();
    api::subscribe_report(idle, s).unwrap();
    let gate = Arc::new(AtomicBool::new(false));
    launch(s, gated(&gate));
    let ran_on = Arc::new(AtomicU64::new(0));
    let r = ran_on.clone();
    let body = Box::new(move || r.store(aclrt::pthread_id(), Ordering::SeqCst));
    api::launch_callback(body, ACL_CALLBACK_BLOCK, s).unwrap();
    api::unsubscribe_report(idle, s).unwrap();
    let reporter = Reporter::start();
    api::subscribe_report(reporter.tid, s).unwrap();
    gate.store(true, Ordering::SeqCst);
    api::synchronize_stream_with_timeout(s, 5000).unwrap();
    assert_eq!(ran_on.load(Ordering::SeqCst), reporter.tid);
    api::unsubscribe_report(reporter.tid, s).unwrap();
    reporter.stop();
    drop(stop);
    join.join().unwrap();
}

/// The exception callback runs on the failing stream's thread, as user code: a synchronising
/// call from it would wait for the very stream that runs it, so it is refused at once (107000)
/// instead of hanging.
#[test]
fn exception_callback_that_synchronises_its_stream_is_refused_at_once() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ctx = api::get_current_context().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx = Mutex::new(tx);
    api::set_exception_info_callback(Some(Arc::new(move |_: &ExceptionInfo| {
        api::set_current_context(ctx).unwrap();
        let sync = api::synchronize_stream_with_timeout(s, 5_000);
        tx.lock().unwrap().send(code(sync)).unwrap();
    })))
    .unwrap();
    launch(s, failing(ACL_ERROR_RT_AICORE_TIMEOUT));
    assert_eq!(
        rx.recv_timeout(std::time::Duration::from_secs(4)),
        Ok(ACL_ERROR_RT_PARAM_INVALID),
        "the callback's synchronise must fail at once, not wait for its own stream"
    );
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_AICORE_TIMEOUT
    );
}

/// A failing callback (a panic, or a face failing it with a code and message) does not stop
/// the others; `aclrtProcessReport` reports the first failure, for every face alike.
#[test]
fn a_failing_callback_is_reported_by_process_report() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    api::subscribe_report(aclrt::pthread_id(), s).unwrap();
    let ran = Arc::new(Mutex::new(Vec::new()));
    let r = ran.clone();
    api::launch_callback(
        Box::new(|| panic!("callback broke")),
        ACL_CALLBACK_NO_BLOCK,
        s,
    )
    .unwrap();
    api::launch_callback(
        Box::new(move || r.lock().unwrap().push("second")),
        ACL_CALLBACK_NO_BLOCK,
        s,
    )
    .unwrap();
    api::synchronize_stream(s).unwrap();
    // Both are due now; one call runs them both and reports the first failure.
    let err = api::process_report(1000).unwrap_err();
    assert_eq!(err.code(), ACL_ERROR_RT_AICORE_EXCEPTION);
    assert!(err.message().contains("callback broke"), "{err}");
    assert_eq!(*ran.lock().unwrap(), vec!["second"]);
    api::launch_callback(
        Box::new(|| {
            aclrt::fail_user_code(aclrt::Error::new(ACL_ERROR_RT_AICORE_TRAP_EXCEPTION, "bad"))
        }),
        ACL_CALLBACK_NO_BLOCK,
        s,
    )
    .unwrap();
    api::synchronize_stream(s).unwrap();
    assert_eq!(
        code(api::process_report(1000)),
        ACL_ERROR_RT_AICORE_TRAP_EXCEPTION
    );
    assert_eq!(api::get_last_error(), ACL_ERROR_RT_AICORE_TRAP_EXCEPTION);
    api::unsubscribe_report(aclrt::pthread_id(), s).unwrap();
}

/// Subscribing with an OS thread id (`gettid()`, Python's `threading.get_native_id()`) instead
/// of a `pthread_self()` value is refused, with the id to pass, instead of leaving every
/// callback waiting for a thread that never asks for it.
#[test]
fn subscribing_with_an_os_thread_id_is_refused() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let tid = u64::from(aclrt::os_thread_id());
    assert_eq!(
        code(api::subscribe_report(tid, s)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    let msg = api::get_recent_err_msg().unwrap();
    assert!(
        msg.contains("pthread_self") && msg.contains("get_ident"),
        "{msg}"
    );
    assert_eq!(
        code(api::subscribe_report(0, s)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    // The pthread_self() value is what works.
    api::subscribe_report(aclrt::pthread_id(), s).unwrap();
    api::unsubscribe_report(aclrt::pthread_id(), s).unwrap();
}

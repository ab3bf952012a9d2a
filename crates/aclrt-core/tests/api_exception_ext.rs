//! Process-level exception callbacks, detailed error information and host-function
//! subscriptions.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use aclrt::api;
use aclrt::codes::*;
use aclrt::vendor_consts as vc;
use aclrt::{ExceptionCallback, StreamHandle};
use common::*;

fn counter(n: &Arc<AtomicUsize>) -> ExceptionCallback {
    let n = n.clone();
    Arc::new(move |info| {
        assert_eq!(info.error_code as i32, 42);
        n.fetch_add(1, Ordering::SeqCst);
    })
}

fn fail_once(s: StreamHandle) {
    launch(s, failing(42));
    assert_eq!(code(api::synchronize_stream(s)), 42);
}

#[test]
fn registered_exception_callbacks_are_all_told() {
    let _serial = common::exclusive();
    let set = Arc::new(AtomicUsize::new(0));
    let a = Arc::new(AtomicUsize::new(0));
    let b = Arc::new(AtomicUsize::new(0));
    let a2 = Arc::new(AtomicUsize::new(0));
    assert_eq!(
        code(api::exception_info_callback_register(1, counter(&a))),
        ACL_ERROR_UNINITIALIZE
    );
    setup();
    api::set_exception_info_callback(Some(counter(&set))).unwrap();
    api::exception_info_callback_register(1, counter(&a)).unwrap();
    api::exception_info_callback_register(2, counter(&b)).unwrap();
    let s = api::create_stream().unwrap();
    fail_once(s);
    assert_eq!(
        (
            set.load(Ordering::SeqCst),
            a.load(Ordering::SeqCst),
            b.load(Ordering::SeqCst)
        ),
        (1, 1, 1)
    );
    // Registering a key again keeps only the latest callback.
    api::exception_info_callback_register(1, counter(&a2)).unwrap();
    fail_once(s);
    assert_eq!(
        (
            a.load(Ordering::SeqCst),
            a2.load(Ordering::SeqCst),
            b.load(Ordering::SeqCst)
        ),
        (1, 1, 2)
    );
    // Unregistering: an unknown key is fine; the set callback stays.
    api::exception_info_callback_unregister(1).unwrap();
    api::exception_info_callback_unregister(1).unwrap();
    api::exception_info_callback_unregister(77).unwrap();
    fail_once(s);
    assert_eq!(
        (
            set.load(Ordering::SeqCst),
            a2.load(Ordering::SeqCst),
            b.load(Ordering::SeqCst)
        ),
        (3, 1, 3)
    );
    api::finalize().unwrap();
}

#[test]
fn error_verbose_reports_a_failed_device() {
    let _serial = common::exclusive();
    assert_eq!(code(api::get_error_verbose(0)), ACL_ERROR_UNINITIALIZE);
    setup();
    let none = api::get_error_verbose(0).unwrap();
    assert_eq!(
        (none.try_repair, none.error_type as i64),
        (0, vc::ACL_RT_NO_ERROR)
    );
    assert_eq!(
        code(api::get_error_verbose(1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    fail_once(StreamHandle::NULL);
    let after = api::get_error_verbose(0).unwrap();
    assert_eq!(
        (after.try_repair, after.error_type as i64),
        (0, vc::ACL_RT_ERROR_OTHERS)
    );
    api::finalize().unwrap();
}

#[test]
fn host_function_subscriptions_run_host_functions_on_their_thread() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let me = aclrt::pthread_id();
    assert_eq!(
        code(api::subscribe_host_func(me, StreamHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(
        code(api::unsubscribe_host_func(me, StreamHandle::NULL)),
        ACL_ERROR_INVALID_PARAM
    );
    api::subscribe_host_func(me, s).unwrap();
    assert_eq!(
        code(api::subscribe_host_func(me, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    // A subscription of its own: callbacks still need aclrtSubscribeReport.
    assert_eq!(
        code(api::launch_callback(
            Box::new(|| {}),
            aclrt::consts::ACL_CALLBACK_NO_BLOCK,
            s
        )),
        ACL_ERROR_RT_STREAM_NO_CB_REG
    );
    let ran_on = Arc::new(std::sync::Mutex::new(None));
    let r = ran_on.clone();
    api::launch_host_func(
        s,
        Box::new(move || {
            *r.lock().unwrap() = Some(aclrt::pthread_id());
        }),
    )
    .unwrap();
    // Run by this thread, in aclrtProcessHostFunc.
    while ran_on.lock().unwrap().is_none() {
        let _ = api::process_host_func(100);
    }
    assert_eq!(*ran_on.lock().unwrap(), Some(me));
    assert_eq!(code(api::process_host_func(0)), ACL_ERROR_INVALID_PARAM);
    api::synchronize_stream(s).unwrap();
    api::unsubscribe_host_func(me, s).unwrap();
    assert_eq!(
        code(api::unsubscribe_host_func(me, s)),
        ACL_ERROR_RT_STREAM_SUBSCRIBE
    );
    api::finalize().unwrap();
}

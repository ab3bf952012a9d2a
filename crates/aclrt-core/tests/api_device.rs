//! Process lifecycle, devices, contexts and per-thread error state.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use aclrt::api;
use aclrt::codes::*;
use aclrt::{Config, ContextHandle, StreamHandle};
use common::*;

#[test]
fn init_and_finalize_are_counted() {
    let _serial = common::exclusive();
    assert_eq!(code(api::finalize()), ACL_ERROR_REPEAT_FINALIZE);
    assert_eq!(code(api::set_device(0)), ACL_ERROR_UNINITIALIZE);
    assert_eq!(code(api::create_stream()), ACL_ERROR_UNINITIALIZE);
    assert_eq!(code(api::get_device_count()), ACL_ERROR_UNINITIALIZE);
    assert_eq!(code(api::ensure_initialized()), ACL_ERROR_UNINITIALIZE);
    api::init().unwrap();
    assert_eq!(code(api::init()), ACL_ERROR_REPEAT_INITIALIZE);
    api::ensure_initialized().unwrap();
    // Finalize tears down whatever the count.
    api::finalize().unwrap();
    assert_eq!(code(api::finalize()), ACL_ERROR_REPEAT_FINALIZE);
    assert_eq!(code(api::set_device(0)), ACL_ERROR_UNINITIALIZE);
    // init -> finalize -> init is legal.
    api::init().unwrap();
    api::set_device(0).unwrap();
    let s = api::create_stream().unwrap();
    api::finalize().unwrap();
    assert_eq!(api::live_objects(), api::LiveObjects::default());
    api::init().unwrap();
    api::set_device(0).unwrap();
    // Handles from before the finalize are dead.
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    api::finalize().unwrap();
}

#[test]
fn finalize_discards_queued_work_and_frees_everything() {
    let _serial = common::exclusive();
    setup();
    let s = api::create_stream().unwrap();
    let ran = Arc::new(AtomicBool::new(false));
    launch(s, sleeper(100));
    let r = ran.clone();
    launch(s, kernel(move || r.store(true, Ordering::SeqCst)));
    api::create_event().unwrap();
    api::malloc(128, 0).unwrap();
    api::finalize().unwrap();
    assert_eq!(api::live_objects(), api::LiveObjects::default());
    std::thread::sleep(std::time::Duration::from_millis(150));
    assert!(
        !ran.load(Ordering::SeqCst),
        "a queued task ran after finalize"
    );
}

#[test]
fn set_and_reset_device() {
    let _serial = common::exclusive();
    api::init().unwrap();
    assert_eq!(code(api::set_device(1)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(code(api::set_device(-1)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(code(api::reset_device(1)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(
        code(api::reset_device(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // No current context yet.
    assert_eq!(code(api::get_device()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(code(api::create_stream()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(code(api::create_event()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(code(api::malloc(64, 0)), ACL_ERROR_RT_CONTEXT_NULL);

    api::set_device(0).unwrap();
    assert_eq!(api::get_device().unwrap(), 0);
    let ctx = api::get_current_context().unwrap();
    // Another thread setting the same device shares the default context.
    let other = std::thread::spawn(|| {
        api::set_device(0).unwrap();
        api::get_current_context().unwrap()
    })
    .join()
    .unwrap();
    assert_eq!(other, ctx);
    let s = api::create_stream().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    launch(
        s,
        kernel(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            d.store(true, Ordering::SeqCst);
        }),
    );
    // Count is 2: the first reset keeps everything.
    api::reset_device(0).unwrap();
    assert_eq!(api::stream_query(s).map(|_| ()), Ok(()));
    // The last reset waits for pending work, then destroys the context and its streams.
    api::reset_device(0).unwrap();
    assert!(
        done.load(Ordering::SeqCst),
        "reset did not wait for pending work"
    );
    assert_eq!(
        code(api::reset_device(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(code(api::get_current_context()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(
        code(api::set_current_context(ctx)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    api::set_device(0).unwrap();
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_ne!(api::get_current_context().unwrap(), ctx);
}

#[test]
fn contexts() {
    let _serial = common::exclusive();
    setup();
    let default_ctx = api::get_current_context().unwrap();
    assert_eq!(
        code(api::destroy_context(default_ctx)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(code(api::create_context(5)), ACL_ERROR_RT_INVALID_DEVICEID);
    let ctx = api::create_context(0).unwrap();
    assert_ne!(ctx, default_ctx);
    assert_eq!(api::get_current_context().unwrap(), ctx);
    assert_eq!(api::get_device().unwrap(), 0);
    let s = api::create_stream().unwrap();

    // A stream of another context: work and destroy refuse it, observation accepts it.
    api::set_current_context(default_ctx).unwrap();
    assert_eq!(
        code(api::launch_kernel(s, "k", Default::default(), sleeper(0))),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    let ev = api::create_event().unwrap();
    assert_eq!(code(api::record_event(ev, s)), ACL_ERROR_RT_STREAM_CONTEXT);
    assert_eq!(
        code(api::stream_wait_event(s, ev)),
        ACL_ERROR_RT_STREAM_CONTEXT
    );
    assert_eq!(code(api::destroy_stream(s)), ACL_ERROR_RT_STREAM_CONTEXT);
    api::synchronize_stream(s).unwrap();
    api::stream_query(s).unwrap();

    // Contexts may be used from several threads.
    std::thread::spawn(move || {
        api::set_current_context(ctx).unwrap();
        launch(s, sleeper(1));
        api::synchronize_stream(s).unwrap();
    })
    .join()
    .unwrap();

    api::set_current_context(ctx).unwrap();
    api::destroy_context(ctx).unwrap();
    assert_eq!(code(api::get_current_context()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(code(api::create_stream()), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(code(api::destroy_context(ctx)), ACL_ERROR_RT_CONTEXT_NULL);
    assert_eq!(
        code(api::set_current_context(ctx)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    assert_eq!(
        code(api::set_current_context(ContextHandle::from_raw(0x1234))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    assert_eq!(
        code(api::destroy_context(ContextHandle::from_raw(0x1234))),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    api::set_current_context(default_ctx).unwrap();
    // The destroyed context's streams went with it.
    assert_eq!(
        code(api::synchronize_stream(s)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
}

#[test]
fn destroy_context_waits_for_its_work() {
    let _serial = common::exclusive();
    setup();
    let ctx = api::create_context(0).unwrap();
    let s = api::create_stream().unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let d = done.clone();
    launch(
        s,
        kernel(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            d.store(true, Ordering::SeqCst);
        }),
    );
    api::destroy_context(ctx).unwrap();
    assert!(done.load(Ordering::SeqCst));
}

#[test]
fn device_count_from_config() {
    let _serial = common::exclusive();
    api::configure(Config {
        device_count: 3,
        ..Config::default()
    })
    .unwrap();
    api::init().unwrap();
    assert_eq!(
        code(api::configure(Config::default())),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(api::get_device_count().unwrap(), 3);
    api::set_device(2).unwrap();
    assert_eq!(api::get_device().unwrap(), 2);
    assert_eq!(code(api::set_device(3)), ACL_ERROR_RT_INVALID_DEVICEID);
    let c2 = api::get_current_context().unwrap();
    api::set_device(0).unwrap();
    let c0 = api::get_current_context().unwrap();
    assert_ne!(c0, c2);
    api::set_current_context(c2).unwrap();
    assert_eq!(api::get_device().unwrap(), 2);
}

#[test]
fn visible_devices_from_config() {
    let _serial = common::exclusive();
    api::configure(Config {
        device_count: 4,
        visible_devices: Some(vec![3, 1]),
        ..Config::default()
    })
    .unwrap();
    api::init().unwrap();
    assert_eq!(api::get_device_count().unwrap(), 2);
    api::set_device(1).unwrap();
    assert_eq!(api::get_device().unwrap(), 1);
    assert_eq!(code(api::set_device(2)), ACL_ERROR_RT_INVALID_DEVICEID);
}

#[test]
fn visible_devices_from_environment() {
    let _serial = common::exclusive();
    std::env::set_var(aclrt::config::ENV_DEVICE_COUNT, "4");
    std::env::set_var(aclrt::config::ENV_VISIBLE_DEVICES, "2,0,1");
    api::init().unwrap();
    assert_eq!(api::get_device_count().unwrap(), 3);
    api::set_device(2).unwrap();
    assert_eq!(code(api::set_device(3)), ACL_ERROR_RT_INVALID_DEVICEID);
    api::finalize().unwrap();
    // Parsing stops at the first entry that is not a valid new id.
    std::env::set_var(aclrt::config::ENV_VISIBLE_DEVICES, "1,7,0");
    api::init().unwrap();
    assert_eq!(api::get_device_count().unwrap(), 1);
    api::finalize().unwrap();
    std::env::set_var(aclrt::config::ENV_VISIBLE_DEVICES, "9");
    api::init().unwrap();
    assert_eq!(api::get_device_count().unwrap(), 0);
    assert_eq!(code(api::set_device(0)), ACL_ERROR_RT_INVALID_DEVICEID);
    // The tests after this one share the process's environment.
    std::env::remove_var(aclrt::config::ENV_DEVICE_COUNT);
    std::env::remove_var(aclrt::config::ENV_VISIBLE_DEVICES);
}

#[test]
fn last_error_and_recent_message() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(api::peek_at_last_error(), 0);
    assert_eq!(api::get_recent_err_msg(), None);
    let bogus = StreamHandle::from_raw(0x42);
    assert_eq!(
        code(api::synchronize_stream(bogus)),
        ACL_ERROR_RT_INVALID_HANDLE
    );
    // Peek does not clear.
    assert_eq!(api::peek_at_last_error(), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(api::peek_at_last_error(), ACL_ERROR_RT_INVALID_HANDLE);
    // Success leaves it alone.
    api::synchronize_device().unwrap();
    api::create_stream().unwrap();
    assert_eq!(api::peek_at_last_error(), ACL_ERROR_RT_INVALID_HANDLE);
    // Another thread has its own.
    std::thread::spawn(|| {
        assert_eq!(api::peek_at_last_error(), 0);
        assert_eq!(api::get_recent_err_msg(), None);
    })
    .join()
    .unwrap();
    // The latest failure wins; get clears.
    assert_eq!(code(api::set_device(9)), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(api::get_last_error(), ACL_ERROR_RT_INVALID_DEVICEID);
    assert_eq!(api::get_last_error(), 0);
    assert_eq!(api::peek_at_last_error(), 0);
    // The message is cleared by reading it.
    let msg = api::get_recent_err_msg().expect("a failing call records a message");
    assert!(msg.contains('9'), "{msg}");
    assert_eq!(api::get_recent_err_msg(), None);
    // Face-detected failures are noted the same way.
    let e = api::fail(ACL_ERROR_INVALID_PARAM, "null out pointer");
    assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
    assert_eq!(api::peek_at_last_error(), ACL_ERROR_INVALID_PARAM);
    assert!(api::get_recent_err_msg()
        .unwrap()
        .contains("null out pointer"));
    // Uninitialised calls note too.
    api::finalize().unwrap();
    assert_eq!(code(api::create_stream()), ACL_ERROR_UNINITIALIZE);
    assert_eq!(api::get_last_error(), ACL_ERROR_UNINITIALIZE);
}

/// `aclInit(configPath)`: a path that is not a readable regular file is refused, whatever the
/// face (the rule lives in the core).
#[test]
fn init_config_path_must_name_a_readable_file() {
    let _serial = common::exclusive();
    let dir = std::env::temp_dir();
    let missing = dir.join(format!("aclrt-no-such-config-{}.json", std::process::id()));
    for bad in [dir.to_str().unwrap(), missing.to_str().unwrap()] {
        assert_eq!(
            code(api::init_with_config_file(Some(bad))),
            ACL_ERROR_INVALID_FILE,
            "{bad}"
        );
        assert_eq!(code(api::get_device_count()), ACL_ERROR_UNINITIALIZE);
    }
    let file = dir.join(format!("aclrt-config-{}.json", std::process::id()));
    std::fs::write(&file, "{}").unwrap();
    api::init_with_config_file(Some(file.to_str().unwrap())).unwrap();
    api::finalize().unwrap();
    api::init_with_config_file(Some("")).unwrap();
    api::finalize().unwrap();
    std::fs::remove_file(file).unwrap();
}

/// Only the thread level of the last error exists; another level is refused as the value.
#[test]
fn last_error_levels() {
    let _serial = common::exclusive();
    setup();
    let _ = api::synchronize_stream(StreamHandle::from_raw(0x42));
    assert_eq!(api::last_error_at(1, false), ACL_ERROR_INVALID_PARAM);
    assert_eq!(api::last_error_at(0, false), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(api::last_error_at(0, true), ACL_ERROR_RT_INVALID_HANDLE);
    assert_eq!(api::last_error_at(0, true), 0);
}

#[test]
fn device_state_callbacks_see_sets_and_releases() {
    let rt = aclrt::Runtime::new(&Config::default());
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let log = seen.clone();
    let callback: aclrt::DeviceStateCallback =
        Arc::new(move |device, state| log.lock().unwrap().push((device, state)));
    rt.reg_device_state_callback("log", Some(callback.clone()))
        .unwrap();
    let again = rt
        .reg_device_state_callback("log", Some(callback))
        .unwrap_err();
    assert_eq!(again.code(), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        rt.reg_device_state_callback("", None).unwrap_err().code(),
        ACL_ERROR_INVALID_PARAM
    );
    rt.set_device(0).unwrap();
    rt.set_device(0).unwrap();
    rt.reset_device(0).unwrap();
    assert_eq!(*seen.lock().unwrap(), [(0, 1), (0, 1)]);
    rt.reset_device(0).unwrap();
    assert_eq!(*seen.lock().unwrap(), [(0, 1), (0, 1), (0, 2), (0, 3)]);
    rt.reg_device_state_callback("log", None).unwrap();
    rt.reg_device_state_callback("log", None).unwrap();
    rt.set_device(0).unwrap();
    rt.reset_device(0).unwrap();
    assert_eq!(seen.lock().unwrap().len(), 4);
}

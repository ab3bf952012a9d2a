//! Init and finalize callbacks through the core's edge: their order by registration type, the
//! configuration text, and a failing callback failing `aclInit` / `aclFinalize`. One test: the
//! callbacks and the runtime are the process's.

use std::sync::{Arc, Mutex};

use aclrt::api;
use aclrt::codes::*;

#[test]
fn callbacks_run_in_the_vendors_order_and_fail_their_call() {
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let init = |name: &'static str, code: i32| {
        let log = log.clone();
        Some(Arc::new(move |text: &[u8]| {
            log.lock()
                .unwrap()
                .push(format!("{name}:{}", String::from_utf8_lossy(text)));
            code
        }) as api::InitCallback)
    };
    let finalize = |name: &'static str, code: i32| {
        let log = log.clone();
        Some(Arc::new(move || {
            log.lock().unwrap().push(name.to_owned());
            code
        }) as api::FinalizeCallback)
    };
    let take = || std::mem::take(&mut *log.lock().unwrap());
    api::init_callback_register(api::REG_TYPE_OTHER, 1, init("other", 0)).unwrap();
    api::init_callback_register(6, 2, init("dvpp", 0)).unwrap();
    api::init_callback_register(0, 3, init("model", 0)).unwrap();
    api::init_callback_register(1, 4, init("executor", 0)).unwrap();
    let twice = api::init_callback_register(0, 5, init("again", 0)).unwrap_err();
    assert_eq!(twice.code(), ACL_ERROR_INTERNAL_ERROR);
    assert_eq!(
        api::init_callback_register(0, 0, None).unwrap_err().code(),
        ACL_ERROR_INVALID_PARAM
    );
    api::finalize_callback_register(api::REG_TYPE_OTHER, 1, finalize("f_other", 0)).unwrap();
    api::finalize_callback_register(0, 2, finalize("f_model", 0)).unwrap();
    api::finalize_callback_register(3, 3, finalize("f_compiler", 0)).unwrap();

    let dir = std::env::temp_dir().join(format!("aclrt-init-cb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let config = dir.join("acl.json");
    std::fs::write(&config, "{}").unwrap();
    api::init_with_config_file(config.to_str()).unwrap();
    assert_eq!(take(), ["model:{}", "executor:{}", "dvpp:{}", "other:{}"]);
    // A failing finalize callback keeps the runtime.
    api::finalize_callback_register(api::REG_TYPE_OTHER, 9, finalize("f_fail", 321)).unwrap();
    assert_eq!(api::finalize().unwrap_err().code(), 321);
    assert_eq!(take(), ["f_compiler", "f_model", "f_other", "f_fail"]);
    assert!(api::ensure_initialized().is_ok());
    api::finalize_callback_unregister(api::REG_TYPE_OTHER, 9).unwrap();
    api::finalize().unwrap();
    assert_eq!(take(), ["f_compiler", "f_model", "f_other"]);

    // A failing init callback: aclInit fails with its code, nothing is left initialised.
    api::init_callback_register(api::REG_TYPE_OTHER, 7, init("fail", 777)).unwrap();
    assert_eq!(api::init().unwrap_err().code(), 777);
    assert_eq!(take(), ["model:", "dvpp:", "other:", "fail:"]);
    assert_eq!(
        api::ensure_initialized().unwrap_err().code(),
        ACL_ERROR_UNINITIALIZE
    );
    assert_eq!(
        api::init_callback_unregister(0, 7).unwrap_err().code(),
        ACL_ERROR_INTERNAL_ERROR
    );
    api::init_callback_unregister(api::REG_TYPE_OTHER, 7).unwrap();
    api::init().unwrap();
    assert_eq!(take(), ["model:", "dvpp:", "other:"]);
    // Registered while initialised: called at once.
    api::init_callback_register(4, 8, init("late", 5)).unwrap();
    assert_eq!(take(), ["late:"]);
    api::finalize().unwrap();
    assert_eq!(take(), ["f_compiler", "f_model", "f_other"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

//! Runtime configuration through the Rust face: system parameters, operator timeouts and
//! device limits.

mod common;

use aclrt::api;
use aclrt::codes::*;
use common::*;

/// Runtime configuration through the Rust face: system parameters, operator timeouts, limits.
#[test]
fn configuration_is_kept_for_the_process() {
    let _serial = common::exclusive();
    setup();
    assert_eq!(api::get_sys_param_opt(0).unwrap(), 0);
    api::set_sys_param_opt(0, 2).unwrap();
    assert_eq!(api::get_sys_param_opt(0).unwrap(), 2);
    assert_eq!(
        code(api::ctx_get_sys_param_opt(1)),
        ACL_ERROR_RT_SYSPARAMOPT_NOT_SET
    );
    api::ctx_set_sys_param_opt(1, 1).unwrap();
    assert_eq!(api::ctx_get_sys_param_opt(1).unwrap(), 1);
    assert_eq!(api::get_sys_param_opt(1).unwrap(), 1);
    assert_eq!(code(api::set_sys_param_opt(3, 0)), ACL_ERROR_INVALID_PARAM);

    let step = aclrt::settings::OP_TIMEOUT_INTERVAL_US;
    assert_eq!(api::get_op_timeout_interval().unwrap(), step);
    assert_eq!(api::set_op_execute_timeout_v2(step + 1).unwrap(), 2 * step);
    assert_eq!(
        api::get_op_execute_timeout().unwrap(),
        (2 * step / 1000) as u32
    );
    api::set_op_execute_timeout(0).unwrap();
    assert_eq!(
        api::get_op_execute_timeout().unwrap(),
        (aclrt::settings::OP_TIMEOUT_MAX_US / 1000) as u32
    );

    api::device_set_limit(3, 2048).unwrap();
    assert_eq!(api::device_get_limit(3).unwrap(), 2048);
    assert_eq!(
        code(api::device_get_limit(0)),
        ACL_ERROR_RT_FEATURE_NOT_SUPPORT
    );
    api::set_sys_param_opt(0, 0).unwrap();
    api::set_sys_param_opt(1, 0).unwrap();
    api::device_set_limit(3, 1 << 20).unwrap();
}

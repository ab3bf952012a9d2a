//! Forced reset, what the emulated device reports about itself, and peer access between two
//! emulated devices.

mod common;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::vendor_consts as vc;
use aclrt::{Config, StreamHandle};
use common::*;

fn two_devices() {
    api::configure(Config {
        device_count: 2,
        ..Config::default()
    })
    .unwrap();
    api::init().unwrap();
}

#[test]
fn reset_device_force_releases_whatever_the_count() {
    let _serial = common::exclusive();
    assert_eq!(code(api::reset_device_force(0)), ACL_ERROR_UNINITIALIZE);
    api::init().unwrap();
    assert_eq!(
        code(api::reset_device_force(1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        code(api::reset_device_force(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // Set three times, force once: released; its streams are gone.
    for _ in 0..3 {
        api::set_device(0).unwrap();
    }
    let s = api::create_stream().unwrap();
    launch(s, sleeper(20));
    api::reset_device_force(0).unwrap();
    assert_eq!(api::live_objects().streams, 0);
    assert_eq!(api::live_objects().contexts, 0);
    assert_eq!(code(api::get_device()), ACL_ERROR_RT_CONTEXT_NULL);
    // After the release either reset is refused until the device is set again.
    assert_eq!(
        code(api::reset_device(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(
        code(api::reset_device_force(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // Paired: set, force, set, force.
    api::set_device(0).unwrap();
    api::reset_device_force(0).unwrap();
    api::set_device(0).unwrap();
    api::reset_device_force(0).unwrap();
    api::finalize().unwrap();
}

#[test]
fn reset_device_force_mixed_with_reset_device() {
    let _serial = common::exclusive();
    api::init().unwrap();
    // set, reset, set, force: fine.
    api::set_device(0).unwrap();
    api::reset_device(0).unwrap();
    api::set_device(0).unwrap();
    api::reset_device_force(0).unwrap();
    // set, set, reset, force: fine (the force comes after the reset).
    api::set_device(0).unwrap();
    api::set_device(0).unwrap();
    api::reset_device(0).unwrap();
    api::reset_device_force(0).unwrap();
    // set, set, reset, reset, force: the count reached zero, the force fails.
    api::set_device(0).unwrap();
    api::set_device(0).unwrap();
    api::reset_device(0).unwrap();
    api::reset_device(0).unwrap();
    assert_eq!(
        code(api::reset_device_force(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // set, set, reset, force, force: the second force fails.
    api::set_device(0).unwrap();
    api::set_device(0).unwrap();
    api::reset_device(0).unwrap();
    api::reset_device_force(0).unwrap();
    assert_eq!(
        code(api::reset_device_force(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    // set, set, force, reset: the reset after the force fails.
    api::set_device(0).unwrap();
    api::set_device(0).unwrap();
    api::reset_device_force(0).unwrap();
    assert_eq!(
        code(api::reset_device(0)),
        ACL_ERROR_RT_CONTEXT_RELEASE_ERROR
    );
    assert_eq!(api::live_objects(), api::LiveObjects::default());
    api::finalize().unwrap();
}

#[test]
fn soc_name_default_and_environment() {
    let _serial = common::exclusive();
    // Build scripts ask before any aclInit.
    std::env::remove_var(api::ENV_SOC_NAME);
    assert_eq!(api::get_soc_name().unwrap(), api::EMULATED_SOC_NAME);
    api::init().unwrap();
    assert_eq!(api::get_soc_name().unwrap(), api::EMULATED_SOC_NAME);
    assert_eq!(api::EMULATED_SOC_NAME, "Ascend910B3");
    std::env::set_var(api::ENV_SOC_NAME, "Ascend910_9392");
    assert_eq!(api::get_soc_name().unwrap(), "Ascend910_9392");
    std::env::set_var(api::ENV_SOC_NAME, "");
    assert_eq!(api::get_soc_name().unwrap(), api::EMULATED_SOC_NAME);
    std::env::remove_var(api::ENV_SOC_NAME);
    api::finalize().unwrap();
}

#[test]
fn device_info_per_attribute() {
    let _serial = common::exclusive();
    api::configure(Config {
        device_count: 2,
        device_memory: 1 << 30,
        visible_devices: None,
        ..Config::default()
    })
    .unwrap();
    api::init().unwrap();
    // No device needs to be set.
    let info = |attr: i64| api::get_device_info(1, attr as u32);
    assert_eq!(info(vc::ACL_DEV_ATTR_AICPU_CORE_NUM).unwrap(), 6);
    assert_eq!(info(vc::ACL_DEV_ATTR_AICORE_CORE_NUM).unwrap(), 20);
    assert_eq!(info(vc::ACL_DEV_ATTR_CUBE_CORE_NUM).unwrap(), 20);
    assert_eq!(info(vc::ACL_DEV_ATTR_VECTOR_CORE_NUM).unwrap(), 40);
    for simt in vc::ACL_DEV_ATTR_WARP_SIZE..=vc::ACL_DEV_ATTR_MAX_BLOCK_DIM_Z {
        assert_eq!(info(simt).unwrap(), 0, "attribute {simt}");
    }
    assert_eq!(
        info(vc::ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE).unwrap(),
        1 << 30
    );
    assert_eq!(info(vc::ACL_DEV_ATTR_L2_CACHE_SIZE).unwrap(), 192 << 20);
    assert_eq!(info(vc::ACL_DEV_ATTR_PHY_CHIP_ID).unwrap(), 1);
    for zero in [
        vc::ACL_DEV_ATTR_SMP_ID,
        vc::ACL_DEV_ATTR_SUPER_POD_DEVICE_ID,
        vc::ACL_DEV_ATTR_SUPER_POD_SERVER_ID,
        vc::ACL_DEV_ATTR_SUPER_POD_ID,
        vc::ACL_DEV_ATTR_CUST_OP_PRIVILEGE,
        vc::ACL_DEV_ATTR_MAINBOARD_ID,
        vc::ACL_DEV_ATTR_IS_VIRTUAL,
    ] {
        assert_eq!(info(zero).unwrap(), 0, "attribute {zero}");
    }
    assert_eq!(info(vc::ACL_DEV_ATTR_NPU_ARCH).unwrap(), 2201);
    for other_products in [
        vc::ACL_DEV_ATTR_HD_CONNECT_TYPE,
        vc::ACL_DEV_ATTR_DEVICE_FORM_FACTOR,
    ] {
        assert_eq!(code(info(other_products)), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
    }
    assert_eq!(code(info(0)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(code(info(213)), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(
        code(api::get_device_info(2, vc::ACL_DEV_ATTR_NPU_ARCH as u32)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(
        code(api::get_device_info(u32::MAX, 1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );

    // aclGetDeviceCapability.
    let cap = |i: i64| api::get_device_capability(0, i as i32);
    assert_eq!(cap(vc::ACL_DEVICE_INFO_AI_CORE_NUM).unwrap(), 20);
    assert_eq!(cap(vc::ACL_DEVICE_INFO_VECTOR_CORE_NUM).unwrap(), 40);
    assert_eq!(cap(vc::ACL_DEVICE_INFO_L2_SIZE).unwrap(), 192 << 20);
    assert_eq!(
        code(cap(vc::ACL_DEVICE_INFO_UNDEFINED)),
        ACL_ERROR_INVALID_PARAM
    );
    assert_eq!(code(cap(3)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(api::get_device_capability(5, 0)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );

    // aclrtGetDeviceCapability.
    for feature in [
        vc::ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV,
        vc::ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV,
    ] {
        assert_eq!(
            api::get_device_feature(0, feature as u32).unwrap() as i64,
            vc::ACL_DEV_FEATURE_NOT_SUPPORT
        );
    }
    assert_eq!(
        code(api::get_device_feature(0, 2)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::get_device_feature(-1, 1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    api::finalize().unwrap();
}

#[test]
fn status_utilization_priority_range_and_uuid() {
    let _serial = common::exclusive();
    two_devices();
    api::set_device(0).unwrap();
    assert_eq!(
        api::query_device_status(1).unwrap() as i64,
        vc::ACL_RT_DEVICE_STATUS_NORMAL
    );
    assert_eq!(
        code(api::query_device_status(2)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    let idle = api::get_device_utilization_rate(0).unwrap();
    assert_eq!(
        idle,
        api::Utilization {
            cube: 0,
            vector: 0,
            aicpu: 0,
            memory: -1
        }
    );
    let gate = Arc::new(AtomicBool::new(false));
    let s = api::create_stream().unwrap();
    launch(s, gated(&gate));
    let busy = api::get_device_utilization_rate(0).unwrap();
    assert_eq!((busy.cube, busy.vector, busy.memory), (100, 100, -1));
    assert_eq!(api::get_device_utilization_rate(1).unwrap().cube, 0);
    gate.store(true, std::sync::atomic::Ordering::SeqCst);
    api::synchronize_stream(s).unwrap();
    assert_eq!(api::get_device_utilization_rate(0).unwrap().cube, 0);
    assert_eq!(
        code(api::get_device_utilization_rate(-1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );

    assert_eq!(api::device_get_stream_priority_range().unwrap(), (7, 0));
    // The least priority is the largest one a stream keeps.
    let low = api::create_stream_with_config(7, 0).unwrap();
    assert_eq!(api::stream_priority(low).unwrap(), 7);

    let u0 = api::device_get_uuid(0).unwrap();
    let u1 = api::device_get_uuid(1).unwrap();
    assert_ne!(u0, u1);
    assert_eq!(u0, api::device_get_uuid(0).unwrap());
    assert_eq!(code(api::device_get_uuid(2)), ACL_ERROR_RT_INVALID_DEVICEID);
    api::finalize().unwrap();
}

#[test]
fn peer_access_rules() {
    let _serial = common::exclusive();
    two_devices();
    assert_eq!(api::device_can_access_peer(0, 1).unwrap(), 1);
    assert_eq!(api::device_can_access_peer(1, 0).unwrap(), 1);
    assert_eq!(
        code(api::device_can_access_peer(0, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::device_can_access_peer(0, 2)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    // Enabling needs a current device.
    assert_eq!(
        code(api::device_enable_peer_access(1, 0)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    api::set_device(0).unwrap();
    assert_eq!(
        code(api::device_enable_peer_access(0, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::device_enable_peer_access(1, 1)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::device_enable_peer_access(2, 0)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    assert_eq!(api::device_peer_access_status(0, 1).unwrap(), 0);
    api::device_enable_peer_access(1, 0).unwrap();
    api::device_enable_peer_access(1, 0).unwrap();
    // One direction only.
    assert_eq!(api::device_peer_access_status(0, 1).unwrap(), 1);
    assert_eq!(api::device_peer_access_status(1, 0).unwrap(), 0);
    assert_eq!(api::device_peer_access_status(0, 0).unwrap(), 0);
    assert_eq!(
        code(api::device_peer_access_status(0, 7)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::device_disable_peer_access(1).unwrap();
    assert_eq!(api::device_peer_access_status(0, 1).unwrap(), 0);
    assert_eq!(
        code(api::device_disable_peer_access(1)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::device_disable_peer_access(0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    api::finalize().unwrap();
}

/// Two emulated devices copy device to device once peer access is enabled, byte for byte,
/// with the synchronous and the asynchronous copy.
#[test]
fn two_devices_with_peer_access_copy_device_to_device() {
    let _serial = common::exclusive();
    two_devices();
    const N: usize = 4096;
    let pattern: Vec<u8> = (0..N).map(|i| (i * 7 + 3) as u8).collect();
    api::set_device(0).unwrap();
    let dev0 = api::malloc(N, ACL_MEM_MALLOC_HUGE_FIRST_P2P).unwrap();
    // SAFETY: both ranges are N bytes.
    unsafe {
        api::memcpy(
            dev0,
            N,
            pattern.as_ptr() as usize,
            N,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    api::set_device(1).unwrap();
    let dev1 = api::malloc(N, ACL_MEM_MALLOC_HUGE_FIRST_P2P).unwrap();
    // Without peer access the copy is refused and nothing moves.
    // SAFETY: runtime allocations of N bytes.
    let refused = unsafe { api::memcpy(dev1, N, dev0, N, ACL_MEMCPY_DEVICE_TO_DEVICE) };
    assert_eq!(code(refused), ACL_ERROR_RT_NO_PERMISSION);
    let s1 = api::create_stream().unwrap();
    // SAFETY: as above.
    let refused = unsafe { api::memcpy_async(dev1, N, dev0, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) };
    assert_eq!(code(refused), ACL_ERROR_RT_NO_PERMISSION);
    let mut back = vec![0xEEu8; N];
    // SAFETY: as above.
    unsafe {
        api::memcpy(
            back.as_mut_ptr() as usize,
            N,
            dev1,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }
    .unwrap();
    assert!(
        back.iter().all(|&b| b == 0),
        "dev1 was written without peer access"
    );

    api::device_enable_peer_access(0, 0).unwrap();
    // SAFETY: as above.
    unsafe { api::memcpy(dev1, N, dev0, N, ACL_MEMCPY_DEVICE_TO_DEVICE) }.unwrap();
    // SAFETY: as above.
    unsafe {
        api::memcpy(
            back.as_mut_ptr() as usize,
            N,
            dev1,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }
    .unwrap();
    assert_eq!(back, pattern);

    // Asynchronously, the other way round, on device 0 with access to device 1.
    let reversed: Vec<u8> = pattern.iter().rev().copied().collect();
    // SAFETY: as above.
    unsafe {
        api::memcpy(
            dev1,
            N,
            reversed.as_ptr() as usize,
            N,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    api::set_device(0).unwrap();
    let s0 = api::create_stream().unwrap();
    // SAFETY: as above.
    let refused = unsafe { api::memcpy_async(dev0, N, dev1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s0) };
    assert_eq!(code(refused), ACL_ERROR_RT_NO_PERMISSION);
    api::device_enable_peer_access(1, 0).unwrap();
    // SAFETY: as above.
    unsafe { api::memcpy_async(dev0, N, dev1, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s0) }.unwrap();
    api::synchronize_stream(s0).unwrap();
    // SAFETY: as above.
    unsafe {
        api::memcpy(
            back.as_mut_ptr() as usize,
            N,
            dev0,
            N,
            ACL_MEMCPY_DEVICE_TO_HOST,
        )
    }
    .unwrap();
    assert_eq!(back, reversed);

    // Disabled again: refused again.
    api::device_disable_peer_access(1).unwrap();
    // SAFETY: as above.
    let refused = unsafe { api::memcpy(dev0, N, dev1, N, ACL_MEMCPY_DEVICE_TO_DEVICE) };
    assert_eq!(code(refused), ACL_ERROR_RT_NO_PERMISSION);
    let _ = StreamHandle::NULL;
    api::finalize().unwrap();
}

#[test]
fn core_limits_of_devices_streams_and_threads() {
    use aclrt::res_limit::{EMULATED_CUBE_CORE_LIMIT, EMULATED_VECTOR_CORE_LIMIT};
    let _serial = common::exclusive();
    let (cube, vector) = (
        vc::ACL_RT_DEV_RES_CUBE_CORE as u32,
        vc::ACL_RT_DEV_RES_VECTOR_CORE as u32,
    );
    api::init().unwrap();
    assert_eq!(
        code(api::get_device_res_limit(0, cube)),
        ACL_ERROR_RT_DEV_SETUP_ERROR
    );
    api::set_device(0).unwrap();
    assert_eq!(
        api::get_device_info(0, vc::ACL_DEV_ATTR_CUBE_CORE_NUM as u32).unwrap(),
        i64::from(EMULATED_CUBE_CORE_LIMIT)
    );
    assert_eq!(
        api::get_device_info(0, vc::ACL_DEV_ATTR_VECTOR_CORE_NUM as u32).unwrap(),
        i64::from(EMULATED_VECTOR_CORE_LIMIT)
    );
    assert_eq!(api::get_device_res_limit(0, cube).unwrap(), 20);
    assert_eq!(api::get_device_res_limit(0, vector).unwrap(), 40);
    assert_eq!(
        code(api::set_device_res_limit(0, vector, 41)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::set_device_res_limit(0, 2, 1)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    assert_eq!(
        code(api::set_device_res_limit(-1, 2, 1)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    api::set_device_res_limit(0, vector, 1).unwrap();
    let s = api::create_stream().unwrap();
    assert_eq!(api::get_stream_res_limit(s, vector).unwrap(), 1);
    api::set_stream_res_limit(s, cube, 8).unwrap();
    assert_eq!(api::get_res_in_current_thread(cube).unwrap(), 20);
    api::use_stream_res_in_current_thread(s).unwrap();
    assert_eq!(api::get_res_in_current_thread(cube).unwrap(), 8);
    assert_eq!(api::get_res_in_current_thread(vector).unwrap(), 1);
    api::unuse_stream_res_in_current_thread(s).unwrap();
    assert_eq!(api::get_res_in_current_thread(cube).unwrap(), 20);
    api::reset_device_res_limit(0).unwrap();
    assert_eq!(api::get_stream_res_limit(s, vector).unwrap(), 40);
    api::set_device_res_limit(0, cube, 2).unwrap();
    api::destroy_stream(s).unwrap();
    // Released with the device: the next use starts from the chip's counts.
    api::reset_device(0).unwrap();
    api::set_device(0).unwrap();
    assert_eq!(api::get_device_res_limit(0, cube).unwrap(), 20);
    api::reset_device(0).unwrap();
    api::finalize().unwrap();
}

#[test]
fn atomic_capabilities_are_the_a2s() {
    let rt = aclrt::Runtime::new(&Config {
        device_count: 2,
        ..Config::default()
    });
    let ops = [0u32, 30, 31, 32, 12, 44];
    let mut caps = [u32::MAX; 6];
    // SAFETY: both arrays hold 6 entries.
    unsafe {
        rt.device_get_host_atomic_capabilities(caps.as_mut_ptr(), ops.as_ptr(), 6, 1)
            .unwrap()
    };
    assert_eq!(caps, [0; 6]);
    // SAFETY: as above.
    unsafe {
        rt.device_get_p2p_atomic_capabilities(caps.as_mut_ptr(), ops.as_ptr(), 6, 1, 0)
            .unwrap()
    };
    assert_eq!(caps, [0, 57, 57, 57, 0, 0]);
    let bad = [0u32, 45];
    let mut untouched = [7u32; 2];
    // SAFETY: both arrays hold 2 entries.
    let e = unsafe {
        rt.device_get_p2p_atomic_capabilities(untouched.as_mut_ptr(), bad.as_ptr(), 2, 0, 1)
    }
    .unwrap_err();
    assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
    assert_eq!(untouched, [7, 7]);
    // SAFETY: NULL arrays are refused before they are read.
    let null =
        unsafe { rt.device_get_host_atomic_capabilities(std::ptr::null_mut(), ops.as_ptr(), 6, 0) };
    assert_eq!(null.unwrap_err().code(), ACL_ERROR_RT_PARAM_INVALID);
    // SAFETY: as above.
    let same =
        unsafe { rt.device_get_p2p_atomic_capabilities(caps.as_mut_ptr(), ops.as_ptr(), 6, 1, 1) };
    assert_eq!(same.unwrap_err().code(), ACL_ERROR_RT_INVALID_DEVICEID);
}

#[test]
fn p2p_mapping_needs_peer_access_to_the_memorys_device() {
    let rt = aclrt::Runtime::new(&Config {
        device_count: 2,
        ..Config::default()
    });
    let code = |r: aclrt::Result<()>| r.unwrap_err().code();
    assert_eq!(
        code(rt.mem_p2p_map(0x1000, 8, 1, 0)),
        ACL_ERROR_RT_CONTEXT_NULL
    );
    rt.set_device(0).unwrap();
    let mem = rt.malloc(64, 0).unwrap();
    assert_eq!(rt.mem_p2p_map(mem, 64, 0, 0), Ok(()));
    assert_eq!(
        code(rt.mem_p2p_map(mem, 64, 1, 0)),
        ACL_ERROR_RT_NO_PERMISSION
    );
    rt.set_device(1).unwrap();
    rt.device_enable_peer_access(0, 0).unwrap();
    assert_eq!(rt.mem_p2p_map(mem, 64, 1, 0), Ok(()));
    assert_eq!(code(rt.mem_p2p_map(mem, 65, 1, 0)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(code(rt.mem_p2p_map(mem, 64, 1, 2)), ACL_ERROR_INVALID_PARAM);
    assert_eq!(
        code(rt.mem_p2p_map(mem, 64, 2, 0)),
        ACL_ERROR_RT_INVALID_DEVICEID
    );
    let host = [0u8; 8];
    assert_eq!(
        code(rt.mem_p2p_map(host.as_ptr() as usize, 8, 1, 0)),
        ACL_ERROR_RT_PARAM_INVALID
    );
    rt.free(mem).unwrap();
    rt.reset_device(1).unwrap();
    rt.reset_device(0).unwrap();
}

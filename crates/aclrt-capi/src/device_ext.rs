//! Devices beyond set and reset: forced reset, what the emulated device reports about itself,
//! and peer access.

use std::ffi::{c_char, CString};
use std::sync::Mutex;

use crate::{aclError, entry, guard, not_null, produce, put};

/// `aclrtUtilizationInfo`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtUtilizationInfo {
    /// Cube utilisation, percent.
    pub cubeUtilization: i32,
    /// Vector utilisation, percent.
    pub vectorUtilization: i32,
    /// AI CPU utilisation, percent.
    pub aicpuUtilization: i32,
    /// Memory utilisation: -1, not supported.
    pub memoryUtilization: i32,
    /// Reserved: must be NULL.
    pub utilizationExtend: *mut std::ffi::c_void,
}

/// `aclrtUuid`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtUuid {
    /// The 16 bytes.
    pub bytes: [c_char; 16],
}

/// `aclrtResetDeviceForce`: releases the device whatever the number of `aclrtSetDevice` calls.
#[no_mangle]
pub extern "C" fn aclrtResetDeviceForce(deviceId: i32) -> aclError {
    entry("aclrtResetDeviceForce", |rt| {
        rt.reset_device_force(deviceId)
    })
}

/// Every SoC name handed out: the strings live as long as the process, as the vendor's do.
static SOC_NAMES: Mutex<Vec<CString>> = Mutex::new(Vec::new());

/// `aclrtGetSocName`: `ACLRT_SOC_NAME`, or the emulated chip's name. Like the vendor's, it needs
/// no `aclInit`: build scripts call it before any.
#[no_mangle]
pub extern "C" fn aclrtGetSocName() -> *const c_char {
    let mut out = std::ptr::null();
    guard("aclrtGetSocName", || {
        let name = aclrt::api::get_soc_name()?;
        let name = CString::new(name.replace('\0', "")).expect("NUL bytes removed");
        let mut names = SOC_NAMES.lock().unwrap_or_else(|e| e.into_inner());
        let at = match names.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                names.push(name);
                names.len() - 1
            }
        };
        out = names[at].as_ptr();
        Ok(())
    });
    out
}

/// `aclrtGetDeviceInfo`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceInfo(deviceId: u32, attr: u32, value: *mut i64) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDeviceInfo", value, "value", |rt| {
            rt.get_device_info(deviceId, attr)
        })
    }
}

/// `aclGetDeviceCapability`.
#[no_mangle]
pub unsafe extern "C" fn aclGetDeviceCapability(
    deviceId: u32,
    deviceInfo: i32,
    value: *mut i64,
) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclGetDeviceCapability", value, "value", |rt| {
            rt.get_device_capability(deviceId, deviceInfo)
        })
    }
}

/// `aclrtGetDeviceCapability`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceCapability(
    deviceId: i32,
    devFeatureType: u32,
    value: *mut i32,
) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDeviceCapability", value, "value", |rt| {
            rt.get_device_feature(deviceId, devFeatureType)
        })
    }
}

/// `aclrtQueryDeviceStatus`.
#[no_mangle]
pub unsafe extern "C" fn aclrtQueryDeviceStatus(deviceId: i32, deviceStatus: *mut u32) -> aclError {
    // SAFETY: `deviceStatus` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtQueryDeviceStatus",
            deviceStatus,
            "deviceStatus",
            |rt| rt.query_device_status(deviceId),
        )
    }
}

/// `aclrtGetDeviceUtilizationRate`: `utilizationExtend` is reserved and must be NULL
/// (`100000` otherwise, as the vendor checks).
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDeviceUtilizationRate(
    deviceId: i32,
    utilizationInfo: *mut aclrtUtilizationInfo,
) -> aclError {
    entry("aclrtGetDeviceUtilizationRate", |rt| {
        not_null(
            utilizationInfo,
            "aclrtGetDeviceUtilizationRate",
            "utilizationInfo",
        )?;
        // SAFETY: non-NULL and valid for reads and writes, the C caller's contract.
        let info = unsafe { &mut *utilizationInfo };
        if !info.utilizationExtend.is_null() {
            return Err(aclrt::Error::new(
                aclrt::codes::ACL_ERROR_INVALID_PARAM,
                "aclrtGetDeviceUtilizationRate: utilizationExtend is reserved and must be NULL",
            ));
        }
        let u = rt.get_device_utilization_rate(deviceId)?;
        info.cubeUtilization = u.cube;
        info.vectorUtilization = u.vector;
        info.aicpuUtilization = u.aicpu;
        info.memoryUtilization = u.memory;
        Ok(())
    })
}

/// `aclrtDeviceGetStreamPriorityRange`: least (7) and greatest (0) priority.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetStreamPriorityRange(
    leastPriority: *mut i32,
    greatestPriority: *mut i32,
) -> aclError {
    entry("aclrtDeviceGetStreamPriorityRange", |rt| {
        let call = "aclrtDeviceGetStreamPriorityRange";
        not_null(leastPriority, call, "leastPriority")?;
        not_null(greatestPriority, call, "greatestPriority")?;
        let (least, greatest) = rt.device_get_stream_priority_range()?;
        // SAFETY: both checked non-NULL; writable by the C caller's contract.
        unsafe {
            put(leastPriority, least);
            put(greatestPriority, greatest);
        }
        Ok(())
    })
}

/// `aclrtDeviceGetUuid`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetUuid(deviceId: i32, uuid: *mut aclrtUuid) -> aclError {
    // SAFETY: `uuid` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtDeviceGetUuid", uuid, "uuid", |rt| {
            let bytes = rt.device_get_uuid(deviceId)?;
            Ok(aclrtUuid {
                bytes: bytes.map(|b| b as c_char),
            })
        })
    }
}

/// `aclrtDeviceCanAccessPeer`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceCanAccessPeer(
    canAccessPeer: *mut i32,
    deviceId: i32,
    peerDeviceId: i32,
) -> aclError {
    // SAFETY: `canAccessPeer` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtDeviceCanAccessPeer",
            canAccessPeer,
            "canAccessPeer",
            |rt| rt.device_can_access_peer(deviceId, peerDeviceId),
        )
    }
}

/// `aclrtSetTsDevice`.
#[no_mangle]
pub extern "C" fn aclrtSetTsDevice(tsId: u32) -> aclError {
    entry("aclrtSetTsDevice", |rt| rt.set_ts_device(tsId))
}

/// `aclrtGetDevicesTopo`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetDevicesTopo(
    deviceId: u32,
    otherDeviceId: u32,
    value: *mut u64,
) -> aclError {
    // SAFETY: `value` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetDevicesTopo", value, "value", |rt| {
            rt.get_devices_topo(deviceId, otherDeviceId)
        })
    }
}

/// `aclrtDeviceEnablePeerAccess`.
#[no_mangle]
pub extern "C" fn aclrtDeviceEnablePeerAccess(peerDeviceId: i32, flags: u32) -> aclError {
    entry("aclrtDeviceEnablePeerAccess", |rt| {
        rt.device_enable_peer_access(peerDeviceId, flags)
    })
}

/// `aclrtDeviceDisablePeerAccess`.
#[no_mangle]
pub extern "C" fn aclrtDeviceDisablePeerAccess(peerDeviceId: i32) -> aclError {
    entry("aclrtDeviceDisablePeerAccess", |rt| {
        rt.device_disable_peer_access(peerDeviceId)
    })
}

/// `aclrtDevicePeerAccessStatus`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDevicePeerAccessStatus(
    deviceId: i32,
    peerDeviceId: i32,
    status: *mut i32,
) -> aclError {
    // SAFETY: `status` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtDevicePeerAccessStatus", status, "status", |rt| {
            rt.device_peer_access_status(deviceId, peerDeviceId)
        })
    }
}

/// `aclrtCheckArchCompatibility`: as the vendor's runtime checks them, a NULL `socVersion` or
/// `canCompatible` is `107000` (not `100000`).
#[no_mangle]
pub unsafe extern "C" fn aclrtCheckArchCompatibility(
    socVersion: *const c_char,
    canCompatible: *mut i32,
) -> aclError {
    entry("aclrtCheckArchCompatibility", |rt| {
        if socVersion.is_null() || canCompatible.is_null() {
            return Err(aclrt::Error::new(
                aclrt::codes::ACL_ERROR_RT_PARAM_INVALID,
                "aclrtCheckArchCompatibility: socVersion and canCompatible must not be NULL",
            ));
        }
        // SAFETY: a non-NULL socVersion is a C string, the C caller's contract.
        let name = unsafe { std::ffi::CStr::from_ptr(socVersion) }.to_string_lossy();
        let compatible = rt.check_arch_compatibility(&name)?;
        // SAFETY: checked non-NULL; writable by the C caller's contract.
        unsafe { put(canCompatible, compatible) };
        Ok(())
    })
}

/// `aclrtGetUserDevIdByLogicDevId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetUserDevIdByLogicDevId(
    logicDevId: i32,
    userDevid: *mut i32,
) -> aclError {
    // SAFETY: `userDevid` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtGetUserDevIdByLogicDevId",
            userDevid,
            "userDevid",
            |rt| rt.get_user_dev_id_by_logic_dev_id(logicDevId),
        )
    }
}

/// `aclrtGetLogicDevIdByUserDevId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetLogicDevIdByUserDevId(
    userDevid: i32,
    logicDevId: *mut i32,
) -> aclError {
    // SAFETY: `logicDevId` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtGetLogicDevIdByUserDevId",
            logicDevId,
            "logicDevId",
            |rt| rt.get_logic_dev_id_by_user_dev_id(userDevid),
        )
    }
}

/// `aclrtGetLogicDevIdByPhyDevId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetLogicDevIdByPhyDevId(
    phyDevId: i32,
    logicDevId: *mut i32,
) -> aclError {
    // SAFETY: `logicDevId` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtGetLogicDevIdByPhyDevId",
            logicDevId,
            "logicDevId",
            |rt| rt.get_logic_dev_id_by_phy_dev_id(phyDevId),
        )
    }
}

/// `aclrtGetPhyDevIdByLogicDevId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetPhyDevIdByLogicDevId(
    logicDevId: i32,
    phyDevId: *mut i32,
) -> aclError {
    // SAFETY: `phyDevId` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetPhyDevIdByLogicDevId", phyDevId, "phyDevId", |rt| {
            rt.get_phy_dev_id_by_logic_dev_id(logicDevId)
        })
    }
}

/// `aclrtGetUserDevIdByPhyDevId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetUserDevIdByPhyDevId(
    phyDevId: i32,
    userDevId: *mut i32,
) -> aclError {
    // SAFETY: `userDevId` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtGetUserDevIdByPhyDevId",
            userDevId,
            "userDevId",
            |rt| rt.get_user_dev_id_by_phy_dev_id(phyDevId),
        )
    }
}

/// `aclrtGetPhyDevIdByUserDevId`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetPhyDevIdByUserDevId(
    userDevId: i32,
    phyDevId: *mut i32,
) -> aclError {
    // SAFETY: `phyDevId` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetPhyDevIdByUserDevId", phyDevId, "phyDevId", |rt| {
            rt.get_phy_dev_id_by_user_dev_id(userDevId)
        })
    }
}

/// `aclrtGetPrimaryCtxState`: `flags` is reserved and must be NULL (`100000` otherwise).
#[no_mangle]
pub unsafe extern "C" fn aclrtGetPrimaryCtxState(
    deviceId: i32,
    flags: *mut u32,
    active: *mut i32,
) -> aclError {
    // SAFETY: `active` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetPrimaryCtxState", active, "active", |rt| {
            rt.get_primary_ctx_state(deviceId, !flags.is_null())
        })
    }
}

/// `aclrtDeviceGetBareTgid`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetBareTgid(pid: *mut i32) -> aclError {
    // SAFETY: `pid` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtDeviceGetBareTgid", pid, "pid", |rt| {
            rt.device_get_bare_tgid()
        })
    }
}

/// `aclrtDeviceGetHostAtomicCapabilities`: one capability mask per operation.
///
/// # Safety
/// `capabilities` and `operations` are NULL or hold `count` entries.
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetHostAtomicCapabilities(
    capabilities: *mut u32,
    operations: *const u32,
    count: u32,
    deviceId: i32,
) -> aclError {
    entry("aclrtDeviceGetHostAtomicCapabilities", |rt| {
        // SAFETY: forwarded C contract.
        unsafe { rt.device_get_host_atomic_capabilities(capabilities, operations, count, deviceId) }
    })
}

/// `aclrtDeviceGetP2PAtomicCapabilities`: one capability mask per operation.
///
/// # Safety
/// As [`aclrtDeviceGetHostAtomicCapabilities`].
#[no_mangle]
pub unsafe extern "C" fn aclrtDeviceGetP2PAtomicCapabilities(
    capabilities: *mut u32,
    operations: *const u32,
    count: u32,
    srcDeviceId: i32,
    dstDeviceId: i32,
) -> aclError {
    entry("aclrtDeviceGetP2PAtomicCapabilities", |rt| {
        // SAFETY: forwarded C contract.
        unsafe {
            rt.device_get_p2p_atomic_capabilities(
                capabilities,
                operations,
                count,
                srcDeviceId,
                dstDeviceId,
            )
        }
    })
}

/// `aclrtMemP2PMap`.
#[no_mangle]
pub extern "C" fn aclrtMemP2PMap(
    devPtr: *mut std::ffi::c_void,
    size: usize,
    dstDevId: i32,
    flags: u64,
) -> aclError {
    entry("aclrtMemP2PMap", |rt| {
        rt.mem_p2p_map(devPtr as usize, size, dstDevId, flags)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_have_the_c_layout() {
        assert_eq!(std::mem::size_of::<aclrtUtilizationInfo>(), 24);
        assert_eq!(std::mem::size_of::<aclrtUuid>(), 16);
    }
}

//! Virtual memory: reserved address ranges, physical allocations and their mappings. The C
//! types are translated here; every check is the core's.

use std::ffi::{c_char, c_void, CStr};

use aclrt::api::{MemAccess, PhysicalMemProp};

use crate::memory_ext::{aclrtMemLocation, aclrtPhysicalMemProp};
use crate::{aclError, entry, not_null, produce};

/// `aclrtDrvMemHandle`: a physical allocation's token.
pub type aclrtDrvMemHandle = *mut c_void;

/// `aclrtMemAccessDesc`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMemAccessDesc {
    /// `aclrtMemAccessFlags`.
    pub flags: u32,
    /// The location the flags are for.
    pub location: aclrtMemLocation,
    /// Reserved.
    pub rsv: [u8; 12],
}

fn prop_from_c(p: &aclrtPhysicalMemProp) -> PhysicalMemProp {
    PhysicalMemProp {
        handle_type: p.handleType,
        allocation_type: p.allocationType,
        mem_attr: p.memAttr,
        location_type: p.location.r#type,
        location_id: p.location.id,
        reserve: p.reserve,
    }
}

/// `aclrtReserveMemAddress`.
#[no_mangle]
pub unsafe extern "C" fn aclrtReserveMemAddress(
    virPtr: *mut *mut c_void,
    size: usize,
    alignment: usize,
    expectPtr: *mut c_void,
    flags: u64,
) -> aclError {
    // SAFETY: `virPtr` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtReserveMemAddress", virPtr, "virPtr", |rt| {
            rt.reserve_mem_address(size, alignment, expectPtr as usize, flags)
                .map(|p| p as *mut c_void)
        })
    }
}

/// `aclrtReleaseMemAddress`.
#[no_mangle]
pub extern "C" fn aclrtReleaseMemAddress(virPtr: *mut c_void) -> aclError {
    entry("aclrtReleaseMemAddress", |rt| {
        rt.release_mem_address(virPtr as usize)
    })
}

/// `aclrtMallocPhysical`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocPhysical(
    handle: *mut aclrtDrvMemHandle,
    size: usize,
    prop: *const aclrtPhysicalMemProp,
    flags: u64,
) -> aclError {
    // SAFETY: `handle` is NULL or writable, `prop` NULL or readable: the C caller's contract.
    unsafe {
        produce("aclrtMallocPhysical", handle, "handle", |rt| {
            not_null(prop, "aclrtMallocPhysical", "prop")?;
            rt.malloc_physical(size, &prop_from_c(&*prop), flags)
                .map(|h| h as aclrtDrvMemHandle)
        })
    }
}

/// `aclrtFreePhysical`.
#[no_mangle]
pub extern "C" fn aclrtFreePhysical(handle: aclrtDrvMemHandle) -> aclError {
    entry("aclrtFreePhysical", |rt| rt.free_physical(handle as u64))
}

/// `aclrtMapMem`.
#[no_mangle]
pub extern "C" fn aclrtMapMem(
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> aclError {
    entry("aclrtMapMem", |rt| {
        rt.map_mem(virPtr as usize, size, offset, handle as u64, flags)
    })
}

/// `aclrtMemMapNoAccess`.
#[no_mangle]
pub extern "C" fn aclrtMemMapNoAccess(
    virPtr: *mut c_void,
    size: usize,
    offset: usize,
    handle: aclrtDrvMemHandle,
    flags: u64,
) -> aclError {
    entry("aclrtMemMapNoAccess", |rt| {
        rt.mem_map_no_access(virPtr as usize, size, offset, handle as u64, flags)
    })
}

/// `aclrtUnmapMem`.
#[no_mangle]
pub extern "C" fn aclrtUnmapMem(virPtr: *mut c_void) -> aclError {
    entry("aclrtUnmapMem", |rt| rt.unmap_mem(virPtr as usize))
}

/// `aclrtMemSetAccess`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemSetAccess(
    virPtr: *mut c_void,
    size: usize,
    desc: *mut aclrtMemAccessDesc,
    count: usize,
) -> aclError {
    entry("aclrtMemSetAccess", |rt| {
        let descs: Vec<MemAccess> = if desc.is_null() || count == 0 {
            Vec::new()
        } else {
            // SAFETY: `desc` is non-NULL and points at `count` descriptors, the C caller's
            // contract.
            unsafe { std::slice::from_raw_parts(desc, count) }
                .iter()
                .map(|d| MemAccess {
                    flags: d.flags,
                    location_type: d.location.r#type,
                    location_id: d.location.id,
                })
                .collect()
        };
        rt.mem_set_access(
            virPtr as usize,
            size,
            (!desc.is_null()).then_some(&descs[..]),
        )
    })
}

/// `aclrtMemGetAccess`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemGetAccess(
    virPtr: *mut c_void,
    location: *mut aclrtMemLocation,
    flag: *mut u64,
) -> aclError {
    // SAFETY: `flag` is NULL or writable, `location` NULL or readable: the C caller's contract.
    unsafe {
        produce("aclrtMemGetAccess", flag, "flag", |rt| {
            not_null(location, "aclrtMemGetAccess", "location")?;
            let l = *location;
            rt.mem_get_access(virPtr as usize, l.r#type, l.id)
        })
    }
}

/// `aclrtMemRetainAllocationHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemRetainAllocationHandle(
    virPtr: *mut c_void,
    handle: *mut aclrtDrvMemHandle,
) -> aclError {
    // SAFETY: `handle` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtMemRetainAllocationHandle", handle, "handle", |rt| {
            rt.mem_retain_allocation_handle(virPtr as usize)
                .map(|h| h as aclrtDrvMemHandle)
        })
    }
}

/// `aclrtMemGetAllocationPropertiesFromHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemGetAllocationPropertiesFromHandle(
    handle: aclrtDrvMemHandle,
    prop: *mut aclrtPhysicalMemProp,
) -> aclError {
    // SAFETY: `prop` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtMemGetAllocationPropertiesFromHandle",
            prop,
            "prop",
            |rt| {
                let p = rt.mem_get_allocation_properties(handle as u64)?;
                Ok(aclrtPhysicalMemProp {
                    handleType: p.handle_type,
                    allocationType: p.allocation_type,
                    memAttr: p.mem_attr,
                    location: aclrtMemLocation {
                        id: p.location_id,
                        r#type: p.location_type,
                    },
                    reserve: p.reserve,
                })
            },
        )
    }
}

/// `aclrtMemExportToShareableHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemExportToShareableHandle(
    handle: aclrtDrvMemHandle,
    handleType: u32,
    flags: u64,
    shareableHandle: *mut u64,
) -> aclError {
    // SAFETY: `shareableHandle` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtMemExportToShareableHandle",
            shareableHandle,
            "shareableHandle",
            |rt| rt.mem_export_to_shareable_handle(handle as u64, handleType, flags),
        )
    }
}

/// `aclrtMemExportToShareableHandleV2`: the default share type writes a `uint64_t`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemExportToShareableHandleV2(
    handle: aclrtDrvMemHandle,
    flags: u64,
    shareType: u32,
    shareableHandle: *mut c_void,
) -> aclError {
    // SAFETY: `shareableHandle` is NULL or points at a writable `uint64_t` for the default
    // share type (the only one that writes), the C caller's contract.
    unsafe {
        produce(
            "aclrtMemExportToShareableHandleV2",
            shareableHandle.cast::<u64>(),
            "shareableHandle",
            |rt| rt.mem_export_to_shareable_handle_v2(handle as u64, flags, shareType),
        )
    }
}

/// The pids of a whitelist call, checked not NULL.
unsafe fn pid_list<'a>(pid: *const i32, num: usize, call: &str) -> aclrt::Result<&'a [i32]> {
    not_null(pid, call, "pid")?;
    // SAFETY: `pid` is non-NULL and holds `num` pids, the C caller's contract.
    Ok(unsafe { std::slice::from_raw_parts(pid, num) })
}

/// The value of a non-NULL V2 shareable handle: the `uint64_t` it points at when the core
/// takes its share type as one, else 0 (the core then refuses the type).
///
/// # Safety
/// `handle` must point at a readable `uint64_t` when `share_type` is the default type.
unsafe fn shareable_value(handle: *mut c_void, share_type: u32) -> u64 {
    if aclrt::api::share_handle_is_u64(share_type) {
        // SAFETY: a readable `uint64_t` for this share type, the caller's contract.
        unsafe { handle.cast::<u64>().read_unaligned() }
    } else {
        0
    }
}

/// `aclrtMemSetPidToShareableHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemSetPidToShareableHandle(
    shareableHandle: u64,
    pid: *mut i32,
    pidNum: usize,
) -> aclError {
    entry("aclrtMemSetPidToShareableHandle", |rt| {
        // SAFETY: as `pid_list` requires, the C caller's contract.
        let pids = unsafe { pid_list(pid, pidNum, "aclrtMemSetPidToShareableHandle")? };
        rt.mem_set_pid_to_shareable_handle(shareableHandle, pids)
    })
}

/// `aclrtMemSetPidToShareableHandleV2`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemSetPidToShareableHandleV2(
    shareableHandle: *mut c_void,
    shareType: u32,
    pid: *mut i32,
    pidNum: usize,
) -> aclError {
    entry("aclrtMemSetPidToShareableHandleV2", |rt| {
        not_null(
            shareableHandle,
            "aclrtMemSetPidToShareableHandleV2",
            "shareableHandle",
        )?;
        // SAFETY: as `pid_list` requires, the C caller's contract.
        let pids = unsafe { pid_list(pid, pidNum, "aclrtMemSetPidToShareableHandleV2")? };
        // SAFETY: as `shareable_value` requires, the C caller's contract.
        let value = unsafe { shareable_value(shareableHandle, shareType) };
        rt.mem_set_pid_to_shareable_handle_v2(value, shareType, pids)
    })
}

/// `aclrtMemImportFromShareableHandle`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemImportFromShareableHandle(
    shareableHandle: u64,
    deviceId: i32,
    handle: *mut aclrtDrvMemHandle,
) -> aclError {
    // SAFETY: `handle` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtMemImportFromShareableHandle",
            handle,
            "handle",
            |rt| {
                rt.mem_import_from_shareable_handle(shareableHandle, deviceId)
                    .map(|h| h as aclrtDrvMemHandle)
            },
        )
    }
}

/// `aclrtMemImportFromShareableHandleV2`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemImportFromShareableHandleV2(
    shareableHandle: *mut c_void,
    shareType: u32,
    flags: u64,
    handle: *mut aclrtDrvMemHandle,
) -> aclError {
    // SAFETY: `handle` is NULL or writable, `shareableHandle` NULL or readable as its share
    // type says: the C caller's contract.
    unsafe {
        produce(
            "aclrtMemImportFromShareableHandleV2",
            handle,
            "handle",
            |rt| {
                not_null(
                    shareableHandle,
                    "aclrtMemImportFromShareableHandleV2",
                    "shareableHandle",
                )?;
                let value = shareable_value(shareableHandle, shareType);
                rt.mem_import_from_shareable_handle_v2(value, shareType, flags)
                    .map(|h| h as aclrtDrvMemHandle)
            },
        )
    }
}

/// A key argument: NULL is `100000`; bytes that are not UTF-8 name no key (refused later).
unsafe fn key_arg(key: *const c_char, call: &str) -> aclrt::Result<String> {
    not_null(key, call, "key")?;
    // SAFETY: non-NULL and NUL-terminated, the C caller's contract.
    Ok(unsafe { CStr::from_ptr(key) }
        .to_string_lossy()
        .into_owned())
}

/// `aclrtIpcMemGetExportKey`.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemGetExportKey(
    devPtr: *mut c_void,
    size: usize,
    key: *mut c_char,
    len: usize,
    flags: u64,
) -> aclError {
    entry("aclrtIpcMemGetExportKey", |rt| {
        not_null(devPtr, "aclrtIpcMemGetExportKey", "devPtr")?;
        not_null(key, "aclrtIpcMemGetExportKey", "key")?;
        let k = rt.ipc_mem_get_export_key(devPtr as usize, size, len, flags)?;
        // SAFETY: `key` holds `len` bytes (the C caller's contract) and the core checked that
        // the key and its NUL fit.
        unsafe {
            std::ptr::copy_nonoverlapping(k.as_ptr(), key.cast::<u8>(), k.len());
            key.add(k.len()).write(0);
        }
        Ok(())
    })
}

/// `aclrtIpcMemSetImportPid`.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemSetImportPid(
    key: *const c_char,
    pid: *mut i32,
    num: usize,
) -> aclError {
    entry("aclrtIpcMemSetImportPid", |rt| {
        // SAFETY: as `key_arg` and `pid_list` require, the C caller's contract.
        let k = unsafe { key_arg(key, "aclrtIpcMemSetImportPid")? };
        let pids = unsafe { pid_list(pid, num, "aclrtIpcMemSetImportPid")? };
        rt.ipc_mem_set_import_pid(&k, pids)
    })
}

/// `aclrtIpcMemImportByKey`.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemImportByKey(
    devPtr: *mut *mut c_void,
    key: *const c_char,
    flags: u64,
) -> aclError {
    // SAFETY: `devPtr` is NULL or writable, `key` NULL or a C string: the C caller's contract.
    unsafe {
        produce("aclrtIpcMemImportByKey", devPtr, "devPtr", |rt| {
            let k = key_arg(key, "aclrtIpcMemImportByKey")?;
            rt.ipc_mem_import_by_key(&k, flags)
                .map(|p| p as *mut c_void)
        })
    }
}

/// `aclrtIpcMemClose`.
#[no_mangle]
pub unsafe extern "C" fn aclrtIpcMemClose(key: *const c_char) -> aclError {
    entry("aclrtIpcMemClose", |rt| {
        // SAFETY: as `key_arg` requires, the C caller's contract.
        let k = unsafe { key_arg(key, "aclrtIpcMemClose")? };
        rt.ipc_mem_close(&k)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn access_desc_has_the_c_layout() {
        assert_eq!(std::mem::size_of::<aclrtMemAccessDesc>(), 24);
        assert_eq!(std::mem::offset_of!(aclrtMemAccessDesc, location), 4);
        assert_eq!(std::mem::size_of::<aclrtPhysicalMemProp>(), 32);
    }
}

//! Virtual memory: reserved address ranges, physical allocations and their mappings. The C
//! types are translated here; every check is the core's.

use std::ffi::c_void;

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
        if desc.is_null() {
            return Err(aclrt::Error::new(
                aclrt::codes::ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemSetAccess: desc is NULL",
            ));
        }
        let descs: Vec<MemAccess> = if count == 0 {
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
        rt.mem_set_access(virPtr as usize, size, &descs)
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

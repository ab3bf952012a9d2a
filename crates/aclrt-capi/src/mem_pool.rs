//! Stream-ordered allocation (`acl/acl_rt_memory_soma.h`).

use std::ffi::c_void;

use aclrt::api::MemPoolProps;
use aclrt::MemPoolHandle;

use crate::{aclError, aclrtStream, entry, not_null, put, stream_handle};

/// `aclrtMemPool`.
#[allow(non_camel_case_types)]
pub type aclrtMemPool = *mut c_void;

/// `aclrtMemPoolProps`.
#[repr(C)]
#[allow(non_snake_case)]
pub struct aclrtMemPoolProps {
    /// `aclrtMemAllocationType`.
    pub allocType: u32,
    /// `aclrtMemHandleType`.
    pub handleType: u32,
    /// `aclrtMemLocation.id`.
    pub locationId: u32,
    /// `aclrtMemLocation.type`.
    pub locationType: u32,
    /// Bytes; 0 is the whole device.
    pub maxSize: usize,
    /// Must be zero.
    pub reserved: [u8; 32],
}

fn pool_handle(pool: aclrtMemPool) -> MemPoolHandle {
    MemPoolHandle::from_raw(pool as u64)
}

/// `aclrtMemPoolCreate`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemPoolCreate(
    memPool: *mut aclrtMemPool,
    poolProps: *const aclrtMemPoolProps,
) -> aclError {
    const CALL: &str = "aclrtMemPoolCreate";
    entry(CALL, |rt| {
        not_null(memPool, CALL, "memPool")?;
        not_null(poolProps, CALL, "poolProps")?;
        // SAFETY: non-NULL; readable by the C caller's contract.
        let p = unsafe { &*poolProps };
        let props = MemPoolProps {
            alloc_type: p.allocType,
            handle_type: p.handleType,
            location_type: p.locationType,
            location_id: p.locationId,
            max_size: p.maxSize,
            reserved_zero: p.reserved.iter().all(|&b| b == 0),
        };
        let handle = rt.mem_pool_create(&props)?;
        // SAFETY: non-NULL (checked above), writable by the C caller's contract.
        unsafe { put(memPool, handle.as_raw() as aclrtMemPool) };
        Ok(())
    })
}

/// `aclrtMemPoolDestroy`.
#[no_mangle]
pub extern "C" fn aclrtMemPoolDestroy(memPool: aclrtMemPool) -> aclError {
    entry("aclrtMemPoolDestroy", |rt| {
        rt.mem_pool_destroy(pool_handle(memPool))
    })
}

/// `aclrtMemPoolSetAttr`: `value` points to a `uint32_t` or `uint64_t` by attribute.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemPoolSetAttr(
    memPool: aclrtMemPool,
    attr: u32,
    value: *mut c_void,
) -> aclError {
    // SAFETY: `value` is NULL or of the attribute's type, the C caller's contract.
    entry("aclrtMemPoolSetAttr", |rt| unsafe {
        rt.mem_pool_set_attr(pool_handle(memPool), attr, value as usize)
    })
}

/// `aclrtMemPoolGetAttr`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemPoolGetAttr(
    memPool: aclrtMemPool,
    attr: u32,
    value: *mut c_void,
) -> aclError {
    // SAFETY: `value` is NULL or writable as the attribute's type, the C caller's contract.
    entry("aclrtMemPoolGetAttr", |rt| unsafe {
        rt.mem_pool_get_attr(pool_handle(memPool), attr, value as usize)
    })
}

/// `aclrtMemPoolMallocAsync`: size 0 succeeds and leaves `*ptr` as it was.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemPoolMallocAsync(
    ptr: *mut *mut c_void,
    size: usize,
    memPool: aclrtMemPool,
    stream: aclrtStream,
) -> aclError {
    const CALL: &str = "aclrtMemPoolMallocAsync";
    entry(CALL, |rt| {
        not_null(ptr, CALL, "ptr")?;
        if let Some(p) =
            rt.mem_pool_malloc_async(size, pool_handle(memPool), stream_handle(stream))?
        {
            // SAFETY: non-NULL (checked above), writable by the C caller's contract.
            unsafe { put(ptr, p as *mut c_void) };
        }
        Ok(())
    })
}

/// `aclrtMemPoolFreeAsync`.
#[no_mangle]
pub extern "C" fn aclrtMemPoolFreeAsync(ptr: *mut c_void, stream: aclrtStream) -> aclError {
    entry("aclrtMemPoolFreeAsync", |rt| {
        rt.mem_pool_free_async(ptr as usize, stream_handle(stream))
    })
}

/// `aclrtMemPoolTrimTo`.
#[no_mangle]
pub extern "C" fn aclrtMemPoolTrimTo(memPool: aclrtMemPool, minBytesToKeep: usize) -> aclError {
    entry("aclrtMemPoolTrimTo", |rt| {
        rt.mem_pool_trim_to(pool_handle(memPool), minBytesToKeep)
    })
}

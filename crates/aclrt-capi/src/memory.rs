//! Memory.

use std::ffi::c_void;

use aclrt::api;

use crate::{aclError, aclrtStream, guard, not_null, put, stream_handle};

/// `aclrtMalloc`: 64-byte aligned, zeroed device memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtMalloc(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
) -> aclError {
    guard("aclrtMalloc", || {
        api::ensure_initialized()?;
        not_null(devPtr, "aclrtMalloc", "devPtr")?;
        let p = api::malloc(size, policy)?;
        unsafe { put(devPtr, p as *mut c_void) };
        Ok(())
    })
}

/// `aclrtMallocHost`: 64-byte aligned, zeroed host memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError {
    guard("aclrtMallocHost", || {
        api::ensure_initialized()?;
        not_null(hostPtr, "aclrtMallocHost", "hostPtr")?;
        let p = api::malloc_host(size)?;
        unsafe { put(hostPtr, p as *mut c_void) };
        Ok(())
    })
}

/// `aclrtFree`.
#[no_mangle]
pub extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    guard("aclrtFree", || api::free(devPtr as usize))
}

/// `aclrtFreeHost`.
#[no_mangle]
pub extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    guard("aclrtFreeHost", || api::free_host(hostPtr as usize))
}

/// `aclrtMemcpy`: synchronous.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpy(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: u32,
) -> aclError {
    guard("aclrtMemcpy", || unsafe {
        api::memcpy(dst as usize, destMax, src as usize, count, kind)
    })
}

/// `aclrtMemcpyAsync`: a copy task on the stream.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyAsync(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    guard("aclrtMemcpyAsync", || unsafe {
        api::memcpy_async(
            dst as usize,
            destMax,
            src as usize,
            count,
            kind,
            stream_handle(stream),
        )
    })
}

/// `aclrtMemset`: synchronous.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemset(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
) -> aclError {
    guard("aclrtMemset", || unsafe {
        api::memset(devPtr as usize, maxCount, value, count)
    })
}

/// `aclrtMemsetAsync`: a set task on the stream.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemsetAsync(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
    stream: aclrtStream,
) -> aclError {
    guard("aclrtMemsetAsync", || unsafe {
        api::memset_async(
            devPtr as usize,
            maxCount,
            value,
            count,
            stream_handle(stream),
        )
    })
}

/// `aclrtGetMemInfo`: HBM attributes report the emulated capacity, DDR ones host memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetMemInfo(
    attr: u32,
    free: *mut usize,
    total: *mut usize,
) -> aclError {
    guard("aclrtGetMemInfo", || {
        api::ensure_initialized()?;
        not_null(free, "aclrtGetMemInfo", "free")?;
        not_null(total, "aclrtGetMemInfo", "total")?;
        let (f, t) = api::get_mem_info(attr)?;
        unsafe {
            put(free, f);
            put(total, t);
        }
        Ok(())
    })
}

//! Memory.

use std::ffi::c_void;

use crate::{aclError, aclrtStream, entry, not_null, produce, put, stream_handle};

/// `aclrtMalloc`: 64-byte aligned, zeroed device memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtMalloc(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
) -> aclError {
    // SAFETY: `devPtr` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtMalloc", devPtr, "devPtr", |rt| {
            let p = rt.malloc(size, policy)?;
            Ok(p as *mut c_void)
        })
    }
}

/// `aclrtMallocHost`: 64-byte aligned, zeroed host memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHost(hostPtr: *mut *mut c_void, size: usize) -> aclError {
    // SAFETY: `hostPtr` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtMallocHost", hostPtr, "hostPtr", |rt| {
            let p = rt.malloc_host(size)?;
            Ok(p as *mut c_void)
        })
    }
}

/// `aclrtFree`.
#[no_mangle]
pub extern "C" fn aclrtFree(devPtr: *mut c_void) -> aclError {
    entry("aclrtFree", |rt| rt.free(devPtr as usize))
}

/// `aclrtFreeHost`.
#[no_mangle]
pub extern "C" fn aclrtFreeHost(hostPtr: *mut c_void) -> aclError {
    entry("aclrtFreeHost", |rt| rt.free_host(hostPtr as usize))
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
    // SAFETY: the pointers are valid for the access by the C caller's contract (aclrtMemcpy/aclrtMemset); the core refuses ranges that overrun or touch freed runtime memory.
    entry("aclrtMemcpy", |rt| unsafe {
        rt.memcpy(dst as usize, destMax, src as usize, count, kind)
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
    // SAFETY: the pointers are valid for the access by the C caller's contract (aclrtMemcpy/aclrtMemset); the core refuses ranges that overrun or touch freed runtime memory.
    entry("aclrtMemcpyAsync", |rt| unsafe {
        rt.memcpy_async(
            dst as usize,
            destMax,
            src as usize,
            count,
            kind,
            stream_handle(stream),
        )
    })
}

/// `aclrtMemcpyAsyncWithCondition`: `aclrtMemcpyAsync` that waits for pageable host memory.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyAsyncWithCondition(
    dst: *mut c_void,
    destMax: usize,
    src: *const c_void,
    count: usize,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: the pointers are valid for the access by the C caller's contract; the core refuses ranges that overrun or touch freed runtime memory.
    entry("aclrtMemcpyAsyncWithCondition", |rt| unsafe {
        rt.memcpy_async_with_condition(
            dst as usize,
            destMax,
            src as usize,
            count,
            kind,
            stream_handle(stream),
        )
        .map(|_waited| ())
    })
}

/// `aclrtGetMemcpyDescSize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetMemcpyDescSize(kind: u32, descSize: *mut usize) -> aclError {
    // SAFETY: `descSize` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtGetMemcpyDescSize", descSize, "descSize", |rt| {
            rt.get_memcpy_desc_size(kind)
        })
    }
}

/// `aclrtSetMemcpyDesc`: the core checks that `desc` is device memory before writing it.
#[no_mangle]
pub extern "C" fn aclrtSetMemcpyDesc(
    desc: *mut c_void,
    kind: u32,
    srcAddr: *mut c_void,
    dstAddr: *mut c_void,
    count: usize,
    config: *mut c_void,
) -> aclError {
    entry("aclrtSetMemcpyDesc", |rt| {
        rt.set_memcpy_desc(
            desc as usize,
            kind,
            srcAddr as usize,
            dstAddr as usize,
            count,
            !config.is_null(),
        )
    })
}

/// `aclrtMemcpyAsyncWithDesc`.
#[no_mangle]
pub extern "C" fn aclrtMemcpyAsyncWithDesc(
    desc: *mut c_void,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemcpyAsyncWithDesc", |rt| {
        rt.memcpy_async_with_desc(desc as usize, kind, stream_handle(stream))
    })
}

/// `aclrtMemcpyAsyncWithOffset`: `dst` and `src` are the device addresses of the base
/// addresses, read by the task.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn aclrtMemcpyAsyncWithOffset(
    dst: *mut *mut c_void,
    destMax: usize,
    dstDataOffset: usize,
    src: *mut *const c_void,
    count: usize,
    srcDataOffset: usize,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemcpyAsyncWithOffset", |rt| {
        rt.memcpy_async_with_offset(
            dst as usize,
            destMax,
            dstDataOffset,
            src as usize,
            count,
            srcDataOffset,
            kind,
            stream_handle(stream),
        )
    })
}

/// `aclrtCmoAsync`.
#[no_mangle]
pub extern "C" fn aclrtCmoAsync(
    src: *mut c_void,
    size: usize,
    cmoType: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtCmoAsync", |rt| {
        rt.cmo_async(src as usize, size, cmoType, stream_handle(stream))
    })
}

/// `aclrtCmoGetDescSize`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCmoGetDescSize(size: *mut usize) -> aclError {
    entry("aclrtCmoGetDescSize", |rt| {
        let value = rt.cmo_get_desc_size(!size.is_null())?;
        // SAFETY: non-NULL (the core refused NULL), writable by the C contract.
        unsafe { size.write(value) };
        Ok(())
    })
}

/// `aclrtCmoSetDesc`.
#[no_mangle]
pub extern "C" fn aclrtCmoSetDesc(cmoDesc: *mut c_void, src: *mut c_void, size: usize) -> aclError {
    entry("aclrtCmoSetDesc", |rt| {
        rt.cmo_set_desc(cmoDesc as usize, src as usize, size)
    })
}

/// `aclrtCmoAsyncWithDesc`.
#[no_mangle]
pub extern "C" fn aclrtCmoAsyncWithDesc(
    cmoDesc: *mut c_void,
    cmoType: u32,
    stream: aclrtStream,
    reserve: *const c_void,
) -> aclError {
    entry("aclrtCmoAsyncWithDesc", |rt| {
        rt.cmo_async_with_desc(
            cmoDesc as usize,
            cmoType,
            stream_handle(stream),
            !reserve.is_null(),
        )
    })
}

/// `aclrtHostMemMapCapabilities`.
#[no_mangle]
pub unsafe extern "C" fn aclrtHostMemMapCapabilities(
    deviceId: u32,
    hacType: u32,
    capabilities: *mut u32,
) -> aclError {
    // SAFETY: `capabilities` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtHostMemMapCapabilities",
            capabilities,
            "capabilities",
            |rt| rt.host_mem_map_capabilities(deviceId, hacType),
        )
    }
}

/// `aclrtMemset`: synchronous.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemset(
    devPtr: *mut c_void,
    maxCount: usize,
    value: i32,
    count: usize,
) -> aclError {
    // SAFETY: the pointers are valid for the access by the C caller's contract (aclrtMemcpy/aclrtMemset); the core refuses ranges that overrun or touch freed runtime memory.
    entry("aclrtMemset", |rt| unsafe {
        rt.memset(devPtr as usize, maxCount, value, count)
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
    // SAFETY: the pointers are valid for the access by the C caller's contract (aclrtMemcpy/aclrtMemset); the core refuses ranges that overrun or touch freed runtime memory.
    entry("aclrtMemsetAsync", |rt| unsafe {
        rt.memset_async(
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
    entry("aclrtGetMemInfo", |rt| {
        not_null(free, "aclrtGetMemInfo", "free")?;
        not_null(total, "aclrtGetMemInfo", "total")?;
        let (f, t) = rt.get_mem_info(attr)?;
        // SAFETY: the out-pointers were checked non-NULL above; that they are writable is the C caller's contract.
        unsafe {
            put(free, f);
            put(total, t);
        }
        Ok(())
    })
}

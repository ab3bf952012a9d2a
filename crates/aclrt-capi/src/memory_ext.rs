//! Memory beyond malloc, free, copy and set: 2D copies, allocation variants, cache maintenance,
//! pointer attributes and allocation granularity.

use std::ffi::{c_char, c_void};

use aclrt::api::{BatchAttr, BatchCopy, MallocAttribute};

use crate::{aclError, aclrtStream, entry, not_null, produce, stream_handle};

/// `aclrtMallocAttribute`: the attribute type and its 8-byte value union.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMallocAttribute {
    /// `aclrtMallocAttrType`.
    pub attr: u32,
    /// `aclrtMallocAttrValue`, as bytes.
    pub value: [u8; 8],
}

/// `aclrtMallocConfig`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMallocConfig {
    /// The attributes.
    pub attrs: *mut aclrtMallocAttribute,
    /// How many.
    pub numAttrs: usize,
}

/// `aclrtMemLocation`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMemLocation {
    /// Device id (for device memory).
    pub id: u32,
    /// `aclrtMemLocationType`.
    pub r#type: u32,
}

/// `aclrtPtrAttributes`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtPtrAttributes {
    /// Where the memory lives.
    pub location: aclrtMemLocation,
    /// Page size in bytes.
    pub pageSize: u32,
    /// Reserved, set to 0.
    pub rsv: [u32; 4],
}

/// `aclrtPhysicalMemProp`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtPhysicalMemProp {
    /// `aclrtMemHandleType`.
    pub handleType: u32,
    /// `aclrtMemAllocationType`.
    pub allocationType: u32,
    /// `aclrtMemAttr`.
    pub memAttr: u32,
    /// Where.
    pub location: aclrtMemLocation,
    /// Reserved.
    pub reserve: u64,
}

/// `aclrtMemcpy2d`: synchronous, host to device or device to host.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpy2d(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
) -> aclError {
    // SAFETY: the pointers are valid for the rows they name by the C caller's contract; the
    // core refuses spans that overrun or touch freed runtime memory.
    entry("aclrtMemcpy2d", |rt| unsafe {
        rt.memcpy_2d(
            dst as usize,
            dpitch,
            src as usize,
            spitch,
            width,
            height,
            kind,
        )
    })
}

/// `aclrtMemcpy2dAsync`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemcpy2dAsync(
    dst: *mut c_void,
    dpitch: usize,
    src: *const c_void,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: as aclrtMemcpy2d, until the copy has run.
    entry("aclrtMemcpy2dAsync", |rt| unsafe {
        rt.memcpy_2d_async(
            dst as usize,
            dpitch,
            src as usize,
            spitch,
            width,
            height,
            kind,
            stream_handle(stream),
        )
    })
}

/// `aclrtMallocAlign32`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocAlign32(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
) -> aclError {
    // SAFETY: `devPtr` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtMallocAlign32", devPtr, "devPtr", |rt| {
            Ok(rt.malloc_align32(size, policy)? as *mut c_void)
        })
    }
}

/// `aclrtMallocCached`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocCached(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
) -> aclError {
    // SAFETY: `devPtr` is NULL or writable, the C caller's contract.
    unsafe {
        produce("aclrtMallocCached", devPtr, "devPtr", |rt| {
            Ok(rt.malloc_cached(size, policy)? as *mut c_void)
        })
    }
}

/// `aclrtMallocWithCfg`: `cfg` may be NULL; a config with attributes must point at them.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocWithCfg(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
    cfg: *mut aclrtMallocConfig,
) -> aclError {
    // SAFETY: forwarded under the C caller's contract.
    unsafe {
        malloc_configured("aclrtMallocWithCfg", devPtr, cfg, |rt, attrs| {
            rt.malloc_with_cfg(size, policy, attrs)
        })
    }
}

/// `aclrtMallocForTaskScheduler`: as `aclrtMallocWithCfg`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocForTaskScheduler(
    devPtr: *mut *mut c_void,
    size: usize,
    policy: u32,
    cfg: *mut aclrtMallocConfig,
) -> aclError {
    // SAFETY: forwarded under the C caller's contract.
    unsafe {
        malloc_configured("aclrtMallocForTaskScheduler", devPtr, cfg, |rt, attrs| {
            rt.malloc_for_task_scheduler(size, policy, attrs)
        })
    }
}

/// The two configured device mallocs: `cfg` translated into attributes, the address stored.
///
/// # Safety
/// `devPtr` is NULL or writable; `cfg` is NULL or readable, with `numAttrs` readable
/// attributes at `attrs` when that is not NULL.
unsafe fn malloc_configured(
    name: &str,
    devPtr: *mut *mut c_void,
    cfg: *mut aclrtMallocConfig,
    malloc: impl FnOnce(&aclrt::Runtime, &[MallocAttribute]) -> aclrt::Result<usize>,
) -> aclError {
    // SAFETY: the pointers are as this function's contract states.
    unsafe {
        produce(name, devPtr, "devPtr", |rt| {
            let attrs: Vec<MallocAttribute> = if cfg.is_null() || (*cfg).numAttrs == 0 {
                Vec::new()
            } else {
                let cfg = &*cfg;
                not_null(cfg.attrs, name, "cfg->attrs")?;
                std::slice::from_raw_parts(cfg.attrs, cfg.numAttrs)
                    .iter()
                    .map(|a| MallocAttribute {
                        attr: a.attr,
                        value: a.value,
                    })
                    .collect()
            };
            Ok(malloc(rt, &attrs)? as *mut c_void)
        })
    }
}

/// `aclrtMemFlush`: nothing to do on the host; the range is checked.
#[no_mangle]
pub extern "C" fn aclrtMemFlush(devPtr: *mut c_void, size: usize) -> aclError {
    entry("aclrtMemFlush", |rt| rt.mem_flush(devPtr as usize, size))
}

/// `aclrtMemInvalidate`: as `aclrtMemFlush`.
#[no_mangle]
pub extern "C" fn aclrtMemInvalidate(devPtr: *mut c_void, size: usize) -> aclError {
    entry("aclrtMemInvalidate", |rt| {
        rt.mem_invalidate(devPtr as usize, size)
    })
}

/// `aclrtPointerGetAttributes`.
#[no_mangle]
pub unsafe extern "C" fn aclrtPointerGetAttributes(
    ptr: *const c_void,
    attributes: *mut aclrtPtrAttributes,
) -> aclError {
    // SAFETY: `attributes` is NULL or writable, the C caller's contract.
    unsafe {
        produce(
            "aclrtPointerGetAttributes",
            attributes,
            "attributes",
            |rt| {
                let a = rt.pointer_get_attributes(ptr as usize)?;
                Ok(aclrtPtrAttributes {
                    location: aclrtMemLocation {
                        id: a.location_id,
                        r#type: a.location_type,
                    },
                    pageSize: a.page_size,
                    rsv: [0; 4],
                })
            },
        )
    }
}

/// `aclrtMemGetAllocationGranularity`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemGetAllocationGranularity(
    prop: *mut aclrtPhysicalMemProp,
    option: u32,
    granularity: *mut usize,
) -> aclError {
    // SAFETY: `granularity` is NULL or writable, `prop` NULL or readable: the C caller's
    // contract.
    unsafe {
        produce(
            "aclrtMemGetAllocationGranularity",
            granularity,
            "granularity",
            |rt| {
                not_null(prop, "aclrtMemGetAllocationGranularity", "prop")?;
                rt.mem_get_allocation_granularity((*prop).memAttr, option)
            },
        )
    }
}

/// `aclrtMallocHostWithCfg`: `cfg` may be NULL; a config with attributes must point at them.
#[no_mangle]
pub unsafe extern "C" fn aclrtMallocHostWithCfg(
    ptr: *mut *mut c_void,
    size: u64,
    cfg: *mut aclrtMallocConfig,
) -> aclError {
    // SAFETY: `ptr` is NULL or writable, `cfg` NULL or readable with `numAttrs` readable
    // attributes: the C caller's contract.
    unsafe {
        produce("aclrtMallocHostWithCfg", ptr, "ptr", |rt| {
            let attrs: Vec<MallocAttribute> = if cfg.is_null() || (*cfg).numAttrs == 0 {
                Vec::new()
            } else {
                let cfg = &*cfg;
                not_null(cfg.attrs, "aclrtMallocHostWithCfg", "cfg->attrs")?;
                std::slice::from_raw_parts(cfg.attrs, cfg.numAttrs)
                    .iter()
                    .map(|a| MallocAttribute {
                        attr: a.attr,
                        value: a.value,
                    })
                    .collect()
            };
            Ok(rt.malloc_host_with_cfg(size, &attrs)? as *mut c_void)
        })
    }
}

/// `aclrtMemsetD32`.
#[no_mangle]
pub extern "C" fn aclrtMemsetD32(
    ptr: *mut c_void,
    memSize: usize,
    value: u32,
    N: usize,
) -> aclError {
    entry("aclrtMemsetD32", |rt| {
        rt.memset_d32(ptr as usize, memSize, value, N)
    })
}

/// `aclrtMemsetD32Async`.
#[no_mangle]
pub extern "C" fn aclrtMemsetD32Async(
    ptr: *mut c_void,
    memSize: usize,
    value: u32,
    N: usize,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemsetD32Async", |rt| {
        rt.memset_d32_async(ptr as usize, memSize, value, N, stream_handle(stream))
    })
}

/// `aclrtFreeWithDevSync`.
#[no_mangle]
pub extern "C" fn aclrtFreeWithDevSync(devPtr: *mut c_void) -> aclError {
    entry("aclrtFreeWithDevSync", |rt| {
        rt.free_with_dev_sync(devPtr as usize)
    })
}

/// `aclrtFreeHostWithDevSync`.
#[no_mangle]
pub extern "C" fn aclrtFreeHostWithDevSync(hostPtr: *mut c_void) -> aclError {
    entry("aclrtFreeHostWithDevSync", |rt| {
        rt.free_host_with_dev_sync(hostPtr as usize)
    })
}

/// `aclrtMemGetAddressRange`: `pbase` and `psize` may each be NULL (not asked for).
#[no_mangle]
pub unsafe extern "C" fn aclrtMemGetAddressRange(
    ptr: *mut c_void,
    pbase: *mut *mut c_void,
    psize: *mut usize,
) -> aclError {
    entry("aclrtMemGetAddressRange", |rt| {
        let (base, size) = rt.mem_get_address_range(ptr as usize)?;
        if !pbase.is_null() {
            // SAFETY: non-NULL and writable, the C caller's contract.
            unsafe { pbase.write(base as *mut c_void) };
        }
        if !psize.is_null() {
            // SAFETY: as for `pbase`.
            unsafe { psize.write(size) };
        }
        Ok(())
    })
}

/// `aclrtMemcpyBatchAttr`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct aclrtMemcpyBatchAttr {
    pub dstLoc: aclrtMemLocation,
    pub srcLoc: aclrtMemLocation,
    pub rsv: [u8; 16],
}

/// The batch calls' shared body: the NULL checks in the vendor's order (`failIndex` first
/// where the call has one), then the core's checks; `failIndex` is written on failure.
#[allow(clippy::too_many_arguments)]
unsafe fn memcpy_batch(
    call: &'static str,
    dsts: *mut *mut c_void,
    destMaxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    numBatches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrsIndexes: *mut usize,
    numAttrs: usize,
    failIndex: Option<*mut usize>,
    stream: Option<aclrtStream>,
) -> aclError {
    entry(call, |rt| {
        if let Some(f) = failIndex {
            not_null(f, call, "failIndex")?;
        }
        let mut fail = usize::MAX;
        let result = (|| {
            not_null(dsts, call, "dsts")?;
            not_null(destMaxs, call, "destMaxs")?;
            not_null(srcs, call, "srcs")?;
            not_null(sizes, call, "sizes")?;
            not_null(attrs, call, "attrs")?;
            not_null(attrsIndexes, call, "attrsIndexes")?;
            // SAFETY: non-NULL (checked above), each array readable for its count: the C
            // caller's contract. A count of 0 reads nothing.
            let (copies, batch_attrs) = unsafe {
                let copies: Vec<BatchCopy> = (0..numBatches)
                    .map(|i| BatchCopy {
                        dst: *dsts.add(i) as usize,
                        dest_max: *destMaxs.add(i),
                        src: *srcs.add(i) as usize,
                        size: *sizes.add(i),
                    })
                    .collect();
                let batch_attrs: Vec<BatchAttr> = (0..numAttrs)
                    .map(|k| {
                        let a = *attrs.add(k);
                        BatchAttr {
                            first: *attrsIndexes.add(k),
                            dst: (a.dstLoc.r#type, a.dstLoc.id),
                            src: (a.srcLoc.r#type, a.srcLoc.id),
                            reserved_set: a.rsv.iter().any(|&b| b != 0),
                        }
                    })
                    .collect();
                (copies, batch_attrs)
            };
            // SAFETY: the C caller's contract for memory outside runtime allocations.
            unsafe {
                rt.memcpy_batch(
                    &copies,
                    &batch_attrs,
                    stream.map(stream_handle),
                    call,
                    &mut fail,
                )
            }
        })();
        if let (Err(_), Some(f)) = (&result, failIndex) {
            // SAFETY: non-NULL (checked above) and writable, the C caller's contract.
            unsafe { f.write(fail) };
        }
        result
    })
}

/// `aclrtMemcpyBatch`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyBatch(
    dsts: *mut *mut c_void,
    destMaxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    numBatches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrsIndexes: *mut usize,
    numAttrs: usize,
    failIndex: *mut usize,
) -> aclError {
    // SAFETY: forwarded C caller's contract.
    unsafe {
        memcpy_batch(
            "aclrtMemcpyBatch",
            dsts,
            destMaxs,
            srcs,
            sizes,
            numBatches,
            attrs,
            attrsIndexes,
            numAttrs,
            Some(failIndex),
            None,
        )
    }
}

/// `aclrtMemcpyBatchV2`: `aclrtMemcpyBatch` without `failIndex`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyBatchV2(
    dsts: *mut *mut c_void,
    destMaxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    numBatches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrsIndexes: *mut usize,
    numAttrs: usize,
) -> aclError {
    // SAFETY: forwarded C caller's contract.
    unsafe {
        memcpy_batch(
            "aclrtMemcpyBatchV2",
            dsts,
            destMaxs,
            srcs,
            sizes,
            numBatches,
            attrs,
            attrsIndexes,
            numAttrs,
            None,
            None,
        )
    }
}

/// `aclrtMemcpyBatchAsync`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyBatchAsync(
    dsts: *mut *mut c_void,
    destMaxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    numBatches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrsIndexes: *mut usize,
    numAttrs: usize,
    failIndex: *mut usize,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: forwarded C caller's contract.
    unsafe {
        memcpy_batch(
            "aclrtMemcpyBatchAsync",
            dsts,
            destMaxs,
            srcs,
            sizes,
            numBatches,
            attrs,
            attrsIndexes,
            numAttrs,
            Some(failIndex),
            Some(stream),
        )
    }
}

/// `aclrtMemcpyBatchAsyncV2`: `aclrtMemcpyBatchAsync` without `failIndex`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemcpyBatchAsyncV2(
    dsts: *mut *mut c_void,
    destMaxs: *mut usize,
    srcs: *mut *mut c_void,
    sizes: *mut usize,
    numBatches: usize,
    attrs: *mut aclrtMemcpyBatchAttr,
    attrsIndexes: *mut usize,
    numAttrs: usize,
    stream: aclrtStream,
) -> aclError {
    // SAFETY: forwarded C caller's contract.
    unsafe {
        memcpy_batch(
            "aclrtMemcpyBatchAsyncV2",
            dsts,
            destMaxs,
            srcs,
            sizes,
            numBatches,
            attrs,
            attrsIndexes,
            numAttrs,
            None,
            Some(stream),
        )
    }
}

/// `aclrtHostRegister`: `ptr` and `devPtr` are checked for NULL first, then the size.
#[no_mangle]
pub unsafe extern "C" fn aclrtHostRegister(
    ptr: *mut c_void,
    size: u64,
    r#type: u32,
    devPtr: *mut *mut c_void,
) -> aclError {
    entry("aclrtHostRegister", |rt| {
        not_null(ptr, "aclrtHostRegister", "ptr")?;
        not_null(devPtr, "aclrtHostRegister", "devPtr")?;
        let dev = rt.host_register(ptr as usize, size, r#type)?;
        // SAFETY: non-NULL (checked above) and writable, the C caller's contract.
        unsafe { devPtr.write(dev as *mut c_void) };
        Ok(())
    })
}

/// `aclrtHostRegisterV2`.
#[no_mangle]
pub extern "C" fn aclrtHostRegisterV2(ptr: *mut c_void, size: u64, flag: u32) -> aclError {
    entry("aclrtHostRegisterV2", |rt| {
        rt.host_register_v2(ptr as usize, size, flag)
    })
}

/// `aclrtHostGetDevicePointer`: `pHost` is checked before `pDevice`, as the vendor does.
#[no_mangle]
pub unsafe extern "C" fn aclrtHostGetDevicePointer(
    pHost: *mut c_void,
    pDevice: *mut *mut c_void,
    flag: u32,
) -> aclError {
    entry("aclrtHostGetDevicePointer", |rt| {
        not_null(pHost, "aclrtHostGetDevicePointer", "pHost")?;
        not_null(pDevice, "aclrtHostGetDevicePointer", "pDevice")?;
        let dev = rt.host_get_device_pointer(pHost as usize, flag)?;
        // SAFETY: non-NULL (checked above) and writable, the C caller's contract.
        unsafe { pDevice.write(dev as *mut c_void) };
        Ok(())
    })
}

/// `aclrtHostUnregister`.
#[no_mangle]
pub extern "C" fn aclrtHostUnregister(ptr: *mut c_void) -> aclError {
    entry("aclrtHostUnregister", |rt| rt.host_unregister(ptr as usize))
}

/// `aclrtMemUsageInfo`.
#[repr(C)]
pub struct aclrtMemUsageInfo {
    /// NUL-terminated component name.
    pub name: [c_char; 32],
    pub curMemSize: u64,
    pub memPeakSize: u64,
    pub reserved: [usize; 8],
}

/// `aclrtGetMemUsageInfo`: `memUsageInfo` holds `inputNum` entries.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetMemUsageInfo(
    deviceId: i32,
    memUsageInfo: *mut aclrtMemUsageInfo,
    inputNum: usize,
    outputNum: *mut usize,
) -> aclError {
    entry("aclrtGetMemUsageInfo", |rt| {
        not_null(memUsageInfo, "aclrtGetMemUsageInfo", "memUsageInfo")?;
        not_null(outputNum, "aclrtGetMemUsageInfo", "outputNum")?;
        let usage = rt.get_mem_usage_info(deviceId, inputNum)?;
        for (i, u) in usage.iter().enumerate() {
            let mut name = [0 as c_char; 32];
            for (dst, &b) in name.iter_mut().zip(u.name.as_bytes().iter().take(31)) {
                *dst = b as c_char;
            }
            let entry = aclrtMemUsageInfo {
                name,
                curMemSize: u.current,
                memPeakSize: u.peak,
                reserved: [0; 8],
            };
            // SAFETY: `memUsageInfo` holds `inputNum` writable entries (the C caller's
            // contract) and `usage` has at most `inputNum`.
            unsafe { memUsageInfo.add(i).write(entry) };
        }
        // SAFETY: non-NULL (checked above) and writable, the C caller's contract.
        unsafe { outputNum.write(usage.len()) };
        Ok(())
    })
}

/// `aclrtCheckMemType`: `addrList` holds `size` addresses.
#[no_mangle]
pub unsafe extern "C" fn aclrtCheckMemType(
    addrList: *mut *mut c_void,
    size: u32,
    memType: u32,
    checkResult: *mut u32,
    reserve: u32,
) -> aclError {
    entry("aclrtCheckMemType", |rt| {
        not_null(addrList, "aclrtCheckMemType", "addrList")?;
        not_null(checkResult, "aclrtCheckMemType", "checkResult")?;
        // SAFETY: non-NULL (checked above) and readable for `size` entries, the C caller's
        // contract.
        let addrs: Vec<usize> = unsafe { std::slice::from_raw_parts(addrList, size as usize) }
            .iter()
            .map(|&p| p as usize)
            .collect();
        let matched = rt.check_mem_type(&addrs, memType, reserve)?;
        // SAFETY: non-NULL (checked above) and writable, the C caller's contract.
        unsafe { checkResult.write(u32::from(matched)) };
        Ok(())
    })
}

/// `aclrtReduceAsync` (`aclrtReduceKind`, `aclDataType`).
#[no_mangle]
pub unsafe extern "C" fn aclrtReduceAsync(
    dst: *mut c_void,
    src: *const c_void,
    count: u64,
    kind: u32,
    r#type: i32,
    stream: aclrtStream,
    reserve: *mut c_void,
) -> aclError {
    entry("aclrtReduceAsync", |rt| {
        // SAFETY: the core checks both ranges against runtime memory; that they stay valid
        // until the task runs is the C caller's contract.
        unsafe {
            rt.reduce_async(
                dst as usize,
                src as usize,
                count,
                kind,
                r#type,
                stream_handle(stream),
                reserve as usize,
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn structs_have_the_c_layout() {
        assert_eq!(std::mem::size_of::<aclrtMallocAttribute>(), 12);
        assert_eq!(std::mem::size_of::<aclrtMallocConfig>(), 16);
        assert_eq!(std::mem::size_of::<aclrtPtrAttributes>(), 28);
        assert_eq!(std::mem::size_of::<aclrtPhysicalMemProp>(), 32);
    }
}

//! CUDA's stream-ordered allocator (`cuMemAllocAsync`, `cuMemPool*`, a device's default and
//! current pool) on the core's memory pools ([`crate::memory::pool`]).
//!
//! CUDA pools differ from the vendor's in their rules, not their machinery: every reuse
//! attribute starts on; each device has a default pool, made on first use, that cannot be
//! destroyed and is current until `cuDeviceSetMemPool` picks another; destroying a pool with
//! blocks still allocated kills its handle at once and frees its memory with the last of them;
//! a trim never fails and gives back only blocks whose free has run; a bad argument is
//! `CUDA_ERROR_INVALID_VALUE` and an exhausted pool `CUDA_ERROR_OUT_OF_MEMORY`. A stream that is
//! capturing refuses allocations and frees (`CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`): graphs
//! have no allocation nodes here.

use super::api::{cu, current, fail, resolve, sticky, stream_of, CuDevice, CuDevicePtr};
use super::capture;
use super::codes::*;
use super::{CuError, CuResultOf};
use crate::api::PoolKind;
use crate::codes::*;
use crate::handle::{MemPoolHandle, StreamHandle};
use crate::memory::pool::{Pool, NO_ROOM};
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::sync::lock;
use std::sync::Arc;

/// `CU_MEM_ALLOCATION_TYPE_PINNED`.
pub const CU_MEM_ALLOCATION_TYPE_PINNED: u32 = 1;
/// `CU_MEM_HANDLE_TYPE_NONE`.
pub const CU_MEM_HANDLE_TYPE_NONE: u32 = 0;
/// `CU_MEM_LOCATION_TYPE_DEVICE`.
pub const CU_MEM_LOCATION_TYPE_DEVICE: u32 = 1;

/// `CUmemPoolProps`, as the face reads it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CuMemPoolProps {
    /// `CUmemAllocationType`.
    pub alloc_type: u32,
    /// `CUmemAllocationHandleType` bits.
    pub handle_types: u32,
    /// `CUmemLocation.type`.
    pub location_type: u32,
    /// `CUmemLocation.id`.
    pub location_id: i32,
    /// Bytes; 0 is the device's whole memory.
    pub max_size: usize,
}

/// Pool errors in CUDA's terms: what the vendor reports as an internal error is a bad argument
/// here, or no memory when the pool is full.
fn pool_error(e: crate::Error) -> CuError {
    let code = match e.code() {
        ACL_ERROR_RT_INTERNAL_ERROR if e.message().contains(NO_ROOM) => CUDA_ERROR_OUT_OF_MEMORY,
        ACL_ERROR_RT_INTERNAL_ERROR | ACL_ERROR_RT_MEMORY_FREE => CUDA_ERROR_INVALID_VALUE,
        other => from_acl(other),
    };
    CuError::new(code, e.message())
}

fn pool_of(rt: &Runtime, handle: MemPoolHandle, call: &str) -> CuResultOf<Arc<Pool>> {
    rt.lookup_pool(handle, ACL_ERROR_INVALID_PARAM, call)
        .map_err(pool_error)
}

/// The stream a pool call works on, refusing one that is capturing.
fn work_stream(rt: &Runtime, handle: StreamHandle, call: &str) -> CuResultOf<Arc<Stream>> {
    let s = stream_of(rt, resolve(rt, handle)?)?;
    current(rt)?;
    sticky(&s.context)?;
    let s = rt.stream_for_work(Some(s), call)?;
    if capture::capturing(rt, &s, call)? {
        return fail(
            CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
            format!(
                "{call}: stream {} is capturing: graphs have no allocation nodes here",
                s.id
            ),
        );
    }
    Ok(s)
}

fn check_device(rt: &Runtime, dev: CuDevice, call: &str) -> CuResultOf<()> {
    if rt.device(dev).is_none() {
        return fail(
            CUDA_ERROR_INVALID_DEVICE,
            format!("{call}: device {dev} does not exist"),
        );
    }
    Ok(())
}

/// The default pool of `dev`, made on first use.
fn default_pool(rt: &Runtime, dev: CuDevice, call: &str) -> CuResultOf<MemPoolHandle> {
    check_device(rt, dev, call)?;
    if let Some(&raw) = lock(&rt.pools.per_device).default.get(&dev) {
        return Ok(MemPoolHandle::from_raw(raw));
    }
    let made = rt
        .create_pool(dev, 0, PoolKind::CudaDefault, call)
        .map_err(pool_error)?;
    let mut per = lock(&rt.pools.per_device);
    let kept = *per.default.entry(dev).or_insert(made.as_raw());
    drop(per);
    if kept != made.as_raw() {
        // Another thread made one first: ours goes.
        if let Some(p) = rt.pools.table.remove(made.as_raw()) {
            rt.end_pool(&p);
        }
    }
    Ok(MemPoolHandle::from_raw(kept))
}

/// The current pool of `dev`.
fn current_pool(rt: &Runtime, dev: CuDevice, call: &str) -> CuResultOf<MemPoolHandle> {
    check_device(rt, dev, call)?;
    if let Some(&raw) = lock(&rt.pools.per_device).current.get(&dev) {
        return Ok(MemPoolHandle::from_raw(raw));
    }
    default_pool(rt, dev, call)
}

fn alloc_on(
    rt: &Runtime,
    size: usize,
    pool: Option<MemPoolHandle>,
    stream: StreamHandle,
    call: &str,
) -> CuResultOf<CuDevicePtr> {
    let s = work_stream(rt, stream, call)?;
    let handle = match pool {
        Some(h) => h,
        None => current_pool(rt, s.context.device.id, call)?,
    };
    let pool = pool_of(rt, handle, call)?;
    if size == 0 {
        return fail(CUDA_ERROR_INVALID_VALUE, format!("{call}: bytesize is 0"));
    }
    let ptr = rt
        .pool_allocate(&pool, size, &s, call)
        .map_err(pool_error)?;
    Ok(ptr as CuDevicePtr)
}

/// `cuMemAllocAsync`: from the current pool of the stream's device.
pub fn mem_alloc_async(size: usize, stream: StreamHandle) -> CuResultOf<CuDevicePtr> {
    cu(|rt| alloc_on(rt, size, None, stream, "cuMemAllocAsync"))
}

/// `cuMemAllocFromPoolAsync`.
pub fn mem_alloc_from_pool_async(
    size: usize,
    pool: MemPoolHandle,
    stream: StreamHandle,
) -> CuResultOf<CuDevicePtr> {
    cu(|rt| {
        if pool.is_null() {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                "cuMemAllocFromPoolAsync: the pool is NULL",
            );
        }
        alloc_on(rt, size, Some(pool), stream, "cuMemAllocFromPoolAsync")
    })
}

/// `cuMemFreeAsync`: only memory from a pool.
pub fn mem_free_async(ptr: CuDevicePtr, stream: StreamHandle) -> CuResultOf<()> {
    const CALL: &str = "cuMemFreeAsync";
    cu(|rt| {
        let s = work_stream(rt, stream, CALL)?;
        if rt.pools.holding(ptr as usize).is_none() {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{CALL}: {ptr:#x} was not allocated by cuMemAllocAsync or from a pool"),
            );
        }
        rt.pool_free(ptr as usize, &s, CALL).map_err(pool_error)
    })
}

/// `cuMemPoolCreate`: pinned device memory, no shareable handle types.
pub fn mem_pool_create(props: &CuMemPoolProps) -> CuResultOf<MemPoolHandle> {
    const CALL: &str = "cuMemPoolCreate";
    cu(|rt| {
        if props.alloc_type != CU_MEM_ALLOCATION_TYPE_PINNED
            || props.location_type != CU_MEM_LOCATION_TYPE_DEVICE
        {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{CALL}: allocType {} and location type {} must be \
                     CU_MEM_ALLOCATION_TYPE_PINNED and CU_MEM_LOCATION_TYPE_DEVICE",
                    props.alloc_type, props.location_type
                ),
            );
        }
        if props.handle_types != CU_MEM_HANDLE_TYPE_NONE {
            return fail(
                CUDA_ERROR_NOT_SUPPORTED,
                format!(
                    "{CALL}: handle types {:#x}: the emulated device exports no pool handles",
                    props.handle_types
                ),
            );
        }
        check_device(rt, props.location_id, CALL)?;
        rt.create_pool(props.location_id, props.max_size, PoolKind::Cuda, CALL)
            .map_err(|e| {
                let code = match e.code() {
                    ACL_ERROR_RT_PARAM_INVALID => CUDA_ERROR_INVALID_VALUE,
                    other => from_acl(other),
                };
                CuError::new(code, e.message())
            })
    })
}

/// `cuMemPoolDestroy`: the handle dies at once; the memory goes with the last allocated block.
pub fn mem_pool_destroy(pool: MemPoolHandle) -> CuResultOf<()> {
    cu(|rt| {
        rt.retire_pool(pool, "cuMemPoolDestroy")
            .map(|_| ())
            .map_err(pool_error)
    })
}

/// `cuMemPoolSetAttribute`.
///
/// # Safety
/// `value` is NULL or points to an `int` (reuse attributes) or `cuuint64_t` (the others).
pub unsafe fn mem_pool_set_attribute(
    pool: MemPoolHandle,
    attr: u32,
    value: usize,
) -> CuResultOf<()> {
    const CALL: &str = "cuMemPoolSetAttribute";
    cu(|rt| {
        let p = pool_of(rt, pool, CALL)?;
        if value == 0 {
            return fail(CUDA_ERROR_INVALID_VALUE, format!("{CALL}: value is NULL"));
        }
        // SAFETY: non-NULL, of the attribute's type by the caller's contract.
        let flag = || unsafe { *(value as *const i32) } != 0;
        // SAFETY: as above.
        let bytes = || unsafe { *(value as *const u64) };
        match attr {
            1 => p.set_attrs(|a| a.event_dependencies = flag()),
            2 => p.set_attrs(|a| a.opportunistic = flag()),
            3 => p.set_attrs(|a| a.internal_dependencies = flag()),
            4 => {
                let v = bytes();
                p.set_attrs(|a| a.release_threshold = v);
            }
            6 | 8 if bytes() == 0 => p.reset_high(attr == 6),
            _ => {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{CALL}: attribute {attr} cannot be set to that (the current sizes are \
                         read-only, the high marks only reset to 0)"
                    ),
                )
            }
        }
        Ok(())
    })
}

/// `cuMemPoolGetAttribute`.
///
/// # Safety
/// `value` is NULL or writable as the attribute's type (`int` or `cuuint64_t`).
pub unsafe fn mem_pool_get_attribute(
    pool: MemPoolHandle,
    attr: u32,
    value: usize,
) -> CuResultOf<()> {
    const CALL: &str = "cuMemPoolGetAttribute";
    cu(|rt| {
        let p = pool_of(rt, pool, CALL)?;
        if value == 0 {
            return fail(CUDA_ERROR_INVALID_VALUE, format!("{CALL}: value is NULL"));
        }
        let (a, u) = (p.attrs(), p.usage());
        let word = match attr {
            1 => Err(a.event_dependencies as i32),
            2 => Err(a.opportunistic as i32),
            3 => Err(a.internal_dependencies as i32),
            4 => Ok(a.release_threshold),
            5 => Ok(u.reserved),
            6 => Ok(u.reserved_high),
            7 => Ok(u.used),
            8 => Ok(u.used_high),
            _ => {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{CALL}: {attr} is not a CUmemPool_attribute"),
                )
            }
        };
        // SAFETY: non-NULL and writable as the attribute's type, the caller's contract.
        unsafe {
            match word {
                Ok(v) => *(value as *mut u64) = v,
                Err(v) => *(value as *mut i32) = v,
            }
        }
        Ok(())
    })
}

/// `cuMemPoolTrimTo`.
pub fn mem_pool_trim_to(pool: MemPoolHandle, keep: usize) -> CuResultOf<()> {
    const CALL: &str = "cuMemPoolTrimTo";
    cu(|rt| {
        let p = pool_of(rt, pool, CALL)?;
        rt.trim_pool(&p, keep, true, CALL).map_err(pool_error)
    })
}

/// `cuDeviceGetDefaultMemPool`.
pub fn device_get_default_mem_pool(dev: CuDevice) -> CuResultOf<MemPoolHandle> {
    cu(|rt| default_pool(rt, dev, "cuDeviceGetDefaultMemPool"))
}

/// `cuDeviceGetMemPool`: the current pool (the default one until another is set).
pub fn device_get_mem_pool(dev: CuDevice) -> CuResultOf<MemPoolHandle> {
    cu(|rt| current_pool(rt, dev, "cuDeviceGetMemPool"))
}

/// `cuDeviceSetMemPool`: the pool must be of that device.
pub fn device_set_mem_pool(dev: CuDevice, pool: MemPoolHandle) -> CuResultOf<()> {
    const CALL: &str = "cuDeviceSetMemPool";
    cu(|rt| {
        check_device(rt, dev, CALL)?;
        let p = pool_of(rt, pool, CALL)?;
        if p.device != dev {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{CALL}: the pool is of device {}, not {dev}", p.device),
            );
        }
        lock(&rt.pools.per_device)
            .current
            .insert(dev, pool.as_raw());
        Ok(())
    })
}

/// What CUDA does when a synchronize of a stream, an event or the context returns: each pool
/// of the device gives the memory it caches beyond its release threshold
/// (`CU_MEMPOOL_ATTR_RELEASE_THRESHOLD`, 0 unless set) back, as a `cuMemPoolTrimTo` to the
/// threshold would (blocks whose free has run only).
pub(crate) fn release_at_sync(rt: &Runtime, device: i32) {
    if !rt.pools.any.load(std::sync::atomic::Ordering::Acquire) {
        return;
    }
    for (_, pool) in rt.pools.table.values() {
        if pool.device == device {
            let keep = usize::try_from(pool.attrs().release_threshold).unwrap_or(usize::MAX);
            // Lenient trims never fail.
            let _ = rt.trim_pool(&pool, keep, true, "synchronize");
        }
    }
}

//! The stream-ordered allocator: `cuMemAllocAsync`, `cuMemFreeAsync`, `cuMemPool*` and a
//! device's default and current pool.

use std::ffi::{c_int, c_void};

use aclrt::cuda::{self, CuMemPoolProps};
use aclrt::MemPoolHandle;

use crate::{guard, out_ptr, put, stream, CUdevice, CUdeviceptr, CUresult, CUstream};

/// `CUmemoryPool`: opaque.
pub type CUmemoryPool = *mut c_void;

pub use crate::memory::CUmemLocation;

/// `CUmemPoolProps`.
#[repr(C)]
#[allow(non_snake_case)]
pub struct CUmemPoolProps {
    /// `CUmemAllocationType`.
    pub allocType: c_int,
    /// `CUmemAllocationHandleType` bits.
    pub handleTypes: c_int,
    /// Where the memory lives.
    pub location: CUmemLocation,
    /// Windows only.
    pub win32SecurityAttributes: *mut c_void,
    /// Bytes; 0 is the device's whole memory.
    pub maxSize: usize,
    /// `CUmemPoolProps.usage`.
    pub usage: u16,
    /// Must be zero.
    pub reserved: [u8; 54],
}

fn pool(p: CUmemoryPool) -> MemPoolHandle {
    MemPoolHandle::from_raw(p as u64)
}

/// `cuMemAllocAsync`.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocAsync(
    dptr: *mut CUdeviceptr,
    bytesize: usize,
    hStream: CUstream,
) -> CUresult {
    guard(|| {
        out_ptr(dptr, "dptr")?;
        put(dptr, cuda::mem_alloc_async(bytesize, stream(hStream))?);
        Ok(())
    })
}

/// `cuMemAllocFromPoolAsync`.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocFromPoolAsync(
    dptr: *mut CUdeviceptr,
    bytesize: usize,
    memPool: CUmemoryPool,
    hStream: CUstream,
) -> CUresult {
    guard(|| {
        out_ptr(dptr, "dptr")?;
        put(
            dptr,
            cuda::mem_alloc_from_pool_async(bytesize, pool(memPool), stream(hStream))?,
        );
        Ok(())
    })
}

/// `cuMemFreeAsync`.
#[no_mangle]
pub extern "C" fn cuMemFreeAsync(dptr: CUdeviceptr, hStream: CUstream) -> CUresult {
    guard(|| cuda::mem_free_async(dptr, stream(hStream)))
}

/// `cuMemPoolCreate`.
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolCreate(
    memPool: *mut CUmemoryPool,
    poolProps: *const CUmemPoolProps,
) -> CUresult {
    guard(|| {
        out_ptr(memPool, "pool")?;
        out_ptr(poolProps as *mut CUmemPoolProps, "poolProps")?;
        // SAFETY: non-NULL; readable by the C caller's contract.
        let p = unsafe { &*poolProps };
        let props = CuMemPoolProps {
            alloc_type: p.allocType as u32,
            handle_types: p.handleTypes as u32,
            location_type: p.location.type_ as u32,
            location_id: p.location.id,
            max_size: p.maxSize,
        };
        let handle = cuda::mem_pool_create(&props)?;
        put(memPool, handle.as_raw() as CUmemoryPool);
        Ok(())
    })
}

/// `cuMemPoolDestroy`.
#[no_mangle]
pub extern "C" fn cuMemPoolDestroy(memPool: CUmemoryPool) -> CUresult {
    guard(|| cuda::mem_pool_destroy(pool(memPool)))
}

/// `cuMemPoolSetAttribute`: `value` points to an `int` or a `cuuint64_t` by attribute.
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolSetAttribute(
    memPool: CUmemoryPool,
    attr: c_int,
    value: *mut c_void,
) -> CUresult {
    // SAFETY: `value` is NULL or of the attribute's type, the C caller's contract.
    guard(|| unsafe { cuda::mem_pool_set_attribute(pool(memPool), attr as u32, value as usize) })
}

/// `cuMemPoolGetAttribute`.
#[no_mangle]
pub unsafe extern "C" fn cuMemPoolGetAttribute(
    memPool: CUmemoryPool,
    attr: c_int,
    value: *mut c_void,
) -> CUresult {
    // SAFETY: `value` is NULL or writable as the attribute's type, the C caller's contract.
    guard(|| unsafe { cuda::mem_pool_get_attribute(pool(memPool), attr as u32, value as usize) })
}

/// `cuMemPoolTrimTo`.
#[no_mangle]
pub extern "C" fn cuMemPoolTrimTo(memPool: CUmemoryPool, minBytesToKeep: usize) -> CUresult {
    guard(|| cuda::mem_pool_trim_to(pool(memPool), minBytesToKeep))
}

/// `cuDeviceGetDefaultMemPool`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetDefaultMemPool(
    pool_out: *mut CUmemoryPool,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(pool_out, "pool_out")?;
        put(
            pool_out,
            cuda::device_get_default_mem_pool(dev)?.as_raw() as CUmemoryPool,
        );
        Ok(())
    })
}

/// `cuDeviceGetMemPool`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetMemPool(
    pool_out: *mut CUmemoryPool,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(pool_out, "pool")?;
        put(
            pool_out,
            cuda::device_get_mem_pool(dev)?.as_raw() as CUmemoryPool,
        );
        Ok(())
    })
}

/// `cuDeviceSetMemPool`.
#[no_mangle]
pub extern "C" fn cuDeviceSetMemPool(dev: CUdevice, memPool: CUmemoryPool) -> CUresult {
    guard(|| cuda::device_set_mem_pool(dev, pool(memPool)))
}

//! The first versions of the calls CUDA later replaced by `_v2` forms with 64-bit device
//! pointers and `size_t` sizes. The driver still exports them under the plain names (a program
//! built against `cuda.h` links the `_v2` names instead). Those taking or returning a 32-bit
//! `CUdeviceptr_v1` cannot address the emulated device's memory, which lies above 4 GiB, and
//! return `CUDA_ERROR_NOT_SUPPORTED`; the others are served.

use std::ffi::{c_uint, c_void};

use aclrt::cuda::{self, codes::*, CuError};

use crate::{guard, out_ptr, put, CUdevice, CUresult};

/// `CUdeviceptr_v1`.
pub type CUdeviceptr_v1 = c_uint;

fn narrow(value: usize) -> c_uint {
    value.min(c_uint::MAX as usize) as c_uint
}

/// `cuDeviceTotalMem` (first version): the size, clamped to 4 GiB - 1.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem(bytes: *mut c_uint, dev: CUdevice) -> CUresult {
    guard(|| {
        out_ptr(bytes, "bytes")?;
        put(bytes, narrow(cuda::device_total_mem(dev)?));
        Ok(())
    })
}

/// `cuMemGetInfo` (first version): clamped to 4 GiB - 1.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo(free: *mut c_uint, total: *mut c_uint) -> CUresult {
    guard(|| {
        out_ptr(free, "free")?;
        out_ptr(total, "total")?;
        let (f, t) = cuda::mem_get_info()?;
        put(free, narrow(f));
        put(total, narrow(t));
        Ok(())
    })
}

/// `cuMemAllocHost` (first version: an `unsigned int` size).
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost(pp: *mut *mut c_void, bytesize: c_uint) -> CUresult {
    // SAFETY: same contract.
    unsafe { crate::memory::cuMemHostAlloc(pp, bytesize as usize, 0) }
}

fn pointer_v1(call: &str) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        Err(CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{call}: 32-bit device pointers cannot address the emulated device's memory; use {call}_v2"),
        ))
    })
}

macro_rules! pointer_v1 {
    ($($(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*);)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        #[allow(unused_variables)]
        pub extern "C" fn $name($($arg: $ty),*) -> CUresult {
            pointer_v1(stringify!($name))
        }
    )*};
}

pointer_v1! {
    /// `cuMemAlloc` (first version).
    cuMemAlloc(dptr: *mut CUdeviceptr_v1, bytesize: c_uint);
    /// `cuMemAllocPitch` (first version).
    cuMemAllocPitch(dptr: *mut CUdeviceptr_v1, pPitch: *mut c_uint, WidthInBytes: c_uint, Height: c_uint, ElementSizeBytes: c_uint);
    /// `cuMemFree` (first version).
    cuMemFree(dptr: CUdeviceptr_v1);
    /// `cuMemGetAddressRange` (first version).
    cuMemGetAddressRange(pbase: *mut CUdeviceptr_v1, psize: *mut c_uint, dptr: CUdeviceptr_v1);
    /// `cuMemHostGetDevicePointer` (first version).
    cuMemHostGetDevicePointer(pdptr: *mut CUdeviceptr_v1, p: *mut c_void, Flags: c_uint);
    /// `cuModuleGetGlobal` (first version).
    cuModuleGetGlobal(dptr: *mut CUdeviceptr_v1, bytes: *mut c_uint, hmod: *mut c_void, name: *const std::ffi::c_char);
    /// `cuMemcpyHtoD` (first version).
    cuMemcpyHtoD(dstDevice: CUdeviceptr_v1, srcHost: *const c_void, ByteCount: c_uint);
    /// `cuMemcpyHtoDAsync` (first version).
    cuMemcpyHtoDAsync(dstDevice: CUdeviceptr_v1, srcHost: *const c_void, ByteCount: c_uint, hStream: *mut c_void);
    /// `cuMemcpyDtoH` (first version).
    cuMemcpyDtoH(dstHost: *mut c_void, srcDevice: CUdeviceptr_v1, ByteCount: c_uint);
    /// `cuMemcpyDtoHAsync` (first version).
    cuMemcpyDtoHAsync(dstHost: *mut c_void, srcDevice: CUdeviceptr_v1, ByteCount: c_uint, hStream: *mut c_void);
    /// `cuMemcpyDtoD` (first version).
    cuMemcpyDtoD(dstDevice: CUdeviceptr_v1, srcDevice: CUdeviceptr_v1, ByteCount: c_uint);
    /// `cuMemcpyDtoDAsync` (first version).
    cuMemcpyDtoDAsync(dstDevice: CUdeviceptr_v1, srcDevice: CUdeviceptr_v1, ByteCount: c_uint, hStream: *mut c_void);
    /// `cuMemcpy2D` (first version: a `CUDA_MEMCPY2D_v1` with 32-bit fields).
    cuMemcpy2D(pCopy: *const c_void);
    /// `cuMemcpy2DUnaligned` (first version).
    cuMemcpy2DUnaligned(pCopy: *const c_void);
    /// `cuMemcpy2DAsync` (first version).
    cuMemcpy2DAsync(pCopy: *const c_void, hStream: *mut c_void);
    /// `cuMemcpy3D` (first version: a `CUDA_MEMCPY3D_v1` with 32-bit fields).
    cuMemcpy3D(pCopy: *const c_void);
    /// `cuMemcpy3DAsync` (first version).
    cuMemcpy3DAsync(pCopy: *const c_void, hStream: *mut c_void);
    /// `cuMemsetD8` (first version).
    cuMemsetD8(dstDevice: CUdeviceptr_v1, uc: u8, N: c_uint);
    /// `cuMemsetD16` (first version).
    cuMemsetD16(dstDevice: CUdeviceptr_v1, us: u16, N: c_uint);
    /// `cuMemsetD32` (first version).
    cuMemsetD32(dstDevice: CUdeviceptr_v1, ui: c_uint, N: c_uint);
    /// `cuMemsetD2D8` (first version).
    cuMemsetD2D8(dstDevice: CUdeviceptr_v1, dstPitch: c_uint, uc: u8, Width: c_uint, Height: c_uint);
    /// `cuMemsetD2D16` (first version).
    cuMemsetD2D16(dstDevice: CUdeviceptr_v1, dstPitch: c_uint, us: u16, Width: c_uint, Height: c_uint);
    /// `cuMemsetD2D32` (first version).
    cuMemsetD2D32(dstDevice: CUdeviceptr_v1, dstPitch: c_uint, ui: c_uint, Width: c_uint, Height: c_uint);
}

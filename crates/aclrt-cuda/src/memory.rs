//! Memory: `cuMem*` allocation, copies and sets (the `_v2` ABI, with 64-bit device pointers
//! and `size_t` sizes; `legacy.rs` has the first versions).

use std::ffi::{c_int, c_uint, c_void};

use aclrt::cuda::{self, codes::*, CuError, Direction, Mode, Pattern, Side2D};

use crate::per_thread::sync_mode;
use crate::{
    context, guard, out_ptr, put, stream, CUcontext, CUdevice, CUdeviceptr, CUresult, CUstream,
};

/// `CUmemLocation`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CUmemLocation {
    pub type_: c_int,
    pub id: c_int,
}

/// `CUDA_MEMCPY2D`.
#[repr(C)]
pub struct CUDA_MEMCPY2D {
    pub srcXInBytes: usize,
    pub srcY: usize,
    pub srcMemoryType: c_uint,
    pub srcHost: *const c_void,
    pub srcDevice: CUdeviceptr,
    pub srcArray: *mut c_void,
    pub srcPitch: usize,
    pub dstXInBytes: usize,
    pub dstY: usize,
    pub dstMemoryType: c_uint,
    pub dstHost: *mut c_void,
    pub dstDevice: CUdeviceptr,
    pub dstArray: *mut c_void,
    pub dstPitch: usize,
    pub WidthInBytes: usize,
    pub Height: usize,
}

// ---- allocation ----------------------------------------------------------------------------

/// `cuMemAlloc_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult {
    guard(|| {
        out_ptr(dptr, "dptr")?;
        put(dptr, cuda::mem_alloc(bytesize)?);
        Ok(())
    })
}

/// `cuMemAllocPitch_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocPitch_v2(
    dptr: *mut CUdeviceptr,
    pPitch: *mut usize,
    WidthInBytes: usize,
    Height: usize,
    ElementSizeBytes: c_uint,
) -> CUresult {
    guard(|| {
        out_ptr(dptr, "dptr")?;
        out_ptr(pPitch, "pPitch")?;
        let (p, pitch) = cuda::mem_alloc_pitch(WidthInBytes, Height, ElementSizeBytes)?;
        put(dptr, p);
        put(pPitch, pitch);
        Ok(())
    })
}

/// `cuMemFree_v2`.
#[no_mangle]
pub extern "C" fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult {
    guard(|| cuda::mem_free(dptr))
}

/// `cuMemGetInfo_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetInfo_v2(free: *mut usize, total: *mut usize) -> CUresult {
    guard(|| {
        out_ptr(free, "free")?;
        out_ptr(total, "total")?;
        let (f, t) = cuda::mem_get_info()?;
        put(free, f);
        put(total, t);
        Ok(())
    })
}

/// `cuMemGetAddressRange_v2`: either output may be NULL.
#[no_mangle]
pub unsafe extern "C" fn cuMemGetAddressRange_v2(
    pbase: *mut CUdeviceptr,
    psize: *mut usize,
    dptr: CUdeviceptr,
) -> CUresult {
    guard(|| {
        let (base, size) = cuda::mem_get_address_range(dptr)?;
        if !pbase.is_null() {
            put(pbase, base);
        }
        if !psize.is_null() {
            put(psize, size);
        }
        Ok(())
    })
}

/// `cuMemAllocHost_v2`: page-locked host memory.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: usize) -> CUresult {
    // SAFETY: same contract.
    unsafe { cuMemHostAlloc(pp, bytesize, 0) }
}

/// `cuMemHostAlloc`: flags `CU_MEMHOSTALLOC_PORTABLE | _DEVICEMAP | _WRITECOMBINED`.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostAlloc(
    pp: *mut *mut c_void,
    bytesize: usize,
    Flags: c_uint,
) -> CUresult {
    guard(|| {
        out_ptr(pp, "pp")?;
        put(pp, cuda::mem_host_alloc(bytesize, Flags)? as *mut c_void);
        Ok(())
    })
}

/// `cuMemFreeHost`.
#[no_mangle]
pub extern "C" fn cuMemFreeHost(p: *mut c_void) -> CUresult {
    guard(|| cuda::mem_free_host(p as usize))
}

/// `cuMemHostGetFlags`.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetFlags(pFlags: *mut c_uint, p: *mut c_void) -> CUresult {
    guard(|| {
        out_ptr(pFlags, "pFlags")?;
        put(pFlags, cuda::mem_host_get_flags(p as usize)?);
        Ok(())
    })
}

/// `cuMemHostGetDevicePointer_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemHostGetDevicePointer_v2(
    pdptr: *mut CUdeviceptr,
    p: *mut c_void,
    Flags: c_uint,
) -> CUresult {
    guard(|| {
        out_ptr(pdptr, "pdptr")?;
        put(pdptr, cuda::mem_host_get_device_pointer(p as usize, Flags)?);
        Ok(())
    })
}

/// `cuMemHostRegister` (the first version has the same signature).
#[no_mangle]
pub extern "C" fn cuMemHostRegister(p: *mut c_void, bytesize: usize, Flags: c_uint) -> CUresult {
    cuMemHostRegister_v2(p, bytesize, Flags)
}

/// `cuMemHostRegister_v2`: the range counts as pinned memory until unregistered.
#[no_mangle]
pub extern "C" fn cuMemHostRegister_v2(p: *mut c_void, bytesize: usize, Flags: c_uint) -> CUresult {
    guard(|| cuda::mem_host_register(p as usize, bytesize, Flags))
}

/// `cuMemHostUnregister`.
#[no_mangle]
pub extern "C" fn cuMemHostUnregister(p: *mut c_void) -> CUresult {
    guard(|| cuda::mem_host_unregister(p as usize))
}

/// `cuMemAllocManaged`.
#[no_mangle]
pub unsafe extern "C" fn cuMemAllocManaged(
    dptr: *mut CUdeviceptr,
    bytesize: usize,
    flags: c_uint,
) -> CUresult {
    guard(|| {
        out_ptr(dptr, "dptr")?;
        put(dptr, cuda::mem_alloc_managed(bytesize, flags)?);
        Ok(())
    })
}

/// `cuMemAdvise` (first version: a device ordinal).
#[no_mangle]
pub extern "C" fn cuMemAdvise(
    devPtr: CUdeviceptr,
    count: usize,
    advice: c_int,
    _device: CUdevice,
) -> CUresult {
    guard(|| cuda::mem_advise(devPtr as usize, count, advice as u32))
}

/// `cuMemAdvise_v2` (a `CUmemLocation`).
#[no_mangle]
pub extern "C" fn cuMemAdvise_v2(
    devPtr: CUdeviceptr,
    count: usize,
    advice: c_int,
    _location: CUmemLocation,
) -> CUresult {
    guard(|| cuda::mem_advise(devPtr as usize, count, advice as u32))
}

/// `cuMemPrefetchAsync` (first version).
#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync(
    devPtr: CUdeviceptr,
    count: usize,
    _dstDevice: CUdevice,
    hStream: CUstream,
) -> CUresult {
    guard(|| cuda::mem_prefetch_async(devPtr as usize, count, stream(hStream)))
}

/// `cuMemPrefetchAsync_v2`: `flags` must be 0.
#[no_mangle]
pub extern "C" fn cuMemPrefetchAsync_v2(
    devPtr: CUdeviceptr,
    count: usize,
    _location: CUmemLocation,
    flags: c_uint,
    hStream: CUstream,
) -> CUresult {
    guard(|| {
        if flags != 0 {
            cuda::ensure_initialized()?;
            return Err(CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                "cuMemPrefetchAsync: flags must be 0",
            ));
        }
        cuda::mem_prefetch_async(devPtr as usize, count, stream(hStream))
    })
}

/// `cuStreamAttachMemAsync`.
#[no_mangle]
pub extern "C" fn cuStreamAttachMemAsync(
    hStream: CUstream,
    dptr: CUdeviceptr,
    length: usize,
    flags: c_uint,
) -> CUresult {
    guard(|| cuda::stream_attach_mem_async(stream(hStream), dptr as usize, length, flags))
}

// ---- copies --------------------------------------------------------------------------------

fn copy(
    dst: usize,
    src: usize,
    count: usize,
    direction: Direction,
    mode: Mode,
    call: &'static str,
) -> CUresult {
    // SAFETY: the caller of the C function promises the ranges, as CUDA requires.
    guard(|| unsafe { cuda::memcpy(dst, src, count, direction, mode, call) })
}

/// `cuMemcpy`: the direction is inferred from the pointers (unified addressing).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    ByteCount: usize,
) -> CUresult {
    copy(
        dst as usize,
        src as usize,
        ByteCount,
        Direction::Unified,
        sync_mode(),
        "cuMemcpy",
    )
}

/// `cuMemcpyAsync`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyAsync(
    dst: CUdeviceptr,
    src: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let mode = Mode::Async(stream(hStream));
    copy(
        dst as usize,
        src as usize,
        ByteCount,
        Direction::Unified,
        mode,
        "cuMemcpyAsync",
    )
}

/// `cuMemcpyHtoD_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoD_v2(
    dstDevice: CUdeviceptr,
    srcHost: *const c_void,
    ByteCount: usize,
) -> CUresult {
    let (d, s) = (dstDevice as usize, srcHost as usize);
    copy(
        d,
        s,
        ByteCount,
        Direction::HostToDevice,
        sync_mode(),
        "cuMemcpyHtoD",
    )
}

/// `cuMemcpyHtoDAsync_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyHtoDAsync_v2(
    dstDevice: CUdeviceptr,
    srcHost: *const c_void,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let (d, s) = (dstDevice as usize, srcHost as usize);
    let mode = Mode::Async(stream(hStream));
    copy(
        d,
        s,
        ByteCount,
        Direction::HostToDevice,
        mode,
        "cuMemcpyHtoDAsync",
    )
}

/// `cuMemcpyDtoH_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoH_v2(
    dstHost: *mut c_void,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
) -> CUresult {
    let (d, s) = (dstHost as usize, srcDevice as usize);
    copy(
        d,
        s,
        ByteCount,
        Direction::DeviceToHost,
        sync_mode(),
        "cuMemcpyDtoH",
    )
}

/// `cuMemcpyDtoHAsync_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoHAsync_v2(
    dstHost: *mut c_void,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let (d, s) = (dstHost as usize, srcDevice as usize);
    let mode = Mode::Async(stream(hStream));
    copy(
        d,
        s,
        ByteCount,
        Direction::DeviceToHost,
        mode,
        "cuMemcpyDtoHAsync",
    )
}

/// `cuMemcpyDtoD_v2`: queued on the legacy stream; returns at once.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoD_v2(
    dstDevice: CUdeviceptr,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
) -> CUresult {
    let (d, s) = (dstDevice as usize, srcDevice as usize);
    copy(
        d,
        s,
        ByteCount,
        Direction::DeviceToDevice,
        sync_mode(),
        "cuMemcpyDtoD",
    )
}

/// `cuMemcpyDtoDAsync_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyDtoDAsync_v2(
    dstDevice: CUdeviceptr,
    srcDevice: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let (d, s) = (dstDevice as usize, srcDevice as usize);
    let mode = Mode::Async(stream(hStream));
    copy(
        d,
        s,
        ByteCount,
        Direction::DeviceToDevice,
        mode,
        "cuMemcpyDtoDAsync",
    )
}

fn check_ctx(ctx: CUcontext) -> Result<(), CuError> {
    cuda::ctx_get_api_version(context(ctx)).map(|_| ())
}

/// `cuMemcpyPeer`: both contexts must be live; the devices share the host's memory, so this
/// is a device-to-device copy.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyPeer(
    dstDevice: CUdeviceptr,
    dstContext: CUcontext,
    srcDevice: CUdeviceptr,
    srcContext: CUcontext,
    ByteCount: usize,
) -> CUresult {
    match guard(|| {
        cuda::ensure_initialized()?;
        check_ctx(dstContext)?;
        check_ctx(srcContext)
    }) {
        CUDA_SUCCESS => {
            let (d, s) = (dstDevice as usize, srcDevice as usize);
            copy(
                d,
                s,
                ByteCount,
                Direction::DeviceToDevice,
                sync_mode(),
                "cuMemcpyPeer",
            )
        }
        code => code,
    }
}

/// `cuMemcpyPeerAsync`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpyPeerAsync(
    dstDevice: CUdeviceptr,
    dstContext: CUcontext,
    srcDevice: CUdeviceptr,
    srcContext: CUcontext,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    match guard(|| {
        cuda::ensure_initialized()?;
        check_ctx(dstContext)?;
        check_ctx(srcContext)
    }) {
        CUDA_SUCCESS => {
            let (d, s) = (dstDevice as usize, srcDevice as usize);
            let mode = Mode::Async(stream(hStream));
            copy(
                d,
                s,
                ByteCount,
                Direction::DeviceToDevice,
                mode,
                "cuMemcpyPeerAsync",
            )
        }
        code => code,
    }
}

pub(crate) fn side(
    memory_type: c_uint,
    host: usize,
    device: CUdeviceptr,
    x: usize,
    y: usize,
    pitch: usize,
) -> Side2D {
    let base = if memory_type == cuda::CU_MEMORYTYPE_HOST {
        host
    } else {
        device as usize
    };
    let offset = y.wrapping_mul(pitch).wrapping_add(x);
    Side2D {
        ptr: if base == 0 {
            0
        } else {
            base.wrapping_add(offset)
        },
        pitch,
        memory_type,
    }
}

unsafe fn copy_2d(p: *const CUDA_MEMCPY2D, mode: Mode, call: &'static str) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        if p.is_null() {
            return Err(CuError::new(CUDA_ERROR_INVALID_VALUE, "pCopy is NULL"));
        }
        // SAFETY: non-NULL: a CUDA_MEMCPY2D the caller provides.
        let c = unsafe { &*p };
        let src = side(
            c.srcMemoryType,
            c.srcHost as usize,
            c.srcDevice,
            c.srcXInBytes,
            c.srcY,
            c.srcPitch,
        );
        let dst = side(
            c.dstMemoryType,
            c.dstHost as usize,
            c.dstDevice,
            c.dstXInBytes,
            c.dstY,
            c.dstPitch,
        );
        // SAFETY: the caller promises the described rows.
        unsafe { cuda::memcpy_2d(src, dst, c.WidthInBytes, c.Height, mode, call) }
    })
}

/// `cuMemcpy2D_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2D_v2(pCopy: *const CUDA_MEMCPY2D) -> CUresult {
    // SAFETY: forwarded.
    unsafe { copy_2d(pCopy, sync_mode(), "cuMemcpy2D") }
}

/// `cuMemcpy2DUnaligned_v2`: as `cuMemcpy2D_v2` (no alignment rule applies here).
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DUnaligned_v2(pCopy: *const CUDA_MEMCPY2D) -> CUresult {
    // SAFETY: forwarded.
    unsafe { copy_2d(pCopy, sync_mode(), "cuMemcpy2DUnaligned") }
}

/// `cuMemcpy2DAsync_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy2DAsync_v2(
    pCopy: *const CUDA_MEMCPY2D,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { copy_2d(pCopy, Mode::Async(stream(hStream)), "cuMemcpy2DAsync") }
}

/// A 3D copy as one 2D copy per slice, in order. Array sides are refused by the 2D copy (no
/// array exists here), mipmap levels here; with more than one slice each side's `Height` must
/// not exceed its slice height. Every slice is checked before any is copied.
///
/// # Safety
/// The described slices must be valid for the access until the copies have run.
pub(crate) unsafe fn copy_3d_checked(
    c: &crate::graph::CUDA_MEMCPY3D,
    mode: Mode,
    call: &'static str,
) -> Result<(), CuError> {
    cuda::ensure_initialized()?;
    if c.srcLOD != 0 || c.dstLOD != 0 {
        return Err(CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{call}: mipmap levels need CUDA arrays, which the emulated device has none of"
            ),
        ));
    }
    if c.Depth > 1 && (c.srcHeight < c.Height || c.dstHeight < c.Height) {
        return Err(CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{call}: a slice height (src {}, dst {}) is below the copy's Height {}",
                c.srcHeight, c.dstHeight, c.Height
            ),
        ));
    }
    for z in 0..c.Depth {
        let (src, dst) = crate::graph::slice_sides(c, z);
        cuda::memcpy_2d_check(src, dst, c.WidthInBytes, c.Height, call)?;
    }
    for z in 0..c.Depth {
        let (src, dst) = crate::graph::slice_sides(c, z);
        // SAFETY: the caller promises the described slices.
        unsafe { cuda::memcpy_2d(src, dst, c.WidthInBytes, c.Height, mode, call)? };
    }
    Ok(())
}

unsafe fn copy_3d(
    p: *const crate::graph::CUDA_MEMCPY3D,
    mode: Mode,
    call: &'static str,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        if p.is_null() {
            return Err(CuError::new(CUDA_ERROR_INVALID_VALUE, "pCopy is NULL"));
        }
        // SAFETY: non-NULL: a CUDA_MEMCPY3D the caller provides; the slices as promised.
        unsafe { copy_3d_checked(&*p, mode, call) }
    })
}

/// `cuMemcpy3D_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3D_v2(pCopy: *const crate::graph::CUDA_MEMCPY3D) -> CUresult {
    // SAFETY: forwarded.
    unsafe { copy_3d(pCopy, sync_mode(), "cuMemcpy3D") }
}

/// `cuMemcpy3DAsync_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuMemcpy3DAsync_v2(
    pCopy: *const crate::graph::CUDA_MEMCPY3D,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded.
    unsafe { copy_3d(pCopy, Mode::Async(stream(hStream)), "cuMemcpy3DAsync") }
}

// ---- sets ----------------------------------------------------------------------------------

fn set(
    dst: CUdeviceptr,
    pattern: Pattern,
    pitch: usize,
    width: usize,
    height: usize,
    mode: Mode,
    call: &'static str,
) -> CUresult {
    // SAFETY: the caller of the C function promises the range.
    guard(|| unsafe { cuda::memset(dst, pattern, pitch, width, height, mode, call) })
}

macro_rules! memsets {
    ($($(#[$doc:meta])* $name:ident, $async_name:ident, $d2:ident, $d2_async:ident, $ty:ty, $variant:ident, $size:expr;)*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(dstDevice: CUdeviceptr, value: $ty, N: usize) -> CUresult {
            set(dstDevice, Pattern::$variant(value), N.wrapping_mul($size), N, 1, sync_mode(), stringify!($name))
        }

        /// The asynchronous form.
        #[no_mangle]
        pub unsafe extern "C" fn $async_name(
            dstDevice: CUdeviceptr,
            value: $ty,
            N: usize,
            hStream: CUstream,
        ) -> CUresult {
            let mode = Mode::Async(stream(hStream));
            set(dstDevice, Pattern::$variant(value), N.wrapping_mul($size), N, 1, mode, stringify!($async_name))
        }

        /// The 2D form: `Height` rows of `Width` elements, `dstPitch` bytes apart.
        #[no_mangle]
        pub unsafe extern "C" fn $d2(
            dstDevice: CUdeviceptr,
            dstPitch: usize,
            value: $ty,
            Width: usize,
            Height: usize,
        ) -> CUresult {
            set(dstDevice, Pattern::$variant(value), dstPitch, Width, Height, sync_mode(), stringify!($d2))
        }

        /// The asynchronous 2D form.
        #[no_mangle]
        pub unsafe extern "C" fn $d2_async(
            dstDevice: CUdeviceptr,
            dstPitch: usize,
            value: $ty,
            Width: usize,
            Height: usize,
            hStream: CUstream,
        ) -> CUresult {
            let mode = Mode::Async(stream(hStream));
            set(dstDevice, Pattern::$variant(value), dstPitch, Width, Height, mode, stringify!($d2_async))
        }
    )*};
}

memsets! {
    /// `cuMemsetD8_v2`.
    cuMemsetD8_v2, cuMemsetD8Async, cuMemsetD2D8_v2, cuMemsetD2D8Async, u8, U8, 1;
    /// `cuMemsetD16_v2`: `dstDevice` 2-byte aligned.
    cuMemsetD16_v2, cuMemsetD16Async, cuMemsetD2D16_v2, cuMemsetD2D16Async, u16, U16, 2;
    /// `cuMemsetD32_v2`: `dstDevice` 4-byte aligned.
    cuMemsetD32_v2, cuMemsetD32Async, cuMemsetD2D32_v2, cuMemsetD2D32Async, u32, U32, 4;
}

// ---- pointer attributes --------------------------------------------------------------------

/// Writes one attribute value in the width CUDA gives it (booleans: one byte).
///
/// # Safety
/// `data` must be writable for that width.
unsafe fn write_attribute(data: *mut c_void, value: cuda::PointerValue) {
    // SAFETY: forwarded to the caller.
    unsafe {
        match value {
            cuda::PointerValue::Word(v) => data.cast::<u64>().write_unaligned(v),
            cuda::PointerValue::U32(v) => data.cast::<u32>().write_unaligned(v),
            cuda::PointerValue::Bool(v) => data.cast::<u8>().write(u8::from(v)),
        }
    }
}

/// `cuPointerGetAttribute(data, attribute, ptr)`.
///
/// # Safety
/// `data` is NULL or writable for the attribute's value.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttribute(
    data: *mut c_void,
    attribute: c_int,
    ptr: CUdeviceptr,
) -> CUresult {
    guard(|| {
        out_ptr(data, "data")?;
        let value = cuda::pointer_attribute(attribute as u32, ptr)?;
        // SAFETY: checked non-NULL; the caller provides room for the value.
        unsafe { write_attribute(data, value) };
        Ok(())
    })
}

/// `cuPointerGetAttributes(numAttributes, attributes, data, ptr)`: as `cuPointerGetAttribute`
/// for each, except that an address the driver does not know gives every attribute its NULL
/// value (0, NULL, false) and succeeds.
///
/// # Safety
/// `attributes` and `data` hold `numAttributes` entries; each `data[i]` is writable for its
/// attribute's value.
#[no_mangle]
pub unsafe extern "C" fn cuPointerGetAttributes(
    numAttributes: c_uint,
    attributes: *mut c_int,
    data: *mut *mut c_void,
    ptr: CUdeviceptr,
) -> CUresult {
    guard(|| {
        out_ptr(attributes, "attributes")?;
        out_ptr(data, "data")?;
        for i in 0..numAttributes as usize {
            // SAFETY: the caller provides `numAttributes` entries in both arrays.
            let (attribute, slot) = unsafe { (*attributes.add(i), *data.add(i)) };
            if slot.is_null() {
                return Err(CuError::new(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("data[{i}] is NULL"),
                ));
            }
            let value = match cuda::pointer_attribute(attribute as u32, ptr) {
                Ok(v) => v,
                Err(e) if e.code() == CUDA_ERROR_INVALID_VALUE && (1..=21).contains(&attribute) => {
                    match attribute as u32 {
                        cuda::CU_POINTER_ATTRIBUTE_MEMORY_TYPE
                        | cuda::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => cuda::PointerValue::U32(0),
                        cuda::CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
                        | cuda::CU_POINTER_ATTRIBUTE_IS_MANAGED
                        | cuda::CU_POINTER_ATTRIBUTE_MAPPED => cuda::PointerValue::Bool(false),
                        _ => cuda::PointerValue::Word(0),
                    }
                }
                Err(e) => return Err(e),
            };
            // SAFETY: checked non-NULL; the caller provides room for the value.
            unsafe { write_attribute(slot, value) };
        }
        Ok(())
    })
}

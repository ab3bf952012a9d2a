//! Devices: `cuDevice*`.

use std::ffi::{c_char, c_int, CStr};

use aclrt::cuda::{self, codes::*, CuError};

use crate::{guard, out_ptr, put, CUdevice, CUresult, Outcome};

/// `CUuuid`.
#[repr(C)]
pub struct CUuuid {
    /// The 16 bytes.
    pub bytes: [c_char; 16],
}

/// `CUdevprop` (deprecated by CUDA, still exported).
#[repr(C)]
pub struct CUdevprop {
    pub maxThreadsPerBlock: c_int,
    pub maxThreadsDim: [c_int; 3],
    pub maxGridSize: [c_int; 3],
    pub sharedMemPerBlock: c_int,
    pub totalConstantMemory: c_int,
    pub SIMDWidth: c_int,
    pub memPitch: c_int,
    pub regsPerBlock: c_int,
    pub clockRate: c_int,
    pub textureAlign: c_int,
}

/// Writes `text` and a NUL into `buf` of `len` bytes, truncating as CUDA does.
fn put_str(buf: *mut c_char, len: c_int, text: &str) -> Outcome {
    if buf.is_null() || len <= 0 {
        return Err(CuError::new(
            CUDA_ERROR_INVALID_VALUE,
            "the buffer is NULL or its length not positive",
        ));
    }
    let n = text.len().min(len as usize - 1);
    // SAFETY: the caller provides `len` writable bytes; n + 1 <= len.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), buf, n);
        *buf.add(n) = 0;
    }
    Ok(())
}

/// `cuDeviceGet`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGet(device: *mut CUdevice, ordinal: c_int) -> CUresult {
    guard(|| {
        out_ptr(device, "device")?;
        put(device, cuda::device_get(ordinal)?);
        Ok(())
    })
}

/// `cuDeviceGetCount`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetCount(count: *mut c_int) -> CUresult {
    guard(|| {
        out_ptr(count, "count")?;
        put(count, cuda::device_get_count()?);
        Ok(())
    })
}

/// `cuDeviceGetName`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetName(name: *mut c_char, len: c_int, dev: CUdevice) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let text = cuda::device_get_name(dev)?;
        put_str(name, len, text)
    })
}

/// `cuDeviceTotalMem_v2`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceTotalMem_v2(bytes: *mut usize, dev: CUdevice) -> CUresult {
    guard(|| {
        out_ptr(bytes, "bytes")?;
        put(bytes, cuda::device_total_mem(dev)?);
        Ok(())
    })
}

/// `cuDeviceGetAttribute`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetAttribute(
    pi: *mut c_int,
    attrib: c_int,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(pi, "pi")?;
        put(pi, cuda::device_get_attribute(attrib, dev)?);
        Ok(())
    })
}

/// `cuDeviceGetUuid`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid(uuid: *mut CUuuid, dev: CUdevice) -> CUresult {
    guard(|| {
        out_ptr(uuid, "uuid")?;
        let bytes = cuda::device_get_uuid(dev)?;
        put(
            uuid,
            CUuuid {
                bytes: bytes.map(|b| b as c_char),
            },
        );
        Ok(())
    })
}

/// `cuDeviceGetUuid_v2`: the same UUID (there is no MIG instance to tell apart).
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetUuid_v2(uuid: *mut CUuuid, dev: CUdevice) -> CUresult {
    // SAFETY: forwarded; same contract.
    unsafe { cuDeviceGetUuid(uuid, dev) }
}

/// `cuDeviceGetPCIBusId`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetPCIBusId(
    pciBusId: *mut c_char,
    len: c_int,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        cuda::ensure_initialized()?;
        let id = cuda::device_get_pci_bus_id(dev)?;
        put_str(pciBusId, len, &id)
    })
}

/// `cuDeviceGetByPCIBusId`.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetByPCIBusId(
    dev: *mut CUdevice,
    pciBusId: *const c_char,
) -> CUresult {
    guard(|| {
        out_ptr(dev, "dev")?;
        if pciBusId.is_null() {
            return Err(CuError::new(CUDA_ERROR_INVALID_VALUE, "pciBusId is NULL"));
        }
        // SAFETY: a NUL-terminated string, as the C API requires.
        let id = unsafe { CStr::from_ptr(pciBusId) }.to_string_lossy();
        put(dev, cuda::device_get_by_pci_bus_id(&id)?);
        Ok(())
    })
}

/// `cuDeviceComputeCapability` (deprecated by CUDA).
#[no_mangle]
pub unsafe extern "C" fn cuDeviceComputeCapability(
    major: *mut c_int,
    minor: *mut c_int,
    dev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(major, "major")?;
        out_ptr(minor, "minor")?;
        let (ma, mi) = cuda::device_compute_capability(dev)?;
        put(major, ma);
        put(minor, mi);
        Ok(())
    })
}

/// `cuDeviceGetProperties` (deprecated by CUDA).
#[no_mangle]
pub unsafe extern "C" fn cuDeviceGetProperties(prop: *mut CUdevprop, dev: CUdevice) -> CUresult {
    guard(|| {
        out_ptr(prop, "prop")?;
        let a = |attr: c_int| cuda::device_get_attribute(attr, dev);
        put(
            prop,
            CUdevprop {
                maxThreadsPerBlock: a(1)?,
                maxThreadsDim: [a(2)?, a(3)?, a(4)?],
                maxGridSize: [a(5)?, a(6)?, a(7)?],
                sharedMemPerBlock: a(8)?,
                totalConstantMemory: a(9)?,
                SIMDWidth: a(10)?,
                memPitch: a(11)?,
                regsPerBlock: a(12)?,
                clockRate: a(13)?,
                textureAlign: a(14)?,
            },
        );
        Ok(())
    })
}

/// `cuDeviceCanAccessPeer`: the emulated devices share the host's memory, so each can access
/// every other; a device is not its own peer.
#[no_mangle]
pub unsafe extern "C" fn cuDeviceCanAccessPeer(
    canAccessPeer: *mut c_int,
    dev: CUdevice,
    peerDev: CUdevice,
) -> CUresult {
    guard(|| {
        out_ptr(canAccessPeer, "canAccessPeer")?;
        cuda::device_get(dev)?;
        cuda::device_get(peerDev)?;
        put(canAccessPeer, c_int::from(dev != peerDev));
        Ok(())
    })
}

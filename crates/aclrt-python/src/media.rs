//! `acl.media`: the memory calls of pyACL's media module (`acldvppMalloc`, `acldvppFree`).
//!
//! The vendor's DVPP memory is device memory whose start is 128-byte aligned and whose size is
//! the request rounded up to a multiple of 32, plus 32 bytes. Runtime allocations are 64-byte
//! aligned, so `dvpp_malloc` allocates 64 bytes more than that size from the current context's
//! device and hands out the first 128-byte aligned address in it. The allocation is ordinary
//! device memory for every other call (copies, sets, `ptr_to_bytes`); the 64 bytes of slack lie
//! before the address handed out or after the rounded size. Only `dvpp_free` releases it:
//! `acl.rt.free` of a `dvpp_malloc` address is refused.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use aclrt::api;
use aclrt::codes::{
    ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_MEMORY_ALLOCATION, ACL_ERROR_RT_MEMORY_FREE,
};
use aclrt::consts::ACL_MEM_MALLOC_HUGE_FIRST;
use pyo3::prelude::*;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

/// Alignment of the address `dvpp_malloc` hands out.
pub const DVPP_ALIGNMENT: usize = 128;
/// The size granularity, and the bytes added after the rounded size.
const DVPP_SIZE_STEP: usize = 32;

/// Addresses handed out by `dvpp_malloc` → the runtime allocation they lie in.
static DVPP: Mutex<Option<HashMap<usize, usize>>> = Mutex::new(None);

fn dvpp() -> MutexGuard<'static, Option<HashMap<usize, usize>>> {
    DVPP.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether `ptr` was handed out by `dvpp_malloc` and not freed.
pub fn is_dvpp(ptr: usize) -> bool {
    dvpp().as_ref().is_some_and(|m| m.contains_key(&ptr))
}

/// Forgets every DVPP address (finalize released their memory).
pub fn forget_all() {
    *dvpp() = None;
}

/// The size the vendor gives a request of `size` bytes: rounded up to 32, plus 32.
pub fn dvpp_size(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(DVPP_SIZE_STEP)?
        .checked_add(DVPP_SIZE_STEP)
}

/// `dev_ptr, ret = acl.media.dvpp_malloc(size)`.
#[pyfunction]
fn dvpp_malloc(size: &Any) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    Ok(value(
        api::acl(|rt| {
            if size == 0 {
                return Err(aclrt::Error::new(
                    ACL_ERROR_INVALID_PARAM,
                    "acldvppMalloc: size is 0",
                ));
            }
            let total = dvpp_size(size)
                .and_then(|s| s.checked_add(DVPP_ALIGNMENT - aclrt::ALIGNMENT))
                .ok_or_else(|| {
                    aclrt::Error::new(
                        ACL_ERROR_RT_MEMORY_ALLOCATION,
                        format!("acldvppMalloc: cannot allocate {size} bytes"),
                    )
                })?;
            let base = rt.malloc(total, ACL_MEM_MALLOC_HUGE_FIRST)?;
            let ptr = base.next_multiple_of(DVPP_ALIGNMENT);
            dvpp().get_or_insert_with(HashMap::new).insert(ptr, base);
            Ok(ptr)
        }),
        0,
    ))
}

/// `ret = acl.media.dvpp_free(dev_ptr)`.
#[pyfunction]
fn dvpp_free(dev_ptr: &Any) -> PyResult<i32> {
    let ptr = usize_arg(dev_ptr, "dev_ptr")?;
    Ok(ret(api::acl(|rt| {
        if ptr == 0 {
            return Err(aclrt::Error::new(
                ACL_ERROR_INVALID_PARAM,
                "acldvppFree: the pointer is NULL",
            ));
        }
        let mut guard = dvpp();
        let Some(&base) = guard.as_ref().and_then(|m| m.get(&ptr)) else {
            return Err(aclrt::Error::new(
                ACL_ERROR_RT_MEMORY_FREE,
                format!(
                    "acldvppFree: {ptr:#x} is not an address from acl.media.dvpp_malloc \
                     (never allocated there, or already freed)"
                ),
            ));
        };
        rt.free(base)?;
        if let Some(m) = guard.as_mut() {
            m.remove(&ptr);
        }
        Ok(())
    })))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(m, "acl.media", [dvpp_malloc, dvpp_free]);
    Ok(())
}

//! Managed memory (`aclrtMemAllocManaged`, `aclrtMemManaged*`).

use std::ffi::c_void;

use aclrt::api::ManagedLocation;

use crate::{aclError, aclrtStream, entry, not_null, put, stream_handle};

/// `aclrtMemManagedLocation`, passed by value.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct aclrtMemManagedLocation {
    /// `aclrtMemManagedLocationType`.
    pub r#type: u32,
    /// Device or NUMA node id.
    pub id: i32,
}

impl From<aclrtMemManagedLocation> for ManagedLocation {
    fn from(l: aclrtMemManagedLocation) -> Self {
        ManagedLocation {
            kind: l.r#type,
            id: l.id,
        }
    }
}

/// A C array as a slice, `None` for NULL.
///
/// # Safety
/// `p` is NULL or readable for `n` elements.
unsafe fn array<'a, T>(p: *const T, n: usize) -> Option<&'a [T]> {
    // SAFETY: non-NULL and readable for `n` elements, the caller's contract.
    (!p.is_null()).then(|| unsafe { std::slice::from_raw_parts(p, n) })
}

/// `aclrtMemAllocManaged`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemAllocManaged(
    ptr: *mut *mut c_void,
    size: u64,
    flag: u32,
) -> aclError {
    const CALL: &str = "aclrtMemAllocManaged";
    entry(CALL, |rt| {
        not_null(ptr, CALL, "ptr")?;
        let p = rt.mem_alloc_managed(size, flag)?;
        // SAFETY: non-NULL (checked above), writable by the C caller's contract.
        unsafe { put(ptr, p as *mut c_void) };
        Ok(())
    })
}

/// `aclrtMemManagedAdvise`.
#[no_mangle]
pub extern "C" fn aclrtMemManagedAdvise(
    ptr: *const c_void,
    size: u64,
    advise: u32,
    location: aclrtMemManagedLocation,
) -> aclError {
    entry("aclrtMemManagedAdvise", |rt| {
        rt.mem_managed_advise(ptr as usize, size, advise, location.into())
    })
}

/// `aclrtMemManagedGetAttr`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemManagedGetAttr(
    attribute: u32,
    ptr: *const c_void,
    size: usize,
    data: *mut c_void,
    dataSize: usize,
) -> aclError {
    // SAFETY: `data` is NULL or writable for `dataSize` bytes, the C caller's contract.
    entry("aclrtMemManagedGetAttr", |rt| unsafe {
        rt.mem_managed_get_attr(attribute, ptr as usize, size, data as usize, dataSize)
    })
}

/// `aclrtMemManagedGetAttrs`.
#[no_mangle]
pub unsafe extern "C" fn aclrtMemManagedGetAttrs(
    attributes: *mut u32,
    numAttributes: usize,
    ptr: *const c_void,
    size: usize,
    data: *mut *mut c_void,
    dataSizes: *mut usize,
) -> aclError {
    entry("aclrtMemManagedGetAttrs", |rt| {
        // SAFETY: each array is NULL or holds `numAttributes` elements, and each `data[i]` is
        // NULL or writable for `dataSizes[i]` bytes, the C caller's contract.
        unsafe {
            let data = array(data as *const usize, numAttributes);
            rt.mem_managed_get_attrs(
                array(attributes, numAttributes),
                ptr as usize,
                size,
                data,
                array(dataSizes, numAttributes),
            )
        }
    })
}

/// `aclrtMemManagedPrefetchAsync`.
#[no_mangle]
pub extern "C" fn aclrtMemManagedPrefetchAsync(
    ptr: *const c_void,
    size: usize,
    location: aclrtMemManagedLocation,
    flags: u32,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemManagedPrefetchAsync", |rt| {
        rt.mem_managed_prefetch_async(
            ptr as usize,
            size,
            location.into(),
            flags,
            stream_handle(stream),
        )
    })
}

/// `aclrtMemManagedPrefetchBatchAsync`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn aclrtMemManagedPrefetchBatchAsync(
    ptrs: *mut *const c_void,
    sizes: *mut usize,
    count: usize,
    prefetchLocs: *mut aclrtMemManagedLocation,
    prefetchLocIdxs: *mut usize,
    numPrefetchLocs: usize,
    flags: u64,
    stream: aclrtStream,
) -> aclError {
    entry("aclrtMemManagedPrefetchBatchAsync", |rt| {
        // SAFETY: each array is NULL or holds `count` (ptrs, sizes) or `numPrefetchLocs`
        // (locations, indexes) elements, the C caller's contract.
        let (ptrs, sizes, locs, idxs) = unsafe {
            (
                array(ptrs as *const usize, count),
                array(sizes as *const usize, count),
                array(
                    prefetchLocs as *const aclrtMemManagedLocation,
                    numPrefetchLocs,
                ),
                array(prefetchLocIdxs as *const usize, numPrefetchLocs),
            )
        };
        let locs: Option<Vec<ManagedLocation>> =
            locs.map(|l| l.iter().map(|&x| x.into()).collect());
        rt.mem_managed_prefetch_batch_async(
            ptrs,
            sizes,
            locs.as_deref(),
            idxs,
            flags,
            stream_handle(stream),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_location_has_the_c_layout() {
        assert_eq!(std::mem::size_of::<aclrtMemManagedLocation>(), 8);
    }
}

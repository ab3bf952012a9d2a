//! Runtime-owned memory: device and host allocations, with the bounds every copy and set is
//! checked against.
//!
//! Device memory of the emulated device is host memory, so host kernels can read and write it
//! through the pointers the program holds.

use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::collections::BTreeMap;
use std::sync::RwLock;

use crate::codes::*;
use crate::error::{bail, Result};

/// Alignment of every runtime allocation.
pub const ALIGNMENT: usize = 64;

/// Where an allocation lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Device memory of a logical device.
    Device(i32),
    /// Page-locked host memory (`aclrtMallocHost`).
    Host,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Allocation {
    pub(crate) size: usize,
    pub(crate) place: Place,
}

/// All live runtime allocations, by base address.
#[derive(Default)]
pub(crate) struct MemoryMap {
    allocations: RwLock<BTreeMap<usize, Allocation>>,
}

impl MemoryMap {
    /// Allocates `size` zeroed bytes, 64-byte aligned.
    pub(crate) fn allocate(&self, size: usize, place: Place) -> Result<usize> {
        let Ok(layout) = Layout::from_size_align(size, ALIGNMENT) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "cannot allocate {size} bytes"
            );
        };
        // SAFETY: the layout has a non-zero size (callers refuse 0).
        let ptr = unsafe { alloc_zeroed(layout) };
        if ptr.is_null() {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "the host could not back {size} bytes"
            );
        }
        self.allocations
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(ptr as usize, Allocation { size, place });
        Ok(ptr as usize)
    }

    /// Frees an allocation made in `expected`'s allocator; returns it.
    pub(crate) fn free(&self, ptr: usize, expected: fn(Place) -> bool) -> Result<Allocation> {
        let mut map = self.allocations.write().unwrap_or_else(|e| e.into_inner());
        match map.get(&ptr) {
            Some(a) if expected(a.place) => {}
            Some(_) => bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{ptr:#x} was allocated by the other allocator (device vs host memory)"
            ),
            None => bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{ptr:#x} is not the start of a live runtime allocation (never allocated, or already freed)"
            ),
        }
        let allocation = map.remove(&ptr).expect("checked above");
        // SAFETY: `ptr` came from `alloc_zeroed` with this exact layout and is removed from
        // the map, so it is freed once.
        unsafe {
            dealloc(
                ptr as *mut u8,
                Layout::from_size_align_unchecked(allocation.size, ALIGNMENT),
            )
        };
        Ok(allocation)
    }

    /// Refuses an access of `len` bytes at `ptr` that starts inside a runtime allocation and
    /// runs past its end. Memory the runtime did not allocate is the caller's business.
    pub(crate) fn check(&self, ptr: usize, len: usize, what: &str) -> Result<()> {
        let map = self.allocations.read().unwrap_or_else(|e| e.into_inner());
        if let Some((&base, a)) = map.range(..=ptr).next_back() {
            let end = base + a.size;
            if ptr < end && ptr.checked_add(len).is_none_or(|last| last > end) {
                bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "{what} of {len} bytes at offset {} overruns its {}-byte allocation at {base:#x}",
                    ptr - base,
                    a.size
                );
            }
        }
        Ok(())
    }

    /// Frees everything (finalize).
    pub(crate) fn clear(&self) -> Vec<(usize, Allocation)> {
        let mut map = self.allocations.write().unwrap_or_else(|e| e.into_inner());
        let all: Vec<_> = std::mem::take(&mut *map).into_iter().collect();
        for (ptr, a) in &all {
            // SAFETY: as in `free`; the map no longer holds these pointers.
            unsafe {
                dealloc(
                    *ptr as *mut u8,
                    Layout::from_size_align_unchecked(a.size, ALIGNMENT),
                )
            };
        }
        all
    }

    pub(crate) fn live(&self) -> usize {
        self.allocations
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .len()
    }
}

//! Runtime-owned memory: device and host allocations, with the bounds every copy and set is
//! checked against.
//!
//! Device memory of the emulated device is host memory, so host kernels can read and write it
//! through the pointers the program holds. Device capacity is accounted in `device.rs`; this
//! module places the bytes.
//!
//! # Layout
//!
//! All runtime allocations (`aclrtMalloc` and `aclrtMallocHost` alike) are carved out of
//! *segments*: large private anonymous mappings made with `MAP_NORESERVE` (see [`pages`]).
//! A segment costs address space only; a page of it is backed by memory when first written.
//! Free space inside the segments is tracked by a best-fit allocator ([`extents`]).
//!
//! # Invariants
//!
//! 1. Segments are never unmapped. Every address the runtime ever handed out stays mapped,
//!    readable and writable, for the life of the process.
//! 2. A live allocation of `size` bytes occupies the *block* `[base, base + round_up(size,
//!    64))`; `base` is a multiple of [`ALIGNMENT`]. Live blocks and free extents never overlap
//!    and together cover every segment exactly.
//! 3. A new allocation reads as zero: its block is zeroed when handed out, by dropping its whole
//!    pages and writing the partial pages at either end. Untouched pages stay unbacked.
//! 4. When a block is freed, every page that then overlaps no live block is given back to the
//!    operating system. Free pages hold no memory unless something wrote to them after their
//!    allocation was freed; they are dropped again when reused (invariant 3).
//!
//! Allocating or freeing takes time proportional to the pages actually touched, not to the
//! size: a multi-gigabyte allocation is a few system calls.

mod extents;
mod pages;

use std::collections::BTreeMap;
use std::sync::RwLock;

use crate::codes::*;
use crate::error::{bail, Result};
use extents::Extents;

/// Alignment of every runtime allocation.
pub const ALIGNMENT: usize = 64;

/// The smallest segment reserved at a time (address space only).
const SEGMENT_MIN: usize = 1 << 30;

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

impl Allocation {
    /// Length of the block the allocation occupies (invariant 2).
    fn block_len(&self) -> usize {
        block_len(self.size).expect("a live allocation's block length fits")
    }
}

/// `size` rounded up to [`ALIGNMENT`], or `None` when that overflows.
fn block_len(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(ALIGNMENT)
}

#[derive(Default)]
struct Inner {
    /// Live allocations by base address.
    live: BTreeMap<usize, Allocation>,
    /// Reserved segments: start → length.
    segments: BTreeMap<usize, usize>,
    /// Free space inside the segments.
    free: Extents,
}

impl Inner {
    /// Reserves another segment able to hold a block of `len` bytes.
    fn grow(&mut self, len: usize) -> Result<()> {
        let exact = pages::page_up(len);
        let Some((start, seg_len)) = pages::reserve(exact.max(SEGMENT_MIN))
            .map(|s| (s, exact.max(SEGMENT_MIN)))
            .or_else(|| pages::reserve(exact).map(|s| (s, exact)))
        else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "the host could not reserve {exact} bytes of address space"
            );
        };
        self.segments.insert(start, seg_len);
        self.free.give_back(start, seg_len);
        Ok(())
    }
}

/// All runtime memory: segments, live allocations and free space.
#[derive(Default)]
pub(crate) struct MemoryMap {
    inner: RwLock<Inner>,
}

impl MemoryMap {
    fn read(&self) -> std::sync::RwLockReadGuard<'_, Inner> {
        self.inner.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Inner> {
        self.inner.write().unwrap_or_else(|e| e.into_inner())
    }

    /// Allocates `size` zeroed bytes, [`ALIGNMENT`]-aligned, backed only once written.
    pub(crate) fn allocate(&self, size: usize, place: Place) -> Result<usize> {
        debug_assert!(size > 0, "callers refuse size 0");
        let Some(len) = block_len(size).filter(|&l| l <= isize::MAX as usize) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "cannot allocate {size} bytes"
            );
        };
        let mut inner = self.write();
        let start = match inner.free.take(len) {
            Some(start) => start,
            None => {
                inner.grow(len)?;
                inner.free.take(len).expect("a new segment holds the block")
            }
        };
        // SAFETY: the block was just taken from the free space of our segments, so it is mapped
        // and no allocation owns it; the write lock keeps it from being handed out twice.
        unsafe { pages::zero(start, len) };
        inner.live.insert(start, Allocation { size, place });
        Ok(start)
    }

    /// Frees an allocation made in `expected`'s allocator; returns it.
    pub(crate) fn free(&self, ptr: usize, expected: fn(Place) -> bool) -> Result<Allocation> {
        let mut inner = self.write();
        match inner.live.get(&ptr) {
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
        let allocation = inner.live.remove(&ptr).expect("checked above");
        inner.release_block(ptr, allocation.block_len());
        Ok(allocation)
    }

    /// Refuses an access of `len` bytes at `ptr` that starts inside a runtime allocation and
    /// runs past its end. Memory the runtime did not allocate is the caller's business.
    pub(crate) fn check(&self, ptr: usize, len: usize, what: &str) -> Result<()> {
        let inner = self.read();
        if let Some((&base, a)) = inner.live.range(..=ptr).next_back() {
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

    /// Frees everything (finalize). The segments stay reserved; their pages go back.
    pub(crate) fn clear(&self) -> Vec<(usize, Allocation)> {
        let mut inner = self.write();
        let all: Vec<_> = std::mem::take(&mut inner.live).into_iter().collect();
        inner.free.clear();
        let segments: Vec<_> = inner.segments.iter().map(|(&s, &l)| (s, l)).collect();
        for (start, len) in segments {
            inner.free.give_back(start, len);
            // SAFETY: a whole segment made by `pages::reserve`; nothing in it is live any more.
            unsafe { pages::release(start, len) };
        }
        all
    }

    pub(crate) fn live(&self) -> usize {
        self.read().live.len()
    }
}

impl Inner {
    /// Returns the block `[start, start + len)` of a just-removed allocation to the free space
    /// and gives back the pages that no live block overlaps any more (invariant 4).
    fn release_block(&mut self, start: usize, len: usize) {
        let (ext_start, ext_len) = self.free.give_back(start, len);
        let lo = pages::page_down(start).max(pages::page_up(ext_start));
        let hi = pages::page_up(start + len).min(pages::page_down(ext_start + ext_len));
        if lo < hi {
            // SAFETY: `[lo, hi)` is page-aligned and lies inside the free extent just formed, so
            // it is inside our segments and overlaps no live block.
            unsafe { pages::release(lo, hi - lo) };
        }
    }
}

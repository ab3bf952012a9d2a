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
//!    64))`; `base` is a multiple of [`ALIGNMENT`] (of the page size for device allocations of
//!    a page or more). Live blocks and free extents never overlap
//!    and together cover every segment exactly.
//! 3. A new allocation reads as zero: its block is zeroed when handed out, by dropping its whole
//!    pages and writing the partial pages at either end. Untouched pages stay unbacked.
//! 4. When a block is freed, every page that then overlaps no live block is given back to the
//!    operating system, except the most recently freed ones up to [`RETAINED_LIMIT`] bytes:
//!    those keep their bytes until they are reused (invariant 3 zeroes them then) or pushed out
//!    by later frees, as device memory keeps its bytes after a free on hardware, so work queued
//!    before a free that still reads the memory (a race the checker reports as use after
//!    free) sees what was there. Other free pages hold no memory unless something wrote to
//!    them after their allocation was freed; they are dropped again when reused.
//!
//! Allocating or freeing takes time proportional to the pages actually touched, not to the
//! size: a multi-gigabyte allocation is a few system calls. The map's lock is held while a
//! block's pages are zeroed or given back, so a block is never handed out while its pages are
//! being dropped.
//!
//! # Accesses
//!
//! Every copy and set checks each range it touches with [`MemoryMap::check_access`] before any
//! byte moves. An address is in exactly one of these regions:
//!
//! | region | an access there |
//! |---|---|
//! | inside a live allocation | allowed if it ends inside it; else `100000` (overrun) |
//! | inside a segment, not in a live allocation (freed, the rounding slack after an allocation, or never handed out) | `100000`, naming the freed allocation when it is among the last [`FREED_RECORDS`] frees |
//! | outside every segment (foreign) | the caller's business (pageable host memory); `100000` only if the range runs into a segment |
//!
//! `aclrtFree`/`aclrtFreeHost` of anything but the start of a live allocation of the right kind
//! is `207002`, with the same description of the address.
//!
//! # Pool regions
//!
//! A memory pool ([`pool`]) reserves one *region* of address space here when it is created
//! ([`MemoryMap::reserve_region`]): taken from the free space like a block, but not an
//! allocation, and not zeroed. The pool places its blocks inside it and marks each one live
//! here while the program holds it ([`MemoryMap::mark_live`], [`MemoryMap::unmark_live`]), so
//! copies and sets check pool blocks like any allocation; the rest of the region is runtime
//! memory that is not allocated (`100000`). Pool blocks are device memory that `aclrtFree`
//! refuses (`207002`); a reused pool block keeps the bytes its previous holder left
//! (invariant 3 holds for blocks carved from space the pool never used or gave back).
//!
//! # Virtual memory and imported memory
//!
//! Address ranges reserved by `aclrtReserveMemAddress` and ranges an IPC import maps are
//! regions too, with serials that have [`vmm::VMM_SERIAL`] set. A mapping replaces the
//! region's pages with a shared mapping of a memory file ([`MemoryMap::map_object`]) and
//! marks it live; ending it puts private zero pages back ([`MemoryMap::unmap_object`]), so
//! invariant 1 holds: every address stays mapped, readable and writable. `aclrtFree` refuses
//! mapped memory (`207002`).
//!
//! # Shared allocations
//!
//! A device allocation exported by key ([`MemoryMap::share_allocation`]) has its pages moved
//! into a memory file another process can map: the pages it touches are mapped from the file,
//! with its bytes, and the free space in those pages is taken out of use, so no other block
//! ever lies in them. Only an allocation that has its pages to itself can be moved (another
//! block's users could write while the pages move); device allocations of a page or more start
//! on a page for this. Freeing it puts private zero pages back before the block and the free
//! space return (invariants 3 and 4 hold again).
//!
//! Asynchronous copies and sets are checked when they are submitted; the worker does not check
//! again. A free between submit and run cannot make the worker fault: by invariant 1 the freed
//! range is still mapped, so the task reads zeros or stale bytes, or writes into free pages
//! (dropped again when they are reused) or into an allocation that reused them, as a device
//! would. Freeing memory that queued work still uses is the program's error (the vendor's
//! `aclrtFree` does not wait for tasks either). A check on the worker would only be race-free
//! if it held the map's lock across the copy, which would stall every allocation behind long
//! copies.

mod extents;
pub(crate) mod ipc;
pub(crate) mod managed;
pub(crate) mod pages;
pub(crate) mod pool;
pub(crate) mod share;
pub(crate) mod vmm;
pub(crate) mod writers;

use std::collections::{BTreeMap, VecDeque};
use std::fmt;
use std::sync::RwLock;

use crate::codes::*;
use crate::error::{bail, Result};
use extents::Extents;

/// Alignment of every runtime allocation.
pub const ALIGNMENT: usize = 64;

/// The host's page size.
pub(crate) fn page_size() -> usize {
    pages::page_size()
}

/// The smallest segment reserved at a time (address space only).
const SEGMENT_MIN: usize = 1 << 30;

/// How many of the latest frees are remembered, to name the allocation a stale pointer came
/// from. Older ones are still refused, with a less specific message.
pub(crate) const FREED_RECORDS: usize = 4096;

/// Where an allocation lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Place {
    /// Device memory of a logical device.
    Device(i32),
    /// Page-locked host memory (`aclrtMallocHost`).
    Host,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Device(id) => write!(f, "device memory of device {id}"),
            Place::Host => f.write_str("host memory from aclrtMallocHost"),
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Allocation {
    pub(crate) size: usize,
    pub(crate) place: Place,
    /// The serial of the memory pool the block belongs to (freed through it, never by
    /// `aclrtFree`); 0 for other allocations.
    pub(crate) pool: u64,
}

impl Allocation {
    /// Length of the block the allocation occupies (invariant 2).
    fn block_len(&self) -> usize {
        block_len(self.size).expect("a live allocation's block length fits")
    }
}

/// What an access checked by [`MemoryMap::check_access`] touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Access {
    /// Nothing: the length is 0.
    Nothing,
    /// Bytes inside one live runtime allocation.
    Runtime,
    /// Memory the runtime does not own; the caller vouches for it.
    Foreign,
}

/// Where an address lies (see the module docs).
#[derive(Debug, Clone, Copy)]
enum Region {
    /// Inside the live allocation at `base`.
    Live { base: usize, allocation: Allocation },
    /// Inside runtime segments but no live allocation; the latest free that covered it, if
    /// still remembered.
    Dead(Option<(usize, Allocation)>),
    /// Outside every segment.
    Foreign,
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
    /// The latest frees (base, allocation), oldest first, at most [`FREED_RECORDS`].
    freed: VecDeque<(usize, Allocation)>,
    /// Pool regions: start → (length, the pool's serial) (see "Pool regions").
    regions: BTreeMap<usize, (usize, u64)>,
    /// Allocations moved into shared memory: base → the pages `[lo, hi)` mapped from a file
    /// (see "Shared allocations").
    shared: BTreeMap<usize, (usize, usize)>,
    /// Freed whole pages `[lo, hi)` not given back yet, oldest first (invariant 4); some may
    /// have been handed out again since, which giving them back skips.
    retained: VecDeque<(usize, usize)>,
    /// The bytes of `retained`.
    retained_bytes: usize,
}

/// How many bytes of freed pages keep their contents (invariant 4).
pub(crate) const RETAINED_LIMIT: usize = 4 << 20;

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
        self.allocate_aligned(size, ALIGNMENT, place)
    }

    /// [`MemoryMap::allocate`] starting on a multiple of `align` (a power of two).
    pub(crate) fn allocate_aligned(
        &self,
        size: usize,
        align: usize,
        place: Place,
    ) -> Result<usize> {
        debug_assert!(size > 0, "callers refuse size 0");
        debug_assert!(align.is_power_of_two());
        let Some(len) = block_len(size).filter(|&l| l <= isize::MAX as usize) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "cannot allocate {size} bytes"
            );
        };
        // Room to align the start, beyond what every block already is.
        let slack = align.max(ALIGNMENT) - ALIGNMENT;
        let Some(span) = len.checked_add(slack) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "cannot allocate {size} bytes"
            );
        };
        let mut inner = self.write();
        let taken = match inner.free.take(span) {
            Some(start) => start,
            None => {
                inner.grow(span)?;
                inner
                    .free
                    .take(span)
                    .expect("a new segment holds the block")
            }
        };
        let start = taken.next_multiple_of(align.max(ALIGNMENT));
        if start > taken {
            inner.free.give_back(taken, start - taken);
        }
        if taken + span > start + len {
            inner
                .free
                .give_back(start + len, taken + span - (start + len));
        }
        // SAFETY: the block was just taken from the free space of our segments, so it is mapped
        // and no allocation owns it; the write lock keeps it from being handed out twice.
        unsafe { pages::zero(start, len) };
        inner.live.insert(
            start,
            Allocation {
                size,
                place,
                pool: 0,
            },
        );
        Ok(start)
    }

    /// Reserves a region of `len` bytes for the pool `serial`, starting on a multiple of `align`
    /// (a power of two that divides `len`): address space only, with no live allocation in it.
    /// Its pages hold no memory.
    pub(crate) fn reserve_region(&self, len: usize, align: usize, serial: u64) -> Result<usize> {
        debug_assert!(len > 0 && align.is_power_of_two() && len.is_multiple_of(align));
        let Some(span) = len.checked_add(align) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "cannot reserve {len} bytes of address space"
            );
        };
        let mut inner = self.write();
        let taken = match inner.free.take(span) {
            Some(start) => start,
            None => {
                inner.grow(span)?;
                inner
                    .free
                    .take(span)
                    .expect("a new segment holds the region")
            }
        };
        // Keep the aligned part; the slack on either side goes back.
        let start = taken.next_multiple_of(align);
        if start > taken {
            inner.free.give_back(taken, start - taken);
        }
        let tail = taken + span - (start + len);
        if tail > 0 {
            inner.free.give_back(start + len, tail);
        }
        inner.regions.insert(start, (len, serial));
        // SAFETY: taken from the free space just now: mapped, and nothing lives in it.
        unsafe { pages::zero(start, len) };
        Ok(start)
    }

    /// Gives a pool region back to the free space; the blocks still live in it are freed and
    /// returned.
    pub(crate) fn release_region(&self, start: usize) -> Vec<(usize, Allocation)> {
        let mut inner = self.write();
        let Some((len, _)) = inner.regions.remove(&start) else {
            return Vec::new();
        };
        let inside: Vec<usize> = inner
            .live
            .range(start..start + len)
            .map(|(&b, _)| b)
            .collect();
        let mut out = Vec::with_capacity(inside.len());
        for base in inside {
            let a = inner.live.remove(&base).expect("listed above");
            inner.remember(base, a);
            out.push((base, a));
        }
        inner.release_block(start, len);
        out
    }

    /// Marks the block `[base, base + size)` of pool `serial` live; `false` (nothing marked)
    /// when the pool's region is gone (the pool was destroyed meanwhile). The pool's
    /// bookkeeping guarantees the block overlaps no other live one.
    pub(crate) fn mark_live(&self, base: usize, size: usize, device: i32, serial: u64) -> bool {
        let mut inner = self.write();
        if inner.region_of(base) != Some(serial) {
            return false;
        }
        inner.live.insert(
            base,
            Allocation {
                size,
                place: Place::Device(device),
                pool: serial,
            },
        );
        true
    }

    /// Ends the block at `base` of pool `serial` here (its pool took it back); a block of
    /// anything else there is left alone.
    pub(crate) fn unmark_live(&self, base: usize, serial: u64) {
        let mut inner = self.write();
        if inner.live.get(&base).is_some_and(|a| a.pool == serial) {
            let a = inner.live.remove(&base).expect("checked above");
            inner.remember(base, a);
        }
    }

    /// Maps `len` bytes of the shared memory object `fd`, from `offset`, at `start` inside the
    /// region `serial` (a virtual memory reservation or an imported range) and marks
    /// `[start + live.0, start + live.0 + live.1)` live as memory of `place`. The caller has
    /// checked that the range lies in the region, page-aligned, and that no live block overlaps
    /// it. `false` (nothing changed) when the host refuses the mapping.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn map_object(
        &self,
        start: usize,
        len: usize,
        fd: i32,
        offset: usize,
        live: (usize, usize),
        place: Place,
        serial: u64,
    ) -> bool {
        let mut inner = self.write();
        debug_assert_eq!(inner.region_of(start), Some(serial));
        debug_assert!(inner.live.range(start..start + len).next().is_none());
        debug_assert!(live.0 + live.1 <= len && live.1 > 0);
        // SAFETY: page-aligned, inside the reservation's region (the caller's checks), where
        // nothing is live; the write lock keeps a concurrent check from seeing it half done.
        if !unsafe { pages::map_shared(start, len, fd, offset) } {
            return false;
        }
        inner.live.insert(
            start + live.0,
            Allocation {
                size: live.1,
                place,
                pool: serial,
            },
        );
        true
    }

    /// Ends the mapping of `[start, start + len)` made by [`MemoryMap::map_object`] for region
    /// `serial`: the range becomes unallocated runtime memory again, reading as zero.
    pub(crate) fn unmap_object(&self, start: usize, len: usize, serial: u64) {
        self.retire_object(start, len, serial);
        self.restore_object(start, len);
    }

    /// The first half of [`MemoryMap::unmap_object`]: runtime calls refuse the range from now
    /// on, but its pages still show the shared bytes (work queued before still sees them).
    pub(crate) fn retire_object(&self, start: usize, len: usize, serial: u64) {
        let mut inner = self.write();
        let inside: Vec<usize> = inner
            .live
            .range(start..start + len)
            .filter(|(_, a)| a.pool == serial)
            .map(|(&b, _)| b)
            .collect();
        for base in inside {
            let a = inner.live.remove(&base).expect("listed above");
            inner.remember(base, a);
        }
    }

    /// The second half of [`MemoryMap::unmap_object`]: private zero pages replace the shared
    /// ones of a retired mapping.
    pub(crate) fn restore_object(&self, start: usize, len: usize) {
        let inner = self.write();
        debug_assert!(inner.live.range(start..start + len).next().is_none());
        // SAFETY: the mapping's own page-aligned range inside its region; nothing is live in it
        // any more.
        unsafe { pages::restore(start, len) };
        drop(inner);
    }

    /// Moves the pages of the live device allocation at `base` into a fresh memory file another
    /// process can map, keeping its bytes: the pages it touches, `[lo, hi)`, are mapped from the
    /// file and the free space they hold is taken out of use until the allocation is freed.
    /// Returns the file, `lo` and `hi`. Refused (`207000`) when another allocation shares those
    /// pages, as moving them would race with its users.
    ///
    /// The move passes the writers' gate ([`writers`]): it starts once no task that may write
    /// runs, and tasks (and copies into the pages) that start meanwhile wait for its end, so no
    /// write made through the runtime is lost between the copy and the mapping. The map's lock
    /// is held for the copy, so allocations and checks wait for it too.
    pub(crate) fn share_allocation(
        &self,
        base: usize,
    ) -> Result<(std::os::fd::OwnedFd, usize, usize)> {
        let Some(pages) = self
            .read()
            .live
            .get(&base)
            .map(|a| (pages::page_down(base), pages::page_up(base + a.block_len())))
        else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{base:#x} is not the start of a live allocation"
            );
        };
        writers::gate().exclusive(pages.0, pages.1, || self.move_to_file(base, pages))
    }

    /// [`MemoryMap::share_allocation`] once no writer runs; `pages` as the caller saw them.
    fn move_to_file(
        &self,
        base: usize,
        pages: (usize, usize),
    ) -> Result<(std::os::fd::OwnedFd, usize, usize)> {
        use std::os::fd::AsRawFd;
        let mut inner = self.write();
        let Some(a) = inner.live.get(&base).copied() else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{base:#x} is not the start of a live allocation"
            );
        };
        if inner.shared.contains_key(&base) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "the allocation at {base:#x} is already exported"
            );
        }
        let end = base + a.block_len();
        let (lo, hi) = (pages::page_down(base), pages::page_up(end));
        if (lo, hi) != pages {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "the allocation at {base:#x} was freed while it was being exported"
            );
        }
        let before = inner
            .live
            .range(..base)
            .next_back()
            .filter(|(&b, p)| b + p.block_len() > lo)
            .map(|(&b, _)| b);
        let after = inner.live.range(base + 1..hi).next().map(|(&b, _)| b);
        if let Some(other) = before.or(after) {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "the allocation at {base:#x} shares a page with the allocation at {other:#x}; \
                 only an allocation that has its pages to itself can be shared with another \
                 process here"
            );
        }
        if lo < base && !inner.free.take_range(lo, base - lo) {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "the page before the allocation at {base:#x} is not free"
            );
        }
        if end < hi && !inner.free.take_range(end, hi - end) {
            if lo < base {
                inner.free.give_back(lo, base - lo);
            }
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "the page after the allocation at {base:#x} is not free"
            );
        }
        let undo = |inner: &mut Inner| {
            if lo < base {
                inner.free.give_back(lo, base - lo);
            }
            if end < hi {
                inner.free.give_back(end, hi - end);
            }
        };
        let file = match vmm::memory_file("aclrtIpcMemGetExportKey", hi - lo) {
            Ok(f) => f,
            Err(e) => {
                undo(&mut inner);
                return Err(e);
            }
        };
        let at = vmm::data_offset() + (base - lo);
        // SAFETY: `[base, base + size)` is a live allocation, mapped and readable; the gate
        // keeps the runtime's writers out of it until the mapping below replaces its pages.
        let written = unsafe { share::write_all_at(&file, base as *const u8, a.size, at) };
        // SAFETY: `[lo, hi)` is page-aligned inside a segment and holds only this allocation
        // and the free space just taken (checked above).
        if written.is_err()
            || !unsafe { pages::map_shared(lo, hi - lo, file.as_raw_fd(), vmm::data_offset()) }
        {
            undo(&mut inner);
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "the host could not move the allocation at {base:#x} into shared memory"
            );
        }
        inner.shared.insert(base, (lo, hi));
        Ok((file, lo, hi))
    }

    /// Gives back the whole pages inside `[start, start + len)`, part of a pool region no live
    /// block overlaps (a pool trimmed it).
    pub(crate) fn release_pages(&self, start: usize, len: usize) {
        let inner = self.write();
        debug_assert!(inner.region_of(start).is_some());
        debug_assert!(inner.live.range(start..start + len).next().is_none());
        let (lo, hi) = (pages::page_up(start), pages::page_down(start + len));
        if lo < hi {
            // SAFETY: whole pages inside a pool region where nothing is live.
            unsafe { pages::release(lo, hi - lo) };
        }
        drop(inner);
    }

    /// Frees an allocation made in `expected`'s allocator; returns it.
    pub(crate) fn free(&self, ptr: usize, expected: fn(Place) -> bool) -> Result<Allocation> {
        let mut inner = self.write();
        match inner.live.get(&ptr) {
            Some(a) if a.pool & vmm::VMM_SERIAL != 0 => bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{ptr:#x} is mapped memory (aclrtMapMem, aclrtIpcMemImportByKey): end it with \
                 aclrtUnmapMem or aclrtIpcMemClose"
            ),
            Some(a) if a.pool != 0 => bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{ptr:#x} was allocated from a memory pool: give it back with \
                 aclrtMemPoolFreeAsync"
            ),
            Some(a) if expected(a.place) => {}
            Some(_) => bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{ptr:#x} was allocated by the other allocator (device vs host memory)"
            ),
            None => bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{ptr:#x} is not the start of a live runtime allocation: {}",
                inner.describe(ptr)
            ),
        }
        let allocation = inner.live.remove(&ptr).expect("checked above");
        let shared = inner.shared.remove(&ptr);
        if let Some((lo, hi)) = shared {
            // SAFETY: the shared pages of this allocation alone (and free space it kept out of
            // use); they go back to private zero pages before anything can reuse them.
            unsafe { pages::restore(lo, hi - lo) };
        }
        inner.release_block(ptr, allocation.block_len());
        if let Some((lo, hi)) = shared {
            let end = ptr + allocation.block_len();
            if lo < ptr {
                inner.free.give_back(lo, ptr - lo);
            }
            if end < hi {
                inner.free.give_back(end, hi - end);
            }
        }
        inner.remember(ptr, allocation);
        Ok(allocation)
    }

    /// Checks an access of `len` bytes at `ptr` before it is made (see the module docs for the
    /// regions): `100000` with a message for a range that overruns a live allocation, touches
    /// runtime memory that is not allocated (freed, typically), or wraps around the address
    /// space. `what` names the range in the message ("copy source", "memset", …).
    pub(crate) fn check_access(&self, ptr: usize, len: usize, what: &str) -> Result<Access> {
        if len == 0 {
            return Ok(Access::Nothing);
        }
        let Some(end) = ptr.checked_add(len) else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{what} of {len} bytes at {ptr:#x} runs past the end of the address space"
            );
        };
        let inner = self.read();
        match inner.region(ptr) {
            Region::Live { base, allocation } => {
                if end > base + allocation.size {
                    bail!(
                        ACL_ERROR_INVALID_PARAM,
                        "{what} of {len} bytes at offset {} overruns its {}-byte allocation at {base:#x}",
                        ptr - base,
                        allocation.size
                    );
                }
                Ok(Access::Runtime)
            }
            Region::Dead(_) => bail!(
                ACL_ERROR_INVALID_PARAM,
                "{what} at {ptr:#x} is not in a live runtime allocation: {}",
                inner.describe(ptr)
            ),
            Region::Foreign => {
                if let Some((&segment, _)) = inner.segments.range(ptr..end).next() {
                    bail!(
                        ACL_ERROR_INVALID_PARAM,
                        "{what} of {len} bytes at {ptr:#x} is not runtime memory but runs into \
                         the runtime's memory at {segment:#x}"
                    );
                }
                Ok(Access::Foreign)
            }
        }
    }

    /// The live allocation that contains `ptr`: its base and what it is.
    /// Whether the allocation starting at `base` is the one whose pages were moved into
    /// shared memory as `[lo, hi)` (not one freed since and made again at the same place).
    pub(crate) fn is_shared_as(&self, base: usize, lo: usize, hi: usize) -> bool {
        self.read().shared.get(&base) == Some(&(lo, hi))
    }

    pub(crate) fn allocation_at(&self, ptr: usize) -> Option<(usize, Allocation)> {
        match self.read().region(ptr) {
            Region::Live { base, allocation } => Some((base, allocation)),
            _ => None,
        }
    }

    /// Frees everything (finalize). The segments stay reserved; their pages go back.
    pub(crate) fn clear(&self) -> Vec<(usize, Allocation)> {
        let mut inner = self.write();
        let all: Vec<_> = std::mem::take(&mut inner.live).into_iter().collect();
        for &(base, allocation) in &all {
            inner.remember(base, allocation);
        }
        for (_, (lo, hi)) in std::mem::take(&mut inner.shared) {
            // SAFETY: shared pages of an allocation that no longer lives.
            unsafe { pages::restore(lo, hi - lo) };
        }
        inner.free.clear();
        inner.regions.clear();
        inner.retained.clear();
        inner.retained_bytes = 0;
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

    /// Where the memory at `ptr` lives: `Some` inside a live allocation, `None` outside the
    /// runtime's memory; `100000` in runtime memory that is not allocated (freed, typically).
    pub(crate) fn place_of(&self, ptr: usize, what: &str) -> Result<Option<Place>> {
        let inner = self.read();
        match inner.region(ptr) {
            Region::Live { allocation, .. } => Ok(Some(allocation.place)),
            Region::Foreign => Ok(None),
            Region::Dead(_) => bail!(
                ACL_ERROR_INVALID_PARAM,
                "{what} at {ptr:#x} is not in a live runtime allocation: {}",
                inner.describe(ptr)
            ),
        }
    }
}

impl Inner {
    /// The serial of the pool whose region holds `ptr`.
    fn region_of(&self, ptr: usize) -> Option<u64> {
        self.regions
            .range(..=ptr)
            .next_back()
            .filter(|(&s, &(l, _))| ptr < s + l)
            .map(|(_, &(_, serial))| serial)
    }

    /// Reserves another segment able to hold a block of `len` bytes: [`SEGMENT_MIN`] or more,
    /// or just enough if the host will not give that much address space.
    fn grow(&mut self, len: usize) -> Result<()> {
        let exact = pages::page_up(len);
        let preferred = exact.max(SEGMENT_MIN);
        let Some((start, seg_len)) = pages::reserve(preferred)
            .map(|s| (s, preferred))
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

    /// Where `ptr` lies.
    fn region(&self, ptr: usize) -> Region {
        if let Some((&base, &allocation)) = self.live.range(..=ptr).next_back() {
            if ptr < base + allocation.size {
                return Region::Live { base, allocation };
            }
        }
        match self.segments.range(..=ptr).next_back() {
            Some((&start, &len)) if ptr < start + len => Region::Dead(
                self.freed
                    .iter()
                    .rev()
                    .find(|(base, a)| (*base..base + a.block_len()).contains(&ptr))
                    .copied(),
            ),
            _ => Region::Foreign,
        }
    }

    /// A phrase saying what `ptr` is, for messages.
    fn describe(&self, ptr: usize) -> String {
        let record = match self.region(ptr) {
            Region::Live { base, allocation } => {
                return format!(
                    "it is {} bytes into the {}-byte allocation at {base:#x} ({})",
                    ptr - base,
                    allocation.size,
                    allocation.place
                )
            }
            Region::Foreign => return "the runtime did not allocate it".to_owned(),
            Region::Dead(record) => record,
        };
        if let Some((&base, a)) = self.live.range(..=ptr).next_back() {
            if ptr < base + a.block_len() {
                return format!(
                    "it lies past the end of the {}-byte allocation at {base:#x}",
                    a.size
                );
            }
        }
        match record {
            Some((base, a)) if a.pool & vmm::VMM_SERIAL != 0 => format!(
                "it lies {} bytes into the {}-byte mapping at {base:#x} ({}), which \
                 aclrtUnmapMem or aclrtIpcMemClose ended",
                ptr - base,
                a.size,
                a.place
            ),
            Some((base, a)) if ptr == base => {
                format!("it was freed ({}, {} bytes)", a.place, a.size)
            }
            Some((base, a)) => format!(
                "it lies {} bytes into the {}-byte allocation at {base:#x} ({}), which was freed",
                ptr - base,
                a.size,
                a.place
            ),
            None => match self.region_of(ptr) {
                Some(serial) if serial & vmm::VMM_SERIAL != 0 => {
                    "it lies in an address range reserved by aclrtReserveMemAddress that no \
                     aclrtMapMem mapping covers"
                        .to_owned()
                }
                Some(_) => "it lies in a memory pool's reserved range but no block of the \
                            pool holds it"
                    .to_owned(),
                None => "it lies in memory the runtime reserved but has not allocated \
                         (freed, or never handed out)"
                    .to_owned(),
            },
        }
    }

    /// Notes a free, forgetting the oldest beyond [`FREED_RECORDS`].
    fn remember(&mut self, base: usize, allocation: Allocation) {
        if self.freed.len() == FREED_RECORDS {
            self.freed.pop_front();
        }
        self.freed.push_back((base, allocation));
    }

    /// Returns the block `[start, start + len)` of a just-removed allocation to the free space
    /// and gives back the pages that no live block overlaps any more (invariant 4).
    fn release_block(&mut self, start: usize, len: usize) {
        let (ext_start, ext_len) = self.free.give_back(start, len);
        let lo = pages::page_down(start).max(pages::page_up(ext_start));
        let hi = pages::page_up(start + len).min(pages::page_down(ext_start + ext_len));
        if lo < hi {
            self.retained.push_back((lo, hi));
            self.retained_bytes += hi - lo;
            while self.retained_bytes > RETAINED_LIMIT {
                let (lo, hi) = self.retained.pop_front().expect("counted bytes are listed");
                self.retained_bytes -= hi - lo;
                self.release_free_pages(lo, hi);
            }
        }
    }

    /// Gives back the whole pages of `[lo, hi)` that are still free (parts handed out again
    /// since are live, or were zeroed when handed out).
    fn release_free_pages(&self, lo: usize, hi: usize) {
        for (start, len) in self.free.overlapping(lo, hi) {
            let a = pages::page_up(start.max(lo));
            let b = pages::page_down((start + len).min(hi));
            if a < b {
                // SAFETY: whole pages inside a free extent of our segments: no live block and
                // no pool region (regions are taken from the free space) overlaps them.
                unsafe { pages::release(a, b - a) };
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(r: Result<impl Sized>) -> i32 {
        r.err().map_or(0, |e| e.code())
    }

    fn message(r: Result<impl Sized>) -> String {
        r.err().map(|e| e.message().to_owned()).unwrap_or_default()
    }

    /// Reads byte `i` of runtime memory (mapped for the life of the process, invariant 1).
    fn byte(addr: usize) -> u8 {
        // SAFETY: an address inside a segment of this map, which is never unmapped.
        unsafe { std::ptr::read_volatile(addr as *const u8) }
    }

    #[test]
    fn freed_pages_keep_their_bytes_until_reused_and_only_the_latest_few() {
        let map = MemoryMap::default();
        let page = pages::page_size();
        let a = map.allocate(4 * page, Place::Device(0)).unwrap();
        // SAFETY: `a` is a live allocation of four pages.
        unsafe { std::ptr::write_bytes(a as *mut u8, 0x7B, 4 * page) };
        map.free(a, |p| matches!(p, Place::Device(_))).unwrap();
        // Freed but not reused: the bytes are still there (work queued before the free reads
        // them), and the access checks call the range freed.
        assert_eq!(byte(a + page), 0x7B);
        assert!(map.check_access(a, 4, "x").is_err());
        // Reused: zero again.
        let b = map.allocate(4 * page, Place::Device(0)).unwrap();
        assert_eq!(b, a);
        assert_eq!(byte(b + page), 0);
        map.free(b, |p| matches!(p, Place::Device(_))).unwrap();
        // Frees beyond the limit push the oldest retained pages out: they read zero.
        let c = map.allocate(4 * page, Place::Device(0)).unwrap();
        // A live neighbour keeps the larger block below from starting at `c`.
        let guard = map.allocate(1, Place::Device(0)).unwrap();
        // SAFETY: `c` is a live allocation of four pages.
        unsafe { std::ptr::write_bytes(c as *mut u8, 0x5C, 4 * page) };
        map.free(c, |p| matches!(p, Place::Device(_))).unwrap();
        assert_eq!(byte(c + page), 0x5C);
        let big = RETAINED_LIMIT + 4 * page;
        let d = map.allocate(big, Place::Device(0)).unwrap();
        assert!(d > guard);
        // SAFETY: `d` is a live allocation of `big` bytes.
        unsafe { std::ptr::write_bytes(d as *mut u8, 1, big) };
        map.free(d, |p| matches!(p, Place::Device(_))).unwrap();
        assert_eq!(byte(c + page), 0, "pushed out by a larger later free");
        assert!(map.read().retained_bytes <= RETAINED_LIMIT);
    }

    #[test]
    fn accesses_are_classified_by_region() {
        let map = MemoryMap::default();
        let a = map.allocate(100, Place::Device(0)).unwrap();
        let b = map.allocate(64, Place::Host).unwrap();
        assert_eq!(a % ALIGNMENT, 0);
        assert_eq!(b % ALIGNMENT, 0);
        assert_eq!(map.check_access(a, 100, "x").unwrap(), Access::Runtime);
        assert_eq!(map.check_access(a + 99, 1, "x").unwrap(), Access::Runtime);
        assert_eq!(map.check_access(a + 100, 0, "x").unwrap(), Access::Nothing);
        // Overrun, and the rounding slack after the allocation.
        let r = map.check_access(a + 50, 51, "copy source");
        assert!(message(r).contains("overruns its 100-byte allocation"));
        assert_eq!(
            code(map.check_access(a + 50, 51, "x")),
            ACL_ERROR_INVALID_PARAM
        );
        let r = map.check_access(a + 100, 1, "x");
        assert!(message(r).contains("past the end of the 100-byte allocation"));
        // Foreign memory is the caller's.
        let local = [0u8; 16];
        let l = local.as_ptr() as usize;
        assert_eq!(map.check_access(l, 16, "x").unwrap(), Access::Foreign);
        // Wrapping around the address space.
        assert_eq!(
            code(map.check_access(usize::MAX - 3, 8, "x")),
            ACL_ERROR_INVALID_PARAM
        );
        // Freed memory is refused, start or middle, and named.
        map.free(a, |p| p == Place::Device(0)).unwrap();
        let r = map.check_access(a, 4, "memset");
        assert_eq!(
            code(map.check_access(a, 4, "memset")),
            ACL_ERROR_INVALID_PARAM
        );
        let m = message(r);
        assert!(m.contains("memset at") && m.contains("was freed"), "{m}");
        assert!(m.contains("device memory of device 0"), "{m}");
        let m = message(map.check_access(a + 10, 4, "x"));
        assert!(m.contains("10 bytes into the 100-byte allocation"), "{m}");
        // Space never handed out is refused too.
        let m = message(map.check_access(b + 4096, 4, "x"));
        assert!(m.contains("has not allocated"), "{m}");
        // A foreign range that runs into a segment is refused.
        let segment = *map.read().segments.keys().next().unwrap();
        let m = message(map.check_access(segment - 16, 32, "x"));
        assert!(m.contains("runs into the runtime's memory"), "{m}");
        assert_eq!(
            map.check_access(segment - 16, 16, "x").unwrap(),
            Access::Foreign
        );
        map.free(b, |p| p == Place::Host).unwrap();
    }

    #[test]
    fn frees_are_checked_and_described() {
        let map = MemoryMap::default();
        let device = |p: Place| matches!(p, Place::Device(_));
        let a = map.allocate(256, Place::Device(1)).unwrap();
        let m = message(map.free(a + 64, device));
        assert!(m.contains("64 bytes into the 256-byte allocation"), "{m}");
        assert_eq!(
            code(map.free(a, |p| p == Place::Host)),
            ACL_ERROR_RT_MEMORY_FREE
        );
        assert_eq!(map.free(a, device).unwrap().size, 256);
        assert_eq!(code(map.free(a, device)), ACL_ERROR_RT_MEMORY_FREE);
        assert!(message(map.free(a, device)).contains("was freed"));
        assert_eq!(map.live(), 0);
    }

    #[test]
    fn reuse_makes_a_freed_range_live_again() {
        let map = MemoryMap::default();
        let a = map.allocate(1000, Place::Host).unwrap();
        map.free(a, |_| true).unwrap();
        let b = map.allocate(1000, Place::Host).unwrap();
        assert_eq!(a, b);
        assert_eq!(map.check_access(b, 1000, "x").unwrap(), Access::Runtime);
        assert_eq!(map.clear().len(), 1);
        assert_eq!(map.live(), 0);
        let m = message(map.check_access(b, 1, "x"));
        assert!(m.contains("was freed"), "{m}");
    }

    #[test]
    fn freed_records_are_bounded() {
        let map = MemoryMap::default();
        let first = map.allocate(64, Place::Host).unwrap();
        map.free(first, |_| true).unwrap();
        // Keep later allocations away from `first`'s block.
        let hold = map.allocate(64, Place::Host).unwrap();
        assert_eq!(hold, first, "best fit reuses the freed block");
        let spacer = map.allocate(64, Place::Host).unwrap();
        map.free(hold, |_| true).unwrap();
        for _ in 0..FREED_RECORDS {
            let p = map.allocate(128, Place::Host).unwrap();
            map.free(p, |_| true).unwrap();
        }
        assert_eq!(map.read().freed.len(), FREED_RECORDS);
        // Still refused, though no longer named.
        let m = message(map.check_access(first, 1, "x"));
        assert!(m.contains("has not allocated"), "{m}");
        map.free(spacer, |_| true).unwrap();
    }

    #[test]
    fn pool_blocks_live_only_in_their_pools_region() {
        let map = MemoryMap::default();
        let base = map.reserve_region(4 << 20, 2 << 20, 7).unwrap();
        assert_eq!(base % (2 << 20), 0);
        // Inside the region but not marked: refused, and said to be pool space.
        let m = message(map.check_access(base, 1, "x"));
        assert!(m.contains("memory pool's reserved range"), "{m}");
        assert!(!map.mark_live(base, 100, 0, 8), "another pool's serial");
        assert!(map.mark_live(base, 100, 0, 7));
        assert_eq!(map.check_access(base, 100, "x").unwrap(), Access::Runtime);
        assert_eq!(code(map.free(base, |_| true)), ACL_ERROR_RT_MEMORY_FREE);
        map.unmark_live(base, 8);
        assert_eq!(map.live(), 1, "a stale serial removes nothing");
        // The region goes back with its live blocks; marking there fails afterwards.
        assert_eq!(map.release_region(base).len(), 1);
        assert!(!map.mark_live(base, 100, 0, 7));
        let plain = map.allocate(64, Place::Host).unwrap();
        map.unmark_live(plain, 7);
        assert_eq!(map.live(), 1, "an allocation that is not the pool's stays");
        map.free(plain, |_| true).unwrap();
        // Aligned allocations start on their alignment.
        let a = map.allocate_aligned(100, 2 << 20, Place::Host).unwrap();
        assert_eq!(a % (2 << 20), 0);
        assert_eq!(map.check_access(a, 100, "x").unwrap(), Access::Runtime);
        map.free(a, |_| true).unwrap();
    }

    #[test]
    fn huge_sizes_fail_cleanly() {
        let map = MemoryMap::default();
        assert_eq!(
            code(map.allocate(usize::MAX, Place::Host)),
            ACL_ERROR_RT_MEMORY_ALLOCATION
        );
        assert_eq!(
            code(map.allocate(usize::MAX / 2, Place::Host)),
            ACL_ERROR_RT_MEMORY_ALLOCATION
        );
        assert_eq!(map.live(), 0);
    }
}

//! Stream-ordered memory pools (`aclrtMemPool*`, CUDA's `cuMemPool*` and `cuMemAllocAsync`).
//!
//! A pool owns one region of device address space ([`super::MemoryMap::reserve_region`]),
//! `size` bytes, of which it *reserves* (counts against its device's memory) only what its
//! blocks use. Every block is a multiple of [`GRANULE`] bytes and starts on one. This module is
//! the pool's bookkeeping; the calls (`api/mem_pool.rs`) queue the stream tasks and keep the
//! memory map and the device's accounting in step with it.
//!
//! # Block life
//!
//! An allocation takes a block at once, in host order: the address is the caller's when the
//! call returns, and the block is *allocated* (in `allocated`). A free moves it to the *cached*
//! list with the stream and the task id of the free task queued for it; that task sets the
//! block's `returned` flag when the stream reaches it. A cached block is *reserved*: an
//! allocation may take it again (reuse) or a trim may give its bytes back to the *unreserved*
//! space of the region.
//!
//! # Reuse (the vendor's "内存复用机制")
//!
//! An allocation on stream `S` looks for the smallest cached block that is large enough, in
//! this order, taking the first kind that has one:
//!
//! 1. freed on `S` itself: the free task runs before anything `S` queues later;
//! 2. with [`Attrs::event_dependencies`]: freed on a stream `T` where `S` has queued a wait for
//!    an event recorded on `T` after the free task ([`Order`]);
//! 3. with [`Attrs::opportunistic`]: any block whose free task has already run;
//! 4. with [`Attrs::internal_dependencies`]: any block; the caller queues on `S` a wait for the
//!    free task's stream to reach it, before the allocation task ([`Taken::after`]).
//!
//! Otherwise the block comes from the unreserved space (best fit), or the allocation fails.
//!
//! # Invariants
//!
//! 1. Allocated blocks, cached blocks and unreserved extents never overlap and together cover
//!    the region exactly.
//! 2. `reserved` is the sum of the allocated and cached blocks' lengths and `used` that of the
//!    allocated ones; `used <= reserved <= size`; the high marks are at least the current values
//!    since they were last reset.
//! 3. A block handed out again was freed in an order the program established (rules 1–2), or
//!    its free had run (rule 3), or the allocation waits for it (rule 4).
//! 4. A destroyed (drained) pool hands out nothing more, and the memory map marks a block live
//!    only inside its own pool's region (checked under the map's lock), so a block taken while
//!    the pool is destroyed never lands in memory given back.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use super::extents::Extents;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Progress;
use crate::handle::{HandleTable, MemPoolHandle};
use crate::sync::lock;

/// Every "the pool is full" failure says this (faces that tell it from other internal errors,
/// CUDA's out of memory, look for it).
pub(crate) const NO_ROOM: &str = "memory pool has no room";

/// Pool blocks, and pool sizes, are multiples of this (the vendor's 2 MB block size).
pub(crate) const GRANULE: usize = 2 << 20;

/// A serial for a new pool: unique in the process, never 0.
pub(crate) fn next_serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// `n` rounded up to [`GRANULE`], or `None` when that overflows.
pub(crate) fn granule_up(n: usize) -> Option<usize> {
    n.checked_next_multiple_of(GRANULE)
}

/// Reuse attributes (all off by default, as the vendor's pools are).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Attrs {
    pub(crate) event_dependencies: bool,
    pub(crate) opportunistic: bool,
    pub(crate) internal_dependencies: bool,
    /// Bytes a pool keeps reserved when it is trimmed implicitly (stored and reported).
    pub(crate) release_threshold: u64,
}

/// Sizes a pool reports.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub(crate) reserved: u64,
    pub(crate) reserved_high: u64,
    pub(crate) used: u64,
    pub(crate) used_high: u64,
}

/// Where a free task sits: its stream, its task id, and that stream's progress.
#[derive(Clone)]
pub(crate) struct FreeSite {
    pub(crate) stream: u64,
    pub(crate) task_id: u64,
    pub(crate) progress: Arc<Progress>,
    /// Set by the free task when it runs.
    pub(crate) returned: Arc<AtomicBool>,
}

struct Cached {
    len: usize,
    site: FreeSite,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Block {
    /// Bytes the caller asked for.
    pub(crate) size: usize,
    /// Bytes the block occupies (a multiple of [`GRANULE`]).
    pub(crate) len: usize,
}

/// A block handed out by [`Pool::allocate`].
pub(crate) struct Taken {
    pub(crate) base: usize,
    /// With rule 4: the stream's progress and the task count to wait for first.
    pub(crate) after: Option<(Arc<Progress>, u64)>,
}

struct PoolState {
    /// Set when the pool is destroyed: nothing more is handed out.
    closed: bool,
    allocated: BTreeMap<usize, Block>,
    /// Cached blocks by base address.
    cached: BTreeMap<usize, Cached>,
    unreserved: Extents,
    usage: Usage,
    attrs: Attrs,
}

/// One memory pool. See the module documentation.
pub(crate) struct Pool {
    /// Unique in the process: names the pool's blocks in the memory map.
    pub(crate) serial: u64,
    pub(crate) device: i32,
    pub(crate) base: usize,
    pub(crate) size: usize,
    /// A device's default pool (CUDA) may not be destroyed.
    pub(crate) is_default: bool,
    state: Mutex<PoolState>,
}

impl Pool {
    /// A pool of `size` bytes at `base` (its region, reserved under `serial`, from
    /// [`next_serial`]).
    pub(crate) fn new(
        serial: u64,
        device: i32,
        base: usize,
        size: usize,
        is_default: bool,
    ) -> Self {
        let mut unreserved = Extents::default();
        unreserved.give_back(base, size);
        Self {
            serial,
            device,
            base,
            size,
            is_default,
            state: Mutex::new(PoolState {
                allocated: BTreeMap::new(),
                cached: BTreeMap::new(),
                unreserved,
                usage: Usage::default(),
                attrs: Attrs::default(),
                closed: false,
            }),
        }
    }

    pub(crate) fn contains(&self, ptr: usize) -> bool {
        (self.base..self.base + self.size).contains(&ptr)
    }

    /// Takes a block of `size` bytes for stream `stream`, reusing a cached one when the rules
    /// allow (`ordered(t, f)`: `stream` has waited for an event recorded on stream `t` after
    /// its task `f`). `reserve(n)` is asked before `n` fresh bytes are reserved and may refuse
    /// (the device is full).
    pub(crate) fn allocate(
        &self,
        size: usize,
        stream: u64,
        ordered: impl Fn(u64, u64) -> bool,
        reserve: impl FnOnce(usize) -> Result<()>,
    ) -> Result<Taken> {
        let Some(len) = granule_up(size).filter(|&l| l <= self.size) else {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "the {NO_ROOM} for {size} bytes: it holds {} bytes",
                self.size
            );
        };
        let mut st = lock(&self.state);
        if st.closed {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "the memory pool was destroyed meanwhile"
            );
        }
        let attrs = st.attrs;
        let rules: [&dyn Fn(&Cached) -> bool; 4] = [
            &|c| c.site.stream == stream,
            &|c| attrs.event_dependencies && ordered(c.site.stream, c.site.task_id),
            &|c| attrs.opportunistic && c.site.returned.load(Ordering::Acquire),
            &|_| attrs.internal_dependencies,
        ];
        for (rule, fits) in rules.iter().enumerate() {
            let best = st
                .cached
                .iter()
                .filter(|(_, c)| c.len >= len && fits(c))
                .min_by_key(|(&b, c)| (c.len, b))
                .map(|(&b, _)| b);
            let Some(base) = best else { continue };
            let cached = st.cached.remove(&base).expect("found above");
            if cached.len > len {
                let rest = Cached {
                    len: cached.len - len,
                    site: cached.site.clone(),
                };
                st.cached.insert(base + len, rest);
            }
            let after = (rule == 3 && cached.site.stream != stream)
                .then(|| (cached.site.progress.clone(), cached.site.task_id + 1));
            st.hand_out(base, size, len);
            return Ok(Taken { base, after });
        }
        let Some(base) = st.unreserved.take(len) else {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "the {NO_ROOM} for {len} more bytes: {} of its {} bytes are \
                 reserved and none of its cached blocks may be reused by this stream",
                st.usage.reserved,
                self.size
            );
        };
        if let Err(e) = reserve(len) {
            st.unreserved.give_back(base, len);
            return Err(e);
        }
        st.usage.reserved += len as u64;
        st.usage.reserved_high = st.usage.reserved_high.max(st.usage.reserved);
        st.hand_out(base, size, len);
        Ok(Taken { base, after: None })
    }

    /// Gives back a block taken by [`Pool::allocate`] whose allocation task could not be
    /// queued: it becomes cached again (reused at once by the same stream).
    pub(crate) fn undo_allocate(&self, base: usize, site: FreeSite) {
        if let Ok(block) = self.begin_free(base) {
            site.returned.store(true, Ordering::Release);
            self.finish_free(base, block, site);
        }
    }

    /// The first half of a free: `base` stops being allocated. `507899` when it is not the
    /// start of an allocated block (the vendor's "pointer not found in the pool").
    pub(crate) fn begin_free(&self, base: usize) -> Result<Block> {
        let mut st = lock(&self.state);
        let Some(block) = st.allocated.remove(&base) else {
            let what = if st.cached.contains_key(&base) {
                "it was already freed"
            } else if let Some((&b, blk)) = st.allocated.range(..base).next_back() {
                if base < b + blk.len {
                    "it lies inside a block, not at its start"
                } else {
                    "no block of the pool starts there"
                }
            } else {
                "no block of the pool starts there"
            };
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{base:#x} lies in a memory pool but is not an allocated block: {what}"
            );
        };
        st.usage.used -= block.len as u64;
        Ok(block)
    }

    /// The second half of a free: the block is cached with the site of its free task.
    pub(crate) fn finish_free(&self, base: usize, block: Block, site: FreeSite) {
        let mut st = lock(&self.state);
        st.cached.insert(
            base,
            Cached {
                len: block.len,
                site,
            },
        );
    }

    /// Puts a block whose free task could not be queued back among the allocated ones.
    pub(crate) fn undo_free(&self, base: usize, block: Block) {
        let mut st = lock(&self.state);
        st.usage.used += block.len as u64;
        st.allocated.insert(base, block);
    }

    /// The allocated block that starts at `base`.
    pub(crate) fn block_at(&self, base: usize) -> Option<Block> {
        lock(&self.state).allocated.get(&base).copied()
    }

    /// Trims the pool to `keep` reserved bytes, giving back cached blocks smallest first (the
    /// last one split so the target is met exactly). Returns the ranges given back.
    /// `507899` when `keep` exceeds the pool's size or is below what is in use.
    /// `lenient` (CUDA's trim): no failure; only blocks whose free task has run go back.
    pub(crate) fn trim_to(&self, keep: u64, lenient: bool) -> Result<Vec<(usize, usize)>> {
        let mut st = lock(&self.state);
        if lenient {
            let keep = keep.max(st.usage.used);
            return Ok(st.trim_cached(keep, |c| c.site.returned.load(Ordering::Acquire)));
        }
        if keep > self.size as u64 {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "cannot trim to {keep} bytes: more than the pool's size ({} bytes)",
                self.size
            );
        }
        if keep >= st.usage.reserved {
            return Ok(Vec::new());
        }
        if keep < st.usage.used {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "cannot trim to {keep} bytes: {} bytes of the pool are in use",
                st.usage.used
            );
        }
        Ok(st.trim_cached(keep, |_| true))
    }

    /// Everything still reserved, and the allocated blocks (the pool is being destroyed).
    pub(crate) fn drain(&self) -> (u64, Vec<usize>) {
        let mut st = lock(&self.state);
        st.closed = true;
        st.unreserved.clear();
        let blocks = st.allocated.keys().copied().collect();
        st.allocated.clear();
        st.cached.clear();
        let reserved = std::mem::take(&mut st.usage.reserved);
        st.usage.used = 0;
        (reserved, blocks)
    }

    pub(crate) fn usage(&self) -> Usage {
        lock(&self.state).usage
    }

    pub(crate) fn attrs(&self) -> Attrs {
        lock(&self.state).attrs
    }

    pub(crate) fn set_attrs(&self, change: impl FnOnce(&mut Attrs)) {
        change(&mut lock(&self.state).attrs)
    }

    /// Resets a high mark to the current value (`aclrtMemPoolSetAttr` with 0).
    pub(crate) fn reset_high(&self, reserved: bool) {
        let mut st = lock(&self.state);
        if reserved {
            st.usage.reserved_high = 0;
        } else {
            st.usage.used_high = 0;
        }
    }
}

impl PoolState {
    /// Gives back cached blocks that `may`, smallest first, until `keep` bytes are reserved
    /// (the last one split to meet it exactly); returns the ranges given back.
    fn trim_cached(&mut self, keep: u64, may: impl Fn(&Cached) -> bool) -> Vec<(usize, usize)> {
        let mut order: Vec<(usize, usize)> = self
            .cached
            .iter()
            .filter(|(_, c)| may(c))
            .map(|(&b, c)| (c.len, b))
            .collect();
        order.sort_unstable();
        let mut given = Vec::new();
        for (len, base) in order {
            let excess = self.usage.reserved.saturating_sub(keep) as usize;
            if excess == 0 {
                break;
            }
            let cut = len.min(excess);
            let cached = self.cached.remove(&base).expect("listed above");
            if cut < len {
                // Keep the high part cached, give the low part back.
                self.cached.insert(
                    base + cut,
                    Cached {
                        len: len - cut,
                        site: cached.site,
                    },
                );
            }
            self.unreserved.give_back(base, cut);
            self.usage.reserved -= cut as u64;
            given.push((base, cut));
        }
        given
    }

    fn hand_out(&mut self, base: usize, size: usize, len: usize) {
        self.allocated.insert(base, Block { size, len });
        self.usage.used += len as u64;
        self.usage.used_high = self.usage.used_high.max(self.usage.used);
    }
}

/// What streams have waited for: (waiting stream, recording stream) → the highest task id of
/// a record on the recording stream that the waiting stream has queued a wait for.
#[derive(Default)]
pub(crate) struct Order(BTreeMap<(u64, u64), u64>);

impl Order {
    pub(crate) fn note(&mut self, waiter: u64, recorder: u64, record_task: u64) {
        let e = self.0.entry((waiter, recorder)).or_insert(record_task);
        *e = (*e).max(record_task);
    }

    /// Forgets a destroyed stream, as waiter and as recorder.
    pub(crate) fn forget(&mut self, stream: u64) {
        self.0.retain(|&(w, r), _| w != stream && r != stream);
    }

    /// The records `waiter` has waited for, by recording stream.
    pub(crate) fn for_waiter(&self, waiter: u64) -> Vec<(u64, u64)> {
        self.0
            .range((waiter, 0)..=(waiter, u64::MAX))
            .map(|(&(_, r), &t)| (r, t))
            .collect()
    }
}

/// The runtime's pools: live pools by handle, what streams waited for, and the CUDA face's
/// default and current pool of each device (raw handles).
pub(crate) struct Pools {
    pub(crate) table: HandleTable<Pool>,
    /// Set when the first pool is made: until then no wait needs noting.
    pub(crate) any: AtomicBool,
    pub(crate) order: Mutex<Order>,
    pub(crate) per_device: Mutex<DevicePools>,
    /// Destroyed CUDA pools that still have allocated blocks: they end with the last free.
    pub(crate) retired: Mutex<Vec<Arc<Pool>>>,
    /// `aclrtMalloc` allocations whose `aclrtMemPoolFreeAsync` is queued.
    pub(crate) pending: Arc<PendingFrees>,
}

/// Allocations freed in stream order whose free task has not run: no other free may take them
/// meanwhile (it would let the address be handed out again before the queued free runs).
#[derive(Default)]
pub(crate) struct PendingFrees {
    used: AtomicBool,
    set: Mutex<PendingSet>,
}

#[derive(Default)]
struct PendingSet(std::collections::BTreeSet<usize>);

impl PendingFrees {
    /// Notes a queued free of `ptr`; `false` if one is queued already.
    pub(crate) fn begin(&self, ptr: usize) -> bool {
        self.used.store(true, Ordering::Release);
        lock(&self.set).0.insert(ptr)
    }

    /// The queued free of `ptr` ran, or was not queued after all.
    pub(crate) fn end(&self, ptr: usize) {
        lock(&self.set).0.remove(&ptr);
    }

    pub(crate) fn contains(&self, ptr: usize) -> bool {
        self.used.load(Ordering::Acquire) && lock(&self.set).0.contains(&ptr)
    }
}

/// Per device id: the default pool, once made, and the current pool, when set (CUDA).
#[derive(Default)]
pub(crate) struct DevicePools {
    pub(crate) default: BTreeMap<i32, u64>,
    pub(crate) current: BTreeMap<i32, u64>,
}

impl Default for Pools {
    fn default() -> Self {
        Self {
            table: HandleTable::new(MemPoolHandle::TAG),
            any: AtomicBool::new(false),
            order: Mutex::new(Order::default()),
            per_device: Mutex::new(DevicePools::default()),
            retired: Mutex::new(Vec::new()),
            pending: Arc::default(),
        }
    }
}

impl Pools {
    /// The live pool whose region holds `ptr`.
    pub(crate) fn holding(&self, ptr: usize) -> Option<Arc<Pool>> {
        if !self.any.load(Ordering::Acquire) {
            return None;
        }
        let live = self
            .table
            .values()
            .into_iter()
            .map(|(_, p)| p)
            .find(|p| p.contains(ptr));
        live.or_else(|| {
            lock(&self.retired)
                .iter()
                .find(|p| p.contains(ptr))
                .cloned()
        })
    }

    /// Notes that `waiter` queued a wait for the record that is task `record_task` of stream
    /// `recorder`.
    pub(crate) fn note_wait(&self, waiter: u64, recorder: u64, record_task: u64) {
        if self.any.load(Ordering::Acquire) && waiter != recorder {
            lock(&self.order).note(waiter, recorder, record_task);
        }
    }

    /// Forgets what a destroyed stream waited for or was waited on for.
    pub(crate) fn forget_stream(&self, stream: u64) {
        if self.any.load(Ordering::Acquire) {
            lock(&self.order).forget(stream);
        }
    }

    /// Whether, by the waits `waiter` queued so far, task `task` of stream `stream` comes
    /// before `waiter`'s next task.
    pub(crate) fn ordered_for(&self, waiter: u64) -> impl Fn(u64, u64) -> bool {
        let known = lock(&self.order).for_waiter(waiter);
        move |stream, task| known.iter().any(|&(r, t)| r == stream && task < t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: usize = 1 << 40;

    fn site(stream: u64, task_id: u64, returned: bool) -> FreeSite {
        FreeSite {
            stream,
            task_id,
            progress: Arc::new(Progress::new(crate::observe::TaskRef {
                device_id: 0,
                stream_id: 0,
                stream,
                task_id: 0,
            })),
            returned: Arc::new(AtomicBool::new(returned)),
        }
    }

    fn alloc(p: &Pool, size: usize, stream: u64) -> Result<Taken> {
        p.allocate(size, stream, |_, _| false, |_| Ok(()))
    }

    fn free(p: &Pool, base: usize, s: FreeSite) {
        let b = p.begin_free(base).unwrap();
        p.finish_free(base, b, s);
    }

    #[test]
    fn blocks_are_granules_and_usage_adds_up() {
        let p = Pool::new(1, 0, BASE, 8 * GRANULE, false);
        let a = alloc(&p, 100, 1).unwrap();
        assert_eq!(a.base, BASE);
        let b = alloc(&p, GRANULE + 1, 1).unwrap();
        assert_eq!(b.base, BASE + GRANULE);
        let u = p.usage();
        assert_eq!(
            (u.reserved, u.used),
            (3 * GRANULE as u64, 3 * GRANULE as u64)
        );
        free(&p, a.base, site(1, 5, false));
        let u = p.usage();
        assert_eq!(
            (u.reserved, u.used, u.used_high),
            (3 * GRANULE as u64, 2 * GRANULE as u64, 3 * GRANULE as u64)
        );
        assert_eq!(p.block_at(b.base).unwrap().size, GRANULE + 1);
    }

    #[test]
    fn reuse_follows_the_rules() {
        let p = Pool::new(1, 0, BASE, 8 * GRANULE, false);
        let a = alloc(&p, 10, 1).unwrap();
        free(&p, a.base, site(1, 3, false));
        // Another stream, no attribute: a fresh block.
        let b = alloc(&p, 10, 2).unwrap();
        assert_ne!(b.base, a.base);
        assert_eq!(p.usage().reserved, 2 * GRANULE as u64);
        // The freeing stream itself: the same block, nothing more reserved.
        let c = alloc(&p, 10, 1).unwrap();
        assert_eq!(c.base, a.base);
        assert_eq!(p.usage().reserved, 2 * GRANULE as u64);
        free(&p, c.base, site(1, 7, false));
        // Event dependencies: only when the wait follows the free task.
        p.set_attrs(|a| a.event_dependencies = true);
        let early = p
            .allocate(10, 2, |t, f| t == 1 && f < 7, |_| Ok(()))
            .unwrap();
        assert_ne!(early.base, a.base);
        let late = p
            .allocate(10, 2, |t, f| t == 1 && f < 8, |_| Ok(()))
            .unwrap();
        assert_eq!(late.base, a.base);
        // Opportunistic: only a free that has run.
        free(&p, late.base, site(2, 9, false));
        p.set_attrs(|a| {
            *a = Attrs {
                opportunistic: true,
                ..Attrs::default()
            }
        });
        let d = alloc(&p, 10, 3).unwrap();
        assert_ne!(d.base, a.base);
        p.begin_free(d.base).unwrap();
        // Internal dependencies: any block, after a wait for the free task.
        p.set_attrs(|a| a.internal_dependencies = true);
        let e = alloc(&p, 10, 3).unwrap();
        assert_eq!(e.base, a.base);
        assert_eq!(e.after.map(|(_, n)| n), Some(10));
    }

    #[test]
    fn best_fit_splits_cached_blocks() {
        let p = Pool::new(1, 0, BASE, 8 * GRANULE, false);
        let big = alloc(&p, 3 * GRANULE, 1).unwrap();
        free(&p, big.base, site(1, 0, false));
        let a = alloc(&p, 1, 1).unwrap();
        let b = alloc(&p, 1, 1).unwrap();
        assert_eq!((a.base, b.base), (BASE, BASE + GRANULE));
        assert_eq!(p.usage().reserved, 3 * GRANULE as u64);
    }

    #[test]
    fn frees_are_checked() {
        let p = Pool::new(1, 0, BASE, 4 * GRANULE, false);
        let a = alloc(&p, 10, 1).unwrap();
        let m = p.begin_free(a.base + 64).unwrap_err();
        assert_eq!(m.code(), ACL_ERROR_RT_INTERNAL_ERROR);
        assert!(m.message().contains("inside a block"), "{}", m.message());
        free(&p, a.base, site(1, 0, false));
        let m = p.begin_free(a.base).unwrap_err();
        assert!(m.message().contains("already freed"), "{}", m.message());
    }

    #[test]
    fn trim_gives_back_cached_bytes_exactly() {
        let p = Pool::new(1, 0, BASE, 8 * GRANULE, false);
        let a = alloc(&p, GRANULE, 1).unwrap();
        let b = alloc(&p, 2 * GRANULE, 1).unwrap();
        let _c = alloc(&p, GRANULE, 1).unwrap();
        free(&p, a.base, site(1, 0, false));
        free(&p, b.base, site(1, 1, false));
        assert_eq!(
            p.trim_to(9 * GRANULE as u64, false).unwrap_err().code(),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        assert_eq!(
            p.trim_to(GRANULE as u64 - 1, false).unwrap_err().code(),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        assert!(p.trim_to(4 * GRANULE as u64, false).unwrap().is_empty());
        let given = p.trim_to(2 * GRANULE as u64, false).unwrap();
        assert_eq!(given, vec![(a.base, GRANULE), (b.base, GRANULE)]);
        assert_eq!(p.usage().reserved, 2 * GRANULE as u64);
        let given = p.trim_to(GRANULE as u64, false).unwrap();
        assert_eq!(given, vec![(b.base + GRANULE, GRANULE)]);
    }

    #[test]
    fn lenient_trim_gives_back_only_returned_blocks() {
        let p = Pool::new(1, 0, BASE, 8 * GRANULE, false);
        let a = alloc(&p, GRANULE, 1).unwrap();
        let b = alloc(&p, GRANULE, 1).unwrap();
        let _c = alloc(&p, GRANULE, 1).unwrap();
        free(&p, a.base, site(1, 0, true));
        free(&p, b.base, site(1, 1, false));
        // Below what is in use: no failure, everything returned goes back.
        assert_eq!(p.trim_to(0, true).unwrap(), vec![(a.base, GRANULE)]);
        assert_eq!(p.usage().reserved, 2 * GRANULE as u64);
        assert!(p.trim_to(u64::MAX, true).unwrap().is_empty());
    }

    #[test]
    fn exhaustion_and_refused_reservations_fail_cleanly() {
        let p = Pool::new(1, 0, BASE, 2 * GRANULE, false);
        assert_eq!(
            alloc(&p, 3 * GRANULE, 1).err().unwrap().code(),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
        let e = p
            .allocate(
                1,
                1,
                |_, _| false,
                |_| bail!(ACL_ERROR_RT_MEMORY_ALLOCATION, "full"),
            )
            .err()
            .unwrap();
        assert_eq!(e.code(), ACL_ERROR_RT_MEMORY_ALLOCATION);
        assert_eq!(p.usage(), Usage::default());
        alloc(&p, 2 * GRANULE, 1).unwrap();
        assert_eq!(
            alloc(&p, 1, 1).err().unwrap().code(),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
    }

    #[test]
    fn a_destroyed_pool_hands_out_nothing() {
        let p = Pool::new(1, 0, BASE, 2 * GRANULE, false);
        let a = alloc(&p, 1, 1).unwrap();
        let (reserved, blocks) = p.drain();
        assert_eq!((reserved, blocks), (GRANULE as u64, vec![a.base]));
        let e = alloc(&p, 1, 1).err().unwrap();
        assert!(e.message().contains("destroyed"), "{}", e.message());
        assert_eq!(
            p.begin_free(a.base).unwrap_err().code(),
            ACL_ERROR_RT_INTERNAL_ERROR
        );
    }

    #[test]
    fn order_keeps_the_latest_record_per_pair() {
        let mut o = Order::default();
        o.note(2, 1, 5);
        o.note(2, 1, 3);
        o.note(2, 4, 1);
        o.note(3, 1, 9);
        assert_eq!(o.for_waiter(2), vec![(1, 5), (4, 1)]);
        assert_eq!(o.for_waiter(3), vec![(1, 9)]);
        o.forget(1);
        assert_eq!(o.for_waiter(2), vec![(4, 1)]);
        assert!(o.for_waiter(3).is_empty());
    }
}

//! Stream-ordered allocation (`aclrtMemPool*`): the checks of each call and the stream tasks
//! it queues. The pool's bookkeeping and reuse rules are [`crate::memory::pool`].
//!
//! An allocation queues a named host task ("aclrtMemPoolMallocAsync"): the point in the
//! stream's order from which the block is usable (it does no work on the host, where the
//! memory is always mapped). A free queues one ("aclrtMemPoolFreeAsync") that marks the block
//! returned when the stream reaches it (opportunistic reuse looks at that). Both declare a write of the whole block, so the checker (`ACLRT_CHECK`) reports
//! any access of the block from work not ordered after the allocation task, or not ordered
//! before the free task, as a race with them. Pointer checks of later calls see the block as a
//! live allocation from the allocation call until the free call (the host's order: what is
//! queued is checked when queued).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::os_thread_id;
use crate::codes::*;
use crate::error::{bail, AclError, Error, Result};
use crate::exec::Work;
use crate::handle::{MemPoolHandle, StreamHandle};
use crate::memory::pool::{self, FreeSite, Pool, GRANULE};
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::task_info::{MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// `aclrtMemPoolProps`, as the faces read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemPoolProps {
    /// `aclrtMemAllocationType`: only `ACL_MEM_ALLOCATION_TYPE_PINNED`.
    pub alloc_type: u32,
    /// `aclrtMemHandleType` (not used by the emulated device).
    pub handle_type: u32,
    /// `aclrtMemLocationType`: only `ACL_MEM_LOCATION_TYPE_DEVICE`.
    pub location_type: u32,
    /// The device.
    pub location_id: u32,
    /// Bytes; 0 is the device's whole memory.
    pub max_size: usize,
    /// Whether the 32 reserved bytes are all zero.
    pub reserved_zero: bool,
}

/// Whose pool: the vendor's (reuse across streams off until asked for), CUDA's (all reuse on),
/// or a device's CUDA default pool (all reuse on, never destroyed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PoolKind {
    Acl,
    Cuda,
    CudaDefault,
}

impl Runtime {
    /// The live pool `handle` names; `missing` is the code for a stale or unknown handle
    /// (the vendor's calls differ).
    pub(crate) fn lookup_pool(
        &self,
        handle: MemPoolHandle,
        missing: AclError,
        call: &str,
    ) -> Result<Arc<Pool>> {
        if handle.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: the memory pool is NULL");
        }
        self.pools.table.get(handle.as_raw()).ok_or_else(|| {
            Error::new(
                missing,
                format!("{call}: {handle:?} is not a live memory pool (destroyed, or never made)"),
            )
        })
    }

    /// `aclrtMemPoolCreate`.
    pub fn mem_pool_create(&self, props: &MemPoolProps) -> Result<MemPoolHandle> {
        const CALL: &str = "aclrtMemPoolCreate";
        if props.alloc_type != vc::ACL_MEM_ALLOCATION_TYPE_PINNED as u32 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: poolProps->allocType {} is not ACL_MEM_ALLOCATION_TYPE_PINNED (0)",
                props.alloc_type
            );
        }
        if props.location_type != vc::ACL_MEM_LOCATION_TYPE_DEVICE as u32 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: poolProps->location.type {} is not ACL_MEM_LOCATION_TYPE_DEVICE (1)",
                props.location_type
            );
        }
        if !props.reserved_zero {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: poolProps->reserved must be all zero"
            );
        }
        self.current_context()?;
        self.create_pool(
            props.location_id as i32,
            props.max_size,
            PoolKind::Acl,
            CALL,
        )
    }

    /// Makes a pool of `max_size` bytes (0: the device's whole memory) on device `device`.
    pub(crate) fn create_pool(
        &self,
        device: i32,
        max_size: usize,
        kind: PoolKind,
        call: &str,
    ) -> Result<MemPoolHandle> {
        let creating = self.creating()?;
        let Some(dev) = self.device(device) else {
            bail!(
                ACL_ERROR_RT_INVALID_DEVICEID,
                "{call}: device {device} does not exist"
            );
        };
        let total = dev.memory_capacity as usize;
        let size = if max_size == 0 {
            total / GRANULE * GRANULE
        } else {
            pool::granule_up(max_size).unwrap_or(usize::MAX)
        };
        if size > total || size == 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: a pool of {max_size} bytes ({size} after rounding up to 2 MB) does not \
                 fit in device {device}'s {total} bytes"
            );
        }
        let serial = pool::next_serial();
        let base = self.memory.reserve_region(size, GRANULE, serial)?;
        let pool = Pool::new(serial, device, base, size, kind == PoolKind::CudaDefault);
        if kind != PoolKind::Acl {
            pool.set_attrs(|a| {
                a.event_dependencies = true;
                a.opportunistic = true;
                a.internal_dependencies = true;
            });
        }
        self.pools.any.store(true, Ordering::Release);
        let mut raw = 0;
        self.pools.table.insert_with(|r| {
            raw = r;
            Arc::new(pool)
        });
        drop(creating);
        Ok(MemPoolHandle::from_raw(raw))
    }

    /// `aclrtMemPoolDestroy`: blocks still allocated from the pool end with it (their
    /// addresses become freed memory); its reserved memory goes back to the device.
    pub fn mem_pool_destroy(&self, handle: MemPoolHandle) -> Result<()> {
        const CALL: &str = "aclrtMemPoolDestroy";
        let pool = self.lookup_pool(handle, ACL_ERROR_RT_INTERNAL_ERROR, CALL)?;
        if pool.is_default {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{CALL}: a device's default memory pool cannot be destroyed"
            );
        }
        let Some(pool) = self.pools.table.remove(handle.as_raw()) else {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{CALL}: {handle:?} is not a live memory pool (destroyed, or never made)"
            );
        };
        {
            let mut per = crate::sync::lock(&self.pools.per_device);
            per.current.retain(|_, &mut h| h != handle.as_raw());
        }
        self.end_pool(&pool);
        Ok(())
    }

    /// Releases a pool's region and gives its reserved memory back to its device.
    pub(crate) fn end_pool(&self, pool: &Pool) {
        let (reserved, _) = pool.drain();
        self.memory.release_region(pool.base);
        if let Some(dev) = self.device(pool.device) {
            dev.unreserve_memory(reserved);
        }
    }

    /// Destroys a CUDA pool: its handle dies now; its memory goes once no block is allocated
    /// (`true` when that is at once). A device's current pool falls back to its default one.
    pub(crate) fn retire_pool(&self, handle: MemPoolHandle, call: &str) -> Result<bool> {
        let pool = self.lookup_pool(handle, ACL_ERROR_INVALID_PARAM, call)?;
        if pool.is_default {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: a device's default memory pool cannot be destroyed"
            );
        }
        let Some(pool) = self.pools.table.remove(handle.as_raw()) else {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: {handle:?} is not a live memory pool"
            );
        };
        crate::sync::lock(&self.pools.per_device)
            .current
            .retain(|_, &mut h| h != handle.as_raw());
        if pool.usage().used == 0 {
            self.end_pool(&pool);
            return Ok(true);
        }
        crate::sync::lock(&self.pools.retired).push(pool);
        Ok(false)
    }

    /// `aclrtMemPoolSetAttr`.
    ///
    /// # Safety
    /// `value` is NULL or points to a `uint32_t` (reuse attributes) or `uint64_t` (the others).
    pub unsafe fn mem_pool_set_attr(
        &self,
        handle: MemPoolHandle,
        attr: u32,
        value: usize,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemPoolSetAttr";
        if handle.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: the memory pool is NULL");
        }
        if value == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: value is NULL");
        }
        let pool = self.lookup_pool(handle, ACL_ERROR_RT_PARAM_INVALID, CALL)?;
        // SAFETY: non-NULL, and of the attribute's type by the caller's contract.
        let flag = || unsafe { *(value as *const u32) } != 0;
        // SAFETY: as above.
        let bytes = || unsafe { *(value as *const u64) };
        match attr {
            1 => pool.set_attrs(|a| a.event_dependencies = flag()),
            2 => pool.set_attrs(|a| a.opportunistic = flag()),
            3 => pool.set_attrs(|a| a.internal_dependencies = flag()),
            4 => {
                let v = bytes();
                if v > pool.size as u64 {
                    bail!(
                        ACL_ERROR_RT_INTERNAL_ERROR,
                        "{CALL}: release threshold {v} exceeds the pool's size ({} bytes)",
                        pool.size
                    );
                }
                pool.set_attrs(|a| a.release_threshold = v);
            }
            5 | 7 => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: attribute {attr} ({}) is read-only",
                if attr == 5 {
                    "ACL_RT_MEM_POOL_ATTR_RESERVED_MEM_CURRENT"
                } else {
                    "ACL_RT_MEM_POOL_ATTR_USED_MEM_CURRENT"
                }
            ),
            6 | 8 => {
                let v = bytes();
                if v != 0 {
                    bail!(
                        ACL_ERROR_RT_INTERNAL_ERROR,
                        "{CALL}: a high mark can only be reset, to 0 (got {v})"
                    );
                }
                pool.reset_high(attr == 6);
            }
            _ => bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{CALL}: {attr} is not an aclrtMemPoolAttr"
            ),
        }
        Ok(())
    }

    /// `aclrtMemPoolGetAttr`.
    ///
    /// # Safety
    /// `value` is NULL or writable as the attribute's type (`uint32_t` or `uint64_t`).
    pub unsafe fn mem_pool_get_attr(
        &self,
        handle: MemPoolHandle,
        attr: u32,
        value: usize,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemPoolGetAttr";
        if handle.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: the memory pool is NULL");
        }
        if value == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: value is NULL");
        }
        let pool = self.lookup_pool(handle, ACL_ERROR_RT_PARAM_INVALID, CALL)?;
        let (a, u) = (pool.attrs(), pool.usage());
        let word = match attr {
            1 => Err(a.event_dependencies as u32),
            2 => Err(a.opportunistic as u32),
            3 => Err(a.internal_dependencies as u32),
            4 => Ok(a.release_threshold),
            5 => Ok(u.reserved),
            6 => Ok(u.reserved_high),
            7 => Ok(u.used),
            8 => Ok(u.used_high),
            _ => bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{CALL}: {attr} is not an aclrtMemPoolAttr"
            ),
        };
        // SAFETY: non-NULL and writable as the attribute's type, the caller's contract.
        unsafe {
            match word {
                Ok(v) => *(value as *mut u64) = v,
                Err(v) => *(value as *mut u32) = v,
            }
        }
        Ok(())
    }

    /// `aclrtMemPoolMallocAsync`: `None` for size 0 (the call succeeds and sets nothing).
    pub fn mem_pool_malloc_async(
        &self,
        size: usize,
        handle: MemPoolHandle,
        stream: StreamHandle,
    ) -> Result<Option<usize>> {
        const CALL: &str = "aclrtMemPoolMallocAsync";
        if handle.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: the memory pool is NULL");
        }
        if stream.is_null() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: the stream is NULL (the default stream is not accepted)"
            );
        }
        if size == 0 {
            return Ok(None);
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        if pool::granule_up(size).is_none() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: size {size} overflows when rounded up to 2 MB"
            );
        }
        let pool = self.lookup_pool(handle, ACL_ERROR_RT_INTERNAL_ERROR, CALL)?;
        self.pool_allocate(&pool, size, &s, CALL).map(Some)
    }

    /// Takes a block of `pool` for `stream` and queues its allocation task (after a wait for
    /// the free it reuses, when the reuse needs one).
    pub(crate) fn pool_allocate(
        &self,
        pool: &Arc<Pool>,
        size: usize,
        stream: &Arc<Stream>,
        call: &str,
    ) -> Result<usize> {
        let me = stream.handle.as_raw();
        let ordered = self.pools.ordered_for(me);
        let device = self.device(pool.device);
        let taken = pool.allocate(size, me, ordered, |n| match &device {
            Some(d) if d.reserve_memory(n as u64) => Ok(()),
            _ => bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "{call}: device {} is out of memory for {n} more bytes of the pool",
                pool.device
            ),
        })?;
        let base = taken.base;
        let undo = |e: Error| {
            pool.undo_allocate(base, self.free_site(stream, 0));
            e
        };
        if let Some((progress, until)) = taken.after {
            let meta = TaskMeta {
                submitter_thread: os_thread_id(),
                ..TaskMeta::default()
            };
            self.submit(
                stream,
                TaskKind::StreamWait,
                Work::StreamWait {
                    stream: progress,
                    until,
                },
                meta,
            )
            .map_err(undo)?;
        }
        let len = pool.block_at(base).map_or(size, |b| b.len);
        self.submit(
            stream,
            TaskKind::Kernel,
            Work::Kernel(Box::new(|| Ok(()))),
            block_meta(call, base, len),
        )
        .map_err(undo)?;
        if !self.memory.mark_live(base, size, pool.device, pool.serial) {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{call}: the memory pool was destroyed meanwhile"
            );
        }
        Ok(base)
    }

    fn free_site(&self, stream: &Arc<Stream>, task_id: u64) -> FreeSite {
        FreeSite {
            stream: stream.handle.as_raw(),
            task_id,
            progress: stream.progress.clone(),
            returned: Arc::new(AtomicBool::new(false)),
        }
    }

    /// `aclrtMemPoolFreeAsync`. A pointer outside every pool that starts an `aclrtMalloc`
    /// allocation is freed when the stream reaches the task, as the vendor does; any other
    /// pointer is refused.
    pub fn mem_pool_free_async(&self, ptr: usize, stream: StreamHandle) -> Result<()> {
        const CALL: &str = "aclrtMemPoolFreeAsync";
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: the pointer is NULL");
        }
        if stream.is_null() {
            bail!(
                ACL_ERROR_RT_INTERNAL_ERROR,
                "{CALL}: the stream is NULL (the default stream is not accepted)"
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        self.pool_free(ptr, &s, CALL)
    }

    /// Returns `ptr` to its pool in `stream`'s order.
    pub(crate) fn pool_free(&self, ptr: usize, stream: &Arc<Stream>, call: &str) -> Result<()> {
        let Some(pool) = self.pools.holding(ptr) else {
            return self.free_in_order(ptr, stream, call);
        };
        let block = pool
            .begin_free(ptr)
            .map_err(|e| Error::new(e.code(), format!("{call}: {}", e.message())))?;
        let returned = Arc::new(AtomicBool::new(false));
        let flag = returned.clone();
        let submitted = self.submit(
            stream,
            TaskKind::Kernel,
            Work::Kernel(Box::new(move || {
                flag.store(true, Ordering::Release);
                Ok(())
            })),
            block_meta(call, ptr, block.len),
        );
        let task_id = match submitted {
            Ok(id) => id,
            Err(e) => {
                pool.undo_free(ptr, block);
                return Err(e);
            }
        };
        self.memory.unmark_live(ptr, pool.serial);
        let site = FreeSite {
            task_id,
            returned,
            ..self.free_site(stream, task_id)
        };
        pool.finish_free(ptr, block, site);
        if pool.usage().used == 0 {
            let ended = {
                let mut retired = crate::sync::lock(&self.pools.retired);
                let before = retired.len();
                retired.retain(|p| !Arc::ptr_eq(p, &pool));
                retired.len() != before
            };
            if ended {
                self.end_pool(&pool);
            }
        }
        Ok(())
    }

    /// Frees an `aclrtMalloc` allocation when `stream` reaches the task. The pointer is noted
    /// as pending first, so `aclrtFree` and another such free refuse it until the task ran.
    fn free_in_order(&self, ptr: usize, stream: &Arc<Stream>, call: &str) -> Result<()> {
        if !self.pools.pending.begin(ptr) {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{call}: a free of {ptr:#x} is already queued"
            );
        }
        self.queue_free(ptr, stream, call)
            .inspect_err(|_| self.pools.pending.end(ptr))
    }

    fn queue_free(&self, ptr: usize, stream: &Arc<Stream>, call: &str) -> Result<()> {
        let Some((base, a)) = self.memory.allocation_at(ptr) else {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{call}: {ptr:#x} is neither in a memory pool nor a live device allocation"
            );
        };
        let Place::Device(id) = a.place else {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{call}: {ptr:#x} is host memory, not a device allocation from aclrtMalloc"
            );
        };
        if base != ptr || a.pool != 0 {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{call}: {ptr:#x} is not the start of a device allocation from aclrtMalloc"
            );
        }
        if self.is_dvpp(ptr) {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "{call}: {ptr:#x} is from acldvppMalloc: free it with acldvppFree"
            );
        }
        let memory = self.memory.clone();
        let managed = self.managed.clone();
        // Ends the pending mark when the task has run, or when it is dropped without running
        // (a discarded task): then `aclrtFree` may take the allocation.
        let pending = PendingGuard(self.pools.pending.clone(), ptr);
        let device = self.device(id);
        let free = move || {
            if let Ok(a) = memory.free(ptr, |p| matches!(p, Place::Device(_))) {
                managed.remove(ptr);
                if let Some(d) = device {
                    d.unreserve_memory(a.size as u64);
                }
            }
            drop(pending);
            Ok(())
        };
        self.submit(
            stream,
            TaskKind::Kernel,
            Work::Kernel(Box::new(free)),
            block_meta(call, ptr, a.size),
        )
        .map(|_| ())
    }

    /// `aclrtMemPoolTrimTo`.
    pub fn mem_pool_trim_to(&self, handle: MemPoolHandle, keep: usize) -> Result<()> {
        const CALL: &str = "aclrtMemPoolTrimTo";
        let pool = self.lookup_pool(handle, ACL_ERROR_RT_INTERNAL_ERROR, CALL)?;
        self.trim_pool(&pool, keep, false, CALL)
    }

    /// Trims `pool` to `keep` reserved bytes; `lenient` (CUDA): give back what can be, blocks
    /// whose free has run, and never fail.
    pub(crate) fn trim_pool(
        &self,
        pool: &Pool,
        keep: usize,
        lenient: bool,
        call: &str,
    ) -> Result<()> {
        let given = pool
            .trim_to(keep as u64, lenient)
            .map_err(|e| Error::new(e.code(), format!("{call}: {}", e.message())))?;
        let mut total = 0u64;
        for (start, len) in given {
            self.memory.release_pages(start, len);
            total += len as u64;
        }
        if let Some(d) = self.device(pool.device) {
            d.unreserve_memory(total);
        }
        Ok(())
    }

    /// Notes, for event-ordered reuse, that `waiter` queued a wait for a record of `recorder`.
    pub(crate) fn note_pool_wait(&self, waiter: &Stream, record: crate::observe::TaskRef) {
        self.pools
            .note_wait(waiter.handle.as_raw(), record.stream, record.task_id);
    }
}

/// A queued `aclrtMemPoolFreeAsync` of an `aclrtMalloc` allocation; ends its pending mark
/// when dropped.
struct PendingGuard(Arc<pool::PendingFrees>, usize);

impl Drop for PendingGuard {
    fn drop(&mut self) {
        self.0.end(self.1);
    }
}

/// The metadata of a pool task: named, writing the whole block.
fn block_meta(call: &str, start: usize, len: usize) -> TaskMeta {
    TaskMeta {
        name: Some(Arc::from(call)),
        writes: vec![MemRange { start, len }],
        submitter_thread: os_thread_id(),
        ..TaskMeta::default()
    }
}

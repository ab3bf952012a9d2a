//! Memory calls.
//!
//! The copy and set calls take raw pointers, as ACL does, and are `unsafe`: the caller
//! promises memory it passes in (outside runtime allocations) is valid for the access.

use super::not_in_callback;
use super::os_thread_id;
use crate::codes::*;
use crate::consts::*;
use crate::device::Device;
use crate::error::{bail, Error, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::hostlib::HostLibrary;
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::task_info::{MemRange, TaskKind, TaskMeta};
use std::sync::Arc;

const POLICY_BASE_MASK: u32 = 0xFF;
const POLICY_EXTRA_BITS: u32 =
    ACL_MEM_TYPE_LOW_BAND_WIDTH | ACL_MEM_TYPE_HIGH_BAND_WIDTH | ACL_MEM_ACCESS_USER_SPACE_READONLY;

fn host_memory() -> (usize, usize) {
    // SAFETY: sysinfo fills the zeroed struct it is given.
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    if unsafe { libc::sysinfo(&mut info) } != 0 {
        return (0, 0);
    }
    let unit = info.mem_unit as usize;
    (info.freeram as usize * unit, info.totalram as usize * unit)
}

/// Takes `size` bytes of `device`'s memory for an allocation; beyond its capacity
/// `ACL_ERROR_RT_MEMORY_ALLOCATION`, with `prefix` ahead of the message.
pub(super) fn reserve_device_memory(device: &Device, size: usize, prefix: &str) -> Result<()> {
    if !device.reserve_memory(size as u64) {
        bail!(
            ACL_ERROR_RT_MEMORY_ALLOCATION,
            "{prefix}device {} is out of memory: {size} bytes requested, {} of {} free",
            device.id,
            device.memory_capacity
                - device
                    .memory_used
                    .load(std::sync::atomic::Ordering::Acquire),
            device.memory_capacity
        );
    }
    Ok(())
}

impl Runtime {
    /// `aclrtMalloc`: device memory, 64-byte aligned, zeroed.
    pub fn malloc(&self, size: usize, policy: u32) -> Result<usize> {
        let creating = self.creating()?;
        let ctx = self.current_context()?;
        not_in_callback("aclrtMalloc")?;
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: size is 0");
        }
        if policy & POLICY_BASE_MASK > ACL_MEM_MALLOC_HUGE1G_ONLY_P2P
            || policy & !(POLICY_BASE_MASK | POLICY_EXTRA_BITS) != 0
        {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMalloc: {policy:#x} is not an aclrtMemMallocPolicy"
            );
        }
        let device = &ctx.device;
        reserve_device_memory(device, size, "")?;
        // An allocation of a page or more starts on a page, so it can have its pages to itself
        // when it is shared with another process (`aclrtIpcMemGetExportKey`).
        let page = crate::memory::page_size();
        let align = if size >= page {
            page
        } else {
            crate::memory::ALIGNMENT
        };
        let ptr = self
            .memory
            .allocate_aligned(size, align, Place::Device(device.id))
            .inspect_err(|_| device.unreserve_memory(size as u64))?;
        drop(creating);
        if crate::observe::enabled() {
            crate::observe::allocated(ptr, size, Some(device.id));
        }
        Ok(ptr)
    }

    /// `aclrtMallocHost`: host memory, 64-byte aligned, zeroed.
    pub fn malloc_host(&self, size: usize) -> Result<usize> {
        let creating = self.creating()?;
        not_in_callback("aclrtMallocHost")?;
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtMallocHost: size is 0");
        }
        let ptr = self.memory.allocate(size, Place::Host)?;
        drop(creating);
        if crate::observe::enabled() {
            crate::observe::allocated(ptr, size, None);
        }
        Ok(ptr)
    }

    /// `aclrtFree`: frees device memory at once (queued tasks using it are the caller's concern).
    pub fn free(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "aclrtFree: the pointer is NULL");
        }
        not_in_callback("aclrtFree")?;
        if self.is_dvpp(ptr) {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "aclrtFree: {ptr:#x} is from acldvppMalloc: free it with acldvppFree"
            );
        }
        if self.pools.pending.contains(ptr) {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "aclrtFree: {ptr:#x} is being freed by a queued aclrtMemPoolFreeAsync"
            );
        }
        if crate::observe::enabled() {
            crate::observe::freeing("aclrtFree", ptr);
        }
        let a = self.memory.free(ptr, |p| matches!(p, Place::Device(_)))?;
        self.end_ipc_export(ptr);
        self.managed.remove(ptr);
        if let Place::Device(id) = a.place {
            if let Some(device) = self.device(id) {
                device.unreserve_memory(a.size as u64);
            }
        }
        Ok(())
    }

    /// `aclrtFreeHost`.
    pub fn free_host(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtFreeHost: the pointer is NULL"
            );
        }
        not_in_callback("aclrtFreeHost")?;
        if crate::observe::enabled() {
            crate::observe::freeing("aclrtFreeHost", ptr);
        }
        self.memory.free(ptr, |p| p == Place::Host).map(|_| ())
    }

    /// `aclrtGetMemInfo`: `(free, total)` bytes. HBM attributes report the emulated device's
    /// capacity; DDR attributes report the host's memory; the generic `ACL_MEM_*` attributes
    /// (12–17) report device memory too.
    pub fn get_mem_info(&self, attr: u32) -> Result<(usize, usize)> {
        let ctx = self.current_context()?;
        match attr {
            ACL_DDR_MEM
            | ACL_DDR_MEM_HUGE
            | ACL_DDR_MEM_NORMAL
            | ACL_DDR_MEM_P2P_HUGE
            | ACL_DDR_MEM_P2P_NORMAL => Ok(host_memory()),
            a if a <= ACL_MEM_P2P_HUGE1G => {
                let d = &ctx.device;
                let used = d.memory_used.load(std::sync::atomic::Ordering::Acquire);
                Ok((
                    (d.memory_capacity - used) as usize,
                    d.memory_capacity as usize,
                ))
            }
            other => bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtGetMemInfo: {other} is not an aclrtMemAttr"
            ),
        }
    }

    /// `aclrtMemcpy`: synchronous, not ordered with streams.
    ///
    /// # Safety
    /// `src` must be readable and `dst` writable for `count` bytes.
    pub unsafe fn memcpy(
        &self,
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
    ) -> Result<()> {
        // SAFETY: the caller's promise.
        unsafe { self.memcpy_named(dst, dest_max, src, count, kind, "aclrtMemcpy") }
    }

    /// [`Runtime::memcpy`] on behalf of the call `name` (which its errors name).
    ///
    /// # Safety
    /// As [`Runtime::memcpy`].
    pub(crate) unsafe fn memcpy_named(
        &self,
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
        name: &'static str,
    ) -> Result<()> {
        self.check_copy(dst, dest_max, src, count, kind, name)?;
        if crate::observe::enabled() {
            crate::observe::host_access(
                name,
                &[MemRange {
                    start: src,
                    len: count,
                }],
                &[MemRange {
                    start: dst,
                    len: count,
                }],
            );
        }
        if count > 0 {
            let _writing = crate::memory::writers::gate().enter_range(dst, count);
            // SAFETY: the caller guarantees the ranges; runtime allocations were bounds-checked.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, count) };
        }
        Ok(())
    }

    /// `aclrtMemcpyAsync`: a copy task on the stream.
    ///
    /// # Safety
    /// As [`memcpy`], for as long as the task is pending.
    pub unsafe fn memcpy_async(
        &self,
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        // SAFETY: forwarded under this function's contract.
        unsafe {
            self.queue_copy(
                dst,
                dest_max,
                src,
                count,
                kind,
                stream,
                "aclrtMemcpyAsync",
                None,
            )
        }
    }

    /// `aclrtMemcpyAsyncWithCondition` (deprecated by the vendor for `aclrtMemcpyAsync`): a
    /// count of 0 succeeds before anything is checked, as in the vendor's runtime; otherwise
    /// `aclrtMemcpyAsync`, except that with host memory that is not page-locked (neither
    /// runtime memory nor registered) the call returns only once the stream has run the copy,
    /// as the vendor documents: it synchronises the stream and returns a failure that
    /// synchronise reports. `Ok(true)` when it waited, so the copy has run; `Ok(false)` when
    /// the copy is queued (or there was nothing to copy).
    ///
    /// # Safety
    /// As [`memcpy`], for as long as the task is pending.
    pub unsafe fn memcpy_async_with_condition(
        &self,
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<bool> {
        const CALL: &str = "aclrtMemcpyAsyncWithCondition";
        if count == 0 {
            return Ok(false);
        }
        // SAFETY: forwarded under this function's contract.
        unsafe { self.queue_copy(dst, dest_max, src, count, kind, stream, CALL, None)? };
        if self.is_pageable(dst, "copy destination")? || self.is_pageable(src, "copy source")? {
            self.synchronize_stream(stream)?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Host memory the runtime neither allocated nor has registered.
    pub(crate) fn is_pageable(&self, ptr: usize, what: &str) -> Result<bool> {
        Ok(self.memory.place_of(ptr, what)?.is_none()
            && self.extras.host_registration(ptr).is_none())
    }

    /// The checks and the copy task of the asynchronous copies, named `name` in messages; the
    /// task holds `keep`, the library a side of the copy lies in, open until it ran.
    ///
    /// # Safety
    /// As [`memcpy`], for as long as the task is pending.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn queue_copy(
        &self,
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
        stream: StreamHandle,
        name: &str,
        keep: Option<Arc<HostLibrary>>,
    ) -> Result<()> {
        let s = self.stream_for_work(self.lookup_stream(stream)?, name)?;
        self.check_copy(dst, dest_max, src, count, kind, name)?;
        let meta = TaskMeta {
            reads: vec![MemRange {
                start: src,
                len: count,
            }],
            writes: vec![MemRange {
                start: dst,
                len: count,
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        // The caller of memcpy_async promised both ranges stay valid until the copy has run.
        let work = Work::Copy {
            dst,
            src,
            len: count,
            keep,
        };
        self.submit(&s, TaskKind::Memcpy, work, meta).map(|_| ())
    }

    /// `aclrtMemset`: synchronous.
    ///
    /// # Safety
    /// `ptr` must be writable for `count` bytes.
    pub unsafe fn memset(&self, ptr: usize, max: usize, value: i32, count: usize) -> Result<()> {
        self.check_set(ptr, max, count, "aclrtMemset")?;
        if crate::observe::enabled() {
            crate::observe::host_access(
                "aclrtMemset",
                &[],
                &[MemRange {
                    start: ptr,
                    len: count,
                }],
            );
        }
        let _writing = crate::memory::writers::gate().enter_range(ptr, count);
        // SAFETY: the caller guarantees the range; runtime allocations were bounds-checked.
        unsafe { std::ptr::write_bytes(ptr as *mut u8, value as u8, count) };
        Ok(())
    }

    /// `aclrtMemsetAsync`: a set task on the stream.
    ///
    /// # Safety
    /// As [`memset`], for as long as the task is pending.
    pub unsafe fn memset_async(
        &self,
        ptr: usize,
        max: usize,
        value: i32,
        count: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let s = self.stream_for_work(self.lookup_stream(stream)?, "aclrtMemsetAsync")?;
        self.check_set(ptr, max, count, "aclrtMemsetAsync")?;
        let meta = TaskMeta {
            writes: vec![MemRange {
                start: ptr,
                len: count,
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        // The caller of memset_async promised the range stays valid until the set has run.
        let work = Work::Set {
            dst: ptr,
            value: value as u8,
            len: count,
        };
        self.submit(&s, TaskKind::Memset, work, meta).map(|_| ())
    }

    fn check_copy(
        &self,
        dst: usize,
        dest_max: usize,
        src: usize,
        count: usize,
        kind: u32,
        name: &str,
    ) -> Result<()> {
        if dst == 0 || src == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: {} pointer is NULL",
                if dst == 0 {
                    "the destination"
                } else {
                    "the source"
                }
            );
        }
        if kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: memcpy kind {kind} is not supported"
            );
        }
        if count > dest_max {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{name}: count {count} exceeds destMax {dest_max}"
            );
        }
        // The call is named: the checks serve every copy (symbol copies too).
        let named = |e: Error| Error::new(e.code(), format!("{name}: {}", e.message()));
        self.memory
            .check_access(dst, count, "copy destination")
            .map_err(named)?;
        self.memory
            .check_access(src, count, "copy source")
            .map_err(named)?;
        if count == 0 {
            return Ok(());
        }
        self.check_peer_access(dst, src, name)
    }

    /// A copy between the memory of two devices needs the current device to have peer access
    /// to each of them that is not itself (`aclrtDeviceEnablePeerAccess`): `207006` otherwise.
    pub(crate) fn check_peer_access(&self, dst: usize, src: usize, name: &str) -> Result<()> {
        let (Some(Place::Device(to)), Some(Place::Device(from))) = (
            self.memory.place_of(dst, "copy destination")?,
            self.memory.place_of(src, "copy source")?,
        ) else {
            return Ok(());
        };
        if to == from {
            return Ok(());
        }
        let ctx = self.current_context()?;
        if !ctx.policy.copies_need_peer_access {
            return Ok(());
        }
        let current = ctx.device.id;
        for other in [from, to] {
            if !self.extras.peer_enabled(current, other) {
                bail!(
                    ACL_ERROR_RT_NO_PERMISSION,
                    "{name}: copying from device {from}'s memory to device {to}'s needs peer \
                     access from the current device {current} to device {other} \
                     (aclrtDeviceEnablePeerAccess)"
                );
            }
        }
        Ok(())
    }

    fn check_set(&self, ptr: usize, max: usize, count: usize, name: &str) -> Result<()> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{name}: the pointer is NULL");
        }
        if count > max {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{name}: count {count} exceeds maxCount {max}"
            );
        }
        self.memory.check_access(ptr, count, "memset")?;
        Ok(())
    }
}

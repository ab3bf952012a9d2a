//! More memory calls: 32-bit sets (`aclrtMemsetD32`), frees that wait for the device first,
//! host allocation with a configuration, and the allocation that holds an address
//! (`aclrtMemGetAddressRange`).

use std::sync::Arc;

use super::os_thread_id;
use super::MallocAttribute;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::task_info::{KernelFn, MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// Writes `n` copies of `value` from `ptr`.
///
/// # Safety
/// `ptr` is 4-byte aligned and writable for `n` 32-bit words.
unsafe fn fill_u32(ptr: usize, value: u32, n: usize) {
    // SAFETY: the caller's contract.
    unsafe { std::slice::from_raw_parts_mut(ptr as *mut u32, n) }.fill(value);
}

impl Runtime {
    /// The checks of `aclrtMemsetD32` and its asynchronous form, in the vendor's order: NULL,
    /// `n` 0, an address not 4-byte aligned, `memSize` below `n` words, then memory that is not
    /// a live runtime allocation (`aclrtMalloc`, `aclrtMallocHost`) or a range that overruns
    /// it. Every failure is `100000`. Returns the length in bytes.
    fn check_set_d32(&self, ptr: usize, mem_size: usize, n: usize, call: &str) -> Result<usize> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: ptr is NULL");
        }
        if n == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: N is 0");
        }
        if ptr % 4 != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: ptr {ptr:#x} is not 4-byte aligned"
            );
        }
        let len = match n.checked_mul(4) {
            Some(len) if len <= mem_size => len,
            _ => bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: N {n} words do not fit in memSize {mem_size} bytes"
            ),
        };
        if self.memory.allocation_at(ptr).is_none() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: {ptr:#x} is not memory from aclrtMalloc or aclrtMallocHost"
            );
        }
        self.memory.check_access(ptr, len, call)?;
        Ok(len)
    }

    /// `aclrtMemsetD32`: sets `n` 32-bit words from `ptr` to `value`, at once.
    pub fn memset_d32(&self, ptr: usize, mem_size: usize, value: u32, n: usize) -> Result<()> {
        let call = "aclrtMemsetD32";
        let len = self.check_set_d32(ptr, mem_size, n, call)?;
        if crate::observe::enabled() {
            crate::observe::host_access(call, &[], &[MemRange { start: ptr, len }]);
        }
        // SAFETY: aligned, inside one live runtime allocation (checked above).
        unsafe { fill_u32(ptr, value, n) };
        Ok(())
    }

    /// `aclrtMemsetD32Async`: as [`Runtime::memset_d32`], as a task on the stream (checked
    /// after the arguments, as the vendor does).
    pub fn memset_d32_async(
        &self,
        ptr: usize,
        mem_size: usize,
        value: u32,
        n: usize,
        stream: StreamHandle,
    ) -> Result<()> {
        let call = "aclrtMemsetD32Async";
        let len = self.check_set_d32(ptr, mem_size, n, call)?;
        let s = self.stream_for_work(self.lookup_stream(stream)?, call)?;
        let meta = TaskMeta {
            name: Some(Arc::from(call)),
            writes: vec![MemRange { start: ptr, len }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let kernel: KernelFn = Box::new(move || {
            // SAFETY: checked when queued; runtime memory stays mapped after a free.
            unsafe { fill_u32(ptr, value, n) };
            Ok(())
        });
        self.submit(&s, TaskKind::Memset, Work::Kernel(kernel), meta)
            .map(|_| ())
    }

    /// `aclrtFreeWithDevSync`: waits for every stream of the current device, then frees as
    /// `aclrtFree`. A failure the wait reports is returned and nothing is freed.
    pub fn free_with_dev_sync(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtFreeWithDevSync: devPtr is NULL"
            );
        }
        self.synchronize_device()?;
        self.free(ptr)
    }

    /// `aclrtFreeHostWithDevSync`: as [`Runtime::free_with_dev_sync`], for `aclrtMallocHost`
    /// memory.
    pub fn free_host_with_dev_sync(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtFreeHostWithDevSync: hostPtr is NULL"
            );
        }
        self.synchronize_device()?;
        self.free_host(ptr)
    }

    /// `aclrtMallocHostWithCfg`: as `aclrtMallocHost`, with optional attributes: a module id
    /// (kept nowhere) and the VA flag (0 or 1: every emulated host allocation is already
    /// usable by the device). Other attributes are `100000`.
    pub fn malloc_host_with_cfg(&self, size: u64, attrs: &[MallocAttribute]) -> Result<usize> {
        let call = "aclrtMallocHostWithCfg";
        for a in attrs {
            let word = u32::from_ne_bytes([a.value[0], a.value[1], a.value[2], a.value[3]]);
            match i64::from(a.attr) {
                vc::ACL_RT_MEM_ATTR_MODULE_ID => {}
                vc::ACL_RT_MEM_ATTR_VA_FLAG if word <= 1 => {}
                vc::ACL_RT_MEM_ATTR_VA_FLAG => bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "{call}: the VA flag is {word}, not 0 or 1"
                ),
                other => bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "{call}: {other} is not an aclrtMallocAttrType it takes"
                ),
            }
        }
        let Ok(size) = usize::try_from(size) else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "{call}: {size} bytes cannot be allocated"
            );
        };
        self.malloc_host(size)
    }

    /// `aclrtMemGetAddressRange`: the base and size of the live runtime allocation (device or
    /// host) that contains `ptr`; `107000` for any other address.
    pub fn mem_get_address_range(&self, ptr: usize) -> Result<(usize, usize)> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMemGetAddressRange: ptr is NULL"
            );
        }
        match self.memory.allocation_at(ptr) {
            Some((base, allocation)) => Ok((base, allocation.size)),
            None => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtMemGetAddressRange: {ptr:#x} is not in a live runtime allocation"
            ),
        }
    }
}

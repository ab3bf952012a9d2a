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
        if !ptr.is_multiple_of(4) {
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
        let _writing = crate::memory::writers::gate().enter_range(ptr, len);
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

/// One copy of a batch (`aclrtMemcpyBatch`): the entries of `dsts`, `destMaxs`, `srcs` and
/// `sizes` at one index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchCopy {
    /// Destination address.
    pub dst: usize,
    /// Bytes the destination holds (`100000` when below `size`).
    pub dest_max: usize,
    /// Source address.
    pub src: usize,
    /// Bytes to copy.
    pub size: usize,
}

/// Where a batch's copies go from and to (`aclrtMemcpyBatchAttr`), from the copy at `first`
/// (its `attrsIndexes` entry) to the next attribute's first copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchAttr {
    /// The first copy it applies to.
    pub first: usize,
    /// `dstLoc` as (`aclrtMemLocationType`, id).
    pub dst: (u32, u32),
    /// `srcLoc` as (`aclrtMemLocationType`, id).
    pub src: (u32, u32),
    /// Whether any reserved byte is set (`100000`).
    pub reserved_set: bool,
}

const LOC_HOST: u32 = 0;
const LOC_DEVICE: u32 = 1;

impl Runtime {
    /// `aclrtMemcpyBatch` and its three forms: `stream` is `Some` for the asynchronous ones.
    /// On failure `fail_index` is the copy the failure concerns, or `usize::MAX` (`SIZE_MAX`)
    /// when it concerns none. See `docs/SEMANTICS.md` for the checks.
    ///
    /// # Safety
    /// Memory outside runtime allocations must be valid for the copies (until the copies have
    /// run).
    pub unsafe fn memcpy_batch(
        &self,
        copies: &[BatchCopy],
        attrs: &[BatchAttr],
        stream: Option<StreamHandle>,
        call: &'static str,
        fail_index: &mut usize,
    ) -> Result<()> {
        *fail_index = usize::MAX;
        if copies.is_empty() {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: numBatches is 0");
        }
        for (i, c) in copies.iter().enumerate() {
            if c.dest_max < c.size {
                bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "{call}: copy {i} of {} bytes exceeds its destMax {}",
                    c.size,
                    c.dest_max
                );
            }
        }
        if let Some(k) = attrs.iter().position(|a| a.reserved_set) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: the reserved bytes of attrs[{k}] must be 0"
            );
        }
        if attrs.is_empty() || attrs.len() > copies.len() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: numAttrs {} must be 1 to numBatches {}",
                attrs.len(),
                copies.len()
            );
        }
        let starts_ok = attrs[0].first == 0
            && attrs.windows(2).all(|w| w[0].first < w[1].first)
            && attrs[attrs.len() - 1].first < copies.len();
        if !starts_ok {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: attrsIndexes must start at 0, increase, and stay below numBatches {}",
                copies.len()
            );
        }
        let mut direction = None;
        for (k, a) in attrs.iter().enumerate() {
            let to_device = match (a.src.0, a.dst.0) {
                (LOC_HOST, LOC_DEVICE) => true,
                (LOC_DEVICE, LOC_HOST) => false,
                _ => {
                    *fail_index = a.first;
                    bail!(
                        ACL_ERROR_RT_PARAM_INVALID,
                        "{call}: attrs[{k}] must copy host to device or device to host"
                    );
                }
            };
            if *direction.get_or_insert(to_device) != to_device {
                *fail_index = a.first;
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{call}: a batch copies in one direction, host to device or device to host"
                );
            }
        }
        let mut foreign_host = false;
        for (k, a) in attrs.iter().enumerate() {
            let end = attrs.get(k + 1).map_or(copies.len(), |n| n.first);
            for (i, c) in copies.iter().enumerate().take(end).skip(a.first) {
                *fail_index = i;
                if c.dst == 0 || c.src == 0 {
                    bail!(
                        ACL_ERROR_INVALID_PARAM,
                        "{call}: copy {i} has a NULL address"
                    );
                }
                for (addr, loc, side) in [(c.dst, a.dst, "destination"), (c.src, a.src, "source")] {
                    self.memory.check_access(addr, c.size, side)?;
                    let place = self.memory.place_of(addr, side)?;
                    let fits = match (loc.0, place) {
                        (LOC_DEVICE, Some(crate::memory::Place::Device(id))) => {
                            i64::from(id) == i64::from(loc.1)
                        }
                        (LOC_HOST, Some(crate::memory::Place::Host)) => true,
                        (LOC_HOST, None) => {
                            foreign_host = true;
                            true
                        }
                        _ => false,
                    };
                    if !fits {
                        bail!(
                            ACL_ERROR_RT_PARAM_INVALID,
                            "{call}: the {side} of copy {i} ({addr:#x}) is not where attrs[{k}] \
                             says (location type {}, id {})",
                            loc.0,
                            loc.1
                        );
                    }
                }
            }
        }
        *fail_index = usize::MAX;
        let jobs: Vec<BatchCopy> = copies.to_vec();
        let run = move || {
            for c in &jobs {
                if c.size > 0 {
                    // SAFETY: every range was checked above (runtime memory) or is vouched for
                    // by the caller (foreign host memory); ranges may overlap.
                    unsafe { std::ptr::copy(c.src as *const u8, c.dst as *mut u8, c.size) };
                }
            }
        };
        let Some(stream) = stream else {
            if crate::observe::enabled() {
                let reads: Vec<_> = copies
                    .iter()
                    .map(|c| MemRange {
                        start: c.src,
                        len: c.size,
                    })
                    .collect();
                let writes: Vec<_> = copies
                    .iter()
                    .map(|c| MemRange {
                        start: c.dst,
                        len: c.size,
                    })
                    .collect();
                crate::observe::host_access(call, &reads, &writes);
            }
            // Not under an export's move (the copies may write any of the batch's ranges).
            let _writing = crate::memory::writers::gate().enter();
            run();
            return Ok(());
        };
        let s = self.stream_for_work(self.lookup_stream(stream)?, call)?;
        let meta = TaskMeta {
            name: Some(Arc::from(call)),
            reads: copies
                .iter()
                .map(|c| MemRange {
                    start: c.src,
                    len: c.size,
                })
                .collect(),
            writes: copies
                .iter()
                .map(|c| MemRange {
                    start: c.dst,
                    len: c.size,
                })
                .collect(),
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let kernel: KernelFn = Box::new(move || {
            run();
            Ok(())
        });
        self.submit(&s, TaskKind::Memcpy, Work::Kernel(kernel), meta)?;
        if foreign_host {
            // Memory the runtime did not allocate is copied before the call returns, as the
            // vendor does for memory that is not page-locked.
            self.synchronize_stream(stream)?;
        }
        Ok(())
    }
}

/// `aclrtHostRegisterType` values and `aclrtHostRegisterV2` flags.
const REGISTER_MAPPED: u32 = 0;
const REGISTER_IOMEMORY: u32 = 0x4;
const REGISTER_READONLY: u32 = 0x8;
const REG_V2_MAPPED: u32 = 0x2;
const REG_V2_PINNED: u32 = 0x1000_0000;

impl Runtime {
    /// Records `[ptr, ptr + size)` as registered host memory: not runtime memory and not
    /// overlapping a registered range (`107000` otherwise).
    fn register_host(&self, ptr: usize, size: u64, call: &str) -> Result<()> {
        self.register_host_range(ptr, size, false, call)
    }

    /// Registers `size` bytes at `ptr`: host memory the runtime did not allocate, or (with
    /// `runtime_host`) also memory from `aclrtMallocHost` — inside one allocation — which
    /// `aclrtHostRegisterV2` takes, as the vendor's samples register it.
    fn register_host_range(
        &self,
        ptr: usize,
        size: u64,
        runtime_host: bool,
        call: &str,
    ) -> Result<()> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: ptr is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: size is 0");
        }
        let Some(len) = usize::try_from(size)
            .ok()
            .filter(|&l| ptr.checked_add(l).is_some())
        else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {size} bytes at {ptr:#x} run past the end of the address space"
            );
        };
        let in_runtime_host = runtime_host
            && matches!(
                self.memory.allocation_at(ptr),
                Some((_, a)) if a.place == crate::memory::Place::Host
            )
            && self.memory.check_access(ptr, len, call).is_ok();
        if !in_runtime_host
            && (self.memory.allocation_at(ptr).is_some()
                || self.memory.check_access(ptr, len, call).is_err())
        {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {ptr:#x} is runtime memory, which the device can already use"
            );
        }
        let mut registered = crate::sync::lock(&self.extras.host_registered);
        let overlaps = registered
            .range(..ptr + len)
            .next_back()
            .is_some_and(|(&start, &l)| start + l > ptr);
        if overlaps {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: [{ptr:#x}, +{len}) overlaps memory already registered"
            );
        }
        registered.insert(ptr, len);
        Ok(())
    }

    /// `aclrtHostMemMapCapabilities`: whether a hardware accelerator of the device reaches
    /// host memory registered with `aclrtHostRegister*`. On the emulated device the task
    /// scheduler, the AI CPU, AI Core and vector units and the copy engines (PCIe DMA, SDMA)
    /// are host code and read it directly: `ACL_RT_HOST_MEM_MAP_SUPPORTED`; RDMA, DVPP, UDMA
    /// and CCU are not emulated: `..._NOT_SUPPORTED`. In the vendor's order: an id out of
    /// range is `107001`, a type beyond `ACL_RT_HAC_TYPE_CCU` `107000`, no current context
    /// `107002`.
    pub fn host_mem_map_capabilities(&self, device_id: u32, hac_type: u32) -> Result<u32> {
        self.device_checked(i32::try_from(device_id).unwrap_or(i32::MAX))?;
        let supported = match i64::from(hac_type) {
            vc::ACL_RT_HAC_TYPE_STARS
            | vc::ACL_RT_HAC_TYPE_AICPU
            | vc::ACL_RT_HAC_TYPE_AIC
            | vc::ACL_RT_HAC_TYPE_AIV
            | vc::ACL_RT_HAC_TYPE_PCIEDMA
            | vc::ACL_RT_HAC_TYPE_SDMA => true,
            vc::ACL_RT_HAC_TYPE_RDMA
            | vc::ACL_RT_HAC_TYPE_DVPP
            | vc::ACL_RT_HAC_TYPE_UDMA
            | vc::ACL_RT_HAC_TYPE_CCU => false,
            other => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtHostMemMapCapabilities: hacType {other} is not an aclrtHacType"
            ),
        };
        self.current_context()?;
        Ok(if supported {
            vc::ACL_RT_HOST_MEM_MAP_SUPPORTED as u32
        } else {
            vc::ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED as u32
        })
    }

    /// `aclrtHostRegister`: makes host memory the runtime did not allocate usable by the
    /// device, and returns its device address, which is the host address (the emulated device
    /// reads host memory directly). `ACL_HOST_REGISTER_MAPPED` only: the reserved
    /// `..._IOMEMORY` and `..._READONLY` are `207000`, other values `107000`.
    pub fn host_register(&self, ptr: usize, size: u64, kind: u32) -> Result<usize> {
        let call = "aclrtHostRegister";
        if ptr == 0 || size == 0 {
            return self.register_host(ptr, size, call).map(|_| 0);
        }
        match kind {
            REGISTER_MAPPED => {}
            REGISTER_IOMEMORY | REGISTER_READONLY => bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{call}: registration type {kind:#x} is reserved and not supported"
            ),
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: {kind:#x} is not an aclrtHostRegisterType"
            ),
        }
        self.register_host(ptr, size, call)?;
        Ok(ptr)
    }

    /// `aclrtHostRegisterV2`: as [`Runtime::host_register`], and also takes `aclrtMallocHost`
    /// memory (within one allocation); `flag` is 0 or a combination of
    /// `ACL_HOST_REG_MAPPED` and `ACL_HOST_REG_PINNED` (`..._IOMEMORY`, `..._READONLY`:
    /// `207000`; other bits `107000`).
    pub fn host_register_v2(&self, ptr: usize, size: u64, flag: u32) -> Result<()> {
        let call = "aclrtHostRegisterV2";
        if ptr == 0 || size == 0 {
            return self.register_host(ptr, size, call);
        }
        if flag & (REGISTER_IOMEMORY | REGISTER_READONLY) != 0 {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{call}: ACL_HOST_REG_IOMEMORY and ACL_HOST_REG_READONLY are not supported"
            );
        }
        if flag & !(REG_V2_MAPPED | REG_V2_PINNED) != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: flag {flag:#x} has bits that are not ACL_HOST_REG_* flags"
            );
        }
        self.register_host_range(ptr, size, true, call)
    }

    /// `aclrtHostGetDevicePointer`: the device address of registered host memory or of
    /// `aclrtMallocHost` memory, which is its host address; `flag` must be 0 (`100000`); other
    /// memory is `107000`.
    pub fn host_get_device_pointer(&self, ptr: usize, flag: u32) -> Result<usize> {
        let call = "aclrtHostGetDevicePointer";
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: pHost is NULL");
        }
        if flag != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: flag must be 0, not {flag}"
            );
        }
        let runtime_host = matches!(
            self.memory.allocation_at(ptr),
            Some((_, a)) if a.place == crate::memory::Place::Host
        );
        if runtime_host || self.extras.host_registration(ptr).is_some() {
            return Ok(ptr);
        }
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: {ptr:#x} is neither registered host memory nor aclrtMallocHost memory"
        )
    }

    /// `aclrtHostUnregister`: ends the registration that starts at `ptr` (`107000` when none
    /// does).
    pub fn host_unregister(&self, ptr: usize) -> Result<()> {
        let call = "aclrtHostUnregister";
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: ptr is NULL");
        }
        if crate::sync::lock(&self.extras.host_registered)
            .remove(&ptr)
            .is_none()
        {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: no registration starts at {ptr:#x}"
            );
        }
        Ok(())
    }
}

/// One component's memory on a device (`aclrtMemUsageInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemUsage {
    /// The component's name.
    pub name: &'static str,
    /// Bytes it holds now.
    pub current: u64,
    /// The most it has held.
    pub peak: u64,
}

/// The `ACL_RT_MEM_TYPE_*` bits `aclrtCheckMemType` takes.
const MEM_TYPE_DEV: u32 = 0x2;
const MEM_TYPE_DVPP: u32 = 0x8;
const MEM_TYPE_RSVD: u32 = 0x10;

impl Runtime {
    /// `aclrtGetMemUsageInfo`: the device's memory by component, largest first, at most
    /// `input_num` of them. The emulated device has one component, `"app"`: the program's
    /// allocations (`aclrtMalloc` and its variants), now and at their peak since `aclInit`.
    pub fn get_mem_usage_info(&self, device_id: i32, input_num: usize) -> Result<Vec<MemUsage>> {
        let device = self.device_checked(device_id)?;
        let app = MemUsage {
            name: "app",
            current: device
                .memory_used
                .load(std::sync::atomic::Ordering::Acquire),
            peak: device
                .memory_peak
                .load(std::sync::atomic::Ordering::Acquire),
        };
        Ok(std::iter::once(app).take(input_num).collect())
    }

    /// `aclrtCheckMemType`: whether every address is device memory of a kind in `mem_type`
    /// (`ACL_RT_MEM_TYPE_DEV`: `aclrtMalloc` memory; `..._DVPP`: `acldvppMalloc` memory;
    /// `..._RSVD`: address ranges reserved by `aclrtReserveMemAddress`, mapped or not). An empty
    /// list, a type with no or other bits, or a non-zero `reserve` is `107000`.
    pub fn check_mem_type(&self, addrs: &[usize], mem_type: u32, reserve: u32) -> Result<bool> {
        let call = "aclrtCheckMemType";
        if addrs.is_empty() {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{call}: size is 0");
        }
        if mem_type == 0 || mem_type & !(MEM_TYPE_DEV | MEM_TYPE_DVPP | MEM_TYPE_RSVD) != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: memType {mem_type:#x} is not a combination of ACL_RT_MEM_TYPE_DEV, \
                 _DVPP and _RSVD"
            );
        }
        if reserve != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: reserve must be 0, not {reserve}"
            );
        }
        let dvpp_bases: Vec<usize> = crate::sync::lock(&self.extras.dvpp)
            .values()
            .copied()
            .collect();
        Ok(addrs.iter().all(|&addr| {
            if self.vmm.reserved(addr) {
                return MEM_TYPE_RSVD & mem_type != 0;
            }
            let kind = match self.memory.allocation_at(addr) {
                Some((base, a)) if matches!(a.place, crate::memory::Place::Device(_)) => {
                    if dvpp_bases.contains(&base) {
                        MEM_TYPE_DVPP
                    } else {
                        MEM_TYPE_DEV
                    }
                }
                _ => 0,
            };
            kind & mem_type != 0
        }))
    }
}

//! Memory calls beside malloc, free, copy and set: 2D copies, allocation variants, cache
//! maintenance (nothing to do on the host), pointer attributes and allocation granularity.

use std::sync::Arc;

use super::os_thread_id;
use crate::codes::*;
use crate::consts::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::task_info::{KernelFn, MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// Widest 2D copy row, in bytes (`aclrtMemcpy2dAsync`).
pub const MAX_2D_WIDTH: usize = 5_000_000;
/// Most 2D copy rows (`aclrtMemcpy2dAsync`).
pub const MAX_2D_HEIGHT: usize = 5 * 1024 * 1024;

/// One attribute of an `aclrtMallocConfig` (`aclrtMallocAttribute`): its type and the value's
/// eight bytes as the C union holds them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MallocAttribute {
    /// `aclrtMallocAttrType`.
    pub attr: u32,
    /// The `aclrtMallocAttrValue` union's bytes.
    pub value: [u8; 8],
}

/// What `aclrtPointerGetAttributes` reports (`aclrtPtrAttributes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PointerAttributes {
    /// `aclrtMemLocationType`: host (`aclrtMallocHost`), device (`aclrtMalloc`…) or
    /// unregistered (memory the runtime did not allocate).
    pub location_type: u32,
    /// The device id for device memory; 0 otherwise.
    pub location_id: u32,
    /// The host's page size: every emulated allocation is made of host pages.
    pub page_size: u32,
}

/// The rows of a 2D copy, checked: widths, heights and pitches as the vendor limits them.
struct Plane {
    dst: usize,
    dpitch: usize,
    src: usize,
    spitch: usize,
    width: usize,
    height: usize,
}

/// Bytes a 2D copy touches on one side: from the first row's start to the last row's end,
/// `height` rows of `width` bytes with `pitch` between row starts; `None` when that does not
/// fit in an address (such a copy is refused).
pub fn span_2d(pitch: usize, width: usize, height: usize) -> Option<usize> {
    if height == 0 {
        return Some(0);
    }
    pitch.checked_mul(height - 1)?.checked_add(width)
}

impl Plane {
    /// Bytes from the first row's start to the last row's end, with `pitch` between rows
    /// (checked not to overflow when the plane was made).
    fn span(&self, pitch: usize) -> usize {
        span_2d(pitch, self.width, self.height).unwrap_or(usize::MAX)
    }

    /// Copies every row.
    ///
    /// # Safety
    /// Both spans valid for the access (checked for runtime memory, vouched for otherwise).
    unsafe fn copy(&self) {
        if self.width == 0 {
            return;
        }
        let _writing = crate::memory::writers::gate().enter_range(self.dst, self.span(self.dpitch));
        for row in 0..self.height {
            // SAFETY: each row lies inside its checked span.
            unsafe {
                std::ptr::copy(
                    (self.src + row * self.spitch) as *const u8,
                    (self.dst + row * self.dpitch) as *mut u8,
                    self.width,
                )
            };
        }
    }
}

impl Runtime {
    /// The checks of both 2D copies: NULL, the kind (`kinds`), the limits, the spans.
    #[allow(clippy::too_many_arguments)]
    fn check_2d(
        &self,
        dst: usize,
        dpitch: usize,
        src: usize,
        spitch: usize,
        width: usize,
        height: usize,
        kind: u32,
        kinds: &[u32],
        name: &str,
    ) -> Result<Plane> {
        if dst == 0 || src == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: the {} pointer is NULL",
                if dst == 0 { "destination" } else { "source" }
            );
        }
        if !kinds.contains(&kind) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: memcpy kind {kind} is not supported (only {kinds:?})"
            );
        }
        if width > MAX_2D_WIDTH || height > MAX_2D_HEIGHT {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: {width} x {height} exceeds the largest 2D copy, {MAX_2D_WIDTH} x \
                 {MAX_2D_HEIGHT}"
            );
        }
        if width > dpitch || width > spitch {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: width {width} is larger than a pitch (dpitch {dpitch}, spitch {spitch})"
            );
        }
        let spans = (
            span_2d(dpitch, width, height).and_then(|n| n.checked_add(dst)),
            span_2d(spitch, width, height).and_then(|n| n.checked_add(src)),
        );
        if spans.0.is_none() || spans.1.is_none() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{name}: {height} rows with pitches {dpitch} and {spitch} run past the end of the \
                 address space"
            );
        }
        let plane = Plane {
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
        };
        let (dst_span, src_span) = (plane.span(dpitch), plane.span(spitch));
        self.memory
            .check_access(dst, dst_span, "2D copy destination")?;
        self.memory.check_access(src, src_span, "2D copy source")?;
        if dst_span > 0 {
            self.check_peer_access(dst, src, name)?;
        }
        Ok(plane)
    }

    /// `aclrtMemcpy2d`: copies `height` rows of `width` bytes, rows `spitch` apart in the
    /// source and `dpitch` apart in the destination. Only `ACL_MEMCPY_HOST_TO_DEVICE` and
    /// `ACL_MEMCPY_DEVICE_TO_HOST`, as the vendor supports; `width` at most each pitch and
    /// [`MAX_2D_WIDTH`], `height` at most [`MAX_2D_HEIGHT`]; `100000` otherwise. Synchronous.
    ///
    /// # Safety
    /// Memory outside runtime allocations must be valid for the access.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn memcpy_2d(
        &self,
        dst: usize,
        dpitch: usize,
        src: usize,
        spitch: usize,
        width: usize,
        height: usize,
        kind: u32,
    ) -> Result<()> {
        let kinds = [ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST];
        let plane = self.check_2d(
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
            kind,
            &kinds,
            "aclrtMemcpy2d",
        )?;
        if crate::observe::enabled() {
            crate::observe::host_access(
                "aclrtMemcpy2d",
                &[MemRange {
                    start: src,
                    len: plane.span(spitch),
                }],
                &[MemRange {
                    start: dst,
                    len: plane.span(dpitch),
                }],
            );
        }
        // SAFETY: spans checked above or vouched for by the caller.
        unsafe { plane.copy() };
        Ok(())
    }

    /// `aclrtMemcpy2dAsync`: as [`Runtime::memcpy_2d`], as a task on the stream, and
    /// `ACL_MEMCPY_DEVICE_TO_DEVICE` too.
    ///
    /// # Safety
    /// As [`Runtime::memcpy_2d`], until the task has run.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn memcpy_2d_async(
        &self,
        dst: usize,
        dpitch: usize,
        src: usize,
        spitch: usize,
        width: usize,
        height: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        let s = self.stream_for_work(self.lookup_stream(stream)?, "aclrtMemcpy2dAsync")?;
        let kinds = [
            ACL_MEMCPY_HOST_TO_DEVICE,
            ACL_MEMCPY_DEVICE_TO_HOST,
            ACL_MEMCPY_DEVICE_TO_DEVICE,
        ];
        let plane = self.check_2d(
            dst,
            dpitch,
            src,
            spitch,
            width,
            height,
            kind,
            &kinds,
            "aclrtMemcpy2dAsync",
        )?;
        let meta = TaskMeta {
            name: Some(Arc::from("aclrtMemcpy2dAsync")),
            reads: vec![MemRange {
                start: src,
                len: plane.span(spitch),
            }],
            writes: vec![MemRange {
                start: dst,
                len: plane.span(dpitch),
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let kernel: KernelFn = Box::new(move || {
            // SAFETY: the caller keeps both spans valid until the task has run; runtime memory
            // stays mapped after a free.
            unsafe { plane.copy() };
            Ok(())
        });
        self.submit(&s, TaskKind::Memcpy, Work::Kernel(kernel), meta)
            .map(|_| ())
    }

    /// `aclrtMallocAlign32`: as `aclrtMalloc` (every allocation is 64-byte aligned, its size
    /// rounded up to 64 bytes, which is a multiple of 32).
    pub fn malloc_align32(&self, size: usize, policy: u32) -> Result<usize> {
        self.malloc(size, policy)
    }

    /// `aclrtMallocCached`: as `aclrtMalloc` (all emulated memory is cached and coherent); the
    /// policy must be `ACL_MEM_MALLOC_HUGE_FIRST`, `_HUGE_ONLY`, `_NORMAL_ONLY` or
    /// `_HUGE1G_ONLY`, alone (`100000` otherwise).
    pub fn malloc_cached(&self, size: usize, policy: u32) -> Result<usize> {
        if !matches!(
            policy,
            ACL_MEM_MALLOC_HUGE_FIRST
                | ACL_MEM_MALLOC_HUGE_ONLY
                | ACL_MEM_MALLOC_NORMAL_ONLY
                | ACL_MEM_MALLOC_HUGE1G_ONLY
        ) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMallocCached: policy {policy:#x} is not HUGE_FIRST, HUGE_ONLY, NORMAL_ONLY \
                 or HUGE1G_ONLY"
            );
        }
        self.malloc(size, policy)
    }

    /// `aclrtMallocWithCfg`: as `aclrtMalloc`, with optional attributes. A module id is kept
    /// nowhere; a device id must be the current device's (`107001` otherwise); the host-only
    /// VA flag must be 0 for device memory; the reserved attribute and any other type are
    /// `100000`.
    pub fn malloc_with_cfg(
        &self,
        size: usize,
        policy: u32,
        attrs: &[MallocAttribute],
    ) -> Result<usize> {
        self.malloc_configured("aclrtMallocWithCfg", size, policy, attrs)
    }

    /// `aclrtMallocForTaskScheduler`: memory the device's task scheduler may use. The
    /// emulated device's tasks run on the host and reach all of its memory, so this is
    /// `aclrtMallocWithCfg`, with the same checks, as the vendor's runtime shares them.
    pub fn malloc_for_task_scheduler(
        &self,
        size: usize,
        policy: u32,
        attrs: &[MallocAttribute],
    ) -> Result<usize> {
        self.malloc_configured("aclrtMallocForTaskScheduler", size, policy, attrs)
    }

    fn malloc_configured(
        &self,
        call: &str,
        size: usize,
        policy: u32,
        attrs: &[MallocAttribute],
    ) -> Result<usize> {
        let current = self.current_context()?.device.id;
        for a in attrs {
            let word = u32::from_ne_bytes([a.value[0], a.value[1], a.value[2], a.value[3]]);
            match i64::from(a.attr) {
                vc::ACL_RT_MEM_ATTR_MODULE_ID => {}
                vc::ACL_RT_MEM_ATTR_DEVICE_ID => {
                    if i64::from(word) != i64::from(current) {
                        bail!(
                            ACL_ERROR_RT_INVALID_DEVICEID,
                            "{call}: the configured device {word} is not the current device \
                             {current}"
                        );
                    }
                }
                vc::ACL_RT_MEM_ATTR_VA_FLAG if word == 0 => {}
                vc::ACL_RT_MEM_ATTR_VA_FLAG => bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "{call}: the VA flag applies to host memory \
                     (aclrtMallocHostWithCfg) only"
                ),
                other => bail!(
                    ACL_ERROR_INVALID_PARAM,
                    "{call}: {other} is not an aclrtMallocAttrType it takes"
                ),
            }
        }
        self.malloc(size, policy)
    }

    /// The range `aclrtMemFlush` / `aclrtMemInvalidate` name: not NULL, not empty, and valid
    /// where it is runtime memory.
    fn check_cache_range(&self, ptr: usize, size: usize, call: &str) -> Result<()> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: devPtr is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: size is 0");
        }
        self.memory.check_access(ptr, size, call)?;
        Ok(())
    }

    /// `aclrtMemFlush`: nothing to write back, the emulated device's memory is the host's
    /// (coherent); the range is checked as a copy's would be.
    pub fn mem_flush(&self, ptr: usize, size: usize) -> Result<()> {
        self.check_cache_range(ptr, size, "aclrtMemFlush")
    }

    /// `aclrtMemInvalidate`: as [`Runtime::mem_flush`].
    pub fn mem_invalidate(&self, ptr: usize, size: usize) -> Result<()> {
        self.check_cache_range(ptr, size, "aclrtMemInvalidate")
    }

    /// `aclrtPointerGetAttributes`: where `ptr` lives (host memory registered with
    /// `aclrtHostRegister` is host memory). Inside runtime memory that is not allocated (freed)
    /// is `100000`.
    pub fn pointer_get_attributes(&self, ptr: usize) -> Result<PointerAttributes> {
        if ptr == 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtPointerGetAttributes: ptr is NULL"
            );
        }
        let (location_type, location_id) = match self.memory.place_of(ptr, "ptr")? {
            Some(Place::Device(id)) => (vc::ACL_MEM_LOCATION_TYPE_DEVICE, id as u32),
            Some(Place::Host) => (vc::ACL_MEM_LOCATION_TYPE_HOST, 0),
            None if self.extras.host_registration(ptr).is_some() => {
                (vc::ACL_MEM_LOCATION_TYPE_HOST, 0)
            }
            None => (vc::ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0),
        };
        Ok(PointerAttributes {
            location_type: location_type as u32,
            location_id,
            page_size: crate::memory::page_size() as u32,
        })
    }

    /// `aclrtMemGetAllocationGranularity`: 2 MiB (the device's huge page) for both options,
    /// 1 GiB for the 1 GiB huge-page attributes (`ACL_HBM_MEM_HUGE1G`, `ACL_HBM_MEM_P2P_HUGE1G`,
    /// `ACL_MEM_HUGE1G`, `ACL_MEM_P2P_HUGE1G`). `mem_attr` is the property's `aclrtMemAttr`;
    /// an option other than MINIMUM or RECOMMENDED is `100000`.
    pub fn mem_get_allocation_granularity(&self, mem_attr: u32, option: u32) -> Result<usize> {
        if !matches!(
            i64::from(option),
            vc::ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM | vc::ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED
        ) {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMemGetAllocationGranularity: option {option} is not MINIMUM or RECOMMENDED"
            );
        }
        if mem_attr > ACL_MEM_P2P_HUGE1G {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtMemGetAllocationGranularity: {mem_attr} is not an aclrtMemAttr"
            );
        }
        Ok(match mem_attr {
            ACL_HBM_MEM_HUGE1G | ACL_HBM_MEM_P2P_HUGE1G | ACL_MEM_HUGE1G | ACL_MEM_P2P_HUGE1G => {
                1 << 30
            }
            _ => 2 << 20,
        })
    }
}

//! Memory: device, pinned host, registered host and managed allocations, and the copies and
//! sets between them, with CUDA's "API synchronization behavior".
//!
//! Where host memory is concerned, what a copy call waits for depends on the host memory's
//! kind, as CUDA documents it:
//!
//! | copy | synchronous call (`cuMemcpy*`) | asynchronous call (`cuMemcpy*Async`) |
//! |---|---|---|
//! | pageable host → device | returns once the copy is done | stages the source, then returns; the copy runs in stream order |
//! | device → pageable host | returns once the copy is done | returns once the copy is done (it waits for the stream) |
//! | pinned host ↔ device | returns once the copy is done | returns at once; the copy runs in stream order |
//! | device → device | returns at once (queued on the legacy stream) | returns at once |
//! | host → host (any kinds) | returns once the copy is done | returns once the copy is done |
//!
//! *Pinned* memory is what `cuMemAllocHost`/`cuMemHostAlloc` returned or `cuMemHostRegister`
//! registered; any other host address is *pageable*. Device memory is host memory of the
//! emulated device, so device pointers are addresses of runtime allocations (device, pinned,
//! managed) or of module globals; any other address passed as a device pointer is refused with
//! `CUDA_ERROR_INVALID_VALUE`.
//!
//! Synchronous sets (`cuMemsetD*`) return once the set is done; the asynchronous ones are queued.

use super::api::{cu, current, fail, resolve, sticky, stream_of, CuDevicePtr};
use super::capture::{self, NodeKind, Recipe};
use super::codes::*;
use super::state::with_state;
use super::{CuError, CuResultOf};
use crate::api::KernelAccess;
use crate::consts::*;
use crate::handle::StreamHandle;
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::task_info::MemRange;
use std::sync::Arc;

/// `CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_WRITECOMBINED`.
pub const CU_MEMHOSTALLOC_FLAGS: u32 = 0x7;
/// `CU_MEMHOSTREGISTER_PORTABLE | _DEVICEMAP | _IOMEMORY | _READ_ONLY`.
pub const CU_MEMHOSTREGISTER_FLAGS: u32 = 0xF;
/// `CU_MEM_ATTACH_GLOBAL`.
pub const CU_MEM_ATTACH_GLOBAL: u32 = 0x1;
/// `CU_MEM_ATTACH_HOST`.
pub const CU_MEM_ATTACH_HOST: u32 = 0x2;
/// `CU_MEM_ATTACH_SINGLE`.
pub const CU_MEM_ATTACH_SINGLE: u32 = 0x4;

/// What kind of memory an address is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemKind {
    /// Device memory (including managed memory and module globals).
    Device,
    /// Page-locked host memory: allocated by the driver or registered.
    Pinned,
    /// Any other host memory.
    Pageable,
}

/// Which way a call moves data, as its name says: the pointers it declares as device pointers
/// must be device memory (or mapped host memory).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// `cuMemcpyHtoD*`.
    HostToDevice,
    /// `cuMemcpyDtoH*`.
    DeviceToHost,
    /// `cuMemcpyDtoD*`, `cuMemcpyPeer*`.
    DeviceToDevice,
    /// `cuMemcpy`/`cuMemcpyAsync`: inferred from the pointers (unified addressing).
    Unified,
}

/// A synchronous call, or an asynchronous one on a stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// The synchronous form: ordered on the legacy stream.
    Sync,
    /// The synchronous form of a `_ptds` call: ordered on the calling thread's per-thread
    /// default stream, so it does not wait for other blocking streams.
    PerThreadSync,
    /// The `Async` form.
    Async(StreamHandle),
}

impl Mode {
    /// Whether the call returns only once its work has run.
    pub fn is_sync(self) -> bool {
        !matches!(self, Mode::Async(_))
    }
}

/// Classifies `[ptr, ptr + len)`; a range that overruns a runtime allocation or touches freed
/// runtime memory is `CUDA_ERROR_INVALID_VALUE`.
pub(super) fn classify(rt: &Runtime, ptr: usize, len: usize, what: &str) -> CuResultOf<MemKind> {
    rt.memory.check_access(ptr, len, what)?;
    if let Some((_, a)) = rt.memory.allocation_at(ptr) {
        return Ok(match a.place {
            Place::Device(_) => MemKind::Device,
            Place::Host => MemKind::Pinned,
        });
    }
    Ok(with_state(rt, |s| {
        if s.registered_range(ptr, len).is_some() {
            MemKind::Pinned
        } else if s.global_range(ptr, len).is_some() {
            MemKind::Device
        } else {
            MemKind::Pageable
        }
    }))
}

/// Refuses a pointer a call takes as a device pointer when it is not device-accessible.
fn device_side(kind: MemKind, ptr: usize, what: &str, call: &str) -> CuResultOf<()> {
    if kind == MemKind::Pageable {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: the {what} {ptr:#x} is not device memory (not allocated by cuMemAlloc, cuMemAllocManaged or cuMemHostAlloc, nor registered, nor a module global)"),
        );
    }
    Ok(())
}

/// The stream a call's work goes to, after CUDA's stream and context checks.
fn target_stream(rt: &Runtime, mode: Mode, call: &str) -> CuResultOf<Arc<Stream>> {
    let handle = match mode {
        Mode::Sync => StreamHandle::NULL,
        Mode::PerThreadSync => super::CU_STREAM_PER_THREAD,
        Mode::Async(s) => s,
    };
    let s = stream_of(rt, resolve(rt, handle)?)?;
    current(rt)?;
    sticky(&s.context)?;
    Ok(rt.stream_for_work(Some(s), call)?)
}

/// Waits for everything queued on `stream` so far; reports a failure of that work.
fn wait_for(rt: &Runtime, stream: &Stream) -> CuResultOf<()> {
    Ok(rt.synchronize_on(stream, None, -1)?)
}

// ---- allocation --------------------------------------------------------------------------

fn own(rt: &Runtime, ptr: usize, ctx: &crate::stream::Context) {
    with_state(rt, |s| s.owners.insert(ptr, ctx.handle.as_raw()));
}

fn current_any_raw(rt: &Runtime) -> u64 {
    super::api::current_any(rt).map_or(0, |c| c.handle.as_raw())
}

/// `cuMemAlloc`: device memory, zeroed; size 0 → `CUDA_ERROR_INVALID_VALUE`.
pub fn mem_alloc(size: usize) -> CuResultOf<CuDevicePtr> {
    cu(|rt| {
        let ctx = current(rt)?;
        capture::check_unsafe(rt, "cuMemAlloc")?;
        let ptr = rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)?;
        own(rt, ptr, &ctx);
        Ok(ptr as CuDevicePtr)
    })
}

/// `cuMemAllocPitch`: rows of `width` bytes padded to a multiple of 512 bytes; `element_size`
/// must be 4, 8 or 16. Returns (pointer, pitch).
pub fn mem_alloc_pitch(
    width: usize,
    height: usize,
    element_size: u32,
) -> CuResultOf<(CuDevicePtr, usize)> {
    cu(|rt| {
        let ctx = current(rt)?;
        capture::check_unsafe(rt, "cuMemAllocPitch")?;
        if !matches!(element_size, 4 | 8 | 16) || width == 0 || height == 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemAllocPitch: width {width}, height {height} and element size {element_size} (4, 8 or 16) must all be valid"),
            );
        }
        let pitch = width.next_multiple_of(512);
        let size = pitch.checked_mul(height).ok_or_else(|| {
            CuError::new(CUDA_ERROR_OUT_OF_MEMORY, "cuMemAllocPitch: size overflows")
        })?;
        let ptr = rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)?;
        own(rt, ptr, &ctx);
        Ok((ptr as CuDevicePtr, pitch))
    })
}

/// `cuMemFree`: device or managed memory; anything else is `CUDA_ERROR_INVALID_VALUE`.
pub fn mem_free(ptr: CuDevicePtr) -> CuResultOf<()> {
    cu(|rt| {
        capture::check_unsafe(rt, "cuMemFree")?;
        rt.free(ptr as usize)?;
        with_state(rt, |s| {
            s.managed.remove(&(ptr as usize));
            s.owners.remove(&(ptr as usize));
        });
        Ok(())
    })
}

/// `cuMemGetInfo`: (free, total) bytes of the current context's device.
pub fn mem_get_info() -> CuResultOf<(usize, usize)> {
    cu(|rt| {
        let ctx = super::api::current_any(rt)?;
        let d = &ctx.device;
        let used = d.memory_used.load(std::sync::atomic::Ordering::Acquire);
        Ok((
            (d.memory_capacity.saturating_sub(used)) as usize,
            d.memory_capacity as usize,
        ))
    })
}

/// `cuMemHostAlloc` (and `cuMemAllocHost`, flags 0): page-locked host memory, zeroed.
pub fn mem_host_alloc(size: usize, flags: u32) -> CuResultOf<usize> {
    cu(|rt| {
        current(rt)?;
        if flags & !CU_MEMHOSTALLOC_FLAGS != 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemHostAlloc: unknown flags {flags:#x}"),
            );
        }
        capture::check_unsafe(rt, "cuMemHostAlloc")?;
        let ptr = rt.malloc_host(size)?;
        let owner = current_any_raw(rt);
        with_state(rt, |s| {
            s.host_flags.insert(ptr, flags);
            s.owners.insert(ptr, owner);
        });
        Ok(ptr)
    })
}

/// `cuMemFreeHost`.
pub fn mem_free_host(ptr: usize) -> CuResultOf<()> {
    cu(|rt| {
        capture::check_unsafe(rt, "cuMemFreeHost")?;
        rt.free_host(ptr)?;
        with_state(rt, |s| {
            s.host_flags.remove(&ptr);
            s.owners.remove(&ptr);
        });
        Ok(())
    })
}

/// `cuMemHostGetFlags`: the flags of a `cuMemHostAlloc` allocation.
pub fn mem_host_get_flags(ptr: usize) -> CuResultOf<u32> {
    cu(|rt| match rt.memory.allocation_at(ptr) {
        Some((base, a)) if a.place == Place::Host => Ok(with_state(rt, |s| {
            s.host_flags.get(&base).copied().unwrap_or(0)
        })),
        _ => fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("cuMemHostGetFlags: {ptr:#x} is not memory from cuMemHostAlloc"),
        ),
    })
}

/// `cuMemHostGetDevicePointer`: pinned (or registered) host memory is mapped at its own
/// address (unified addressing); `flags` must be 0.
pub fn mem_host_get_device_pointer(ptr: usize, flags: u32) -> CuResultOf<CuDevicePtr> {
    cu(|rt| {
        current(rt)?;
        if flags != 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemHostGetDevicePointer: flags must be 0, not {flags:#x}"),
            );
        }
        match classify(rt, ptr, 1, "host pointer")? {
            MemKind::Pinned => Ok(ptr as CuDevicePtr),
            _ => fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemHostGetDevicePointer: {ptr:#x} is not page-locked host memory"),
            ),
        }
    })
}

/// `cuMemHostRegister`: page-locks (here: marks as pinned) a host range.
pub fn mem_host_register(ptr: usize, size: usize, flags: u32) -> CuResultOf<()> {
    cu(|rt| {
        current(rt)?;
        if ptr == 0 || size == 0 || flags & !CU_MEMHOSTREGISTER_FLAGS != 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemHostRegister: pointer {ptr:#x}, size {size} and flags {flags:#x} must be valid"),
            );
        }
        let Some(end) = ptr.checked_add(size) else {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                "cuMemHostRegister: the range wraps around",
            );
        };
        if classify(rt, ptr, size, "registered range")? != MemKind::Pageable {
            return fail(
                CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                format!("cuMemHostRegister: {ptr:#x} is already page-locked or device memory"),
            );
        }
        with_state(rt, |s| {
            let overlaps = s
                .registered
                .range(..end)
                .next_back()
                .is_some_and(|(&start, &(len, _))| start + len > ptr);
            if overlaps {
                return fail(
                    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED,
                    format!("cuMemHostRegister: [{ptr:#x}, {end:#x}) overlaps a registered range"),
                );
            }
            s.registered.insert(ptr, (size, flags));
            Ok(())
        })
    })
}

/// `cuMemHostUnregister`: `ptr` must be the start of a registered range.
pub fn mem_host_unregister(ptr: usize) -> CuResultOf<()> {
    cu(|rt| {
        with_state(rt, |s| match s.registered.remove(&ptr) {
            Some(_) => Ok(()),
            None => fail(
                CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED,
                format!("cuMemHostUnregister: no range was registered at {ptr:#x}"),
            ),
        })
    })
}

/// `cuMemAllocManaged`: memory both the host and the device access (all device memory is, on
/// the emulated device); `flags` is `CU_MEM_ATTACH_GLOBAL` or `CU_MEM_ATTACH_HOST`.
pub fn mem_alloc_managed(size: usize, flags: u32) -> CuResultOf<CuDevicePtr> {
    cu(|rt| {
        current(rt)?;
        if flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemAllocManaged: flags {flags:#x} are not CU_MEM_ATTACH_GLOBAL or CU_MEM_ATTACH_HOST"),
            );
        }
        capture::check_unsafe(rt, "cuMemAllocManaged")?;
        let ptr = rt.malloc(size, ACL_MEM_MALLOC_HUGE_FIRST)?;
        let owner = current_any_raw(rt);
        with_state(rt, |s| {
            s.managed.insert(ptr, flags);
            s.owners.insert(ptr, owner);
        });
        Ok(ptr as CuDevicePtr)
    })
}

/// Checks that `[ptr, ptr + count)` lies in one managed allocation.
fn managed_range(rt: &Runtime, ptr: usize, count: usize, call: &str) -> CuResultOf<()> {
    rt.memory.check_access(ptr, count, call)?;
    let base = rt.memory.allocation_at(ptr).map(|(b, _)| b);
    if count == 0 || !base.is_some_and(|b| with_state(rt, |s| s.managed.contains_key(&b))) {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: [{ptr:#x}, +{count}) is not managed memory"),
        );
    }
    Ok(())
}

/// `cuMemAdvise`: a hint; checked and accepted (the emulated device's memory does not move).
pub fn mem_advise(ptr: usize, count: usize, advice: u32) -> CuResultOf<()> {
    cu(|rt| {
        current(rt)?;
        if !(1..=6).contains(&advice) {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuMemAdvise: {advice} is not a CUmem_advise"),
            );
        }
        managed_range(rt, ptr, count, "cuMemAdvise")
    })
}

/// `cuMemPrefetchAsync`: checked and accepted: the data is already where every processor can
/// read it, so there is nothing to move.
pub fn mem_prefetch_async(ptr: usize, count: usize, stream: StreamHandle) -> CuResultOf<()> {
    cu(|rt| {
        target_stream(rt, Mode::Async(stream), "cuMemPrefetchAsync")?;
        managed_range(rt, ptr, count, "cuMemPrefetchAsync")
    })
}

/// `cuStreamAttachMemAsync`: checked and accepted (`length` 0 means the whole allocation).
pub fn stream_attach_mem_async(
    stream: StreamHandle,
    ptr: usize,
    length: usize,
    flags: u32,
) -> CuResultOf<()> {
    cu(|rt| {
        target_stream(rt, Mode::Async(stream), "cuStreamAttachMemAsync")?;
        if ![
            CU_MEM_ATTACH_GLOBAL,
            CU_MEM_ATTACH_HOST,
            CU_MEM_ATTACH_SINGLE,
        ]
        .contains(&flags)
        {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuStreamAttachMemAsync: flags {flags:#x} are not one CU_MEM_ATTACH_*"),
            );
        }
        managed_range(rt, ptr, length.max(1), "cuStreamAttachMemAsync")
    })
}

/// `cuMemGetAddressRange`: (base, size) of the allocation containing `ptr`;
/// `CUDA_ERROR_NOT_FOUND` for other addresses.
pub fn mem_get_address_range(ptr: CuDevicePtr) -> CuResultOf<(CuDevicePtr, usize)> {
    cu(|rt| match rt.memory.allocation_at(ptr as usize) {
        Some((base, a)) => Ok((base as CuDevicePtr, a.size)),
        None => fail(
            CUDA_ERROR_NOT_FOUND,
            format!("cuMemGetAddressRange: {ptr:#x} is not in a live allocation"),
        ),
    })
}

// ---- copies ------------------------------------------------------------------------------

/// How a copy is carried out (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Queue it; return at once.
    Queue,
    /// Queue it; return once the stream has run it.
    QueueAndWait,
    /// Copy the source aside now, queue the copy from there; return at once.
    Stage,
}

fn plan(src: MemKind, dst: MemKind, mode: Mode) -> Plan {
    use MemKind::*;
    let host = |k: MemKind| k != Device;
    match (src, dst, mode) {
        (s, d, _) if host(s) && host(d) => Plan::QueueAndWait,
        (_, Pageable, _) => Plan::QueueAndWait,
        (Pageable, _, Mode::Async(_)) => Plan::Stage,
        (Device, Device, _) => Plan::Queue,
        (_, _, Mode::Sync | Mode::PerThreadSync) => Plan::QueueAndWait,
        (_, _, Mode::Async(_)) => Plan::Queue,
    }
}

fn acl_kind(src: MemKind, dst: MemKind) -> u32 {
    match (src == MemKind::Device, dst == MemKind::Device) {
        (false, true) => ACL_MEMCPY_HOST_TO_DEVICE,
        (true, false) => ACL_MEMCPY_DEVICE_TO_HOST,
        (true, true) => ACL_MEMCPY_DEVICE_TO_DEVICE,
        (false, false) => ACL_MEMCPY_HOST_TO_HOST,
    }
}

/// A linear copy of `count` bytes (see the module docs for what it waits for).
///
/// # Safety
/// `src` must be readable and `dst` writable for `count` bytes until the copy has run (for a
/// pageable host source of an asynchronous copy: until the call returns).
pub unsafe fn memcpy(
    dst: usize,
    src: usize,
    count: usize,
    direction: Direction,
    mode: Mode,
    call: &'static str,
) -> CuResultOf<()> {
    cu(|rt| {
        let stream = target_stream(rt, mode, call)?;
        if dst == 0 || src == 0 {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{call}: the {} pointer is NULL",
                    if dst == 0 { "destination" } else { "source" }
                ),
            );
        }
        let src_kind = classify(rt, src, count, "copy source")?;
        let dst_kind = classify(rt, dst, count, "copy destination")?;
        if matches!(
            direction,
            Direction::DeviceToHost | Direction::DeviceToDevice
        ) {
            device_side(src_kind, src, "source", call)?;
        }
        if matches!(
            direction,
            Direction::HostToDevice | Direction::DeviceToDevice
        ) {
            device_side(dst_kind, dst, "destination", call)?;
        }
        if count == 0 {
            return Ok(());
        }
        if capture::capturing(rt, &stream, call)? {
            // A memcpy node: the copy reads its source when the graph runs.
            let kind = acl_kind(src_kind, dst_kind);
            let run: Recipe = Arc::new(move |rt, ls| {
                // SAFETY: a graph's copies use the addresses captured; the caller keeps them
                // valid for every launch, as CUDA requires of graph memory.
                unsafe { rt.memcpy_async(dst, count, src, count, kind, ls.handle)? };
                Ok(())
            });
            capture::submit(rt, &stream, NodeKind::Memcpy, call, run)?;
            return Ok(());
        }
        let plan = plan(src_kind, dst_kind, mode);
        if plan == Plan::Stage {
            if crate::observe::enabled() {
                crate::observe::host_access(
                    call,
                    &[MemRange {
                        start: src,
                        len: count,
                    }],
                    &[],
                );
            }
            let mut staged = vec![0u8; count];
            // SAFETY: the caller promises `src` is readable for `count` bytes during the call.
            unsafe { std::ptr::copy_nonoverlapping(src as *const u8, staged.as_mut_ptr(), count) };
            let access = KernelAccess {
                reads: Vec::new(),
                writes: vec![MemRange {
                    start: dst,
                    len: count,
                }],
            };
            rt.launch_on(
                &stream,
                call,
                access,
                Box::new(move || {
                    // SAFETY: `dst` is device memory checked above, which stays mapped; the
                    // caller keeps it allocated until the copy has run.
                    unsafe {
                        std::ptr::copy_nonoverlapping(staged.as_ptr(), dst as *mut u8, staged.len())
                    };
                    Ok(())
                }),
            )?;
            return Ok(());
        }
        let kind = acl_kind(src_kind, dst_kind);
        // SAFETY: forwarded to the caller.
        unsafe { rt.memcpy_async(dst, count, src, count, kind, stream.handle)? };
        if plan == Plan::QueueAndWait {
            wait_for(rt, &stream)?;
        }
        Ok(())
    })
}

/// `cuMemcpyHtoD`: returns once the copy is done.
///
/// # Safety
/// `src` must be readable for `count` bytes and `dst` writable.
pub unsafe fn memcpy_htod(dst: CuDevicePtr, src: *const u8, count: usize) -> CuResultOf<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        memcpy(
            dst as usize,
            src as usize,
            count,
            Direction::HostToDevice,
            Mode::Sync,
            "cuMemcpyHtoD",
        )
    }
}

/// `cuMemcpyHtoDAsync`: a pageable source is staged before the call returns; a pinned one is
/// read when the copy runs.
///
/// # Safety
/// As [`memcpy_htod`]; for a pinned source, until the copy has run.
pub unsafe fn memcpy_htod_async(
    dst: CuDevicePtr,
    src: *const u8,
    count: usize,
    stream: StreamHandle,
) -> CuResultOf<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        memcpy(
            dst as usize,
            src as usize,
            count,
            Direction::HostToDevice,
            Mode::Async(stream),
            "cuMemcpyHtoDAsync",
        )
    }
}

/// `cuMemcpyDtoH`: returns once the copy is done.
///
/// # Safety
/// `src` must be readable for `count` bytes and `dst` writable.
pub unsafe fn memcpy_dtoh(dst: *mut u8, src: CuDevicePtr, count: usize) -> CuResultOf<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        memcpy(
            dst as usize,
            src as usize,
            count,
            Direction::DeviceToHost,
            Mode::Sync,
            "cuMemcpyDtoH",
        )
    }
}

/// `cuMemcpyDtoHAsync`: returns once done for a pageable destination, at once for a pinned one.
///
/// # Safety
/// As [`memcpy_dtoh`], until the copy has run.
pub unsafe fn memcpy_dtoh_async(
    dst: *mut u8,
    src: CuDevicePtr,
    count: usize,
    stream: StreamHandle,
) -> CuResultOf<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        memcpy(
            dst as usize,
            src as usize,
            count,
            Direction::DeviceToHost,
            Mode::Async(stream),
            "cuMemcpyDtoHAsync",
        )
    }
}

/// `cuMemsetD8`: returns once the set is done.
///
/// # Safety
/// `dst` must be writable for `count` bytes.
pub unsafe fn memset_d8(dst: CuDevicePtr, value: u8, count: usize) -> CuResultOf<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        memset(
            dst,
            Pattern::U8(value),
            count,
            count,
            1,
            Mode::Sync,
            "cuMemsetD8",
        )
    }
}

/// `cuMemsetD8Async`.
///
/// # Safety
/// As [`memset_d8`], until the set has run.
pub unsafe fn memset_d8_async(
    dst: CuDevicePtr,
    value: u8,
    count: usize,
    stream: StreamHandle,
) -> CuResultOf<()> {
    // SAFETY: forwarded to the caller.
    unsafe {
        memset(
            dst,
            Pattern::U8(value),
            count,
            count,
            1,
            Mode::Async(stream),
            "cuMemsetD8Async",
        )
    }
}

/// `CUmemorytype` of a 2D copy's side.
pub const CU_MEMORYTYPE_HOST: u32 = 1;
/// `CU_MEMORYTYPE_DEVICE`.
pub const CU_MEMORYTYPE_DEVICE: u32 = 2;
/// `CU_MEMORYTYPE_ARRAY`.
pub const CU_MEMORYTYPE_ARRAY: u32 = 3;
/// `CU_MEMORYTYPE_UNIFIED`.
pub const CU_MEMORYTYPE_UNIFIED: u32 = 4;

/// One side of a 2D copy: the address of its first byte (offsets applied), its pitch and its
/// declared `CUmemorytype`.
#[derive(Debug, Clone, Copy)]
pub struct Side2D {
    /// First byte copied.
    pub ptr: usize,
    /// Bytes from one row to the next.
    pub pitch: usize,
    /// `CUmemorytype`.
    pub memory_type: u32,
}

/// The checks of a 2D copy: the memory kinds and extents of both sides, or `None` when there is
/// nothing to copy.
fn check_2d(
    rt: &Runtime,
    src: Side2D,
    dst: Side2D,
    width: usize,
    height: usize,
    call: &str,
) -> CuResultOf<Option<(MemKind, MemKind, usize, usize)>> {
    for side in [&src, &dst] {
        match side.memory_type {
            CU_MEMORYTYPE_HOST | CU_MEMORYTYPE_DEVICE | CU_MEMORYTYPE_UNIFIED => {}
            CU_MEMORYTYPE_ARRAY => {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!(
                        "{call}: no CUDA array exists on the emulated device (cuArrayCreate \
                             is not supported), so the array side is invalid"
                    ),
                )
            }
            other => {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("{call}: {other} is not a CUmemorytype"),
                )
            }
        }
        if side.ptr == 0 || (height > 1 && side.pitch < width) {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{call}: a NULL pointer, or a pitch ({}) below the width ({width})",
                    side.pitch
                ),
            );
        }
    }
    if width == 0 || height == 0 {
        return Ok(None);
    }
    let extent = |s: &Side2D| {
        (height - 1)
            .checked_mul(s.pitch)
            .and_then(|n| n.checked_add(width))
    };
    let (Some(src_len), Some(dst_len)) = (extent(&src), extent(&dst)) else {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!("{call}: the copy's extent overflows"),
        );
    };
    let src_kind = classify(rt, src.ptr, src_len, "copy source")?;
    let dst_kind = classify(rt, dst.ptr, dst_len, "copy destination")?;
    if src.memory_type == CU_MEMORYTYPE_DEVICE {
        device_side(src_kind, src.ptr, "source", call)?;
    }
    if dst.memory_type == CU_MEMORYTYPE_DEVICE {
        device_side(dst_kind, dst.ptr, "destination", call)?;
    }
    Ok(Some((src_kind, dst_kind, src_len, dst_len)))
}

/// Checks a 2D copy as [`memcpy_2d`] would, without copying: lets a call made of several 2D
/// copies refuse before any of them runs.
pub fn memcpy_2d_check(
    src: Side2D,
    dst: Side2D,
    width: usize,
    height: usize,
    call: &'static str,
) -> CuResultOf<()> {
    cu(|rt| check_2d(rt, src, dst, width, height, call).map(|_| ()))
}

/// `cuMemcpy2D`/`cuMemcpy2DAsync`: `height` rows of `width` bytes. No CUDA array can exist
/// (`cuArrayCreate` is not supported), so an array side names an invalid array.
/// A pageable host side makes the call wait for the copy.
///
/// # Safety
/// Both sides' rows must be valid for the access until the copy has run.
pub unsafe fn memcpy_2d(
    src: Side2D,
    dst: Side2D,
    width: usize,
    height: usize,
    mode: Mode,
    call: &'static str,
) -> CuResultOf<()> {
    cu(|rt| {
        let stream = target_stream(rt, mode, call)?;
        let Some((src_kind, dst_kind, src_len, dst_len)) =
            check_2d(rt, src, dst, width, height, call)?
        else {
            return Ok(());
        };
        let mut plan = plan(src_kind, dst_kind, mode);
        if plan == Plan::Stage {
            // A pageable source: consumed before the call returns.
            plan = Plan::QueueAndWait;
        }
        let run: Recipe = if src.pitch == width && dst.pitch == width {
            let kind = acl_kind(src_kind, dst_kind);
            let n = width * height;
            Arc::new(move |rt, ls| {
                // SAFETY: forwarded to the caller (for a graph, at every launch).
                unsafe { rt.memcpy_async(dst.ptr, n, src.ptr, n, kind, ls.handle)? };
                Ok(())
            })
        } else {
            let access = KernelAccess {
                reads: vec![MemRange {
                    start: src.ptr,
                    len: src_len,
                }],
                writes: vec![MemRange {
                    start: dst.ptr,
                    len: dst_len,
                }],
            };
            Arc::new(move |rt, ls| {
                rt.launch_on(
                    ls,
                    call,
                    access.clone(),
                    Box::new(move || {
                        for row in 0..height {
                            // SAFETY: both extents were checked; the caller keeps them valid.
                            unsafe {
                                std::ptr::copy(
                                    (src.ptr + row * src.pitch) as *const u8,
                                    (dst.ptr + row * dst.pitch) as *mut u8,
                                    width,
                                )
                            };
                        }
                        Ok(())
                    }),
                )?;
                Ok(())
            })
        };
        let captured = capture::submit(rt, &stream, NodeKind::Memcpy, call, run)?;
        if plan == Plan::QueueAndWait && !captured {
            wait_for(rt, &stream)?;
        }
        Ok(())
    })
}

// ---- pointer attributes ------------------------------------------------------------------

/// `CU_POINTER_ATTRIBUTE_CONTEXT`.
pub const CU_POINTER_ATTRIBUTE_CONTEXT: u32 = 1;
/// `CU_POINTER_ATTRIBUTE_MEMORY_TYPE`.
pub const CU_POINTER_ATTRIBUTE_MEMORY_TYPE: u32 = 2;
/// `CU_POINTER_ATTRIBUTE_DEVICE_POINTER`.
pub const CU_POINTER_ATTRIBUTE_DEVICE_POINTER: u32 = 3;
/// `CU_POINTER_ATTRIBUTE_HOST_POINTER`.
pub const CU_POINTER_ATTRIBUTE_HOST_POINTER: u32 = 4;
/// `CU_POINTER_ATTRIBUTE_SYNC_MEMOPS`.
pub const CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: u32 = 6;
/// `CU_POINTER_ATTRIBUTE_IS_MANAGED`.
pub const CU_POINTER_ATTRIBUTE_IS_MANAGED: u32 = 8;
/// `CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL`.
pub const CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: u32 = 9;
/// `CU_POINTER_ATTRIBUTE_RANGE_START_ADDR`.
pub const CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: u32 = 11;
/// `CU_POINTER_ATTRIBUTE_RANGE_SIZE`.
pub const CU_POINTER_ATTRIBUTE_RANGE_SIZE: u32 = 12;
/// `CU_POINTER_ATTRIBUTE_MAPPED`.
pub const CU_POINTER_ATTRIBUTE_MAPPED: u32 = 13;

/// The value of one pointer attribute, in the width CUDA writes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PointerValue {
    /// A handle or address (`CUcontext`, `CUdeviceptr`, `void *`, `size_t`).
    Word(u64),
    /// An `unsigned int` / `int` (memory type, device ordinal).
    U32(u32),
    /// A boolean (one byte).
    Bool(bool),
}

/// `cuPointerGetAttribute(attribute, ptr)`: for memory the driver allocated or registered
/// (device, managed, pinned host, registered host, module globals). Any other address is
/// `CUDA_ERROR_INVALID_VALUE`; an attribute outside those listed above is
/// `CUDA_ERROR_NOT_SUPPORTED` (or `CUDA_ERROR_INVALID_VALUE` if no CUDA attribute has its
/// value). The context of a module global or a registered range is not recorded: NULL.
pub fn pointer_attribute(attribute: u32, ptr: CuDevicePtr) -> CuResultOf<PointerValue> {
    cu(|rt| {
        let p = ptr as usize;
        let alloc = rt.memory.allocation_at(p);
        let (start, size, kind, managed, owner, device) = match alloc {
            Some((base, a)) => {
                let (managed, owner) = with_state(rt, |s| {
                    (s.managed.contains_key(&base), s.owners.get(&base).copied())
                });
                match a.place {
                    Place::Device(d) => (base, a.size, CU_MEMORYTYPE_DEVICE, managed, owner, d),
                    Place::Host => (base, a.size, CU_MEMORYTYPE_HOST, false, owner, 0),
                }
            }
            None => {
                let found = with_state(rt, |s| {
                    if let Some((start, size, _)) = s.registered_range(p, 1) {
                        Some((start, size, CU_MEMORYTYPE_HOST))
                    } else {
                        s.global_range(p, 1)
                            .map(|(start, size)| (start, size, CU_MEMORYTYPE_DEVICE))
                    }
                });
                let Some((start, size, kind)) = found else {
                    return fail(
                        CUDA_ERROR_INVALID_VALUE,
                        format!("cuPointerGetAttribute: {p:#x} is not memory the driver allocated or registered"),
                    );
                };
                (start, size, kind, false, None, 0)
            }
        };
        Ok(match attribute {
            CU_POINTER_ATTRIBUTE_CONTEXT => PointerValue::Word(owner.unwrap_or(0)),
            CU_POINTER_ATTRIBUTE_MEMORY_TYPE => PointerValue::U32(kind),
            CU_POINTER_ATTRIBUTE_DEVICE_POINTER => PointerValue::Word(ptr),
            CU_POINTER_ATTRIBUTE_HOST_POINTER => {
                if kind == CU_MEMORYTYPE_DEVICE && !managed {
                    return fail(
                        CUDA_ERROR_INVALID_VALUE,
                        format!("cuPointerGetAttribute: device memory {p:#x} has no host address"),
                    );
                }
                PointerValue::Word(ptr)
            }
            CU_POINTER_ATTRIBUTE_SYNC_MEMOPS => PointerValue::Bool(false),
            CU_POINTER_ATTRIBUTE_IS_MANAGED => PointerValue::Bool(managed),
            CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL => PointerValue::U32(device as u32),
            CU_POINTER_ATTRIBUTE_RANGE_START_ADDR => PointerValue::Word(start as u64),
            CU_POINTER_ATTRIBUTE_RANGE_SIZE => PointerValue::Word(size as u64),
            CU_POINTER_ATTRIBUTE_MAPPED => PointerValue::Bool(true),
            a if (1..=21).contains(&a) => {
                return fail(
                    CUDA_ERROR_NOT_SUPPORTED,
                    format!(
                    "cuPointerGetAttribute: attribute {a} is not supported by the emulated device"
                ),
                )
            }
            a => {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("cuPointerGetAttribute: {a} is not a CUpointer_attribute"),
                )
            }
        })
    })
}

// ---- sets --------------------------------------------------------------------------------

/// The value a `cuMemsetD*` call writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pattern {
    /// `cuMemsetD8*`.
    U8(u8),
    /// `cuMemsetD16*`.
    U16(u16),
    /// `cuMemsetD32*`.
    U32(u32),
}

impl Pattern {
    fn bytes(self) -> Vec<u8> {
        match self {
            Pattern::U8(v) => vec![v],
            Pattern::U16(v) => v.to_ne_bytes().to_vec(),
            Pattern::U32(v) => v.to_ne_bytes().to_vec(),
        }
    }
}

/// `cuMemsetD8/16/32[Async]` (`pitch` = `width` × element size, `height` 1) and
/// `cuMemsetD2D8/16/32[Async]`: `height` rows of `width` elements, `pitch` bytes apart. The
/// destination must be device memory aligned to the element size. The synchronous forms return
/// once the set is done.
///
/// # Safety
/// The rows must be writable until the set has run.
pub unsafe fn memset(
    dst: CuDevicePtr,
    pattern: Pattern,
    pitch: usize,
    width: usize,
    height: usize,
    mode: Mode,
    call: &'static str,
) -> CuResultOf<()> {
    cu(|rt| {
        let stream = target_stream(rt, mode, call)?;
        let bytes = pattern.bytes();
        let elem = bytes.len();
        let dst = dst as usize;
        let Some(row) = width.checked_mul(elem) else {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{call}: the size overflows"),
            );
        };
        if dst == 0
            || !dst.is_multiple_of(elem)
            || (height > 1 && (pitch < row || !pitch.is_multiple_of(elem)))
        {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{call}: the destination {dst:#x} must be non-NULL and {elem}-byte aligned, the pitch ({pitch}) at least a row ({row} bytes)"),
            );
        }
        if row == 0 || height == 0 {
            return Ok(());
        }
        let Some(extent) = (height - 1)
            .checked_mul(pitch)
            .and_then(|n| n.checked_add(row))
        else {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("{call}: the size overflows"),
            );
        };
        let kind = classify(rt, dst, extent, "memset")?;
        device_side(kind, dst, "destination", call)?;
        let contiguous = height == 1 || pitch == row;
        let run: Recipe = if contiguous && bytes.iter().all(|&b| b == bytes[0]) {
            let value = i32::from(bytes[0]);
            Arc::new(move |rt, ls| {
                // SAFETY: forwarded to the caller (for a graph, at every launch).
                unsafe { rt.memset_async(dst, extent, value, extent, ls.handle)? };
                Ok(())
            })
        } else {
            let access = KernelAccess {
                reads: Vec::new(),
                writes: vec![MemRange {
                    start: dst,
                    len: extent,
                }],
            };
            Arc::new(move |rt, ls| {
                let bytes = bytes.clone();
                rt.launch_on(
                    ls,
                    call,
                    access.clone(),
                    Box::new(move || {
                        for r in 0..height {
                            let start = dst + r * pitch;
                            for i in 0..width {
                                // SAFETY: the extent was checked; the caller keeps it valid.
                                unsafe {
                                    std::ptr::copy_nonoverlapping(
                                        bytes.as_ptr(),
                                        (start + i * elem) as *mut u8,
                                        elem,
                                    )
                                };
                            }
                        }
                        Ok(())
                    }),
                )?;
                Ok(())
            })
        };
        let captured = capture::submit(rt, &stream, NodeKind::Memset, call, run)?;
        if mode.is_sync() && !captured {
            wait_for(rt, &stream)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_the_synchronization_rules() {
        use MemKind::*;
        let a = Mode::Async(StreamHandle::NULL);
        let s = Mode::Sync;
        assert_eq!(plan(Pageable, Device, a), Plan::Stage);
        assert_eq!(plan(Pageable, Device, s), Plan::QueueAndWait);
        assert_eq!(plan(Device, Pageable, a), Plan::QueueAndWait);
        assert_eq!(plan(Device, Pageable, s), Plan::QueueAndWait);
        assert_eq!(plan(Pinned, Device, a), Plan::Queue);
        assert_eq!(plan(Device, Pinned, a), Plan::Queue);
        assert_eq!(plan(Pinned, Device, s), Plan::QueueAndWait);
        assert_eq!(plan(Device, Pinned, s), Plan::QueueAndWait);
        assert_eq!(plan(Device, Device, s), Plan::Queue);
        assert_eq!(plan(Device, Device, a), Plan::Queue);
        assert_eq!(plan(Pinned, Pageable, a), Plan::QueueAndWait);
        assert_eq!(plan(Pinned, Pinned, a), Plan::QueueAndWait);
    }
}

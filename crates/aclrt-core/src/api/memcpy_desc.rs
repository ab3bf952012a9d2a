//! Copies through a descriptor in device memory (`aclrtGetMemcpyDescSize`,
//! `aclrtSetMemcpyDesc`, `aclrtMemcpyAsyncWithDesc`), and through base addresses kept in
//! device memory (`aclrtMemcpyAsyncWithOffset`).
//!
//! A descriptor is [`MEMCPY_DESC_SIZE`] bytes of device memory laid out as the vendor's
//! runtime writes it: three reserved 32-bit words, the length as a 32-bit word, then the source
//! and destination addresses as 64-bit words, native-endian. The copy task reads it when it
//! runs, not when it is queued, as the device does: anything that rewrites the descriptor
//! before then (an `aclrtSetMemcpyDesc`, or a task of the stream) decides what is copied. The
//! task checks again, when it runs, that both ranges are live device memory of one device.

use super::os_thread_id;
use crate::codes::*;
use crate::consts::ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::memory::{MemoryMap, Place};
use crate::runtime::Runtime;
use crate::task_info::{KernelFn, MemRange, TaskKind, TaskMeta};

/// Bytes of a copy descriptor on the emulated chip (the vendor's A2 size).
pub const MEMCPY_DESC_SIZE: usize = 32;
/// The longest copy a descriptor describes: 4 GiB, as the vendor's runtime limits it.
pub const MEMCPY_DESC_MAX_COUNT: usize = 4 << 30;
/// `aclrtMemcpyKind` values run past the last one (`ACL_MEMCPY_INTER_DEVICE_TO_DEVICE`).
const MEMCPY_KIND_END: u32 = 8;

/// The largest offset `aclrtMemcpyAsyncWithOffset` takes (48 bits, as the vendor's).
const MAX_ADDR_OFFSET: usize = 0xFFFF_FFFF_FFFF;

const LEN_OFFSET: usize = 12;
const SRC_OFFSET: usize = 16;
const DST_OFFSET: usize = 24;

/// A kind beyond the enumeration is `100000` (checked first, as the vendor's front does).
fn check_kind_range(kind: u32, call: &str) -> Result<()> {
    if kind >= MEMCPY_KIND_END {
        bail!(
            ACL_ERROR_INVALID_PARAM,
            "{call}: memcpy kind {kind} is not an aclrtMemcpyKind"
        );
    }
    Ok(())
}

/// The kind checks the three calls share: beyond the enumeration is `100000`; any kind but
/// `ACL_MEMCPY_INNER_DEVICE_TO_DEVICE` is `207000`, the one kind the vendor supports.
fn check_kind(kind: u32, call: &str) -> Result<()> {
    check_kind_range(kind, call)?;
    if kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE {
        bail!(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "{call}: memcpy kind {kind} is not supported: only \
             ACL_MEMCPY_INNER_DEVICE_TO_DEVICE is"
        );
    }
    Ok(())
}

/// The device whose live memory `[ptr, ptr + len)` is, or `None` for any other memory.
fn device_of(memory: &MemoryMap, ptr: usize, len: usize, what: &str) -> Result<Option<i32>> {
    match memory.place_of(ptr, what)? {
        Some(Place::Device(id)) => {
            memory.check_access(ptr, len.max(1), what)?;
            Ok(Some(id))
        }
        _ => Ok(None),
    }
}

/// A descriptor's copy, as read from it.
struct Described {
    len: usize,
    src: usize,
    dst: usize,
}

/// Reads the descriptor at `desc` (checked to be live device memory of its size).
fn read_desc(memory: &MemoryMap, desc: usize) -> Result<Described> {
    memory.check_access(desc, MEMCPY_DESC_SIZE, "the copy descriptor")?;
    let mut bytes = [0u8; MEMCPY_DESC_SIZE];
    // SAFETY: the descriptor's bytes are live runtime memory, checked just above.
    unsafe {
        std::ptr::copy_nonoverlapping(desc as *const u8, bytes.as_mut_ptr(), MEMCPY_DESC_SIZE)
    };
    let word = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap()) as usize;
    Ok(Described {
        len: u32::from_ne_bytes(bytes[LEN_OFFSET..LEN_OFFSET + 4].try_into().unwrap()) as usize,
        src: word(SRC_OFFSET),
        dst: word(DST_OFFSET),
    })
}

/// The checks the vendor's runtime makes when a descriptor is set, made again when its copy
/// runs: both ranges live device memory of one device.
fn check_described(memory: &MemoryMap, d: &Described, call: &str) -> Result<()> {
    let src = device_of(memory, d.src, d.len, "the copy source")?;
    let dst = device_of(memory, d.dst, d.len, "the copy destination")?;
    match (src, dst) {
        (Some(a), Some(b)) if a == b => Ok(()),
        _ => bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{call}: the source {:#x} and destination {:#x} must both be device memory of one \
             device for ACL_MEMCPY_INNER_DEVICE_TO_DEVICE",
            d.src,
            d.dst
        ),
    }
}

impl Runtime {
    /// `aclrtGetMemcpyDescSize`: [`MEMCPY_DESC_SIZE`] for the one supported kind.
    pub fn get_memcpy_desc_size(&self, kind: u32) -> Result<usize> {
        check_kind(kind, "aclrtGetMemcpyDescSize")?;
        Ok(MEMCPY_DESC_SIZE)
    }

    /// `aclrtSetMemcpyDesc`: writes the copy into the descriptor, in the vendor's order of
    /// checks: NULL `desc`, a kind beyond the enumeration, NULL addresses, a count of 0 and a
    /// `config` (reserved) are `100000`; another kind `207000`; a count above 4 GiB, a
    /// descriptor not 64-byte aligned or not device memory (of its full size), and addresses
    /// that are not device memory of one device `107000`. It needs a current context.
    pub fn set_memcpy_desc(
        &self,
        desc: usize,
        kind: u32,
        src: usize,
        dst: usize,
        count: usize,
        config_set: bool,
    ) -> Result<()> {
        const CALL: &str = "aclrtSetMemcpyDesc";
        if desc == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: desc is NULL");
        }
        check_kind_range(kind, CALL)?;
        if src == 0 || dst == 0 {
            let which = if src == 0 { "srcAddr" } else { "dstAddr" };
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: {which} is NULL");
        }
        if count == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: count is 0");
        }
        if config_set {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "{CALL}: config is reserved and must be NULL"
            );
        }
        check_kind(kind, CALL)?;
        if count > MEMCPY_DESC_MAX_COUNT {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: count {count} is beyond (0, {MEMCPY_DESC_MAX_COUNT}]"
            );
        }
        if !desc.is_multiple_of(64) {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: desc {desc:#x} is not 64-byte aligned"
            );
        }
        if device_of(&self.memory, desc, MEMCPY_DESC_SIZE, "the copy descriptor")?.is_none() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: desc {desc:#x} is not device memory"
            );
        }
        check_described(
            &self.memory,
            &Described {
                len: count,
                src,
                dst,
            },
            CALL,
        )?;
        self.current_context()?;
        let mut bytes = [0u8; MEMCPY_DESC_SIZE];
        bytes[LEN_OFFSET..LEN_OFFSET + 4].copy_from_slice(&(count as u32).to_ne_bytes());
        bytes[SRC_OFFSET..SRC_OFFSET + 8].copy_from_slice(&(src as u64).to_ne_bytes());
        bytes[DST_OFFSET..DST_OFFSET + 8].copy_from_slice(&(dst as u64).to_ne_bytes());
        let _writing = crate::memory::writers::gate().enter_range(desc, MEMCPY_DESC_SIZE);
        // SAFETY: the descriptor is live device memory of at least its size, checked above.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), desc as *mut u8, MEMCPY_DESC_SIZE) };
        Ok(())
    }

    /// `aclrtMemcpyAsyncWithDesc`: queues the copy the descriptor describes when the task
    /// runs. NULL `desc`, a kind beyond the enumeration and a NULL stream (the vendor takes no
    /// default stream here) are `100000`; another kind `207000`; a descriptor that is not
    /// device memory `107000`. When the task runs, a descriptor whose ranges are no longer
    /// device memory of one device fails it with that check's code.
    pub fn memcpy_async_with_desc(
        &self,
        desc: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemcpyAsyncWithDesc";
        if desc == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: desc is NULL");
        }
        check_kind_range(kind, CALL)?;
        if stream.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: stream is NULL");
        }
        check_kind(kind, CALL)?;
        if device_of(&self.memory, desc, MEMCPY_DESC_SIZE, "the copy descriptor")?.is_none() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: desc {desc:#x} is not device memory"
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        let memory = self.memory.clone();
        let kernel: KernelFn = Box::new(move || {
            let run = || -> Result<()> {
                let d = read_desc(&memory, desc)?;
                check_described(&memory, &d, CALL)?;
                if d.len > 0 {
                    // SAFETY: both ranges are live device memory, checked just above.
                    unsafe { std::ptr::copy(d.src as *const u8, d.dst as *mut u8, d.len) };
                }
                Ok(())
            };
            run().map_err(|e| e.code())
        });
        let meta = TaskMeta {
            name: Some(std::sync::Arc::from(CALL)),
            reads: vec![MemRange {
                start: desc,
                len: MEMCPY_DESC_SIZE,
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(&s, TaskKind::Memcpy, Work::Kernel(kernel), meta)
            .map(|_| ())
    }

    /// `aclrtMemcpyAsyncWithOffset`: `dst` and `src` are device memory holding the base
    /// addresses (64-bit words); the task reads them when it runs, as the device does, and
    /// copies `count` bytes from source base + `src_offset` to destination base + `dst_offset`.
    /// A count of 0 succeeds before anything is checked; then, as the vendor's, a kind other
    /// than `ACL_MEMCPY_INNER_DEVICE_TO_DEVICE`, NULL addresses, `count` above `dest_max` or
    /// 4 GiB, an offset above 48 bits, `dst_offset` not below `dest_max` and `count` above
    /// `dest_max - dst_offset` are `107000`; so are base address words that are not device
    /// memory (checked at the call). When the task runs, ranges that are not live device
    /// memory of one device fail it with `107000`.
    #[allow(clippy::too_many_arguments)]
    pub fn memcpy_async_with_offset(
        &self,
        dst: usize,
        dest_max: usize,
        dst_offset: usize,
        src: usize,
        count: usize,
        src_offset: usize,
        kind: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtMemcpyAsyncWithOffset";
        if count == 0 {
            return Ok(());
        }
        if kind != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: kind {kind} is not ACL_MEMCPY_INNER_DEVICE_TO_DEVICE"
            );
        }
        if dst == 0 || src == 0 {
            let which = if dst == 0 { "dst" } else { "src" };
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: {which} is NULL");
        }
        if count > dest_max || count > MEMCPY_DESC_MAX_COUNT {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: count {count} is beyond (0, {}]",
                dest_max.min(MEMCPY_DESC_MAX_COUNT)
            );
        }
        for (offset, name) in [(src_offset, "srcDataOffset"), (dst_offset, "dstDataOffset")] {
            if offset > MAX_ADDR_OFFSET {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: {name} {offset:#x} is above {MAX_ADDR_OFFSET:#x}"
                );
            }
        }
        if dst_offset >= dest_max || count > dest_max - dst_offset {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: dstDataOffset {dst_offset} and count {count} do not fit in destMax \
                 {dest_max}"
            );
        }
        let word = std::mem::size_of::<u64>();
        for (at, what) in [(dst, "dst"), (src, "src")] {
            if device_of(&self.memory, at, word, "a copy base address")?.is_none() {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "{CALL}: {what} {at:#x} is not device memory holding a base address"
                );
            }
        }
        self.current_context()?;
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        let memory = self.memory.clone();
        let kernel: KernelFn = Box::new(move || {
            let run = || -> Result<()> {
                let base = |at: usize, what: &str| -> Result<usize> {
                    memory.check_access(at, word, what)?;
                    // SAFETY: eight bytes of live runtime memory, checked just above.
                    Ok(unsafe { (at as *const u64).read_unaligned() } as usize)
                };
                let d = Described {
                    len: count,
                    src: base(src, "the source base address")?.wrapping_add(src_offset),
                    dst: base(dst, "the destination base address")?.wrapping_add(dst_offset),
                };
                check_described(&memory, &d, CALL)?;
                // SAFETY: both ranges are live device memory, checked just above.
                unsafe { std::ptr::copy(d.src as *const u8, d.dst as *mut u8, d.len) };
                Ok(())
            };
            run().map_err(|e| e.code())
        });
        let meta = TaskMeta {
            name: Some(std::sync::Arc::from(CALL)),
            reads: vec![
                MemRange {
                    start: dst,
                    len: word,
                },
                MemRange {
                    start: src,
                    len: word,
                },
            ],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(&s, TaskKind::Memcpy, Work::Kernel(kernel), meta)
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_with_offset_check_in_the_vendors_order() {
        let rt = Runtime::new(&crate::Config::default());
        let kind = ACL_MEMCPY_INNER_DEVICE_TO_DEVICE;
        let s = StreamHandle::NULL;
        let code = |r: Result<()>| r.unwrap_err().code();
        // A count of 0 before anything else, even without a context.
        assert_eq!(rt.memcpy_async_with_offset(0, 0, 0, 0, 0, 0, 99, s), Ok(()));
        assert_eq!(
            code(rt.memcpy_async_with_offset(8, 64, 0, 8, 8, 0, 99, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            code(rt.memcpy_async_with_offset(0, 64, 0, 8, 8, 0, kind, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            code(rt.memcpy_async_with_offset(8, 4, 0, 8, 8, 0, kind, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        let e = rt
            .memcpy_async_with_offset(8, 64, 60, 8, 8, 0, kind, s)
            .unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
        assert!(
            e.message().contains("do not fit in destMax 64"),
            "{}",
            e.message()
        );
        assert_eq!(
            code(rt.memcpy_async_with_offset(8, 64, 0, 8, 8, 1 << 48, kind, s)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        // Base address words outside device memory.
        let word = [0u64; 2];
        let host = word.as_ptr() as usize;
        rt.set_device(0).unwrap();
        let e = rt
            .memcpy_async_with_offset(host, 64, 0, host + 8, 8, 0, kind, s)
            .unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_RT_PARAM_INVALID);
        assert!(e.message().contains("dst"), "{}", e.message());
        let bases = rt.malloc(16, 0).unwrap();
        let data = rt.malloc(64, 0).unwrap();
        // SAFETY: 16 bytes of live device memory.
        unsafe {
            (bases as *mut u64).write(data as u64);
            ((bases + 8) as *mut u64).write(data as u64 + 32);
            (data as *mut u8).add(40).write(7);
        }
        rt.memcpy_async_with_offset(bases, 64, 1, bases + 8, 4, 8, kind, s)
            .unwrap();
        rt.synchronize_stream(s).unwrap();
        // SAFETY: as above.
        assert_eq!(unsafe { (data as *const u8).add(1).read() }, 7);
        rt.free(bases).unwrap();
        rt.free(data).unwrap();
        rt.reset_device(0).unwrap();
    }
}

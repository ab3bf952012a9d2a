//! Cache maintenance tasks (`aclrtCmoAsync`, and through a descriptor in device memory:
//! `aclrtCmoGetDescSize`, `aclrtCmoSetDesc`, `aclrtCmoAsyncWithDesc`).
//!
//! The emulated device's memory is the host's, kept coherent by the host's caches, so a
//! prefetch, write-back, invalidate or flush has nothing to do. The calls still check their
//! arguments as the vendor's runtime does and queue a task that takes its place in the
//! stream's order (later work runs after it; a synchronise waits for it) and has no other
//! effect. A descriptor is [`CMO_DESC_SIZE`] bytes of device memory in the vendor's A2 layout
//! (`rtCmoAddrInfo`, packed): two reserved words, the outer and inner counts (16 bits each),
//! the length (32 bits) at byte 12, the address (64 bits) at byte 16, two strides; the task
//! reads it when it runs, as the device does.

use std::sync::Arc;

use super::os_thread_id;
use crate::codes::*;
use crate::error::{bail, Result};
use crate::exec::Work;
use crate::handle::StreamHandle;
use crate::memory::Place;
use crate::runtime::Runtime;
use crate::task_info::{MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// Bytes of a cache operation descriptor on the emulated chip (the vendor's A2
/// `rtCmoAddrInfo`).
pub const CMO_DESC_SIZE: usize = 32;
const CMO_LEN_OFFSET: usize = 12;
const CMO_SRC_OFFSET: usize = 16;

impl Runtime {
    /// `aclrtCmoAsync`: NULL `src` and a size of 0 are `100000`; a type that is not an
    /// `aclrtCmoType` is `207000`, as the vendor's runtime answers it; a range overrunning its
    /// runtime allocation, or in freed runtime memory, fails as a copy's would. Host memory the
    /// runtime did not allocate is not checked further, as the vendor's runtime does not.
    pub fn cmo_async(
        &self,
        src: usize,
        size: usize,
        cmo_type: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        const CALL: &str = "aclrtCmoAsync";
        if src == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: src is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: size is 0");
        }
        if !(vc::ACL_RT_CMO_TYPE_PREFETCH..=vc::ACL_RT_CMO_TYPE_FLUSH)
            .contains(&i64::from(cmo_type))
        {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "{CALL}: cmoType {cmo_type} is not supported: prefetch, write-back, invalidate \
                 and flush are"
            );
        }
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        self.memory
            .check_access(src, size, "the cache operation's range")?;
        let meta = TaskMeta {
            name: Some(Arc::from(CALL)),
            reads: vec![MemRange {
                start: src,
                len: size,
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(
            &s,
            TaskKind::Kernel,
            Work::Kernel(Box::new(|| Ok(()))),
            meta,
        )
        .map(|_| ())
    }

    /// `aclrtCmoGetDescSize`: [`CMO_DESC_SIZE`]; without an output (`out_given` false) it is
    /// `107000`, as the vendor's runtime checks it.
    pub fn cmo_get_desc_size(&self, out_given: bool) -> Result<usize> {
        if !out_given {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtCmoGetDescSize: size is NULL"
            );
        }
        Ok(CMO_DESC_SIZE)
    }

    /// The check that `desc` is live device memory of a descriptor's size (`107000`).
    fn check_cmo_desc(&self, desc: usize, call: &str) -> Result<()> {
        let device = matches!(
            self.memory.place_of(desc, "the cache descriptor")?,
            Some(Place::Device(_))
        );
        if !device {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: cmoDesc {desc:#x} is not device memory"
            );
        }
        self.memory
            .check_access(desc, CMO_DESC_SIZE, "the cache descriptor")
            .map(drop)
    }

    /// `aclrtCmoSetDesc`: writes the address and length (as its 32-bit field, as the
    /// vendor's) into the descriptor, the other fields 0. NULL pointers and a size of 0 are
    /// `107000`, as the vendor's runtime checks them; so is a descriptor that is not device
    /// memory of its size. It needs a current context.
    pub fn cmo_set_desc(&self, desc: usize, src: usize, size: usize) -> Result<()> {
        const CALL: &str = "aclrtCmoSetDesc";
        if desc == 0 || src == 0 {
            let which = if desc == 0 { "cmoDesc" } else { "src" };
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: {which} is NULL");
        }
        if size == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: size is 0");
        }
        self.current_context()?;
        self.check_cmo_desc(desc, CALL)?;
        let mut bytes = [0u8; CMO_DESC_SIZE];
        bytes[CMO_LEN_OFFSET..CMO_LEN_OFFSET + 4].copy_from_slice(&(size as u32).to_ne_bytes());
        bytes[CMO_SRC_OFFSET..CMO_SRC_OFFSET + 8].copy_from_slice(&(src as u64).to_ne_bytes());
        if crate::observe::enabled() {
            crate::observe::host_access(
                CALL,
                &[],
                &[MemRange {
                    start: desc,
                    len: CMO_DESC_SIZE,
                }],
            );
        }
        let _writing = crate::memory::writers::gate().enter_range(desc, CMO_DESC_SIZE);
        // SAFETY: the descriptor is live device memory of its size, checked above.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), desc as *mut u8, CMO_DESC_SIZE) };
        Ok(())
    }

    /// `aclrtCmoAsyncWithDesc`: a non-NULL `reserve`, a NULL descriptor, a type that is not an
    /// `aclrtCmoType` (the vendor's runtime takes all four) and a descriptor that is not device
    /// memory are `107000`; it needs a current context. The task reads the descriptor when it
    /// runs and fails (as a copy would) when the range it names overruns a runtime allocation
    /// or lies in freed memory.
    pub fn cmo_async_with_desc(
        &self,
        desc: usize,
        cmo_type: u32,
        stream: StreamHandle,
        reserve_set: bool,
    ) -> Result<()> {
        const CALL: &str = "aclrtCmoAsyncWithDesc";
        if reserve_set {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: reserve is reserved and must be NULL"
            );
        }
        if desc == 0 {
            bail!(ACL_ERROR_RT_PARAM_INVALID, "{CALL}: cmoDesc is NULL");
        }
        if !(vc::ACL_RT_CMO_TYPE_PREFETCH..=vc::ACL_RT_CMO_TYPE_FLUSH)
            .contains(&i64::from(cmo_type))
        {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: cmoType {cmo_type} is not an aclrtCmoType"
            );
        }
        self.current_context()?;
        let s = self.stream_for_work(self.lookup_stream(stream)?, CALL)?;
        self.check_cmo_desc(desc, CALL)?;
        let memory = self.memory.clone();
        let kernel: crate::task_info::KernelFn = Box::new(move || {
            let run = || -> Result<()> {
                memory.check_access(desc, CMO_DESC_SIZE, "the cache descriptor")?;
                let mut bytes = [0u8; CMO_DESC_SIZE];
                // SAFETY: the descriptor is live runtime memory, checked just above.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        desc as *const u8,
                        bytes.as_mut_ptr(),
                        CMO_DESC_SIZE,
                    )
                };
                let len = u32::from_ne_bytes(
                    bytes[CMO_LEN_OFFSET..CMO_LEN_OFFSET + 4]
                        .try_into()
                        .unwrap(),
                ) as usize;
                let src = u64::from_ne_bytes(
                    bytes[CMO_SRC_OFFSET..CMO_SRC_OFFSET + 8]
                        .try_into()
                        .unwrap(),
                ) as usize;
                // The operation itself has nothing to do (coherent memory); its range must
                // still be memory a device could reach.
                memory
                    .check_access(src, len.max(1), "the cache operation's range")
                    .map(drop)
            };
            run().map_err(|e| e.code())
        });
        let meta = TaskMeta {
            name: Some(Arc::from(CALL)),
            reads: vec![MemRange {
                start: desc,
                len: CMO_DESC_SIZE,
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(&s, TaskKind::Kernel, Work::Kernel(kernel), meta)
            .map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptors_are_written_in_the_a2_layout_and_checked() {
        let rt = Runtime::new(&crate::Config::default());
        let code = |r: Result<()>| r.unwrap_err().code();
        assert_eq!(rt.cmo_get_desc_size(true), Ok(CMO_DESC_SIZE));
        assert_eq!(
            rt.cmo_get_desc_size(false).unwrap_err().code(),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(code(rt.cmo_set_desc(0, 8, 8)), ACL_ERROR_RT_PARAM_INVALID);
        assert_eq!(code(rt.cmo_set_desc(8, 8, 0)), ACL_ERROR_RT_PARAM_INVALID);
        // No current context.
        assert_eq!(code(rt.cmo_set_desc(8, 8, 8)), ACL_ERROR_RT_CONTEXT_NULL);
        rt.set_device(0).unwrap();
        let desc = rt.malloc(CMO_DESC_SIZE, 0).unwrap();
        let data = rt.malloc(64, 0).unwrap();
        rt.cmo_set_desc(desc, data, (1 << 32) + 5).unwrap();
        // SAFETY: the descriptor is 32 bytes of live device memory.
        let bytes = unsafe { std::slice::from_raw_parts(desc as *const u8, CMO_DESC_SIZE) };
        assert_eq!(
            bytes[12..16],
            5u32.to_ne_bytes(),
            "the length's 32-bit field"
        );
        assert_eq!(bytes[16..24], (data as u64).to_ne_bytes());
        assert!(bytes[..12].iter().chain(&bytes[24..]).all(|&b| b == 0));
        let s = StreamHandle::NULL;
        assert_eq!(
            code(rt.cmo_async_with_desc(desc, 0, s, true)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        assert_eq!(
            code(rt.cmo_async_with_desc(desc, 4, s, false)),
            ACL_ERROR_RT_PARAM_INVALID
        );
        rt.cmo_set_desc(desc, data, 64).unwrap();
        rt.cmo_async_with_desc(desc, 3, s, false).unwrap();
        rt.synchronize_stream(s).unwrap();
        rt.free(desc).unwrap();
        rt.free(data).unwrap();
        rt.reset_device(0).unwrap();
    }
}

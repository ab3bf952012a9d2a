//! `acldvppMalloc` / `acldvppFree`: device memory for media data processing.
//!
//! The vendor's rule: the size asked for is rounded up to a multiple of 32 and 32 bytes are
//! added (`m = ALIGN_UP(len, 32) + 32`), and the start address is 128-byte aligned. Runtime
//! allocations are [`ALIGNMENT`] (64) aligned, so a DVPP allocation takes `m + 64` bytes of
//! device memory and hands out the first 128-byte aligned address in it; the `m` bytes from
//! there always lie inside the allocation. It is device memory for every other call (copies,
//! sets, queries); only `acldvppFree` releases it, and `aclrtFree` of such an address is
//! refused (`507011`).

use crate::codes::*;
use crate::consts::ACL_MEM_MALLOC_HUGE_FIRST;
use crate::error::{bail, Result};
use crate::memory::ALIGNMENT;
use crate::runtime::Runtime;
use crate::sync::lock;

/// Alignment of the addresses `acldvppMalloc` hands out.
pub const DVPP_ALIGNMENT: usize = 128;
/// The size granularity of DVPP memory, and the bytes added after the rounded size.
pub const DVPP_SIZE_STEP: usize = 32;

/// The bytes the vendor gives a DVPP request of `size`: `ALIGN_UP(size, 32) + 32`, or `None`
/// when that overflows.
///
/// ```
/// use aclrt::api::dvpp_size;
/// assert_eq!(dvpp_size(1), Some(64));
/// assert_eq!(dvpp_size(32), Some(64));
/// assert_eq!(dvpp_size(33), Some(96));
/// assert_eq!(dvpp_size(usize::MAX), None);
/// ```
pub fn dvpp_size(size: usize) -> Option<usize> {
    size.checked_next_multiple_of(DVPP_SIZE_STEP)?
        .checked_add(DVPP_SIZE_STEP)
}

impl Runtime {
    /// `acldvppMalloc`: [`dvpp_size`]`(size)` bytes of the current context's device memory at a
    /// 128-byte aligned address. A size of 0 is `100000`; one whose rounding overflows is
    /// `207001`.
    pub fn dvpp_malloc(&self, size: usize) -> Result<usize> {
        if size == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "acldvppMalloc: size is 0");
        }
        let Some(total) = dvpp_size(size).and_then(|m| m.checked_add(DVPP_ALIGNMENT - ALIGNMENT))
        else {
            bail!(
                ACL_ERROR_RT_MEMORY_ALLOCATION,
                "acldvppMalloc: cannot allocate {size} bytes"
            );
        };
        let base = self.malloc(total, ACL_MEM_MALLOC_HUGE_FIRST)?;
        let ptr = base.next_multiple_of(DVPP_ALIGNMENT);
        lock(&self.extras.dvpp).insert(ptr, base);
        Ok(ptr)
    }

    /// `acldvppFree`: releases an address from [`Runtime::dvpp_malloc`]. NULL is `100000`;
    /// any other address (never allocated there, or already freed) is `507011`.
    pub fn dvpp_free(&self, ptr: usize) -> Result<()> {
        if ptr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "acldvppFree: the pointer is NULL");
        }
        let mut dvpp = lock(&self.extras.dvpp);
        let Some(&base) = dvpp.get(&ptr) else {
            bail!(
                ACL_ERROR_RT_MEMORY_FREE,
                "acldvppFree: {ptr:#x} is not an address from acldvppMalloc (never allocated \
                 there, or already freed)"
            );
        };
        dvpp.remove(&ptr);
        drop(dvpp);
        self.free(base).inspect_err(|_| {
            lock(&self.extras.dvpp).insert(ptr, base);
        })
    }

    /// Whether `ptr` is a live address from [`Runtime::dvpp_malloc`].
    pub fn is_dvpp(&self, ptr: usize) -> bool {
        lock(&self.extras.dvpp).contains_key(&ptr)
    }
}

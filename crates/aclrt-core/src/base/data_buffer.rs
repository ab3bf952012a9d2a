//! `aclDataBuffer`: an address and a size, owned by the caller, named by a validated handle.
//!
//! The vendor hands out a heap pointer; here the C face hands out [`DataBuffer`] tokens, which
//! are never reused, so destroying twice or using a destroyed buffer is refused instead of
//! touching freed memory. The buffers are independent of `aclInit` and `aclFinalize`, as the
//! vendor's are.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::fail;
use crate::codes::ACL_ERROR_INVALID_PARAM;
use crate::Result;

/// An `aclDataBuffer *`: a token naming a live buffer, or [`DataBuffer::NULL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct DataBuffer(u64);

impl DataBuffer {
    /// The NULL buffer pointer.
    pub const NULL: Self = Self(0);
    /// Tag in the top byte of every token (`'D'`), so tokens never look like small integers.
    const TAG: u64 = 0x44 << 56;

    /// Wraps a raw value received from a caller; it is validated on use.
    #[must_use]
    pub const fn from_raw(raw: u64) -> Self {
        Self(raw)
    }

    /// The raw token.
    #[must_use]
    pub const fn as_raw(self) -> u64 {
        self.0
    }

    /// Whether this is NULL.
    #[must_use]
    pub const fn is_null(self) -> bool {
        self.0 == 0
    }
}

/// What a buffer describes: a caller's address (kept as an integer) and a size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    addr: usize,
    size: usize,
}

fn live() -> MutexGuard<'static, HashMap<u64, Block>> {
    static LIVE: OnceLock<Mutex<HashMap<u64, Block>>> = OnceLock::new();
    LIVE.get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `aclCreateDataBuffer`: a new buffer describing `size` bytes at `addr`. Any address and size
/// are accepted (NULL and 0 make an empty buffer), as the vendor accepts them.
#[must_use]
pub fn create_data_buffer(addr: usize, size: usize) -> DataBuffer {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let token = DataBuffer::TAG | NEXT.fetch_add(1, Ordering::Relaxed);
    live().insert(token, Block { addr, size });
    DataBuffer(token)
}

fn not_live(call: &str, buffer: DataBuffer) -> crate::Error {
    if buffer.is_null() {
        fail(
            ACL_ERROR_INVALID_PARAM,
            format!("{call}: the data buffer is NULL"),
        )
    } else {
        fail(
            ACL_ERROR_INVALID_PARAM,
            format!(
                "{call}: {:#x} is not a live aclDataBuffer (destroyed, or not made by aclCreateDataBuffer)",
                buffer.0
            ),
        )
    }
}

/// `aclDestroyDataBuffer`: forgets the buffer (the memory it describes stays the caller's).
/// NULL or a buffer that is not live: `ACL_ERROR_INVALID_PARAM`.
pub fn destroy_data_buffer(buffer: DataBuffer) -> Result<()> {
    match live().remove(&buffer.0) {
        Some(_) => Ok(()),
        None => Err(not_live("aclDestroyDataBuffer", buffer)),
    }
}

/// `aclUpdateDataBuffer`: the buffer now describes `size` bytes at `addr`.
/// NULL or a buffer that is not live: `ACL_ERROR_INVALID_PARAM`.
pub fn update_data_buffer(buffer: DataBuffer, addr: usize, size: usize) -> Result<()> {
    match live().get_mut(&buffer.0) {
        Some(block) => {
            *block = Block { addr, size };
            Ok(())
        }
        None => Err(not_live("aclUpdateDataBuffer", buffer)),
    }
}

fn block(call: &str, buffer: DataBuffer) -> Result<Block> {
    let found = live().get(&buffer.0).copied();
    found.ok_or_else(|| not_live(call, buffer))
}

/// `aclGetDataBufferAddr`: the address the buffer describes.
/// NULL or a buffer that is not live: `ACL_ERROR_INVALID_PARAM` (the C face returns NULL).
pub fn data_buffer_addr(buffer: DataBuffer) -> Result<usize> {
    block("aclGetDataBufferAddr", buffer).map(|b| b.addr)
}

/// `aclGetDataBufferSizeV2`: the size in bytes the buffer describes.
/// NULL or a buffer that is not live: `ACL_ERROR_INVALID_PARAM` (the C face returns 0).
pub fn data_buffer_size(buffer: DataBuffer) -> Result<usize> {
    block("aclGetDataBufferSizeV2", buffer).map(|b| b.size)
}

/// How many data buffers are alive (for leak checks).
#[must_use]
pub fn live_data_buffers() -> usize {
    live().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api;

    #[test]
    fn create_update_read_destroy() {
        let b = create_data_buffer(0x1000, 64);
        assert!(!b.is_null());
        assert_eq!(b.as_raw() >> 56, 0x44);
        assert_eq!(data_buffer_addr(b), Ok(0x1000));
        assert_eq!(data_buffer_size(b), Ok(64));
        update_data_buffer(b, 0x2000, 1 << 40).unwrap();
        assert_eq!(data_buffer_addr(b), Ok(0x2000));
        assert_eq!(data_buffer_size(b), Ok(1 << 40));
        destroy_data_buffer(b).unwrap();
        let e = destroy_data_buffer(b).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
        assert!(e.message().contains("not a live aclDataBuffer"), "{e}");
        assert_eq!(api::peek_at_last_error(), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            data_buffer_addr(b).unwrap_err().code(),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(
            update_data_buffer(b, 1, 1).unwrap_err().code(),
            ACL_ERROR_INVALID_PARAM
        );
    }

    #[test]
    fn empty_buffers_and_tokens_are_unique() {
        let a = create_data_buffer(0, 0);
        let b = create_data_buffer(0, 0);
        assert_ne!(a, b);
        assert_eq!(data_buffer_addr(a), Ok(0));
        assert_eq!(data_buffer_size(a), Ok(0));
        destroy_data_buffer(a).unwrap();
        let c = create_data_buffer(0, 0);
        assert_ne!(c, a, "a token is never reused");
        destroy_data_buffer(b).unwrap();
        destroy_data_buffer(c).unwrap();
    }

    #[test]
    fn null_and_garbage() {
        let e = destroy_data_buffer(DataBuffer::NULL).unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
        assert!(e.message().contains("NULL"));
        for raw in [1, 0x1234, u64::MAX, DataBuffer::TAG] {
            let b = DataBuffer::from_raw(raw);
            assert_eq!(
                data_buffer_size(b).unwrap_err().code(),
                ACL_ERROR_INVALID_PARAM
            );
        }
    }
}

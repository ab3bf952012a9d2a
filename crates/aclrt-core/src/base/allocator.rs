//! Custom allocators bound to streams (`acl_rt_allocator.h`): descriptors and registrations.
//!
//! A descriptor holds a caller's allocator object and the addresses of its functions
//! (allocate, free, allocate at an advised address, address of a block), kept as opaque
//! integers: this module never calls them. Registering one on a stream stores a copy of it,
//! under the stream's token, so later changes to the descriptor do not reach the
//! registration; `aclrtAllocatorGetByStream` returns that copy and the descriptor it came from.
//!
//! The vendor calls a registered allocator only when its operator and model executors
//! allocate on the stream (`aclopExecuteV2`, `aclmdlExecuteAsync`); this runtime has neither,
//! so the functions are stored and handed back, never called. As the vendor's, descriptors and
//! registrations need no `aclInit`, outlive `aclFinalize`, and a registration names the stream
//! by its token without looking it up (unregistering a stream that has none succeeds).
//!
//! # Invariants
//!
//! Descriptor tokens are never reused, so a destroyed or made-up descriptor is refused
//! (`100000`) instead of read. A registration is complete: its object, allocate, free and
//! block-address functions are all non-zero (the advise function may be absent).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use super::fail;
use crate::codes::ACL_ERROR_INVALID_PARAM;
use crate::Result;

/// An `aclrtAllocatorDesc`: a token naming a live descriptor, or [`AllocatorDesc::NULL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct AllocatorDesc(u64);

impl AllocatorDesc {
    /// The NULL descriptor.
    pub const NULL: Self = Self(0);
    /// Tag in the top byte of every token (`'A'`).
    const TAG: u64 = 0x41 << 56;

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

/// What a descriptor holds: the caller's allocator object and function addresses (0: not set).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AllocatorFuncs {
    /// `aclrtAllocator`.
    pub object: usize,
    /// `aclrtAllocatorAllocFunc`.
    pub alloc: usize,
    /// `aclrtAllocatorFreeFunc`.
    pub free: usize,
    /// `aclrtAllocatorAllocAdviseFunc`.
    pub alloc_advise: usize,
    /// `aclrtAllocatorGetAddrFromBlockFunc`.
    pub get_addr_from_block: usize,
}

/// Which part of a descriptor a setter fills.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllocatorPart {
    /// `aclrtAllocatorSetObjToDesc`.
    Object,
    /// `aclrtAllocatorSetAllocFuncToDesc`.
    Alloc,
    /// `aclrtAllocatorSetFreeFuncToDesc`.
    Free,
    /// `aclrtAllocatorSetAllocAdviseFuncToDesc`.
    AllocAdvise,
    /// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc`.
    GetAddrFromBlock,
}

#[derive(Default)]
struct Tables {
    descs: HashMap<u64, AllocatorFuncs>,
    /// Stream token → (the descriptor registered, a copy of it then).
    streams: HashMap<u64, (AllocatorDesc, AllocatorFuncs)>,
}

fn tables() -> MutexGuard<'static, Tables> {
    static TABLES: OnceLock<Mutex<Tables>> = OnceLock::new();
    TABLES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn null(call: &str, what: &str) -> crate::Error {
    fail(ACL_ERROR_INVALID_PARAM, format!("{call}: {what} is NULL"))
}

fn not_live(call: &str, desc: AllocatorDesc) -> crate::Error {
    if desc.is_null() {
        return null(call, "allocatorDesc");
    }
    fail(
        ACL_ERROR_INVALID_PARAM,
        format!(
            "{call}: {:#x} is not a live aclrtAllocatorDesc (destroyed, or not made by \
             aclrtAllocatorCreateDesc)",
            desc.0
        ),
    )
}

/// `aclrtAllocatorCreateDesc`: an empty descriptor.
#[must_use]
pub fn allocator_create_desc() -> AllocatorDesc {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let token = AllocatorDesc::TAG | NEXT.fetch_add(1, Ordering::Relaxed);
    tables().descs.insert(token, AllocatorFuncs::default());
    AllocatorDesc(token)
}

/// `aclrtAllocatorDestroyDesc`: registrations made from it keep their copies.
pub fn allocator_destroy_desc(desc: AllocatorDesc) -> Result<()> {
    match tables().descs.remove(&desc.0) {
        Some(_) => Ok(()),
        None => Err(not_live("aclrtAllocatorDestroyDesc", desc)),
    }
}

/// The `aclrtAllocatorSet*ToDesc` calls: NULL descriptor or value is `100000`.
pub fn allocator_set_to_desc(desc: AllocatorDesc, part: AllocatorPart, value: usize) -> Result<()> {
    let (call, what) = match part {
        AllocatorPart::Object => ("aclrtAllocatorSetObjToDesc", "allocator"),
        AllocatorPart::Alloc => ("aclrtAllocatorSetAllocFuncToDesc", "func"),
        AllocatorPart::Free => ("aclrtAllocatorSetFreeFuncToDesc", "func"),
        AllocatorPart::AllocAdvise => ("aclrtAllocatorSetAllocAdviseFuncToDesc", "func"),
        AllocatorPart::GetAddrFromBlock => ("aclrtAllocatorSetGetAddrFromBlockFuncToDesc", "func"),
    };
    if desc.is_null() {
        return Err(null(call, "allocatorDesc"));
    }
    if value == 0 {
        return Err(null(call, what));
    }
    let mut t = tables();
    let Some(funcs) = t.descs.get_mut(&desc.0) else {
        return Err(not_live(call, desc));
    };
    let slot = match part {
        AllocatorPart::Object => &mut funcs.object,
        AllocatorPart::Alloc => &mut funcs.alloc,
        AllocatorPart::Free => &mut funcs.free,
        AllocatorPart::AllocAdvise => &mut funcs.alloc_advise,
        AllocatorPart::GetAddrFromBlock => &mut funcs.get_addr_from_block,
    };
    *slot = value;
    Ok(())
}

/// `aclrtAllocatorRegister`: binds a copy of the descriptor to the stream token (the last
/// registration wins). NULL stream or descriptor, a descriptor that is not live, or one without
/// its object, allocate, free or block-address function is `100000`.
pub fn allocator_register(stream: u64, desc: AllocatorDesc) -> Result<()> {
    const CALL: &str = "aclrtAllocatorRegister";
    if stream == 0 {
        return Err(null(CALL, "stream"));
    }
    if desc.is_null() {
        return Err(null(CALL, "allocatorDesc"));
    }
    let mut t = tables();
    let Some(&funcs) = t.descs.get(&desc.0) else {
        drop(t);
        return Err(not_live(CALL, desc));
    };
    for (value, what) in [
        (funcs.object, "allocatorDesc->obj"),
        (funcs.alloc, "allocatorDesc->allocFunc"),
        (funcs.free, "allocatorDesc->freeFunc"),
        (
            funcs.get_addr_from_block,
            "allocatorDesc->getAddrFromBlockFunc",
        ),
    ] {
        if value == 0 {
            drop(t);
            return Err(null(CALL, what));
        }
    }
    t.streams.insert(stream, (desc, funcs));
    Ok(())
}

/// `aclrtAllocatorGetByStream`: the descriptor registered on the stream and the copy of its
/// contents taken then. NULL stream, or a stream with no registration, is `100000`.
pub fn allocator_get_by_stream(stream: u64) -> Result<(AllocatorDesc, AllocatorFuncs)> {
    const CALL: &str = "aclrtAllocatorGetByStream";
    if stream == 0 {
        return Err(null(CALL, "stream"));
    }
    let found = tables().streams.get(&stream).copied();
    found.ok_or_else(|| {
        fail(
            ACL_ERROR_INVALID_PARAM,
            format!("{CALL}: stream {stream:#x} is not registered with any allocator"),
        )
    })
}

/// `aclrtAllocatorUnregister`: succeeds whether or not the stream has a registration; NULL is
/// `100000`.
pub fn allocator_unregister(stream: u64) -> Result<()> {
    if stream == 0 {
        return Err(null("aclrtAllocatorUnregister", "stream"));
    }
    tables().streams.remove(&stream);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(r: Result<impl Sized>) -> i32 {
        r.err().map_or(0, |e| e.code())
    }

    #[test]
    fn a_registration_is_a_copy_of_a_complete_descriptor() {
        let d = allocator_create_desc();
        assert_eq!(d.as_raw() >> 56, 0x41);
        let stream = 0x5100_0000_0000_0007;
        assert_eq!(code(allocator_register(stream, d)), ACL_ERROR_INVALID_PARAM);
        allocator_set_to_desc(d, AllocatorPart::Object, 0x10).unwrap();
        allocator_set_to_desc(d, AllocatorPart::Alloc, 0x20).unwrap();
        allocator_set_to_desc(d, AllocatorPart::Free, 0x30).unwrap();
        let e = allocator_register(stream, d).unwrap_err();
        assert!(
            e.message().contains("getAddrFromBlockFunc"),
            "{}",
            e.message()
        );
        allocator_set_to_desc(d, AllocatorPart::GetAddrFromBlock, 0x40).unwrap();
        allocator_register(stream, d).unwrap();
        allocator_set_to_desc(d, AllocatorPart::Alloc, 0x21).unwrap();
        let (got, f) = allocator_get_by_stream(stream).unwrap();
        assert_eq!(got, d);
        assert_eq!(
            f,
            AllocatorFuncs {
                object: 0x10,
                alloc: 0x20,
                free: 0x30,
                alloc_advise: 0,
                get_addr_from_block: 0x40,
            }
        );
        allocator_destroy_desc(d).unwrap();
        assert_eq!(allocator_get_by_stream(stream).unwrap().1.alloc, 0x20);
        assert_eq!(code(allocator_destroy_desc(d)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            code(allocator_set_to_desc(d, AllocatorPart::Free, 1)),
            ACL_ERROR_INVALID_PARAM
        );
        allocator_unregister(stream).unwrap();
        allocator_unregister(stream).unwrap();
        assert_eq!(
            code(allocator_get_by_stream(stream)),
            ACL_ERROR_INVALID_PARAM
        );
        assert_eq!(code(allocator_unregister(0)), ACL_ERROR_INVALID_PARAM);
        assert_eq!(
            code(allocator_set_to_desc(
                AllocatorDesc::NULL,
                AllocatorPart::Free,
                1
            )),
            ACL_ERROR_INVALID_PARAM
        );
    }
}

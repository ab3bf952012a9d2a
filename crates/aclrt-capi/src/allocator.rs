//! Custom allocators bound to streams (`acl/acl_rt_allocator.h`). The runtime stores the
//! descriptor's object and functions and hands them back; it never calls them (see
//! `aclrt::base::allocator_register`).

use std::ffi::c_void;

use aclrt::base::{self, AllocatorDesc, AllocatorFuncs, AllocatorPart};

use crate::{aclError, aclrtStream, guard, guard_value};

/// `aclrtAllocatorDesc`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorDesc = *mut c_void;
/// `aclrtAllocator`.
#[allow(non_camel_case_types)]
pub type aclrtAllocator = *mut c_void;
/// `aclrtAllocatorBlock`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorBlock = *mut c_void;
/// `aclrtAllocatorAddr`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorAddr = *mut c_void;
/// `aclrtAllocatorAllocFunc`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorAllocFunc =
    Option<unsafe extern "C" fn(aclrtAllocator, usize) -> *mut c_void>;
/// `aclrtAllocatorFreeFunc`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorFreeFunc = Option<unsafe extern "C" fn(aclrtAllocator, aclrtAllocatorBlock)>;
/// `aclrtAllocatorAllocAdviseFunc`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorAllocAdviseFunc =
    Option<unsafe extern "C" fn(aclrtAllocator, usize, aclrtAllocatorAddr) -> *mut c_void>;
/// `aclrtAllocatorGetAddrFromBlockFunc`.
#[allow(non_camel_case_types)]
pub type aclrtAllocatorGetAddrFromBlockFunc =
    Option<unsafe extern "C" fn(aclrtAllocatorBlock) -> *mut c_void>;

fn desc(d: aclrtAllocatorDesc) -> AllocatorDesc {
    AllocatorDesc::from_raw(d as u64)
}

/// A stored function address back as the nullable C function pointer type `F` (`None` for 0).
///
/// # Safety
/// `F` is an `Option` of an `extern "C" fn` type, and `addr` is 0 or was taken from an `F` by
/// this face.
unsafe fn function<F: Copy>(addr: usize) -> F {
    debug_assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<usize>());
    // SAFETY: `Option<extern "C" fn>` is a pointer whose 0 is `None`; a non-zero `addr` is an
    // `F`'s address (the caller's contract).
    unsafe { std::mem::transmute_copy::<usize, F>(&addr) }
}

/// `aclrtAllocatorCreateDesc`: never NULL.
#[no_mangle]
pub extern "C" fn aclrtAllocatorCreateDesc() -> aclrtAllocatorDesc {
    guard_value("aclrtAllocatorCreateDesc", std::ptr::null_mut(), || {
        base::allocator_create_desc().as_raw() as aclrtAllocatorDesc
    })
}

/// `aclrtAllocatorDestroyDesc`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorDestroyDesc(allocatorDesc: aclrtAllocatorDesc) -> aclError {
    guard("aclrtAllocatorDestroyDesc", || {
        base::allocator_destroy_desc(desc(allocatorDesc))
    })
}

fn set(d: aclrtAllocatorDesc, part: AllocatorPart, value: usize, name: &str) -> aclError {
    guard(name, || base::allocator_set_to_desc(desc(d), part, value))
}

/// `aclrtAllocatorSetObjToDesc`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetObjToDesc(
    allocatorDesc: aclrtAllocatorDesc,
    allocator: aclrtAllocator,
) -> aclError {
    set(
        allocatorDesc,
        AllocatorPart::Object,
        allocator as usize,
        "aclrtAllocatorSetObjToDesc",
    )
}

/// `aclrtAllocatorSetAllocFuncToDesc`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetAllocFuncToDesc(
    allocatorDesc: aclrtAllocatorDesc,
    func: aclrtAllocatorAllocFunc,
) -> aclError {
    set(
        allocatorDesc,
        AllocatorPart::Alloc,
        func.map_or(0, |f| f as usize),
        "aclrtAllocatorSetAllocFuncToDesc",
    )
}

/// `aclrtAllocatorSetFreeFuncToDesc`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetFreeFuncToDesc(
    allocatorDesc: aclrtAllocatorDesc,
    func: aclrtAllocatorFreeFunc,
) -> aclError {
    set(
        allocatorDesc,
        AllocatorPart::Free,
        func.map_or(0, |f| f as usize),
        "aclrtAllocatorSetFreeFuncToDesc",
    )
}

/// `aclrtAllocatorSetAllocAdviseFuncToDesc`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetAllocAdviseFuncToDesc(
    allocatorDesc: aclrtAllocatorDesc,
    func: aclrtAllocatorAllocAdviseFunc,
) -> aclError {
    set(
        allocatorDesc,
        AllocatorPart::AllocAdvise,
        func.map_or(0, |f| f as usize),
        "aclrtAllocatorSetAllocAdviseFuncToDesc",
    )
}

/// `aclrtAllocatorSetGetAddrFromBlockFuncToDesc`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorSetGetAddrFromBlockFuncToDesc(
    allocatorDesc: aclrtAllocatorDesc,
    func: aclrtAllocatorGetAddrFromBlockFunc,
) -> aclError {
    set(
        allocatorDesc,
        AllocatorPart::GetAddrFromBlock,
        func.map_or(0, |f| f as usize),
        "aclrtAllocatorSetGetAddrFromBlockFuncToDesc",
    )
}

/// `aclrtAllocatorRegister`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorRegister(
    stream: aclrtStream,
    allocatorDesc: aclrtAllocatorDesc,
) -> aclError {
    guard("aclrtAllocatorRegister", || {
        base::allocator_register(stream as u64, desc(allocatorDesc))
    })
}

/// `aclrtAllocatorGetByStream`: each non-NULL out-pointer but the descriptor's is optional.
#[no_mangle]
pub unsafe extern "C" fn aclrtAllocatorGetByStream(
    stream: aclrtStream,
    allocatorDesc: *mut aclrtAllocatorDesc,
    allocator: *mut aclrtAllocator,
    allocFunc: *mut aclrtAllocatorAllocFunc,
    freeFunc: *mut aclrtAllocatorFreeFunc,
    allocAdviseFunc: *mut aclrtAllocatorAllocAdviseFunc,
    getAddrFromBlockFunc: *mut aclrtAllocatorGetAddrFromBlockFunc,
) -> aclError {
    const CALL: &str = "aclrtAllocatorGetByStream";
    guard(CALL, || {
        if allocatorDesc.is_null() {
            return Err(aclrt::Error::new(
                aclrt::codes::ACL_ERROR_INVALID_PARAM,
                format!("{CALL}: allocatorDesc is NULL"),
            ));
        }
        let (d, f): (AllocatorDesc, AllocatorFuncs) = base::allocator_get_by_stream(stream as u64)?;
        // SAFETY: every pointer written is non-NULL and writable by the C caller's contract;
        // the stored addresses were taken from functions of these types by the setters above.
        unsafe {
            allocatorDesc.write(d.as_raw() as aclrtAllocatorDesc);
            if !allocator.is_null() {
                allocator.write(f.object as aclrtAllocator);
            }
            if !allocFunc.is_null() {
                allocFunc.write(function(f.alloc));
            }
            if !freeFunc.is_null() {
                freeFunc.write(function(f.free));
            }
            if !allocAdviseFunc.is_null() {
                allocAdviseFunc.write(function(f.alloc_advise));
            }
            if !getAddrFromBlockFunc.is_null() {
                getAddrFromBlockFunc.write(function(f.get_addr_from_block));
            }
        }
        Ok(())
    })
}

/// `aclrtAllocatorUnregister`.
#[no_mangle]
pub extern "C" fn aclrtAllocatorUnregister(stream: aclrtStream) -> aclError {
    guard("aclrtAllocatorUnregister", || {
        base::allocator_unregister(stream as u64)
    })
}

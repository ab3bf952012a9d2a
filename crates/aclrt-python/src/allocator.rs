//! Custom allocators bound to streams, in `acl.rt` under pyACL's names: the descriptor calls
//! (`allocator_create_desc`, the five setters, `allocator_destroy_desc`) and the registration.
//! The allocator object is an int (an address), stored as the C face stores it. The four
//! callbacks are Python objects, as pyACL takes them: the descriptor holds this module's entry
//! for the callback's kind (where pyACL's holds its C trampoline), and the module keeps the
//! object set last for each kind, process-wide, as pyACL keeps it. The runtime never calls
//! them (`aclrt::base::allocator_register`), so the object is not checked either: pyACL
//! accepts any object there.

use std::sync::{Mutex, MutexGuard};

use aclrt::base::{self, AllocatorDesc, AllocatorPart};
use pyo3::prelude::*;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

/// The callback kinds, in the order of [`FUNCTIONS`] and [`ENTRIES`].
const KINDS: [AllocatorPart; 4] = [
    AllocatorPart::Alloc,
    AllocatorPart::Free,
    AllocatorPart::AllocAdvise,
    AllocatorPart::GetAddrFromBlock,
];

/// The Python object set last for each kind.
static FUNCTIONS: Mutex<[Option<Py<PyAny>>; 4]> = Mutex::new([None, None, None, None]);

/// One address per kind: what a descriptor holds for a callback set from Python. Never
/// called; distinct and non-NULL, so the core's checks see a set function.
static ENTRIES: [u8; 4] = [0; 4];

fn functions() -> MutexGuard<'static, [Option<Py<PyAny>>; 4]> {
    FUNCTIONS.lock().unwrap_or_else(|e| e.into_inner())
}

fn desc_arg(obj: &Any) -> PyResult<AllocatorDesc> {
    Ok(AllocatorDesc::from_raw(int_bits(obj, "allocatorDesc")?))
}

/// Sets a callback of `kind` (an index of [`KINDS`]) to the descriptor and, on success, keeps
/// `func` as that kind's object.
fn set_function(desc: &Any, kind: usize, func: &Any) -> PyResult<i32> {
    let d = desc_arg(desc)?;
    let entry = std::ptr::addr_of!(ENTRIES[kind]) as usize;
    let result = base::allocator_set_to_desc(d, KINDS[kind], entry);
    if result.is_ok() {
        // The replaced object is dropped after the lock: dropping may run Python code.
        let replaced = functions()[kind].replace(func.clone().unbind());
        drop(replaced);
    }
    Ok(ret(result))
}

/// `desc = acl.rt.allocator_create_desc()` (`aclrtAllocatorCreateDesc`).
#[pyfunction]
fn allocator_create_desc() -> u64 {
    base::allocator_create_desc().as_raw()
}

/// `ret = acl.rt.allocator_destroy_desc(allocatorDesc)` (`aclrtAllocatorDestroyDesc`).
#[pyfunction]
fn allocator_destroy_desc(allocator_desc: &Any) -> PyResult<i32> {
    Ok(ret(base::allocator_destroy_desc(desc_arg(allocator_desc)?)))
}

/// `ret = acl.rt.allocator_set_obj_to_desc(allocatorDesc, allocator)`
/// (`aclrtAllocatorSetObjToDesc`): `allocator` is the object's address.
#[pyfunction]
fn allocator_set_obj_to_desc(allocator_desc: &Any, allocator: &Any) -> PyResult<i32> {
    let d = desc_arg(allocator_desc)?;
    let v = usize_arg(allocator, "allocator")?;
    Ok(ret(base::allocator_set_to_desc(
        d,
        AllocatorPart::Object,
        v,
    )))
}

/// `ret = acl.rt.allocator_set_alloc_func_to_desc(allocatorDesc, func)`: `func(allocator,
/// size)`.
#[pyfunction]
fn allocator_set_alloc_func_to_desc(allocator_desc: &Any, func: &Any) -> PyResult<i32> {
    set_function(allocator_desc, 0, func)
}

/// `ret = acl.rt.allocator_set_free_func_to_desc(allocatorDesc, func)`: `func(allocator,
/// block)`.
#[pyfunction]
fn allocator_set_free_func_to_desc(allocator_desc: &Any, func: &Any) -> PyResult<i32> {
    set_function(allocator_desc, 1, func)
}

/// `ret = acl.rt.allocator_set_alloc_advise_func_to_desc(allocatorDesc, func)`:
/// `func(allocator, size, addr)`.
#[pyfunction]
fn allocator_set_alloc_advise_func_to_desc(allocator_desc: &Any, func: &Any) -> PyResult<i32> {
    set_function(allocator_desc, 2, func)
}

/// `ret = acl.rt.allocator_set_get_addr_from_block_func_to_desc(allocatorDesc, func)`:
/// `func(block)`.
#[pyfunction]
fn allocator_set_get_addr_from_block_func_to_desc(
    allocator_desc: &Any,
    func: &Any,
) -> PyResult<i32> {
    set_function(allocator_desc, 3, func)
}

/// `ret = acl.rt.allocator_register(stream, allocatorDesc)` (`aclrtAllocatorRegister`): the
/// stream is named by its int, not looked up, as in C.
#[pyfunction]
fn allocator_register(stream: &Any, allocator_desc: &Any) -> PyResult<i32> {
    let s = int_bits(stream, "stream")?;
    Ok(ret(base::allocator_register(s, desc_arg(allocator_desc)?)))
}

/// `ret = acl.rt.allocator_unregister(stream)` (`aclrtAllocatorUnregister`).
#[pyfunction]
fn allocator_unregister(stream: &Any) -> PyResult<i32> {
    Ok(ret(base::allocator_unregister(int_bits(stream, "stream")?)))
}

/// The allocator calls, in `acl.rt`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            allocator_create_desc,
            allocator_destroy_desc,
            allocator_set_obj_to_desc,
            allocator_set_alloc_func_to_desc,
            allocator_set_free_func_to_desc,
            allocator_set_alloc_advise_func_to_desc,
            allocator_set_get_addr_from_block_func_to_desc,
            allocator_register,
            allocator_unregister
        ]
    );
    Ok(())
}

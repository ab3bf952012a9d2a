//! Custom allocators bound to streams with pyACL's names: the descriptor calls in `acl`
//! (`allocator_create_desc`, the five setters, `allocator_destroy_desc`) and the registration
//! in `acl.rt`. The allocator object and its functions are ints (addresses, such as a `ctypes`
//! function's): the runtime stores them and hands them back, never calls them, as the C face
//! does (`aclrt::base::allocator_register`).

use aclrt::base::{self, AllocatorDesc, AllocatorPart};
use pyo3::prelude::*;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

fn desc_arg(obj: &Any) -> PyResult<AllocatorDesc> {
    Ok(AllocatorDesc::from_raw(int_bits(obj, "allocator_desc")?))
}

fn set(desc: &Any, part: AllocatorPart, value: &Any, what: &str) -> PyResult<i32> {
    let d = desc_arg(desc)?;
    let v = usize_arg(value, what)?;
    Ok(ret(base::allocator_set_to_desc(d, part, v)))
}

/// `allocator_desc = acl.allocator_create_desc()` (`aclrtAllocatorCreateDesc`).
#[pyfunction]
fn allocator_create_desc() -> u64 {
    base::allocator_create_desc().as_raw()
}

/// `ret = acl.allocator_destroy_desc(allocator_desc)` (`aclrtAllocatorDestroyDesc`).
#[pyfunction]
fn allocator_destroy_desc(allocator_desc: &Any) -> PyResult<i32> {
    Ok(ret(base::allocator_destroy_desc(desc_arg(allocator_desc)?)))
}

/// `ret = acl.allocator_set_obj_to_desc(allocator_desc, allocator)`.
#[pyfunction]
fn allocator_set_obj_to_desc(allocator_desc: &Any, allocator: &Any) -> PyResult<i32> {
    set(
        allocator_desc,
        AllocatorPart::Object,
        allocator,
        "allocator",
    )
}

/// `ret = acl.allocator_set_alloc_func_to_desc(allocator_desc, func)`.
#[pyfunction]
fn allocator_set_alloc_func_to_desc(allocator_desc: &Any, func: &Any) -> PyResult<i32> {
    set(allocator_desc, AllocatorPart::Alloc, func, "func")
}

/// `ret = acl.allocator_set_free_func_to_desc(allocator_desc, func)`.
#[pyfunction]
fn allocator_set_free_func_to_desc(allocator_desc: &Any, func: &Any) -> PyResult<i32> {
    set(allocator_desc, AllocatorPart::Free, func, "func")
}

/// `ret = acl.allocator_set_alloc_advise_func_to_desc(allocator_desc, func)`.
#[pyfunction]
fn allocator_set_alloc_advise_func_to_desc(allocator_desc: &Any, func: &Any) -> PyResult<i32> {
    set(allocator_desc, AllocatorPart::AllocAdvise, func, "func")
}

/// `ret = acl.allocator_set_get_addr_from_block_func_to_desc(allocator_desc, func)`.
#[pyfunction]
fn allocator_set_get_addr_from_block_func_to_desc(
    allocator_desc: &Any,
    func: &Any,
) -> PyResult<i32> {
    set(
        allocator_desc,
        AllocatorPart::GetAddrFromBlock,
        func,
        "func",
    )
}

/// `ret = acl.rt.allocator_register(stream, allocator_desc)` (`aclrtAllocatorRegister`): the
/// stream is named by its token, not looked up, as in C.
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

/// The descriptor calls, in `acl`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl",
        [
            allocator_create_desc,
            allocator_destroy_desc,
            allocator_set_obj_to_desc,
            allocator_set_alloc_func_to_desc,
            allocator_set_free_func_to_desc,
            allocator_set_alloc_advise_func_to_desc,
            allocator_set_get_addr_from_block_func_to_desc
        ]
    );
    Ok(())
}

/// The registration calls, in `acl.rt`.
pub fn register_rt(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(m, "acl.rt", [allocator_register, allocator_unregister]);
    Ok(())
}

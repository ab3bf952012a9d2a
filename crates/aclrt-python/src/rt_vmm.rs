//! `acl.rt`: virtual memory (reserved ranges, physical memory, mappings, shareable handles)
//! and IPC memory by key, with pyACL's names, argument orders and results. Every rule is the
//! core's; this module converts the `aclrtPhysicalMemProp` dict, pid lists and keys.

use aclrt::api;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PyString};

use crate::args::*;
use crate::rt_more::physical_prop;

type Any<'py> = Bound<'py, PyAny>;

/// A list of pids (ints); anything else raises `ValueError`.
fn pid_list(pids: &Any) -> PyResult<Vec<i32>> {
    let list = pids
        .cast::<PyList>()
        .map_err(|_| PyValueError::new_err("argument only support the format of list"))?;
    list.iter()
        .map(|item| {
            item.is_instance_of::<PyInt>()
                .then(|| item.extract::<i32>().ok())
                .flatten()
                .ok_or_else(|| PyValueError::new_err("get pid from PyList failed"))
        })
        .collect()
}

/// A key argument: a `str` (`TypeError` otherwise).
fn key_arg(key: &Any) -> PyResult<String> {
    if !key.is_instance_of::<PyString>() {
        return Err(pyo3::exceptions::PyTypeError::new_err("key must be a str"));
    }
    key.extract::<String>()
}

/// `handle, ret = acl.rt.malloc_physical(size, prop, flags)` (`aclrtMallocPhysical`).
#[pyfunction]
fn malloc_physical(py: Python<'_>, size: &Any, prop: &Any, flags: &Any) -> PyResult<(u64, i32)> {
    let size = usize_arg(size, "size")?;
    let prop = physical_prop(py, prop)?;
    let flags = int_bits(flags, "flags")?;
    Ok(value(api::malloc_physical(size, &prop, flags), 0))
}

/// `ret = acl.rt.free_physical(handle)` (`aclrtFreePhysical`).
#[pyfunction]
fn free_physical(handle: &Any) -> PyResult<i32> {
    let h = int_bits(handle, "handle")?;
    Ok(ret(api::free_physical(h)))
}

/// `vir_ptr, ret = acl.rt.reserve_mem_address(size, alignment, expect_ptr, flags)`
/// (`aclrtReserveMemAddress`).
#[pyfunction]
fn reserve_mem_address(
    size: &Any,
    alignment: &Any,
    expect_ptr: &Any,
    flags: &Any,
) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    let alignment = usize_arg(alignment, "alignment")?;
    let expect = usize_arg(expect_ptr, "expect_ptr")?;
    let flags = int_bits(flags, "flags")?;
    Ok(value(
        api::reserve_mem_address(size, alignment, expect, flags),
        0,
    ))
}

/// `ret = acl.rt.release_mem_address(vir_ptr)` (`aclrtReleaseMemAddress`).
#[pyfunction]
fn release_mem_address(vir_ptr: &Any) -> PyResult<i32> {
    let p = usize_arg(vir_ptr, "vir_ptr")?;
    Ok(ret(api::release_mem_address(p)))
}

/// `ret = acl.rt.map_mem(vir_ptr, size, offset, handle, flags)` (`aclrtMapMem`).
#[pyfunction]
fn map_mem(vir_ptr: &Any, size: &Any, offset: &Any, handle: &Any, flags: &Any) -> PyResult<i32> {
    let p = usize_arg(vir_ptr, "vir_ptr")?;
    let size = usize_arg(size, "size")?;
    let offset = usize_arg(offset, "offset")?;
    let h = int_bits(handle, "handle")?;
    let flags = int_bits(flags, "flags")?;
    Ok(ret(api::map_mem(p, size, offset, h, flags)))
}

/// `ret = acl.rt.unmap_mem(vir_ptr)` (`aclrtUnmapMem`).
#[pyfunction]
fn unmap_mem(vir_ptr: &Any) -> PyResult<i32> {
    let p = usize_arg(vir_ptr, "vir_ptr")?;
    Ok(ret(api::unmap_mem(p)))
}

/// `shareable_handle, ret = acl.rt.mem_export_to_shareable_handle(handle, handle_type, flags)`
/// (`aclrtMemExportToShareableHandle`).
#[pyfunction]
fn mem_export_to_shareable_handle(
    handle: &Any,
    handle_type: &Any,
    flags: &Any,
) -> PyResult<(u64, i32)> {
    let h = int_bits(handle, "handle")?;
    let t = u32_arg(handle_type, "handle_type")?;
    let flags = int_bits(flags, "flags")?;
    Ok(value(api::mem_export_to_shareable_handle(h, t, flags), 0))
}

/// `ret = acl.rt.mem_set_pid_to_shareable_handle(shareable_handle, pid)`: `pid` is a list
/// (`aclrtMemSetPidToShareableHandle`).
#[pyfunction]
fn mem_set_pid_to_shareable_handle(shareable_handle: &Any, pid: &Any) -> PyResult<i32> {
    let s = int_bits(shareable_handle, "shareable_handle")?;
    let pids = pid_list(pid)?;
    Ok(ret(api::mem_set_pid_to_shareable_handle(s, &pids)))
}

/// `handle, ret = acl.rt.mem_import_from_shareable_handle(shareable_handle, device_id)`
/// (`aclrtMemImportFromShareableHandle`).
#[pyfunction]
fn mem_import_from_shareable_handle(
    shareable_handle: &Any,
    device_id: &Any,
) -> PyResult<(u64, i32)> {
    let s = int_bits(shareable_handle, "shareable_handle")?;
    let id = i32_arg(device_id, "device_id")?;
    Ok(value(api::mem_import_from_shareable_handle(s, id), 0))
}

/// `key, ret = acl.rt.ipc_mem_get_export_key(dev_ptr, size, flags)`
/// (`aclrtIpcMemGetExportKey`; the key buffer is the vendor's 65 bytes). The export waits for
/// running tasks that may write memory, which may be Python code: it lets the GIL go meanwhile.
#[pyfunction]
fn ipc_mem_get_export_key(
    py: Python<'_>,
    dev_ptr: &Any,
    size: &Any,
    flags: &Any,
) -> PyResult<(String, i32)> {
    let p = usize_arg(dev_ptr, "dev_ptr")?;
    let size = usize_arg(size, "size")?;
    let flags = int_bits(flags, "flags")?;
    Ok(value(
        crate::site::detach(py, || {
            api::ipc_mem_get_export_key(p, size, api::IPC_KEY_LEN, flags)
        }),
        String::new(),
    ))
}

/// `ret = acl.rt.ipc_mem_set_import_pid(key, pid)`: `pid` is a list
/// (`aclrtIpcMemSetImportPid`).
#[pyfunction]
fn ipc_mem_set_import_pid(key: &Any, pid: &Any) -> PyResult<i32> {
    let k = key_arg(key)?;
    let pids = pid_list(pid)?;
    Ok(ret(api::ipc_mem_set_import_pid(&k, &pids)))
}

/// `dev_ptr, ret = acl.rt.ipc_mem_import_by_key(key, flags)` (`aclrtIpcMemImportByKey`).
#[pyfunction]
fn ipc_mem_import_by_key(key: &Any, flags: &Any) -> PyResult<(usize, i32)> {
    let k = key_arg(key)?;
    let flags = int_bits(flags, "flags")?;
    Ok(value(api::ipc_mem_import_by_key(&k, flags), 0))
}

/// `ret = acl.rt.ipc_mem_close(key)` (`aclrtIpcMemClose`).
#[pyfunction]
fn ipc_mem_close(key: &Any) -> PyResult<i32> {
    let k = key_arg(key)?;
    Ok(ret(api::ipc_mem_close(&k)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            malloc_physical,
            free_physical,
            reserve_mem_address,
            release_mem_address,
            map_mem,
            unmap_mem,
            mem_export_to_shareable_handle,
            mem_set_pid_to_shareable_handle,
            mem_import_from_shareable_handle,
            ipc_mem_get_export_key,
            ipc_mem_set_import_pid,
            ipc_mem_import_by_key,
            ipc_mem_close,
        ]
    );
    Ok(())
}

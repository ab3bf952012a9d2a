//! `acl.rt`: host memory the device uses: `malloc_host_with_cfg` and the registration of host
//! memory (`host_register`, `host_register_v2`, `host_get_device_pointer`, `host_unregister`),
//! with pyACL's names, argument orders and results.
//!
//! Registering host memory hands its address to the device for later use, so it follows the
//! face's pointer policy (see `host_memory`): a range outside runtime memory must lie in a
//! writable buffer from `acl.util.bytes_to_ptr` / `numpy_to_ptr` that the program holds, or is
//! refused with `ACL_ERROR_INVALID_PARAM` unless raw pointers are trusted. A registered buffer
//! is kept alive (and a bytearray kept from resizing) until `host_unregister` ends the
//! registration, whatever the program does with its own references meanwhile.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};

use aclrt::api;
use pyo3::prelude::*;

use crate::args::*;
use crate::host_memory::vet;
use crate::rt_more::malloc_cfg_arg;

type Any<'py> = Bound<'py, PyAny>;

/// The buffers of live registrations, by start address.
static REGISTERED: Mutex<Option<HashMap<usize, Py<PyAny>>>> = Mutex::new(None);

fn registered() -> MutexGuard<'static, Option<HashMap<usize, Py<PyAny>>>> {
    REGISTERED.lock().unwrap_or_else(|e| e.into_inner())
}

/// `host_ptr, ret = acl.rt.malloc_host_with_cfg(size, cfg)` (`aclrtMallocHostWithCfg`): `cfg`
/// is a dict as for `malloc_with_cfg`, `{}` for no configuration.
#[pyfunction]
fn malloc_host_with_cfg(py: Python<'_>, size: &Any, cfg: &Any) -> PyResult<(usize, i32)> {
    let size = int_bits(size, "size")?;
    let attrs = malloc_cfg_arg(py, cfg)?;
    Ok(value(
        api::acl(|rt| rt.malloc_host_with_cfg(size, &attrs)),
        0,
    ))
}

/// Registers `size` bytes at `ptr` through `register` once the pointer policy allows it, and
/// keeps the buffer that holds them until `host_unregister`.
fn register_vetted<T>(
    py: Python<'_>,
    ptr: usize,
    size: u64,
    call: &str,
    register: impl FnOnce(&aclrt::Runtime) -> aclrt::Result<T>,
) -> aclrt::Result<T> {
    api::acl(|rt| {
        let len = usize::try_from(size).unwrap_or(usize::MAX);
        let owner = vet(py, rt, ptr, len, true, &format!("{call}: the host memory"))?;
        let out = register(rt)?;
        if let Some(owner) = owner {
            // A buffer it replaces is dropped after the lock: dropping may run Python code.
            let replaced = registered()
                .get_or_insert_with(HashMap::new)
                .insert(ptr, owner);
            drop(replaced);
        }
        Ok(out)
    })
}

/// `dev_ptr, ret = acl.rt.host_register(ptr, size, type)` (`aclrtHostRegister`).
#[pyfunction]
#[pyo3(signature = (ptr, size, r#type))]
fn host_register(py: Python<'_>, ptr: &Any, size: &Any, r#type: &Any) -> PyResult<(usize, i32)> {
    let ptr = usize_arg(ptr, "ptr")?;
    let size = int_bits(size, "size")?;
    let kind = u32_arg(r#type, "type")?;
    Ok(value(
        register_vetted(py, ptr, size, "aclrtHostRegister", |rt| {
            rt.host_register(ptr, size, kind)
        }),
        0,
    ))
}

/// `ret = acl.rt.host_register_v2(ptr, size, flag)` (`aclrtHostRegisterV2`).
#[pyfunction]
fn host_register_v2(py: Python<'_>, ptr: &Any, size: &Any, flag: &Any) -> PyResult<i32> {
    let ptr = usize_arg(ptr, "ptr")?;
    let size = int_bits(size, "size")?;
    let flag = u32_arg(flag, "flag")?;
    Ok(ret(register_vetted(
        py,
        ptr,
        size,
        "aclrtHostRegisterV2",
        |rt| rt.host_register_v2(ptr, size, flag),
    )))
}

/// `dev_ptr, ret = acl.rt.host_get_device_pointer(ptr_host, flag)`
/// (`aclrtHostGetDevicePointer`).
#[pyfunction]
fn host_get_device_pointer(ptr_host: &Any, flag: &Any) -> PyResult<(usize, i32)> {
    let ptr = usize_arg(ptr_host, "ptr_host")?;
    let flag = u32_arg(flag, "flag")?;
    Ok(value(
        api::acl(|rt| rt.host_get_device_pointer(ptr, flag)),
        0,
    ))
}

/// `ret = acl.rt.host_unregister(ptr)` (`aclrtHostUnregister`): the buffer is released once
/// the registration has ended.
#[pyfunction]
fn host_unregister(ptr: &Any) -> PyResult<i32> {
    let ptr = usize_arg(ptr, "ptr")?;
    let result = api::acl(|rt| rt.host_unregister(ptr));
    if result.is_ok() {
        // Released outside the lock: dropping the last reference may run Python code.
        let owner = registered().as_mut().and_then(|m| m.remove(&ptr));
        drop(owner);
    }
    Ok(ret(result))
}

/// How many registrations hold a buffer (for tests).
pub fn registered_count() -> usize {
    registered().as_ref().map_or(0, HashMap::len)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            malloc_host_with_cfg,
            host_register,
            host_register_v2,
            host_get_device_pointer,
            host_unregister,
        ]
    );
    Ok(())
}

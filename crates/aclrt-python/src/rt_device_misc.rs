//! `acl.rt` (and `acl.finalize_reference`): device id mappings, the primary context's state,
//! the bare tgid, the thread's last task id, floating-point overflow modes, switches and
//! status, and `reduce_async`, with pyACL's names, argument orders and results.
//!
//! The calls that write memory (`get_overflow_status`, `reduce_async`) follow the face's
//! pointer policy (see `host_memory`): a range outside runtime memory must lie in a buffer the
//! program holds from `acl.util`, which stays alive until the task has run.

use aclrt::api;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::args::*;
use crate::host_memory::vet;
use crate::rt::{release_after, KeepAlive};

type Any<'py> = Bound<'py, PyAny>;

/// `ref_count, ret = acl.finalize_reference()` (`aclFinalizeReference`).
#[pyfunction]
pub(crate) fn finalize_reference(py: Python<'_>) -> (u64, i32) {
    let (left, result) = crate::site::detach(py, api::finalize_reference);
    (left, ret(result))
}

/// `user_dev_id, ret = acl.rt.get_user_dev_id_by_logic_dev_id(logic_dev_id)`.
#[pyfunction]
fn get_user_dev_id_by_logic_dev_id(logic_dev_id: &Any) -> PyResult<(i32, i32)> {
    let id = i32_arg(logic_dev_id, "logic_dev_id")?;
    Ok(value(
        api::acl(|rt| rt.get_user_dev_id_by_logic_dev_id(id)),
        0,
    ))
}

/// `logic_dev_id, ret = acl.rt.get_logic_dev_id_by_user_dev_id(user_dev_id)`.
#[pyfunction]
fn get_logic_dev_id_by_user_dev_id(user_dev_id: &Any) -> PyResult<(i32, i32)> {
    let id = i32_arg(user_dev_id, "user_dev_id")?;
    Ok(value(
        api::acl(|rt| rt.get_logic_dev_id_by_user_dev_id(id)),
        0,
    ))
}

/// `active, flags, ret = acl.rt.get_primary_ctx_state(device_id)`: `flags` is reserved, 0.
#[pyfunction]
fn get_primary_ctx_state(device_id: &Any) -> PyResult<(i32, u32, i32)> {
    let id = i32_arg(device_id, "device_id")?;
    let (active, code) = value(api::acl(|rt| rt.get_primary_ctx_state(id, false)), 0);
    Ok((active, 0, code))
}

/// `pid, ret = acl.rt.device_get_bare_tgid()`.
#[pyfunction]
fn device_get_bare_tgid() -> (i32, i32) {
    value(api::acl(|rt| rt.device_get_bare_tgid()), 0)
}

/// `task_id, ret = acl.rt.get_thread_last_task_id()`.
#[pyfunction]
fn get_thread_last_task_id() -> (u32, i32) {
    value(api::acl(|rt| rt.get_thread_last_task_id()), 0)
}

/// `ret = acl.rt.set_device_sat_mode(mode)`.
#[pyfunction]
fn set_device_sat_mode(mode: &Any) -> PyResult<i32> {
    let mode = u32_arg(mode, "mode")?;
    Ok(ret(api::acl(|rt| rt.set_device_sat_mode(mode))))
}

/// `mode, ret = acl.rt.get_device_sat_mode()`.
#[pyfunction]
fn get_device_sat_mode() -> (u32, i32) {
    value(api::acl(|rt| rt.get_device_sat_mode()), 0)
}

/// `ret = acl.rt.set_stream_overflow_switch(stream, flag)`.
#[pyfunction]
fn set_stream_overflow_switch(stream: &Any, flag: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let flag = u32_arg(flag, "flag")?;
    Ok(ret(api::acl(|rt| rt.set_stream_overflow_switch(s, flag))))
}

/// `flag, ret = acl.rt.get_stream_overflow_switch(stream)`.
#[pyfunction]
fn get_stream_overflow_switch(stream: &Any) -> PyResult<(u32, i32)> {
    let s = stream_arg(stream)?;
    Ok(value(api::acl(|rt| rt.get_stream_overflow_switch(s)), 0))
}

/// The member of pyACL's `aclrtStreamAttrValue` dict an attribute reads and writes.
fn stream_attr_member(attr: i32) -> &'static str {
    match i64::from(attr) {
        aclrt::vendor_consts::ACL_STREAM_ATTR_FAILURE_MODE => "failureMode",
        aclrt::vendor_consts::ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK => "overflowSwitch",
        aclrt::vendor_consts::ACL_STREAM_ATTR_USER_CUSTOM_TAG => "userCustomTag",
        aclrt::vendor_consts::ACL_STREAM_ATTR_CACHE_OP_INFO => "cacheOpInfoSwitch",
        _ => "streamPriority",
    }
}

/// `ret = acl.rt.set_stream_attribute(stream, stm_attr_type, value)`: `value` is pyACL's
/// `aclrtStreamAttrValue` dict; the member the attribute names is read (absent: 0).
#[pyfunction]
fn set_stream_attribute(
    py: Python<'_>,
    stream: &Any,
    stm_attr_type: &Any,
    value: &Any,
) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    let attr = i32_arg(stm_attr_type, "stm_attr_type")?;
    let dict = value
        .cast::<PyDict>()
        .map_err(|_| final_type_error(py, "value must be a dict (aclrtStreamAttrValue)"))?;
    let raw = match dict.get_item(stream_attr_member(attr))? {
        Some(v) => int_bits(&v, stream_attr_member(attr))?,
        None => 0,
    };
    Ok(ret(api::acl(|rt| rt.set_stream_attribute(s, attr, raw))))
}

/// `value, ret = acl.rt.get_stream_attribute(stream, stm_attr_type)`: the union as pyACL's
/// dict, every member read from its bytes (the one the attribute names holds the value).
#[pyfunction]
fn get_stream_attribute<'py>(
    py: Python<'py>,
    stream: &Any,
    stm_attr_type: &Any,
) -> PyResult<(Bound<'py, PyDict>, i32)> {
    let s = stream_arg(stream)?;
    let attr = i32_arg(stm_attr_type, "stm_attr_type")?;
    let (got, code) = value(api::acl(|rt| rt.get_stream_attribute(s, attr)), 0);
    // The C call writes 8 bytes for the failure mode and 4 for the others.
    let mut bytes = [0u8; 16];
    if stream_attr_member(attr) == "failureMode" {
        bytes[..8].copy_from_slice(&got.to_ne_bytes());
    } else {
        bytes[..4].copy_from_slice(&(got as u32).to_ne_bytes());
    }
    let word = |i: usize| u32::from_ne_bytes(bytes[i * 4..i * 4 + 4].try_into().expect("4 bytes"));
    let dict = PyDict::new(py);
    dict.set_item(
        "failureMode",
        u64::from_ne_bytes(bytes[..8].try_into().expect("8 bytes")),
    )?;
    for key in [
        "overflowSwitch",
        "userCustomTag",
        "cacheOpInfoSwitch",
        "streamPriority",
    ] {
        dict.set_item(key, word(0))?;
    }
    dict.set_item("reserve", [word(0), word(1), word(2), word(3)])?;
    Ok((dict, code))
}

/// `ret = acl.rt.get_overflow_status(output_addr, output_size, stream)`.
#[pyfunction]
fn get_overflow_status(
    py: Python<'_>,
    output_addr: &Any,
    output_size: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let ptr = usize_arg(output_addr, "output_addr")?;
    let size = usize_arg(output_size, "output_size")?;
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| {
        let keep: KeepAlive = vet(
            py,
            rt,
            ptr,
            size,
            true,
            "aclrtGetOverflowStatus: the output",
        )?
        .into_iter()
        .collect();
        // SAFETY: a range outside runtime memory is a live host buffer held by `keep` until
        // the task has run (or raw pointers were allowed); runtime memory is checked by the
        // core.
        unsafe { rt.get_overflow_status(ptr, size, s) }?;
        release_after(rt, s, keep);
        Ok(())
    })))
}

/// `ret = acl.rt.reset_overflow_status(stream)`.
#[pyfunction]
fn reset_overflow_status(stream: &Any) -> PyResult<i32> {
    let s = stream_arg(stream)?;
    Ok(ret(api::acl(|rt| rt.reset_overflow_status(s))))
}

/// `ret = acl.rt.reduce_async(dst, src, count, kind, type, stream, reserve)`.
#[pyfunction]
#[pyo3(signature = (dst, src, count, kind, r#type, stream, reserve))]
#[allow(clippy::too_many_arguments)]
fn reduce_async(
    py: Python<'_>,
    dst: &Any,
    src: &Any,
    count: &Any,
    kind: &Any,
    r#type: &Any,
    stream: &Any,
    reserve: &Any,
) -> PyResult<i32> {
    let (dst, src) = (usize_arg(dst, "dst")?, usize_arg(src, "src")?);
    let count = int_bits(count, "count")?;
    let kind = u32_arg(kind, "kind")?;
    let data_type = i32_arg(r#type, "type")?;
    let s = stream_arg(stream)?;
    let reserve = usize_arg(reserve, "reserve")?;
    Ok(ret(api::acl(|rt| {
        let len = usize::try_from(count).unwrap_or(usize::MAX);
        let mut keep: KeepAlive = Vec::new();
        keep.extend(vet(
            py,
            rt,
            dst,
            len,
            true,
            "aclrtReduceAsync: the destination",
        )?);
        keep.extend(vet(
            py,
            rt,
            src,
            len,
            false,
            "aclrtReduceAsync: the source",
        )?);
        // SAFETY: ranges outside runtime memory are live host buffers held by `keep` until the
        // task has run (or raw pointers were allowed); runtime memory is checked by the core.
        unsafe { rt.reduce_async(dst, src, count, kind, data_type, s, reserve) }?;
        release_after(rt, s, keep);
        Ok(())
    })))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            get_user_dev_id_by_logic_dev_id,
            get_logic_dev_id_by_user_dev_id,
            get_primary_ctx_state,
            device_get_bare_tgid,
            get_thread_last_task_id,
            set_device_sat_mode,
            get_device_sat_mode,
            set_stream_overflow_switch,
            get_stream_overflow_switch,
            set_stream_attribute,
            get_stream_attribute,
            get_overflow_status,
            reset_overflow_status,
            reduce_async,
        ]
    );
    Ok(())
}

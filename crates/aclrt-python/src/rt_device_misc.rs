//! `acl.rt` (and `acl.finalize_reference`): device id mappings, the primary context's state,
//! the bare tgid, the thread's last task id, floating-point overflow modes, switches and
//! status, and `reduce_async`, with pyACL's names, argument orders and results.
//!
//! The calls that write memory (`get_overflow_status`, `reduce_async`) follow the face's
//! pointer policy (see `host_memory`): a range outside runtime memory must lie in a buffer the
//! program holds from `acl.util`, which stays alive until the task has run.

use aclrt::api;
use pyo3::prelude::*;

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
            get_overflow_status,
            reset_overflow_status,
            reduce_async,
        ]
    );
    Ok(())
}

//! Argument and result conventions shared by every pyACL function.
//!
//! pyACL takes plain Python ints for handles, pointers, flags and sizes and converts them the
//! way a C call would: a negative number handed to an unsigned parameter wraps, an oversized one
//! is truncated, and the runtime then answers with an error code. So ints are read here as raw
//! bits instead of through PyO3's checked conversions (which would raise `OverflowError`).
//! `None` and non-int objects are refused with `TypeError`, as pyACL does.

use aclrt::{ContextHandle, EventHandle, StreamHandle};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyInt;

/// A Python int as C would receive it in a 64-bit parameter (two's complement for negative
/// values); narrower parameters then truncate as C does.
pub fn int_bits(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u64> {
    if obj.is_none() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not None"
        )));
    }
    if !obj.is_instance_of::<PyInt>() {
        return Err(PyTypeError::new_err(format!(
            "{what} must be an int, not {}",
            obj.get_type().name()?
        )));
    }
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(v as u64);
    }
    Ok(obj.extract::<u64>().unwrap_or(OUT_OF_RANGE))
}

/// Stands in for an int that does not fit in 64 bits: invalid in every reading (handle tag
/// 0x80 is never issued; as `i32` it is `i32::MIN`, as `u32` an undefined flag bit), so the
/// runtime refuses it instead of a truncation landing on a valid value such as 0.
const OUT_OF_RANGE: u64 = 0x8000_0000_8000_0000;

pub fn i32_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<i32> {
    Ok(int_bits(obj, what)? as i32)
}

pub fn u32_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<u32> {
    Ok(int_bits(obj, what)? as u32)
}

pub fn usize_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<usize> {
    Ok(int_bits(obj, what)? as usize)
}

pub fn stream_arg(obj: &Bound<'_, PyAny>) -> PyResult<StreamHandle> {
    Ok(StreamHandle::from_raw(int_bits(obj, "stream")?))
}

pub fn event_arg(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<EventHandle> {
    Ok(EventHandle::from_raw(int_bits(obj, what)?))
}

pub fn context_arg(obj: &Bound<'_, PyAny>) -> PyResult<ContextHandle> {
    Ok(ContextHandle::from_raw(int_bits(obj, "context")?))
}

/// Requires a callable (functions handed to the runtime).
pub fn callable_arg<'py>(obj: &Bound<'py, PyAny>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    if obj.is_callable() {
        Ok(obj.clone())
    } else if obj.is_none() {
        Err(PyTypeError::new_err(format!(
            "{what} must be callable, not None"
        )))
    } else {
        Err(PyTypeError::new_err(format!(
            "{what} must be callable, not {}",
            obj.get_type().name()?
        )))
    }
}

/// `ret` of an action: 0 or the `aclError`.
pub fn ret(result: aclrt::Result<()>) -> i32 {
    match result {
        Ok(()) => 0,
        Err(e) => e.code(),
    }
}

/// `(value, ret)` of a call that produces a value; `fallback` stands in for the value on failure.
pub fn value<T>(result: aclrt::Result<T>, fallback: T) -> (T, i32) {
    match result {
        Ok(v) => (v, 0),
        Err(e) => (fallback, e.code()),
    }
}

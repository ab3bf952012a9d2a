//! `acl.media`: the memory calls of pyACL's media module (`acldvppMalloc`, `acldvppFree`). The
//! DVPP size and alignment rule is the core's ([`aclrt::api::dvpp_size`]).

use aclrt::api;
use pyo3::prelude::*;

use crate::args::*;

type Any<'py> = Bound<'py, PyAny>;

/// `dev_ptr, ret = acl.media.dvpp_malloc(size)`.
#[pyfunction]
fn dvpp_malloc(size: &Any) -> PyResult<(usize, i32)> {
    let size = usize_arg(size, "size")?;
    Ok(value(api::acl(|rt| rt.dvpp_malloc(size)), 0))
}

/// `ret = acl.media.dvpp_free(dev_ptr)`.
#[pyfunction]
fn dvpp_free(dev_ptr: &Any) -> PyResult<i32> {
    let ptr = usize_arg(dev_ptr, "dev_ptr")?;
    Ok(ret(api::acl(|rt| rt.dvpp_free(ptr))))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(m, "acl.media", [dvpp_malloc, dvpp_free]);
    Ok(())
}

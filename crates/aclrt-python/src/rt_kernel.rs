//! `acl.rt`: the kernel API (binaries, functions, args handles, launches) under the names,
//! argument orders and results of pyACL's kernel chapter, and nothing beyond it (the C calls
//! pyACL does not bind have no name here). Every rule is the core's; this module converts
//! arguments, parses pyACL's option and configuration lists (whose values the runtime, like the
//! C face, does not use) and vets the host memory the core reads (argument bytes), as
//! `acl.rt.memcpy` vets its ranges.

use aclrt::{api, ArgsHandle, BinHandle, BinaryImageHandle, FuncHandle, Runtime};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::args::*;
use crate::host_memory::vet;
use crate::rt::{release_after, KeepAlive};
use crate::rt_more::int_field;

type Any<'py> = Bound<'py, PyAny>;

fn bin_arg(obj: &Any, what: &str) -> PyResult<BinHandle> {
    Ok(BinHandle::from_raw(int_bits(obj, what)?))
}

fn func_arg(obj: &Any) -> PyResult<FuncHandle> {
    Ok(FuncHandle::from_raw(int_bits(obj, "func_handle")?))
}

fn args_arg(obj: &Any) -> PyResult<ArgsHandle> {
    Ok(ArgsHandle::from_raw(int_bits(obj, "args_handle")?))
}

fn image_arg(obj: &Any) -> PyResult<BinaryImageHandle> {
    Ok(BinaryImageHandle::from_raw(int_bits(obj, "binary")?))
}

/// A list of two-field dicts as pyACL reads `aclrtBinaryLoadOptions` (`{"type", "value"}`)
/// and `aclrtLaunchKernelCfg` (`{"id", "value"}`): not a list is its `ValueError` (worded
/// "argument 2" for every call, as pyACL words it), an item that is not a dict its
/// `TypeError` `not_dict`; an absent field is 0. The pairs are returned for the record only:
/// the runtime, like the C face, takes no option or attribute into account.
fn dict_list(
    py: Python<'_>,
    obj: &Any,
    keys: [&str; 2],
    not_dict: &str,
) -> PyResult<Vec<(u64, u64)>> {
    let list = obj
        .cast::<PyList>()
        .map_err(|_| PyValueError::new_err("argument 2 only support the format of list"))?;
    list.iter()
        .map(|item| {
            let dict = item
                .cast_into::<PyDict>()
                .map_err(|_| final_type_error(py, not_dict))?;
            Ok((int_field(&dict, keys[0])?, int_field(&dict, keys[1])?))
        })
        .collect()
}

/// `options` of the binary loads: `[{"type": option_type, "value": option_value}, ...]`.
fn load_options(py: Python<'_>, options: &Any) -> PyResult<()> {
    dict_list(
        py,
        options,
        ["type", "value"],
        "the bin_option argument is not dict",
    )
    .map(drop)
}

/// A block count: an int a C `uint32_t` holds. Any other (negative, or 2**32 and above) is
/// refused with `100000` when the call runs, rather than wrapped or truncated to a count the
/// caller did not ask for.
fn blocks_arg(obj: &Any, call: &'static str) -> PyResult<aclrt::Result<u32>> {
    let bits = int_bits(obj, "num_blocks")?;
    Ok(u32::try_from(bits).map_err(|_| {
        aclrt::Error::new(
            aclrt::codes::ACL_ERROR_INVALID_PARAM,
            format!(
                "{call}: num_blocks {} is not a block count (0 to 2**32 - 1)",
                obj.str().map_or_else(|_| "?".into(), |s| s.to_string())
            ),
        )
    }))
}

/// The `len` bytes at `ptr` the core is about to read, once vetted (NULL or empty reads
/// nothing): a vetted range is runtime memory the core bounds-checks, a live known buffer
/// (kept alive by the GIL, held for the whole call), or raw pointers were allowed and the
/// caller vouches for it.
fn read_host<'a>(
    py: Python<'_>,
    rt: &Runtime,
    ptr: usize,
    len: usize,
    what: &str,
) -> aclrt::Result<&'a [u8]> {
    if ptr == 0 || len == 0 {
        return Ok(&[]);
    }
    vet(py, rt, ptr, len, false, what)?;
    rt.classify_memory(ptr, len, what)?;
    // SAFETY: vetted above (see the function's doc); read before the GIL is released.
    Ok(unsafe { std::slice::from_raw_parts(ptr as *const u8, len) })
}

/// `bin_handle, ret = acl.rt.binary_load_from_file(bin_path, options)`
/// (`aclrtBinaryLoadFromFile`): `options` is a list, `[]` for none.
#[pyfunction]
fn binary_load_from_file(py: Python<'_>, bin_path: &str, options: &Any) -> PyResult<(u64, i32)> {
    load_options(py, options)?;
    Ok(value(
        api::acl(|rt| rt.binary_load_from_file(std::path::Path::new(bin_path))).map(|h| h.as_raw()),
        0,
    ))
}

/// `bin_handle, ret = acl.rt.binary_load_from_data(mem_addr, length, options)`
/// (`aclrtBinaryLoadFromData`): `mem_addr` is the address of the library image, `options` a
/// list, `[]` for none.
#[pyfunction]
fn binary_load_from_data(
    py: Python<'_>,
    mem_addr: &Any,
    length: &Any,
    options: &Any,
) -> PyResult<(u64, i32)> {
    let (ptr, len) = (
        usize_arg(mem_addr, "mem_addr")?,
        usize_arg(length, "length")?,
    );
    load_options(py, options)?;
    Ok(value(
        api::acl(|rt| {
            if ptr == 0 {
                return Err(aclrt::Error::new(
                    aclrt::codes::ACL_ERROR_INVALID_PARAM,
                    "aclrtBinaryLoadFromData: data is NULL",
                ));
            }
            let bytes = read_host(py, rt, ptr, len, "aclrtBinaryLoadFromData: data")?;
            rt.binary_load_from_data(bytes).map(|h| h.as_raw())
        }),
        0,
    ))
}

/// `binary = acl.rt.create_binary(data, data_len)` (`aclrtCreateBinary`): 0 on failure (the
/// reason in `acl.get_recent_err_msg()`).
#[pyfunction]
fn create_binary(py: Python<'_>, data: &Any, data_len: &Any) -> PyResult<u64> {
    let (ptr, len) = (usize_arg(data, "data")?, usize_arg(data_len, "data_len")?);
    Ok(api::acl(|rt| {
        let bytes = read_host(py, rt, ptr, len, "aclrtCreateBinary: data")?;
        rt.create_binary(bytes)
    })
    .map_or(0, |h| h.as_raw()))
}

/// `ret = acl.rt.destroy_binary(binary)` (`aclrtDestroyBinary`).
#[pyfunction]
fn destroy_binary(binary: &Any) -> PyResult<i32> {
    let h = image_arg(binary)?;
    Ok(ret(api::acl(|rt| rt.destroy_binary(h))))
}

/// `bin_handle, ret = acl.rt.binary_load(binary)` (`aclrtBinaryLoad`).
#[pyfunction]
fn binary_load(binary: &Any) -> PyResult<(u64, i32)> {
    let h = image_arg(binary)?;
    Ok(value(
        api::acl(|rt| rt.binary_load(h)).map(|b| b.as_raw()),
        0,
    ))
}

/// `ret = acl.rt.binary_unload(bin_handle)` (`aclrtBinaryUnLoad`).
#[pyfunction]
fn binary_unload(bin_handle: &Any) -> PyResult<i32> {
    let h = bin_arg(bin_handle, "bin_handle")?;
    Ok(ret(api::acl(|rt| rt.binary_unload(h))))
}

/// `func_handle, ret = acl.rt.binary_get_function(bin_handle, kernel_name)`
/// (`aclrtBinaryGetFunction`).
#[pyfunction]
fn binary_get_function(bin_handle: &Any, kernel_name: &str) -> PyResult<(u64, i32)> {
    let h = bin_arg(bin_handle, "bin_handle")?;
    Ok(value(
        api::acl(|rt| rt.binary_get_function(h, kernel_name)).map(|f| f.as_raw()),
        0,
    ))
}

/// Below this, pyACL takes a `max_len` (its buffer is `max_len + 1` bytes).
const FUNCTION_NAME_MAX_LEN: u32 = 1024;

/// `func_name, ret = acl.rt.get_function_name(func_handle, max_len)` (`aclrtGetFunctionName`):
/// `max_len` of 1024 or more is pyACL's `ValueError`; a name that does not fit in `max_len`
/// bytes with its NUL is the C call's `ACL_ERROR_INVALID_PARAM`. `""` on failure.
#[pyfunction]
fn get_function_name(func_handle: &Any, max_len: &Any) -> PyResult<(String, i32)> {
    let f = func_arg(func_handle)?;
    let max_len = u32_arg(max_len, "max_len")?;
    if max_len >= FUNCTION_NAME_MAX_LEN {
        return Err(PyValueError::new_err("maxLen should be less than 1024"));
    }
    Ok(value(
        api::acl(|rt| rt.function_name(f, max_len)),
        String::new(),
    ))
}

/// `aic_addr, aiv_addr, ret = acl.rt.get_function_addr(func_handle)` (`aclrtGetFunctionAddr`):
/// the kernel's entry address and 0 (no vector core address); `(0, 0, ret)` on failure.
#[pyfunction]
fn get_function_addr(func_handle: &Any) -> PyResult<(usize, usize, i32)> {
    let f = func_arg(func_handle)?;
    let ((aic, aiv), code) = value(api::acl(|rt| rt.function_addr(f)), (0, 0));
    Ok((aic, aiv, code))
}

/// `mem_size, ret = acl.rt.kernel_args_get_handle_mem_size(func_handle)`
/// (`aclrtKernelArgsGetHandleMemSize`).
#[pyfunction]
fn kernel_args_get_handle_mem_size(func_handle: &Any) -> PyResult<(usize, i32)> {
    let f = func_arg(func_handle)?;
    Ok(value(api::acl(|rt| rt.kernel_args_handle_mem_size(f)), 0))
}

/// `actual_args_size, ret = acl.rt.kernel_args_get_mem_size(func_handle, user_args_size)`
/// (`aclrtKernelArgsGetMemSize`).
#[pyfunction]
fn kernel_args_get_mem_size(func_handle: &Any, user_args_size: &Any) -> PyResult<(usize, i32)> {
    let f = func_arg(func_handle)?;
    let size = usize_arg(user_args_size, "user_args_size")?;
    Ok(value(api::acl(|rt| rt.kernel_args_mem_size(f, size)), 0))
}

/// `args_handle, ret = acl.rt.kernel_args_init(func_handle)` (`aclrtKernelArgsInit`).
#[pyfunction]
fn kernel_args_init(func_handle: &Any) -> PyResult<(u64, i32)> {
    let f = func_arg(func_handle)?;
    Ok(value(
        api::acl(|rt| rt.kernel_args_init(f)).map(|a| a.as_raw()),
        0,
    ))
}

/// `ret = acl.rt.kernel_args_init_by_user_mem(func_handle, args_handle, user_host_mem,
/// actual_args_size)` (`aclrtKernelArgsInitByUserMem`): `args_handle` is the address that
/// names the handle from then on; nothing is written there, and the user host memory is not
/// used.
#[pyfunction]
fn kernel_args_init_by_user_mem(
    func_handle: &Any,
    args_handle: &Any,
    user_host_mem: &Any,
    actual_args_size: &Any,
) -> PyResult<i32> {
    let f = func_arg(func_handle)?;
    let address = int_bits(args_handle, "args_handle")?;
    usize_arg(user_host_mem, "user_host_mem")?;
    usize_arg(actual_args_size, "actual_args_size")?;
    Ok(ret(api::acl(|rt| {
        rt.kernel_args_init_by_user_mem(f, address)
    })))
}

/// `param_handle, ret = acl.rt.kernel_args_append(args_handle, param, param_size)`
/// (`aclrtKernelArgsAppend`): copies `param_size` bytes at address `param`.
#[pyfunction]
fn kernel_args_append(
    py: Python<'_>,
    args_handle: &Any,
    param: &Any,
    param_size: &Any,
) -> PyResult<(usize, i32)> {
    let a = args_arg(args_handle)?;
    let (ptr, size) = (
        usize_arg(param, "param")?,
        usize_arg(param_size, "param_size")?,
    );
    Ok(value(
        api::acl(|rt| {
            if ptr == 0 && size != 0 {
                return Err(aclrt::Error::new(
                    aclrt::codes::ACL_ERROR_INVALID_PARAM,
                    "aclrtKernelArgsAppend: param is NULL",
                ));
            }
            let bytes = read_host(py, rt, ptr, size, "aclrtKernelArgsAppend: param")?;
            rt.kernel_args_append(a, bytes)
        }),
        0,
    ))
}

/// `param_handle, ret = acl.rt.kernel_args_append_place_holder(args_handle)`
/// (`aclrtKernelArgsAppendPlaceHolder`).
#[pyfunction]
fn kernel_args_append_place_holder(args_handle: &Any) -> PyResult<(usize, i32)> {
    let a = args_arg(args_handle)?;
    Ok(value(
        api::acl(|rt| rt.kernel_args_append_placeholder(a)),
        0,
    ))
}

/// `buffer_addr, ret = acl.rt.kernel_args_get_place_holder_buffer(args_handle, param_handle,
/// data_size)` (`aclrtKernelArgsGetPlaceHolderBuffer`): the address of a zeroed host buffer
/// the args handle owns.
#[pyfunction]
fn kernel_args_get_place_holder_buffer(
    args_handle: &Any,
    param_handle: &Any,
    data_size: &Any,
) -> PyResult<(usize, i32)> {
    let a = args_arg(args_handle)?;
    let p = usize_arg(param_handle, "param_handle")?;
    let size = usize_arg(data_size, "data_size")?;
    Ok(value(
        api::acl(|rt| rt.kernel_args_get_placeholder_buffer(a, p, size)),
        0,
    ))
}

/// `ret = acl.rt.kernel_args_para_update(args_handle, param_handle, param, param_size)`
/// (`aclrtKernelArgsParaUpdate`).
#[pyfunction]
fn kernel_args_para_update(
    py: Python<'_>,
    args_handle: &Any,
    param_handle: &Any,
    param: &Any,
    param_size: &Any,
) -> PyResult<i32> {
    let a = args_arg(args_handle)?;
    let p = usize_arg(param_handle, "param_handle")?;
    let (ptr, size) = (
        usize_arg(param, "param")?,
        usize_arg(param_size, "param_size")?,
    );
    Ok(ret(api::acl(|rt| {
        if ptr == 0 {
            return Err(aclrt::Error::new(
                aclrt::codes::ACL_ERROR_INVALID_PARAM,
                "aclrtKernelArgsParaUpdate: param is NULL",
            ));
        }
        let bytes = read_host(py, rt, ptr, size, "aclrtKernelArgsParaUpdate: param")?;
        rt.kernel_args_para_update(a, p, bytes)
    })))
}

/// `ret = acl.rt.kernel_args_finalize(args_handle)` (`aclrtKernelArgsFinalize`).
#[pyfunction]
fn kernel_args_finalize(args_handle: &Any) -> PyResult<i32> {
    let a = args_arg(args_handle)?;
    Ok(ret(api::acl(|rt| rt.kernel_args_finalize(a))))
}

/// `ret = acl.rt.launch_kernel_with_config(func_handle, num_blocks, stream, cfg, args_handle,
/// reserve)` (`aclrtLaunchKernelWithConfig`): `cfg` is a list, `[{"id": attr_id, "value":
/// attr_value}, ...]`, `[]` for none; `reserve` is 0.
#[pyfunction]
fn launch_kernel_with_config(
    py: Python<'_>,
    func_handle: &Any,
    num_blocks: &Any,
    stream: &Any,
    cfg: &Any,
    args_handle: &Any,
    reserve: &Any,
) -> PyResult<i32> {
    let f = func_arg(func_handle)?;
    let blocks = blocks_arg(num_blocks, "aclrtLaunchKernelWithConfig")?;
    let s = stream_arg(stream)?;
    dict_list(py, cfg, ["id", "value"], "the cfg argument is not dict")?;
    let a = args_arg(args_handle)?;
    usize_arg(reserve, "reserve")?;
    Ok(ret(api::acl(|rt| {
        rt.launch_kernel_with_config(f, blocks?, s, a)
    })))
}

/// A launch from an address: the kernel reads the bytes when it runs, so a known host buffer
/// is held until then.
fn launch_from(
    py: Python<'_>,
    (f, blocks, data, size, s): (
        FuncHandle,
        aclrt::Result<u32>,
        usize,
        usize,
        aclrt::StreamHandle,
    ),
) -> i32 {
    ret(api::acl(|rt| {
        let blocks = blocks?;
        let mut keep: KeepAlive = Vec::new();
        if data != 0 && size != 0 {
            keep.extend(vet(
                py,
                rt,
                data,
                size,
                false,
                "aclrtLaunchKernel: args_data",
            )?);
        }
        // SAFETY: a vetted range is runtime memory, a known host buffer held by `keep` until
        // the kernel ran (`release_after`), or raw pointers were allowed and the caller
        // vouches for it; the core refuses NULL and ranges it knows to be bad.
        unsafe { rt.launch_kernel_from(f, blocks, data, size, s) }?;
        release_after(rt, s, keep);
        Ok(())
    }))
}

/// `ret = acl.rt.launch_kernel(func_handle, num_blocks, args_data, args_size, stream)`
/// (`aclrtLaunchKernel`): the `args_size` bytes at address `args_data`, as they are when the
/// kernel runs.
#[pyfunction]
fn launch_kernel(
    py: Python<'_>,
    func_handle: &Any,
    num_blocks: &Any,
    args_data: &Any,
    args_size: &Any,
    stream: &Any,
) -> PyResult<i32> {
    let f = func_arg(func_handle)?;
    let blocks = blocks_arg(num_blocks, "aclrtLaunchKernel")?;
    let data = usize_arg(args_data, "args_data")?;
    let size = usize_arg(args_size, "args_size")?;
    let s = stream_arg(stream)?;
    Ok(launch_from(py, (f, blocks, data, size, s)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_checked!(
        m,
        "acl.rt",
        [
            binary_load_from_file,
            binary_load_from_data,
            create_binary,
            destroy_binary,
            binary_load,
            binary_unload,
            binary_get_function,
            get_function_name,
            get_function_addr,
            kernel_args_get_handle_mem_size,
            kernel_args_get_mem_size,
            kernel_args_init,
            kernel_args_init_by_user_mem,
            kernel_args_append,
            kernel_args_append_place_holder,
            kernel_args_get_place_holder_buffer,
            kernel_args_para_update,
            kernel_args_finalize,
            launch_kernel_with_config,
            launch_kernel
        ]
    );
    Ok(())
}

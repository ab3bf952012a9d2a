//! Modules and kernels: a module is a host shared library, a kernel one of its exported
//! functions, and a launch runs it once, in stream order, on a stream worker.
//!
//! The kernel ABI (declared in `include/aclrt/cuda.h`):
//!
//! ```c
//! CUresult name(void **kernelParams, const aclrtxCuLaunch *launch);
//! ACLRTX_CU_KERNEL_ARGS(name, sizeof(arg0), sizeof(arg1), ...);
//! ```
//!
//! `kernelParams` holds a pointer to each argument, as `cuLaunchKernel` received them; the
//! argument values are copied at launch (CUDA's rule), which needs their sizes: the
//! `aclrtxCuArgs_<name>` array, zero-terminated, gives them. A kernel without that array takes
//! no arguments. `launch` gives the grid and block dimensions and a zeroed buffer of the
//! dynamic shared memory size. A non-zero return fails the launch like a device fault:
//! `CUDA_ERROR_ILLEGAL_ADDRESS` stays itself, anything else is `CUDA_ERROR_LAUNCH_FAILED`,
//! sticky on the context.
//!
//! PTX and cubin images cannot run on the emulated device: loading one is
//! `CUDA_ERROR_NOT_SUPPORTED`.

use std::ffi::{c_void, CStr, CString};
use std::path::Path;
use std::sync::Arc;

use super::api::{cu, current, fail, resolve, sticky, stream_of};
use super::codes::*;
use super::device::{
    MAX_BLOCKS_PER_SM, MAX_BLOCK_DIM, MAX_GRID_DIM, MAX_SHARED_PER_BLOCK,
    MAX_SHARED_PER_BLOCK_OPTIN, MAX_SHARED_PER_SM, MAX_THREADS_PER_BLOCK, MAX_THREADS_PER_SM,
};
use super::state::{with_state, Function, Module};
use super::{CuError, CuResultOf};
use crate::api::KernelAccess;
use crate::handle::StreamHandle;
use crate::hostlib::{is_host_shared_object, read_file_head, HeadError, HostLibrary, OpenError};
use crate::runtime::Runtime;

/// Tag of module handles (top byte).
const MODULE_TAG: u8 = 0x6D;
/// Tag of function handles.
const FUNCTION_TAG: u8 = 0x66;

/// What a host kernel is told about its launch.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct KernelLaunch {
    /// Grid dimensions (x, y, z).
    pub grid_dim: [u32; 3],
    /// Block dimensions (x, y, z).
    pub block_dim: [u32; 3],
    /// Bytes of dynamic shared memory.
    pub shared_mem_bytes: u32,
    /// A zeroed buffer of `shared_mem_bytes` bytes (NULL when 0), for the launch's duration.
    pub shared_mem: *mut c_void,
}

/// A host kernel's entry point.
pub type HostKernel = unsafe extern "C" fn(*mut *mut c_void, *const KernelLaunch) -> u32;

/// The prefix of a kernel's argument-size array.
pub const ARGS_PREFIX: &str = "aclrtxCuArgs_";

fn register(rt: &Runtime, library: *mut c_void) -> u64 {
    with_state(rt, |s| {
        let id = s.new_id(MODULE_TAG);
        s.modules.insert(
            id,
            Module {
                library: library as usize,
                globals: Default::default(),
            },
        );
        id
    })
}

/// Bytes of a module file or image looked at to tell what it holds.
const HEAD_BYTES: usize = 4096;

fn looks_like_ptx(bytes: &[u8]) -> bool {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(HEAD_BYTES)]);
    text.contains(".version") || text.contains(".target") || text.contains(".entry")
}

fn not_a_host_library(what: &str, head: &[u8]) -> CuError {
    if looks_like_ptx(head) {
        CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!("{what} is PTX, which the emulated device cannot run: build the kernels into a host shared library (see aclrt/cuda.h)"),
        )
    } else if head.starts_with(&[0x50, 0xed, 0x55, 0xba]) || head.starts_with(b"\x7fELF") {
        CuError::new(
            CUDA_ERROR_NOT_SUPPORTED,
            format!(
                "{what} is a fat binary or cubin for a GPU, which the emulated device cannot run"
            ),
        )
    } else {
        CuError::new(
            CUDA_ERROR_INVALID_IMAGE,
            format!("{what} is neither a host shared library nor a GPU image"),
        )
    }
}

fn open_library(
    rt: &Runtime,
    opened: Result<HostLibrary, OpenError>,
    call: &str,
    name: &str,
) -> CuResultOf<u64> {
    match opened {
        Ok(lib) => Ok(register(rt, lib.into_raw())),
        Err(OpenError::Loader(e)) => fail(
            CUDA_ERROR_INVALID_IMAGE,
            format!("{call}: cannot load {name}: {e}"),
        ),
        Err(OpenError::System(e)) => fail(CUDA_ERROR_OPERATING_SYSTEM, format!("{call}: {e}")),
    }
}

/// `cuModuleLoad(fname)`: loads a host shared library as a module.
pub fn module_load(fname: &str) -> CuResultOf<u64> {
    cu(|rt| {
        current(rt)?;
        // Only the head is read: enough to tell a host library, PTX or a GPU image apart.
        let head = match read_file_head(Path::new(fname), HEAD_BYTES) {
            Ok(bytes) => bytes,
            Err(HeadError::Io(e)) => {
                return fail(
                    CUDA_ERROR_FILE_NOT_FOUND,
                    format!("cuModuleLoad: cannot read {fname:?}: {e}"),
                )
            }
            Err(HeadError::NotRegular) => {
                return fail(
                    CUDA_ERROR_FILE_NOT_FOUND,
                    format!("cuModuleLoad: {fname:?} is not a regular file"),
                )
            }
        };
        if !is_host_shared_object(&head) {
            return Err(not_a_host_library(
                &format!("cuModuleLoad: {fname:?}"),
                &head,
            ));
        }
        let path = CString::new(fname).map_err(|_| {
            CuError::new(
                CUDA_ERROR_INVALID_VALUE,
                "cuModuleLoad: the name holds a NUL",
            )
        })?;
        open_library(rt, HostLibrary::open(&path), "cuModuleLoad", fname)
    })
}

/// The length of an ELF64 image from its headers: the end of the section header table or of
/// the last segment, whichever is later.
///
/// # Safety
/// `image` points to a complete ELF64 image: its header and its program header table are
/// readable.
unsafe fn elf_len(image: *const u8) -> Option<usize> {
    // SAFETY: offsets inside the 64-byte header or the program header table (the caller's
    // promise); unaligned reads.
    let u64_at = |o: usize| unsafe { (image.add(o) as *const u64).read_unaligned() };
    // SAFETY: as above.
    let u16_at = |o: usize| unsafe { (image.add(o) as *const u16).read_unaligned() };
    let (phoff, shoff) = (u64_at(32) as usize, u64_at(40) as usize);
    let (phentsize, phnum) = (u16_at(54) as usize, u16_at(56) as usize);
    let (shentsize, shnum) = (u16_at(58) as usize, u16_at(60) as usize);
    if phentsize < 56 && phnum > 0 {
        return None;
    }
    let mut end = shoff.checked_add(shentsize.checked_mul(shnum)?)?;
    for i in 0..phnum {
        let ph = phoff.checked_add(i.checked_mul(phentsize)?)?;
        let segment_end = u64_at(ph + 8).checked_add(u64_at(ph + 32))?;
        end = end.max(usize::try_from(segment_end).ok()?);
    }
    Some(end)
}

/// `cuModuleLoadData(image)`: an in-memory host shared library (ELF), loaded through an
/// anonymous file.
///
/// # Safety
/// `image` must point to a complete image (for ELF: as long as its headers say).
pub unsafe fn module_load_data(image: *const u8) -> CuResultOf<u64> {
    cu(|rt| {
        current(rt)?;
        if image.is_null() {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                "cuModuleLoadData: the image is NULL",
            );
        }
        // SAFETY: every image starts with at least a 64-byte header (an ELF header, or PTX
        // text the caller NUL-terminates, which is read up to its NUL only).
        let head = unsafe {
            let text = CStr::from_ptr(image.cast());
            if text.to_bytes().starts_with(b"\x7fELF") {
                std::slice::from_raw_parts(image, 64)
            } else {
                text.to_bytes()
            }
        };
        if !is_host_shared_object(head) {
            return Err(not_a_host_library("cuModuleLoadData: the image", head));
        }
        // SAFETY: a host ELF image, complete by the caller's promise.
        let Some(len) = (unsafe { elf_len(image) }) else {
            return fail(
                CUDA_ERROR_INVALID_IMAGE,
                "cuModuleLoadData: malformed ELF headers",
            );
        };
        // SAFETY: the caller provides the whole image, whose length the headers give.
        let bytes = unsafe { std::slice::from_raw_parts(image, len) };
        open_library(
            rt,
            HostLibrary::open_image(bytes, c"aclrt-cuda-module"),
            "cuModuleLoadData",
            "the module image",
        )
    })
}

/// `cuModuleUnload`: its functions become invalid handles.
pub fn module_unload(module: u64) -> CuResultOf<()> {
    cu(|rt| {
        let removed = with_state(rt, |s| {
            let m = s.modules.remove(&module)?;
            s.functions.retain(|_, f| f.module != module);
            Some(m)
        });
        let Some(m) = removed else {
            return fail(
                CUDA_ERROR_INVALID_HANDLE,
                format!("cuModuleUnload: {module:#x} is not a loaded module"),
            );
        };
        // SAFETY: a handle dlopen returned, closed once. Kernels still queued from it keep
        // running code of a library that stays mapped while other references exist; the
        // program must not unload a module with launches pending, as with CUDA.
        unsafe { libc::dlclose(m.library as *mut c_void) };
        Ok(())
    })
}

fn symbol(library: usize, name: &str) -> Option<usize> {
    let c = CString::new(name).ok()?;
    // SAFETY: a live dlopen handle and a NUL-terminated name.
    let p = unsafe { libc::dlsym(library as *mut c_void, c.as_ptr()) };
    (!p.is_null()).then_some(p as usize)
}

/// `cuModuleGetFunction`: the module's exported function `name`.
pub fn module_get_function(module: u64, name: &str) -> CuResultOf<u64> {
    cu(|rt| {
        let Some(library) = with_state(rt, |s| s.modules.get(&module).map(|m| m.library)) else {
            return fail(
                CUDA_ERROR_INVALID_HANDLE,
                format!("cuModuleGetFunction: {module:#x} is not a loaded module"),
            );
        };
        let Some(address) = symbol(library, name) else {
            return fail(
                CUDA_ERROR_NOT_FOUND,
                format!("cuModuleGetFunction: the module has no function {name:?}"),
            );
        };
        let arg_sizes = symbol(library, &format!("{ARGS_PREFIX}{name}")).map(|p| {
            let mut sizes = Vec::new();
            let mut at = p as *const usize;
            // SAFETY: the descriptor is a zero-terminated array of sizes (the ABI above).
            unsafe {
                while *at != 0 {
                    sizes.push(*at);
                    at = at.add(1);
                }
            }
            sizes
        });
        Ok(with_state(rt, |s| {
            let id = s.new_id(FUNCTION_TAG);
            s.functions.insert(
                id,
                Function {
                    module,
                    name: name.to_string(),
                    address,
                    arg_sizes,
                    max_dynamic_shared: MAX_SHARED_PER_BLOCK as usize,
                    carveout: -1,
                    cache_config: 0,
                },
            );
            id
        }))
    })
}

/// `cuModuleGetGlobal`: (address, size) of the module's exported variable `name`; the range
/// counts as device memory from then on.
pub fn module_get_global(module: u64, name: &str) -> CuResultOf<(u64, usize)> {
    cu(|rt| {
        let Some(library) = with_state(rt, |s| s.modules.get(&module).map(|m| m.library)) else {
            return fail(
                CUDA_ERROR_INVALID_HANDLE,
                format!("cuModuleGetGlobal: {module:#x} is not a loaded module"),
            );
        };
        let Some(address) = symbol(library, name) else {
            return fail(
                CUDA_ERROR_NOT_FOUND,
                format!("cuModuleGetGlobal: the module has no global {name:?}"),
            );
        };
        let size = crate::hostlib::symbol_size(address);
        with_state(rt, |s| {
            if let Some(m) = s.modules.get_mut(&module) {
                m.globals.insert(address, size);
            }
        });
        Ok((address as u64, size))
    })
}

fn function(rt: &Runtime, f: u64, call: &str) -> CuResultOf<Function> {
    with_state(rt, |s| s.functions.get(&f).cloned()).ok_or_else(|| {
        CuError::new(
            CUDA_ERROR_INVALID_HANDLE,
            format!("{call}: {f:#x} is not a function of a loaded module"),
        )
    })
}

/// `cuFuncGetAttribute`: a `CUfunction_attribute` of a host kernel.
pub fn func_get_attribute(attribute: i32, f: u64) -> CuResultOf<i32> {
    cu(|rt| {
        let func = function(rt, f, "cuFuncGetAttribute")?;
        let (major, minor) = rt.config.compute_capability;
        let version = (major * 10 + minor) as i32;
        Ok(match attribute {
            0 => MAX_THREADS_PER_BLOCK,
            1..=4 => 0,       // static shared, constant, local memory; registers
            5 | 6 => version, // PTX and binary versions
            7 => 0,           // CACHE_MODE_CA
            8 => func.max_dynamic_shared as i32,
            9 => func.carveout,
            10..=15 => 0, // cluster attributes
            _ => {
                return fail(
                    CUDA_ERROR_INVALID_VALUE,
                    format!("cuFuncGetAttribute: {attribute} is not a CUfunction_attribute"),
                )
            }
        })
    })
}

/// `cuFuncSetAttribute`: the dynamic shared memory limit (up to the opt-in maximum) and the
/// carveout preference (-1 or 0 to 100) are kept; the read-only attributes are refused.
pub fn func_set_attribute(f: u64, attribute: i32, value: i32) -> CuResultOf<()> {
    cu(|rt| {
        function(rt, f, "cuFuncSetAttribute")?;
        let ok = match attribute {
            8 => (0..=MAX_SHARED_PER_BLOCK_OPTIN).contains(&value),
            9 => (-1..=100).contains(&value),
            10..=15 => false,
            _ => false,
        };
        if !ok {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuFuncSetAttribute: attribute {attribute} cannot be set to {value}"),
            );
        }
        with_state(rt, |s| {
            if let Some(func) = s.functions.get_mut(&f) {
                match attribute {
                    8 => func.max_dynamic_shared = value as usize,
                    _ => func.carveout = value,
                }
            }
        });
        Ok(())
    })
}

/// `cuFuncSetCacheConfig`: a `CUfunc_cache` preference, kept.
pub fn func_set_cache_config(f: u64, config: u32) -> CuResultOf<()> {
    cu(|rt| {
        function(rt, f, "cuFuncSetCacheConfig")?;
        if config > super::context::CU_FUNC_CACHE_PREFER_EQUAL {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuFuncSetCacheConfig: {config} is not a CUfunc_cache"),
            );
        }
        with_state(rt, |s| {
            if let Some(func) = s.functions.get_mut(&f) {
                func.cache_config = config;
            }
        });
        Ok(())
    })
}

/// `cuFuncGetName`: the kernel's name.
pub fn func_get_name(f: u64) -> CuResultOf<String> {
    cu(|rt| Ok(function(rt, f, "cuFuncGetName")?.name))
}

/// The sizes of the arguments kernel `f` declares (empty for a kernel without a descriptor).
pub fn func_arg_sizes(f: u64) -> CuResultOf<Vec<usize>> {
    cu(|rt| {
        Ok(function(rt, f, "cuFuncGetParamInfo")?
            .arg_sizes
            .unwrap_or_default())
    })
}

/// Grid, block and shared memory of a launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchDims {
    /// Grid dimensions.
    pub grid: [u32; 3],
    /// Block dimensions.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub shared_mem_bytes: u32,
}

fn check_dims(dims: &LaunchDims, func: &Function, call: &str) -> CuResultOf<()> {
    let threads: u64 = dims.block.iter().map(|&d| u64::from(d)).product();
    let bad_dim = dims
        .grid
        .iter()
        .zip(MAX_GRID_DIM)
        .chain(dims.block.iter().zip(MAX_BLOCK_DIM))
        .any(|(&d, max)| d == 0 || i64::from(d) > i64::from(max));
    if bad_dim || threads > MAX_THREADS_PER_BLOCK as u64 {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{call}: grid {:?} / block {:?} ({threads} threads) are out of range",
                dims.grid, dims.block
            ),
        );
    }
    if dims.shared_mem_bytes as usize > func.max_dynamic_shared {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            format!(
                "{call}: {} bytes of dynamic shared memory exceed the kernel's limit of {} (raise it with cuFuncSetAttribute)",
                dims.shared_mem_bytes, func.max_dynamic_shared
            ),
        );
    }
    Ok(())
}

/// `cuLaunchKernel`: runs the host kernel `f` once on the stream, with copies of the
/// arguments `params` points to (their sizes from the kernel's descriptor).
///
/// # Safety
/// `params` is NULL or holds, for each argument the kernel declares, a pointer to a value of
/// the declared size.
pub unsafe fn launch_kernel(
    f: u64,
    dims: LaunchDims,
    stream: StreamHandle,
    params: *const *const c_void,
    call: &'static str,
) -> CuResultOf<()> {
    cu(|rt| {
        let func = function(rt, f, call)?;
        let s = stream_of(rt, resolve(rt, stream)?)?;
        current(rt)?;
        sticky(&s.context)?;
        let s = rt.stream_for_work(Some(s), call)?;
        check_dims(&dims, &func, call)?;
        let sizes = func.arg_sizes.clone().unwrap_or_default();
        if !sizes.is_empty() && params.is_null() {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!(
                    "{call}: kernel {:?} takes {} argument(s) but kernelParams is NULL",
                    func.name,
                    sizes.len()
                ),
            );
        }
        let offsets: Vec<usize> = sizes
            .iter()
            .scan(0usize, |at, &size| {
                let start = at.next_multiple_of(16);
                *at = start + size;
                Some(start)
            })
            .collect();
        let total = offsets.last().map_or(0, |o| o + sizes[sizes.len() - 1]);
        // 16-byte aligned storage for the argument values.
        let mut storage = vec![0u128; total.div_ceil(16)];
        let base = storage.as_mut_ptr() as *mut u8;
        for (i, (&offset, &size)) in offsets.iter().zip(&sizes).enumerate() {
            // SAFETY: the caller promises params[i] points to `size` readable bytes; the
            // storage was sized for every argument.
            unsafe {
                let arg = *params.add(i);
                if arg.is_null() {
                    return fail(
                        CUDA_ERROR_INVALID_VALUE,
                        format!("{call}: kernelParams[{i}] is NULL"),
                    );
                }
                std::ptr::copy_nonoverlapping(arg as *const u8, base.add(offset), size);
            }
        }
        // SAFETY: the address of an exported function of the ABI the module follows.
        let entry: HostKernel = unsafe { std::mem::transmute::<usize, HostKernel>(func.address) };
        let name = func.name.clone();
        // Each run gets its own copy of the arguments (a captured launch runs at every launch
        // of its graph).
        let run: super::capture::Recipe = Arc::new(move |rt, ls| {
            let storage = storage.clone();
            let offsets = offsets.clone();
            let body: crate::KernelFn = Box::new(move || {
                let mut storage = storage;
                let base = storage.as_mut_ptr() as *mut u8;
                let mut pointers: Vec<*mut c_void> = offsets
                    .iter()
                    // SAFETY: offsets lie inside the storage.
                    .map(|&o| unsafe { base.add(o) } as *mut c_void)
                    .collect();
                let mut shared = vec![0u128; (dims.shared_mem_bytes as usize).div_ceil(16)];
                let launch = KernelLaunch {
                    grid_dim: dims.grid,
                    block_dim: dims.block,
                    shared_mem_bytes: dims.shared_mem_bytes,
                    shared_mem: if dims.shared_mem_bytes == 0 {
                        std::ptr::null_mut()
                    } else {
                        shared.as_mut_ptr().cast()
                    },
                };
                // SAFETY: the kernel's ABI: argument pointers into live storage, a launch
                // description on the stack.
                let code = unsafe { entry(pointers.as_mut_ptr(), &launch) };
                drop(shared);
                match code {
                    CUDA_SUCCESS => Ok(()),
                    code => Err(super::codes::to_acl_task_code(code)),
                }
            });
            rt.launch_on(ls, &name, KernelAccess::default(), body)?;
            Ok(())
        });
        super::capture::submit(rt, &s, super::capture::NodeKind::Kernel, call, run)?;
        Ok(())
    })
}

/// Blocks of `block_size` threads using `dynamic_smem` bytes that fit on one multiprocessor.
fn active_blocks(block_size: i32, dynamic_smem: usize) -> i32 {
    let warps = (block_size + 31) / 32 * 32;
    let by_threads = MAX_THREADS_PER_SM / warps.max(32);
    let by_smem = (MAX_SHARED_PER_SM as usize)
        .checked_div(dynamic_smem)
        .map_or(MAX_BLOCKS_PER_SM, |n| n.min(i32::MAX as usize) as i32);
    by_threads.min(by_smem).min(MAX_BLOCKS_PER_SM)
}

/// `cuOccupancyMaxActiveBlocksPerMultiprocessor`: by the thread, block and shared memory limits
/// of the emulated device's multiprocessors.
pub fn occupancy_max_active_blocks(
    f: u64,
    block_size: i32,
    dynamic_smem: usize,
) -> CuResultOf<i32> {
    cu(|rt| {
        let func = function(rt, f, "cuOccupancyMaxActiveBlocksPerMultiprocessor")?;
        if block_size <= 0
            || block_size > MAX_THREADS_PER_BLOCK
            || dynamic_smem > func.max_dynamic_shared
        {
            return fail(
                CUDA_ERROR_INVALID_VALUE,
                format!("cuOccupancyMaxActiveBlocksPerMultiprocessor: block size {block_size} or {dynamic_smem} bytes of shared memory out of range"),
            );
        }
        Ok(active_blocks(block_size, dynamic_smem))
    })
}

/// `cuOccupancyMaxPotentialBlockSize`: (minimum grid size, block size) giving the highest
/// occupancy; `smem_for` gives the dynamic shared memory of a block size.
pub fn occupancy_max_potential_block_size(
    f: u64,
    smem_for: &dyn Fn(i32) -> usize,
    block_size_limit: i32,
) -> CuResultOf<(i32, i32)> {
    let func = cu(|rt| function(rt, f, "cuOccupancyMaxPotentialBlockSize"))?;
    let sms = cu(|rt| Ok(rt.config.multiprocessor_count as i32))?;
    let limit = if block_size_limit <= 0 {
        MAX_THREADS_PER_BLOCK
    } else {
        block_size_limit.min(MAX_THREADS_PER_BLOCK)
    };
    let mut best = (0, 0, 0); // (active threads, block size, blocks per SM)
    let mut size = (limit / 32 * 32).max(limit.min(32));
    while size > 0 {
        let smem = smem_for(size);
        if smem <= func.max_dynamic_shared {
            let blocks = active_blocks(size, smem);
            if blocks * size > best.0 {
                best = (blocks * size, size, blocks);
            }
        }
        size -= 32;
    }
    if best.1 == 0 {
        return fail(
            CUDA_ERROR_INVALID_VALUE,
            "cuOccupancyMaxPotentialBlockSize: no block size fits the shared memory asked for",
        );
    }
    Ok((best.2 * sms, best.1))
}

/// `cuOccupancyAvailableDynamicSMemPerBlock`: shared memory left per block when `num_blocks`
/// blocks of `block_size` threads share a multiprocessor.
pub fn occupancy_available_dynamic_smem(
    f: u64,
    num_blocks: i32,
    block_size: i32,
) -> CuResultOf<usize> {
    cu(|rt| {
        function(rt, f, "cuOccupancyAvailableDynamicSMemPerBlock")?;
        if num_blocks <= 0 || block_size <= 0 || active_blocks(block_size, 0) < num_blocks {
            return Ok(0);
        }
        Ok(((MAX_SHARED_PER_SM / num_blocks).min(MAX_SHARED_PER_BLOCK_OPTIN)) as usize)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn occupancy_is_limited_by_threads_blocks_and_shared_memory() {
        assert_eq!(active_blocks(1024, 0), 2);
        assert_eq!(active_blocks(256, 0), 8);
        assert_eq!(active_blocks(32, 0), 32);
        assert_eq!(active_blocks(33, 0), 32);
        assert_eq!(active_blocks(128, MAX_SHARED_PER_SM as usize / 3), 3);
    }

    #[test]
    fn cubins_and_ptx_are_not_host_libraries() {
        assert!(!is_host_shared_object(b".version 8.0\n.target sm_80"));
        assert!(looks_like_ptx(b"//\n.version 8.0\n.target sm_80\n"));
        let mut cubin = b"\x7fELF\x02\x01\x01\x33".to_vec();
        cubin.resize(64, 0);
        cubin[16] = 2; // ET_EXEC
        cubin[18] = 190; // EM_CUDA
        assert!(!is_host_shared_object(&cubin));
    }
}

//! The vendor kernel API (`aclrtBinary*`, `aclrtKernelArgs*`, `aclrtLaunchKernel*`) over host
//! libraries: a binary is a host shared library, a kernel one of its exported functions of the
//! signature `include/acl/acl_host_kernel.h` declares, and a launch runs it once, in stream
//! order, on the stream's worker.
//!
//! Handles are the addresses of boxes this module owns: a binary handle lives until
//! `aclrtBinaryUnLoad`, its function handles and args handles with it. A launch copies an args handle's bytes (placeholder buffers
//! included) at once and `argsData`'s when the kernel runs, and holds the library open until it
//! ran, so unloading with launches queued is safe.

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr, CString};
use std::sync::{Arc, LazyLock, Mutex};

use aclrt::api;
use aclrt::codes::{
    ACL_ERROR_INVALID_FILE, ACL_ERROR_INVALID_PARAM, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
    ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_SYMBOL_NOT_FOUND,
};
use aclrt::consts::{ACLX_ACCESS_READ, ACLX_ACCESS_WRITE};
use aclrt::hostlib::{is_host_shared_object, HostLibrary, OpenError};
use aclrt::runtime::Runtime;
use aclrt::MemRange;

use crate::ext::aclxMemAccess;
use crate::{aclError, aclrtStream, entry, guard, guard_value, not_null, put, stream_handle};

/// `aclHostKernel`: the entry point of a kernel in a host library.
type HostKernel = unsafe extern "C" fn(numBlocks: u32, args: *mut c_void, argsSize: usize) -> u32;

/// The binary's library and the functions looked up in it.
struct Binary {
    library: Arc<HostLibrary>,
    /// Function records by name, boxed so their addresses (the handles) stay put. A leaf lock
    /// of this face: held only to find or insert a record, never across runtime calls.
    functions: Mutex<HashMap<String, Box<Function>>>,
}

/// `ACL_HOST_KERNEL_ACCESSES(name)`: the memory a launch with these arguments touches.
type AccessDeclaration = unsafe extern "C" fn(
    args: *const c_void,
    argsSize: usize,
    accesses: *mut aclxMemAccess,
    capacity: usize,
) -> usize;

/// The prefix of a kernel's access declaration.
const ACCESSES_PREFIX: &str = "aclHostKernelAccesses_";

/// An args state and the header the runtime allocated for it, if it did.
type OwnedArgs = (Box<Args>, Option<Box<ArgsHeader>>);

/// One kernel of a binary.
struct Function {
    /// The args handles made for it: their states, and the headers the runtime allocated.
    /// A leaf lock of this face, like [`Binary::functions`].
    args: Mutex<Vec<OwnedArgs>>,
    library: Arc<HostLibrary>,
    entry: HostKernel,
    accesses: Option<AccessDeclaration>,
    name: CString,
    /// Args handles made in the caller's memory (`aclrtKernelArgsInitByUserMem`), by address.
    user_headers: Mutex<Vec<usize>>,
}

/// `aclrtCreateBinary`'s result: the image bytes, loaded by `aclrtBinaryLoad`.
struct Image(Vec<u8>);

/// What a parameter of an args handle is.
enum ParamKind {
    /// Bytes copied in by `aclrtKernelArgsAppend`.
    Value,
    /// A pointer slot whose buffer comes from `aclrtKernelArgsGetPlaceHolderBuffer`.
    PlaceHolder(Option<Box<[u64]>>, usize),
}

struct Param {
    offset: usize,
    size: usize,
    kind: ParamKind,
}

/// An args handle's state, owned by its function (freed when the binary is unloaded).
struct Args {
    function: *const Function,
    bytes: Vec<u8>,
    params: Vec<Param>,
    /// Set by `aclrtKernelArgsFinalize`: no parameter may be appended after it.
    finalized: bool,
}

/// What an args handle points to: in memory of the runtime (`aclrtKernelArgsInit`) or of the
/// caller (`aclrtKernelArgsInitByUserMem`), so nothing in it needs dropping.
#[repr(C)]
struct ArgsHeader {
    state: *mut Args,
}

fn fail(code: aclError, message: String) -> aclrt::Error {
    api::fail(code, message)
}

/// What a handle this face gave out points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Image,
    Binary,
    Function,
    /// An args handle (the runtime's header, or one in the caller's memory).
    Header,
    /// The state an args header points to.
    Args,
}

/// Every live handle of this face, so a garbage, foreign or stale one is refused with a code
/// instead of being followed. A leaf lock: held only to look up, insert or remove.
static LIVE: LazyLock<Mutex<HashMap<usize, Kind>>> = LazyLock::new(Default::default);

fn live() -> std::sync::MutexGuard<'static, HashMap<usize, Kind>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Refuses `ptr` unless it is a live handle of `kind`.
fn check_live(ptr: *const c_void, kind: Kind, call: &str, what: &str) -> aclrt::Result<()> {
    not_null(ptr, call, what)?;
    if live().get(&(ptr as usize)) == Some(&kind) {
        return Ok(());
    }
    Err(fail(
        ACL_ERROR_RT_INVALID_HANDLE,
        format!("{call}: {what} {ptr:p} is not a live {kind:?} handle (never made, or freed)"),
    ))
}

/// Forgets the handles of `binary`'s functions and their args (it is being unloaded).
fn forget_functions(binary: &Binary) {
    let functions = binary.functions.lock().unwrap_or_else(|p| p.into_inner());
    let mut live = live();
    for f in functions.values() {
        live.remove(&(&**f as *const Function as usize));
        for (state, header) in f.args.lock().unwrap_or_else(|p| p.into_inner()).iter() {
            live.remove(&(&**state as *const Args as usize));
            if let Some(h) = header {
                live.remove(&(&**h as *const ArgsHeader as usize));
            }
        }
        for h in f
            .user_headers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            live.remove(h);
        }
    }
}

fn c_name(ptr: *const c_char, call: &str, what: &str) -> aclrt::Result<String> {
    not_null(ptr, call, what)?;
    // SAFETY: non-NULL, a C string by the C contract.
    Ok(unsafe { CStr::from_ptr(ptr) }
        .to_string_lossy()
        .into_owned())
}

fn opened(result: Result<HostLibrary, OpenError>, call: &str, what: &str) -> aclrt::Result<Binary> {
    match result {
        Ok(lib) => Ok(Binary {
            library: Arc::new(lib),
            functions: Mutex::new(HashMap::new()),
        }),
        Err(OpenError::Loader(e)) => Err(fail(
            ACL_ERROR_INVALID_FILE,
            format!("{call}: cannot load {what}: {e}"),
        )),
        Err(OpenError::System(e)) => Err(fail(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            format!("{call}: cannot load {what} from memory: {e}"),
        )),
    }
}

fn not_a_library(call: &str, what: &str) -> aclrt::Error {
    fail(
        ACL_ERROR_INVALID_FILE,
        format!(
            "{call}: {what} is not a host shared library; the emulated device runs kernels \
             built into one (see acl/acl_host_kernel.h)"
        ),
    )
}

fn load_image(bytes: &[u8], call: &str) -> aclrt::Result<Binary> {
    if !is_host_shared_object(bytes) {
        return Err(not_a_library(call, "the data"));
    }
    opened(
        HostLibrary::open_image(bytes, c"aclrt-kernel-binary"),
        call,
        "the data",
    )
}

fn hand_out(binary: Binary, handle: *mut *mut c_void) {
    let ptr = Box::into_raw(Box::new(binary));
    live().insert(ptr as usize, Kind::Binary);
    // SAFETY: checked non-NULL by the callers.
    unsafe { put(handle, ptr.cast()) };
}

/// `aclrtBinaryLoadFromFile`: opens the host library at `binPath`; options are ignored.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoadFromFile(
    binPath: *const c_char,
    _options: *mut c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryLoadFromFile";
    entry(CALL, |_rt| {
        let path = c_name(binPath, CALL, "the path")?;
        not_null(binHandle, CALL, "binHandle")?;
        let head = std::fs::read(&path).map_err(|e| {
            fail(
                ACL_ERROR_INVALID_FILE,
                format!("{CALL}: cannot read {path:?}: {e}"),
            )
        })?;
        if !is_host_shared_object(&head) {
            return Err(not_a_library(CALL, &format!("{path:?}")));
        }
        // SAFETY: binPath is a C string (checked above).
        let c_path = unsafe { CStr::from_ptr(binPath) };
        let binary = opened(HostLibrary::open(c_path), CALL, &format!("{path:?}"))?;
        hand_out(binary, binHandle);
        Ok(())
    })
}

/// `aclrtBinaryLoadFromData`: a host library image in memory, opened through an anonymous
/// file.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoadFromData(
    data: *const c_void,
    length: usize,
    _options: *const c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryLoadFromData";
    entry(CALL, |_rt| {
        not_null(data, CALL, "data")?;
        not_null(binHandle, CALL, "binHandle")?;
        // SAFETY: the caller passes `length` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) };
        hand_out(load_image(bytes, CALL)?, binHandle);
        Ok(())
    })
}

/// `aclrtCreateBinary`: keeps a copy of the image for `aclrtBinaryLoad`.
#[no_mangle]
pub unsafe extern "C" fn aclrtCreateBinary(data: *const c_void, dataLen: usize) -> *mut c_void {
    guard_value("aclrtCreateBinary", std::ptr::null_mut(), || {
        if data.is_null() || dataLen == 0 {
            api::note_failure(&fail(
                ACL_ERROR_INVALID_PARAM,
                "aclrtCreateBinary: the data is NULL or empty".into(),
            ));
            return std::ptr::null_mut();
        }
        // SAFETY: the caller passes `dataLen` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), dataLen) };
        let ptr = Box::into_raw(Box::new(Image(bytes.to_vec())));
        live().insert(ptr as usize, Kind::Image);
        ptr.cast()
    })
}

/// `aclrtDestroyBinary`.
#[no_mangle]
pub unsafe extern "C" fn aclrtDestroyBinary(binary: *mut c_void) -> aclError {
    guard("aclrtDestroyBinary", || {
        check_live(binary, Kind::Image, "aclrtDestroyBinary", "the binary")?;
        live().remove(&(binary as usize));
        // SAFETY: a live aclrtCreateBinary result (checked), destroyed once (removed above).
        drop(unsafe { Box::from_raw(binary.cast::<Image>()) });
        Ok(())
    })
}

/// `aclrtBinaryLoad`: loads an `aclrtCreateBinary` image.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryLoad(
    binary: *const c_void,
    binHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryLoad";
    entry(CALL, |_rt| {
        check_live(binary, Kind::Image, CALL, "the binary")?;
        not_null(binHandle, CALL, "binHandle")?;
        // SAFETY: a live aclrtCreateBinary result (checked).
        let image = unsafe { &*binary.cast::<Image>() };
        hand_out(load_image(&image.0, CALL)?, binHandle);
        Ok(())
    })
}

/// `aclrtBinaryUnLoad`: its function handles become invalid; launches already queued still
/// run (they hold the library).
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryUnLoad(binHandle: *mut c_void) -> aclError {
    entry("aclrtBinaryUnLoad", |_rt| {
        check_live(binHandle, Kind::Binary, "aclrtBinaryUnLoad", "binHandle")?;
        live().remove(&(binHandle as usize));
        // SAFETY: a live binary handle (checked), unloaded once (removed above).
        let binary = unsafe { Box::from_raw(binHandle.cast::<Binary>()) };
        forget_functions(&binary);
        drop(binary);
        Ok(())
    })
}

/// `aclrtBinaryGetFunction`: the kernel exported as `kernelName`.
#[no_mangle]
pub unsafe extern "C" fn aclrtBinaryGetFunction(
    binHandle: *const c_void,
    kernelName: *const c_char,
    funcHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtBinaryGetFunction";
    entry(CALL, |_rt| {
        check_live(binHandle, Kind::Binary, CALL, "binHandle")?;
        let name = c_name(kernelName, CALL, "the kernel name")?;
        not_null(funcHandle, CALL, "funcHandle")?;
        // SAFETY: a live binary handle (checked).
        let binary = unsafe { &*binHandle.cast::<Binary>() };
        let mut functions = binary.functions.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(f) = functions.get(&name) {
            // SAFETY: checked non-NULL above.
            unsafe { put(funcHandle, (&**f as *const Function).cast_mut().cast()) };
            return Ok(());
        }
        let Some(address) = binary.library.symbol(&name) else {
            return Err(fail(
                ACL_ERROR_RT_SYMBOL_NOT_FOUND,
                format!("{CALL}: the binary exports no kernel {name:?}"),
            ));
        };
        // SAFETY: the library exports `name` as a kernel of the documented signature (the
        // convention of acl_host_kernel.h).
        let entry = unsafe { std::mem::transmute::<*mut c_void, HostKernel>(address) };
        let accesses = binary
            .library
            .symbol(&format!("{ACCESSES_PREFIX}{name}"))
            // SAFETY: the library exports the declaration with the documented signature.
            .map(|p| unsafe { std::mem::transmute::<*mut c_void, AccessDeclaration>(p) });
        let function = Box::new(Function {
            args: Mutex::new(Vec::new()),
            library: binary.library.clone(),
            entry,
            accesses,
            name: CString::new(name.clone()).expect("from a C string"),
            user_headers: Mutex::new(Vec::new()),
        });
        let ptr = (&*function as *const Function).cast_mut().cast();
        live().insert(ptr as usize, Kind::Function);
        functions.insert(name, function);
        // SAFETY: checked non-NULL above.
        unsafe { put(funcHandle, ptr) };
        Ok(())
    })
}

/// # Safety
/// `handle` is a live function handle.
unsafe fn function<'a>(handle: *const c_void, call: &str) -> aclrt::Result<&'a Function> {
    check_live(handle, Kind::Function, call, "funcHandle")?;
    // SAFETY: a live function handle (checked); its binary stays loaded meanwhile (C contract).
    Ok(unsafe { &*handle.cast::<Function>() })
}

/// `aclrtGetFunctionName`: the kernel's name, NUL-terminated, if `maxLen` bytes hold it.
#[no_mangle]
pub unsafe extern "C" fn aclrtGetFunctionName(
    funcHandle: *mut c_void,
    maxLen: u32,
    name: *mut c_char,
) -> aclError {
    const CALL: &str = "aclrtGetFunctionName";
    guard(CALL, || {
        // SAFETY: a live function handle (C contract).
        let f = unsafe { function(funcHandle, CALL) }?;
        not_null(name, CALL, "name")?;
        let bytes = f.name.as_bytes_with_nul();
        if bytes.len() > maxLen as usize {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "{CALL}: the name needs {} bytes, maxLen is {maxLen}",
                    bytes.len()
                ),
            ));
        }
        // SAFETY: `name` holds maxLen >= bytes.len() bytes (C contract).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr().cast(), name, bytes.len()) };
        Ok(())
    })
}

/// The default declared accesses: each pointer-aligned word of the arguments that points into a
/// live allocation reads and writes that whole allocation.
fn pointer_accesses(rt: &Runtime, bytes: &[u8]) -> api::KernelAccess {
    let mut ranges: Vec<MemRange> = Vec::new();
    let word = std::mem::size_of::<usize>();
    for chunk in bytes.chunks_exact(word) {
        let value = usize::from_ne_bytes(chunk.try_into().expect("a word"));
        if value == 0 {
            continue;
        }
        if let Some(range) = rt.allocation_containing(value) {
            if !ranges.contains(&range) {
                ranges.push(range);
            }
        }
    }
    api::KernelAccess {
        reads: ranges.clone(),
        writes: ranges,
    }
}

/// The accesses the kernel's declaration gives for the arguments `words` (`len` bytes).
fn declared_accesses(
    declare: AccessDeclaration,
    words: &[u64],
    len: usize,
) -> aclrt::Result<api::KernelAccess> {
    let args: *const c_void = if len == 0 {
        std::ptr::null()
    } else {
        words.as_ptr().cast()
    };
    let empty = aclxMemAccess {
        ptr: std::ptr::null(),
        size: 0,
        mode: 0,
    };
    let mut entries = vec![empty; 16];
    loop {
        // SAFETY: the declaration has the documented signature and writes at most `capacity`
        // entries; `args` holds `len` bytes.
        let count = unsafe { declare(args, len, entries.as_mut_ptr(), entries.len()) };
        if count <= entries.len() {
            entries.truncate(count);
            break;
        }
        entries = vec![empty; count];
    }
    let mut access = api::KernelAccess::default();
    for (i, a) in entries.iter().enumerate() {
        if a.mode & !(ACLX_ACCESS_READ | ACLX_ACCESS_WRITE) != 0 {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "the kernel's access declaration gives mode {:#x} for range {i}, with bits \
                     other than ACLX_ACCESS_READ and ACLX_ACCESS_WRITE",
                    a.mode
                ),
            ));
        }
        if a.ptr.is_null() || a.size == 0 {
            continue;
        }
        let range = MemRange {
            start: a.ptr as usize,
            len: a.size,
        };
        if a.mode & ACLX_ACCESS_READ != 0 {
            access.reads.push(range);
        }
        if a.mode & ACLX_ACCESS_WRITE != 0 {
            access.writes.push(range);
        }
    }
    Ok(access)
}

/// Queues `f` on `stream` with a copy of `bytes` as its arguments.
fn launch(
    rt: &Runtime,
    f: &Function,
    num_blocks: u32,
    bytes: Vec<u8>,
    stream: aclrtStream,
) -> aclrt::Result<()> {
    launch_keeping(rt, f, num_blocks, bytes, stream, Vec::new(), None)
}

/// The launches whose arguments are `argsSize` bytes at `argsData` (device memory on the
/// vendor's device): the kernel reads them when it runs, so work queued before it on the
/// stream (an asynchronous copy of the arguments, say) is seen. The bytes there at launch
/// choose the memory accesses the checker sees.
///
/// # Safety
/// `funcHandle` is a live function handle; `argsData` holds `argsSize` bytes until the task
/// ran.
unsafe fn launch_device_args(
    rt: &Runtime,
    funcHandle: *mut c_void,
    numBlocks: u32,
    argsData: *const c_void,
    argsSize: usize,
    stream: aclrtStream,
    call: &str,
) -> aclrt::Result<()> {
    // SAFETY: the caller's promise.
    let f = unsafe { function(funcHandle, call) }?;
    if argsSize == 0 {
        return launch(rt, f, numBlocks, Vec::new(), stream);
    }
    not_null(argsData, call, "argsData")?;
    // Refuses a range that overruns an allocation or runs into freed memory.
    rt.classify_memory(argsData as usize, argsSize, &format!("{call}: argsData"))?;
    // SAFETY: the caller's promise.
    let bytes = unsafe { std::slice::from_raw_parts(argsData.cast::<u8>(), argsSize) }.to_vec();
    launch_keeping(
        rt,
        f,
        numBlocks,
        bytes,
        stream,
        Vec::new(),
        Some(argsData as usize),
    )
}

/// `aclrtLaunchKernel`: runs the kernel on the stream with the `argsSize` bytes at `argsData`
/// as they are when it runs.
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernel(
    funcHandle: *mut c_void,
    numBlocks: u32,
    argsData: *const c_void,
    argsSize: usize,
    stream: aclrtStream,
) -> aclError {
    const CALL: &str = "aclrtLaunchKernel";
    entry(CALL, |rt| {
        // SAFETY: C contract: a live function handle; argsData holds argsSize bytes.
        unsafe { launch_device_args(rt, funcHandle, numBlocks, argsData, argsSize, stream, CALL) }
    })
}

/// `aclrtLaunchKernelV2`: [`aclrtLaunchKernel`] with a launch configuration, which the
/// emulated device does not need (its attributes are ignored).
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernelV2(
    funcHandle: *mut c_void,
    numBlocks: u32,
    argsData: *const c_void,
    argsSize: usize,
    _cfg: *mut c_void,
    stream: aclrtStream,
) -> aclError {
    const CALL: &str = "aclrtLaunchKernelV2";
    entry(CALL, |rt| {
        // SAFETY: C contract: a live function handle; argsData holds argsSize bytes.
        unsafe { launch_device_args(rt, funcHandle, numBlocks, argsData, argsSize, stream, CALL) }
    })
}

/// # Safety
/// `handle` is a live args handle.
unsafe fn args<'a>(handle: *mut c_void, call: &str) -> aclrt::Result<&'a mut Args> {
    check_live(handle, Kind::Header, call, "argsHandle")?;
    // SAFETY: a live header (checked) written by aclrtKernelArgsInit*.
    let state = unsafe { (*handle.cast::<ArgsHeader>()).state };
    check_live(state.cast(), Kind::Args, call, "argsHandle's state")?;
    // SAFETY: a live args state (checked), owned by its function while its binary is loaded.
    Ok(unsafe { &mut *state })
}

/// `aclrtKernelArgsGetHandleMemSize`: bytes of an args handle's state.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetHandleMemSize(
    funcHandle: *mut c_void,
    memSize: *mut usize,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsGetHandleMemSize";
    guard(CALL, || {
        not_null(funcHandle, CALL, "funcHandle")?;
        not_null(memSize, CALL, "memSize")?;
        // SAFETY: checked non-NULL.
        unsafe { put(memSize, std::mem::size_of::<ArgsHeader>()) };
        Ok(())
    })
}

/// `aclrtKernelArgsGetMemSize`: the argument bytes take what the caller asks for.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetMemSize(
    funcHandle: *mut c_void,
    userArgsSize: usize,
    actualArgsSize: *mut usize,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsGetMemSize";
    guard(CALL, || {
        not_null(funcHandle, CALL, "funcHandle")?;
        not_null(actualArgsSize, CALL, "actualArgsSize")?;
        // SAFETY: checked non-NULL.
        unsafe { put(actualArgsSize, userArgsSize) };
        Ok(())
    })
}

/// A new args state for `f`, owned by it, with the header the runtime allocates for it when
/// `header` is true; returns the state and that header.
fn new_args(f: &Function, header: bool) -> (*mut Args, *mut ArgsHeader) {
    let mut state = Box::new(Args {
        function: f,
        bytes: Vec::new(),
        params: Vec::new(),
        finalized: false,
    });
    let state_ptr: *mut Args = &mut *state;
    let mut header = header.then(|| Box::new(ArgsHeader { state: state_ptr }));
    let header_ptr = header
        .as_deref_mut()
        .map_or(std::ptr::null_mut(), |h| h as *mut ArgsHeader);
    {
        let mut live = live();
        live.insert(state_ptr as usize, Kind::Args);
        if !header_ptr.is_null() {
            live.insert(header_ptr as usize, Kind::Header);
        }
    }
    f.args
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .push((state, header));
    (state_ptr, header_ptr)
}

/// `aclrtKernelArgsInit`: an empty args handle for the kernel, valid until its binary is
/// unloaded.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsInit(
    funcHandle: *mut c_void,
    argsHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsInit";
    guard(CALL, || {
        // SAFETY: a live function handle (C contract).
        let f = unsafe { function(funcHandle, CALL) }?;
        not_null(argsHandle, CALL, "argsHandle")?;
        let (_, header) = new_args(f, true);
        // SAFETY: checked non-NULL.
        unsafe { put(argsHandle, header.cast()) };
        Ok(())
    })
}

/// `aclrtKernelArgsInitByUserMem`: an empty args handle at `argsHandle`
/// (`aclrtKernelArgsGetHandleMemSize` bytes, pointer-aligned, kept by the caller while the
/// handle is used); the argument bytes are the runtime's, and the user host memory is not used.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsInitByUserMem(
    funcHandle: *mut c_void,
    argsHandle: *mut c_void,
    _userHostMem: *mut c_void,
    _actualArgsSize: usize,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsInitByUserMem";
    guard(CALL, || {
        // SAFETY: a live function handle (C contract).
        let f = unsafe { function(funcHandle, CALL) }?;
        not_null(argsHandle, CALL, "argsHandle")?;
        if argsHandle as usize % std::mem::align_of::<ArgsHeader>() != 0 {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!("{CALL}: argsHandle {argsHandle:p} is not pointer-aligned"),
            ));
        }
        let (state, _) = new_args(f, false);
        // SAFETY: the caller gives aclrtKernelArgsGetHandleMemSize writable, aligned bytes.
        unsafe { argsHandle.cast::<ArgsHeader>().write(ArgsHeader { state }) };
        live().insert(argsHandle as usize, Kind::Header);
        f.user_headers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(argsHandle as usize);
        Ok(())
    })
}

fn param_handle(index: usize) -> *mut c_void {
    (index + 1) as *mut c_void
}

fn param_index(a: &Args, handle: *mut c_void, call: &str) -> aclrt::Result<usize> {
    let i = (handle as usize).wrapping_sub(1);
    if i >= a.params.len() {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("{call}: {handle:p} is not a parameter of this args handle"),
        ));
    }
    Ok(i)
}

/// `aclrtKernelArgsAppend`: copies `paramSize` bytes to the end of the arguments (no padding).
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsAppend(
    argsHandle: *mut c_void,
    param: *mut c_void,
    paramSize: usize,
    paramHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsAppend";
    guard(CALL, || {
        // SAFETY: a live args handle (C contract).
        let a = unsafe { args(argsHandle, CALL) }?;
        refuse_if_finalized(a, CALL)?;
        if paramSize == 0 {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!("{CALL}: paramSize is 0"),
            ));
        }
        not_null(param, CALL, "param")?;
        not_null(paramHandle, CALL, "paramHandle")?;
        // SAFETY: `param` holds paramSize bytes (C contract).
        let bytes = unsafe { std::slice::from_raw_parts(param.cast::<u8>(), paramSize) };
        let offset = a.bytes.len();
        a.bytes.extend_from_slice(bytes);
        a.params.push(Param {
            offset,
            size: paramSize,
            kind: ParamKind::Value,
        });
        // SAFETY: checked non-NULL.
        unsafe { put(paramHandle, param_handle(a.params.len() - 1)) };
        Ok(())
    })
}

/// `aclrtKernelArgsAppendPlaceHolder`: a pointer slot at the end of the arguments, to point to
/// the buffer `aclrtKernelArgsGetPlaceHolderBuffer` gives.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsAppendPlaceHolder(
    argsHandle: *mut c_void,
    paramHandle: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsAppendPlaceHolder";
    guard(CALL, || {
        // SAFETY: a live args handle (C contract).
        let a = unsafe { args(argsHandle, CALL) }?;
        refuse_if_finalized(a, CALL)?;
        not_null(paramHandle, CALL, "paramHandle")?;
        let offset = a.bytes.len();
        let size = std::mem::size_of::<usize>();
        a.bytes
            .extend_from_slice(&[0; std::mem::size_of::<usize>()]);
        a.params.push(Param {
            offset,
            size,
            kind: ParamKind::PlaceHolder(None, 0),
        });
        // SAFETY: checked non-NULL.
        unsafe { put(paramHandle, param_handle(a.params.len() - 1)) };
        Ok(())
    })
}

/// `aclrtKernelArgsGetPlaceHolderBuffer`: a zeroed host buffer of `dataSize` bytes, owned by
/// the args handle, for the placeholder's data; the kernel sees a copy taken at launch.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsGetPlaceHolderBuffer(
    argsHandle: *mut c_void,
    paramHandle: *mut c_void,
    dataSize: usize,
    bufferAddr: *mut *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsGetPlaceHolderBuffer";
    guard(CALL, || {
        // SAFETY: a live args handle (C contract).
        let a = unsafe { args(argsHandle, CALL) }?;
        let i = param_index(a, paramHandle, CALL)?;
        not_null(bufferAddr, CALL, "bufferAddr")?;
        if dataSize == 0 {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!("{CALL}: dataSize is 0"),
            ));
        }
        let ParamKind::PlaceHolder(buffer, size) = &mut a.params[i].kind else {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!("{CALL}: parameter {paramHandle:p} is not a placeholder"),
            ));
        };
        let mut fresh = vec![0u64; dataSize.div_ceil(8)].into_boxed_slice();
        let ptr: *mut c_void = fresh.as_mut_ptr().cast();
        *buffer = Some(fresh);
        *size = dataSize;
        // SAFETY: checked non-NULL.
        unsafe { put(bufferAddr, ptr) };
        Ok(())
    })
}

/// `aclrtKernelArgsParaUpdate`: replaces an appended parameter's bytes (same size).
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsParaUpdate(
    argsHandle: *mut c_void,
    paramHandle: *mut c_void,
    param: *mut c_void,
    paramSize: usize,
) -> aclError {
    const CALL: &str = "aclrtKernelArgsParaUpdate";
    guard(CALL, || {
        // SAFETY: a live args handle (C contract).
        let a = unsafe { args(argsHandle, CALL) }?;
        let i = param_index(a, paramHandle, CALL)?;
        not_null(param, CALL, "param")?;
        let p = &a.params[i];
        if !matches!(p.kind, ParamKind::Value) || p.size != paramSize {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!(
                    "{CALL}: parameter {paramHandle:p} is {} of {} bytes, not {paramSize} bytes",
                    if matches!(p.kind, ParamKind::Value) {
                        "a value"
                    } else {
                        "a placeholder"
                    },
                    p.size
                ),
            ));
        }
        // SAFETY: `param` holds paramSize bytes (C contract).
        let bytes = unsafe { std::slice::from_raw_parts(param.cast::<u8>(), paramSize) };
        a.bytes[p.offset..p.offset + p.size].copy_from_slice(bytes);
        Ok(())
    })
}

/// `aclrtKernelArgsFinalize`: the parameters are complete; appending more is refused. The
/// handle stays usable for launches and updates.
#[no_mangle]
pub unsafe extern "C" fn aclrtKernelArgsFinalize(argsHandle: *mut c_void) -> aclError {
    const CALL: &str = "aclrtKernelArgsFinalize";
    guard(CALL, || {
        // SAFETY: a live args handle (C contract).
        let a = unsafe { args(argsHandle, CALL) }?;
        a.finalized = true;
        Ok(())
    })
}

fn refuse_if_finalized(a: &Args, call: &str) -> aclrt::Result<()> {
    if a.finalized {
        return Err(fail(
            ACL_ERROR_INVALID_PARAM,
            format!("{call}: the args handle is finalized; no parameter can be appended"),
        ));
    }
    Ok(())
}

/// `aclrtLaunchKernelWithConfig`: launches with the handle's arguments; placeholder slots
/// point to copies of their buffers taken now. The configuration's attributes are ignored.
#[no_mangle]
pub unsafe extern "C" fn aclrtLaunchKernelWithConfig(
    funcHandle: *mut c_void,
    numBlocks: u32,
    stream: aclrtStream,
    _cfg: *mut c_void,
    argsHandle: *mut c_void,
    _reserve: *mut c_void,
) -> aclError {
    const CALL: &str = "aclrtLaunchKernelWithConfig";
    entry(CALL, |rt| {
        // SAFETY: live function and args handles (C contract).
        let (f, a) = unsafe { (function(funcHandle, CALL)?, args(argsHandle, CALL)?) };
        if !std::ptr::eq(a.function, f) {
            return Err(fail(
                ACL_ERROR_INVALID_PARAM,
                format!("{CALL}: the args handle was made for another function"),
            ));
        }
        let mut bytes = a.bytes.clone();
        // Placeholder data goes after the arguments, each copy 8-byte aligned; the slots are
        // patched once the final buffer's address is known, inside the task.
        let mut tail = Vec::new();
        for p in &a.params {
            if let ParamKind::PlaceHolder(Some(buffer), size) = &p.kind {
                // SAFETY: the buffer holds at least `size` bytes.
                let data =
                    unsafe { std::slice::from_raw_parts(buffer.as_ptr().cast::<u8>(), *size) };
                tail.push((p.offset, data.to_vec()));
            }
        }
        if tail.is_empty() {
            return launch(rt, f, numBlocks, bytes, stream);
        }
        // The placeholder copies live in boxes moved into the task; their addresses are stable.
        let copies: Vec<Box<[u64]>> = tail
            .iter()
            .map(|(offset, data)| {
                let mut b = vec![0u64; data.len().div_ceil(8)].into_boxed_slice();
                // SAFETY: `b` holds at least data.len() bytes.
                unsafe {
                    std::ptr::copy_nonoverlapping(data.as_ptr(), b.as_mut_ptr().cast(), data.len())
                };
                let addr = b.as_ptr() as usize;
                bytes[*offset..*offset + std::mem::size_of::<usize>()]
                    .copy_from_slice(&addr.to_ne_bytes());
                b
            })
            .collect();
        launch_keeping(rt, f, numBlocks, bytes, stream, copies, None)
    })
}

/// [`launch`], keeping `extra` alive until the kernel ran.
fn launch_keeping(
    rt: &Runtime,
    f: &Function,
    num_blocks: u32,
    bytes: Vec<u8>,
    stream: aclrtStream,
    extra: Vec<Box<[u64]>>,
    from: Option<usize>,
) -> aclrt::Result<()> {
    // Keep the copy 8-byte aligned: kernels read packed arguments in place.
    let len = bytes.len();
    let mut words = vec![0u64; len.div_ceil(8)].into_boxed_slice();
    // SAFETY: `words` holds at least `len` bytes; the regions are distinct.
    unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), words.as_mut_ptr().cast(), len) };
    let mut access = match f.accesses {
        Some(declare) => declared_accesses(declare, &words, len)?,
        None => pointer_accesses(rt, &bytes),
    };
    if let Some(start) = from.filter(|_| len > 0) {
        access.reads.push(MemRange { start, len });
    }
    let library = f.library.clone();
    let entry = f.entry;
    let name = f.name.to_string_lossy().into_owned();
    let kernel = Box::new(move || {
        let _held = (library, extra);
        let mut words = words;
        if let Some(from) = from {
            // SAFETY: the launch's argsData holds `len` bytes, and stays valid until the task
            // ran (the caller's contract, as on the device); `words` holds at least `len`.
            unsafe {
                std::ptr::copy_nonoverlapping(from as *const u8, words.as_mut_ptr().cast(), len)
            };
        }
        let args = if len == 0 {
            std::ptr::null_mut()
        } else {
            words.as_mut_ptr().cast()
        };
        // SAFETY: the library stays open (held above); the kernel has the documented
        // signature; `args` holds `len` bytes.
        match unsafe { entry(num_blocks, args, len) } {
            0 => Ok(()),
            code => Err(code as aclError),
        }
    });
    rt.launch_kernel(stream_handle(stream), &name, access, kernel)
        .map(|_| ())
}

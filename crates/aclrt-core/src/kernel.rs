//! The objects of the vendor kernel API (`aclrtBinary*`, `aclrtKernelArgs*`,
//! `aclrtLaunchKernel*`) over host libraries: a binary is a host shared library, a kernel one of
//! its exported functions of the signature `acl/acl_host_kernel.h` declares, and a launch runs it
//! once, in stream order, on the stream's worker.
//!
//! Invariants:
//! - Every object lives in one of the runtime's handle tables ([`Kernels`]), so a stale,
//!   garbage or foreign handle fails lookup (`107017`) and is never followed.
//! - A binary owns its functions and they own their args handles: unloading the binary removes
//!   all of them from their tables at once (a function's list is closed under its lock, so an
//!   args handle made concurrently with the unload is refused instead of outliving it).
//! - A launch copies the argument bytes (placeholder buffers included) when it is made, or for
//!   a launch from an address when the kernel runs, and holds the library open until the
//!   kernel ran, so unloading with launches queued is safe.
//! - A kernel that fails leaves what the exception callback may ask about it ([`FailedKernel`],
//!   with its argument copy) in a slot of the worker thread; the stream takes it into the
//!   failure it reports on that same thread and empties the slot right after, so the copy
//!   lives exactly while the exception callback can read it.
//! - A binary's function list is closed under its lock the same way when it is unloaded: a
//!   lookup racing the unload lists nothing and gets `107017`, so no function (nor the library
//!   it holds open) outlives the binary.
//! - None of these locks is held while user code runs (a kernel, an access declaration, a
//!   symbol lookup that may run the library's IFUNC resolvers, a library's destructors when
//!   the last reference closes it) or while another lock is taken, the handle tables' own
//!   included: each is a leaf, except that an address in the caller's memory is entered in
//!   [`UserArgs`] under its function's [`FunctionArgs`] lock (so an unload's cleanup cannot
//!   run between the check that the list is open and the entry). Objects are inserted in
//!   their table before a list lock is taken and removed again after it is released when the
//!   list turned out closed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr::NonNull;
use std::sync::{Arc, Mutex};

use crate::handle::{ArgsHandle, BinHandle, BinaryImageHandle, FuncHandle, HandleTable};
use crate::hostlib::HostLibrary;

/// `aclHostKernel`: the entry point of a kernel in a host library.
pub(crate) type HostKernel =
    unsafe extern "C" fn(num_blocks: u32, args: *mut c_void, args_size: usize) -> u32;

/// One byte range of a kernel's access declaration, laid out as `aclxMemAccess` (the host
/// library writes an array of them).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub(crate) struct DeclaredAccess {
    pub(crate) ptr: *const c_void,
    pub(crate) size: usize,
    pub(crate) mode: u32,
}

/// `aclrtPlaceHolderInfo`: where a placeholder's pointer slot is in the host arguments, and
/// where the data it points to starts, both as byte offsets into them.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlaceHolder {
    /// `addrOffset`.
    pub addr_offset: u32,
    /// `dataOffset`.
    pub data_offset: u32,
}

/// `ACL_HOST_KERNEL_ACCESSES(name)`: the memory a launch with these arguments touches.
pub(crate) type AccessDeclaration = unsafe extern "C" fn(
    args: *const c_void,
    args_size: usize,
    accesses: *mut DeclaredAccess,
    capacity: usize,
) -> usize;

/// The prefix of a kernel's access declaration symbol.
pub(crate) const ACCESSES_PREFIX: &str = "aclHostKernelAccesses_";

/// The prefix of a kernel's parameter declaration: an exported `size_t` array of the
/// parameters' sizes, ended by a 0 (`ACL_HOST_KERNEL_PARAMS`).
pub(crate) const PARAMS_PREFIX: &str = "aclHostKernelParams_";

/// The most parameters a declaration may give; one whose terminating 0 is not among its first
/// `MAX_PARAMS + 1` entries (or within its symbol's size) is refused when used.
pub(crate) const MAX_PARAMS: usize = 1024;

/// Bytes of an args handle placed in the caller's memory (`aclrtKernelArgsGetHandleMemSize`);
/// such a handle must be aligned to it.
pub(crate) const ARGS_HANDLE_MEM_SIZE: usize = std::mem::size_of::<u64>();

/// The largest placeholder buffer (`aclrtKernelArgsGetPlaceHolderBuffer`): the vendor's args
/// buffer holds 64 KiB in all, so no placeholder's data can be larger there either.
pub(crate) const MAX_PLACEHOLDER_BYTES: usize = 64 * 1024;

/// The most ranges a kernel's access declaration may give for one launch; a declaration asking
/// for more is refused rather than sized from a count the library made up.
pub(crate) const MAX_DECLARED_ACCESSES: usize = 4096;

/// The kernel objects of one runtime.
pub(crate) struct Kernels {
    /// `aclrtCreateBinary` images.
    pub(crate) images: HandleTable<Image>,
    pub(crate) binaries: HandleTable<Binary>,
    pub(crate) functions: HandleTable<Function>,
    pub(crate) args: HandleTable<Args>,
    /// Args handles placed in the caller's memory (`aclrtKernelArgsInitByUserMem`), by address.
    pub(crate) user_args: Mutex<UserArgs>,
}

impl Default for Kernels {
    fn default() -> Self {
        Self {
            images: HandleTable::new(BinaryImageHandle::TAG),
            binaries: HandleTable::new(BinHandle::TAG),
            functions: HandleTable::new(FuncHandle::TAG),
            args: HandleTable::new(ArgsHandle::TAG),
            user_args: Mutex::new(UserArgs::default()),
        }
    }
}

/// Addresses of args handles in the caller's memory, and the args they name.
#[derive(Default)]
pub(crate) struct UserArgs {
    pub(crate) by_address: HashMap<u64, ArgsHandle>,
}

/// `aclrtCreateBinary`'s result: the image bytes, loaded by `aclrtBinaryLoad`.
pub(crate) struct Image(pub(crate) Vec<u8>);

/// A loaded library and the functions looked up in it.
pub(crate) struct Binary {
    pub(crate) library: Arc<HostLibrary>,
    pub(crate) functions: Mutex<BinaryFunctions>,
}

/// The functions of a binary by name: the same name gives the same handle.
#[derive(Default)]
pub(crate) struct BinaryFunctions {
    pub(crate) by_name: HashMap<String, FuncHandle>,
    /// Set when the binary is unloaded: no function is listed for it after it.
    pub(crate) closed: bool,
}

/// One kernel of a binary.
pub(crate) struct Function {
    pub(crate) handle: FuncHandle,
    /// The binary it was looked up in.
    pub(crate) binary: BinHandle,
    pub(crate) library: Arc<HostLibrary>,
    pub(crate) entry: HostKernel,
    pub(crate) accesses: Option<AccessDeclaration>,
    pub(crate) name: String,
    /// The parameters' sizes from its declaration, packed back to back in this order; why
    /// there are none known when the library declares none or a malformed list.
    pub(crate) params: std::result::Result<Vec<usize>, String>,
    pub(crate) args: Mutex<FunctionArgs>,
}

/// The parameter sizes the declaration at `address` gives: entries up to the first 0, read
/// within the symbol's size when the loader knows it, and at most [`MAX_PARAMS`] of them. A
/// symbol whose size is not a whole number of entries (a declaration other than the macro's
/// array) is refused before anything is read, so nothing past it is.
///
/// # Safety
/// `address` is the exported `aclHostKernelParams_` array of a library that stays open during
/// the call, readable up to its terminating 0 (the declaration's contract) or its symbol size.
pub(crate) unsafe fn read_params(address: *const usize) -> std::result::Result<Vec<usize>, String> {
    let word = std::mem::size_of::<usize>();
    let symbol_size = crate::hostlib::symbol_size(address as usize);
    if !symbol_size.is_multiple_of(word) {
        return Err(format!(
            "its parameter declaration is {symbol_size} bytes, not a whole number of \
             {word}-byte entries"
        ));
    }
    let symbol_entries = symbol_size / word;
    let limit = if symbol_entries == 0 {
        MAX_PARAMS + 1
    } else {
        symbol_entries.min(MAX_PARAMS + 1)
    };
    let mut sizes = Vec::new();
    for i in 0..limit {
        // SAFETY: within the symbol (or up to the terminator the contract promises).
        let size = unsafe { address.add(i).read_unaligned() };
        if size == 0 {
            return Ok(sizes);
        }
        sizes.push(size);
    }
    Err(format!(
        "its parameter declaration has no terminating 0 within {limit} entries (at most \
         {MAX_PARAMS} parameters)"
    ))
}

/// The args handles made for a function, removed with it.
#[derive(Default)]
pub(crate) struct FunctionArgs {
    pub(crate) handles: Vec<ArgsHandle>,
    /// Addresses of the handles among them placed in the caller's memory.
    pub(crate) user_addresses: Vec<u64>,
    /// Set when the binary is unloaded: no args handle is made for the function after it.
    pub(crate) closed: bool,
}

/// Zeroed, 8-byte aligned bytes whose address is handed out (to the caller, or to a kernel and
/// the exception callback), freed on drop.
///
/// They are kept as a raw pointer from [`Box::into_raw`], never as a `Box` or a reference: a
/// `Box` claims unique access each time it is moved or used, which writes through the address
/// handed out would break. Every access goes through the raw pointer, so moving a `Words`
/// moves only the pointer.
pub(crate) struct Words {
    words: NonNull<[u64]>,
    /// Bytes in use (the allocation is rounded up to whole words).
    len: usize,
}

// SAFETY: `Words` owns its allocation like a `Box<[u64]>`; it hands out no references, and the
// runtime reads and writes the bytes only through the raw pointer while it holds the owner
// (an args handle's state under its lock, or the one task that runs the kernel).
unsafe impl Send for Words {}
// SAFETY: as for `Send`; `&Words` gives only the address and the length.
unsafe impl Sync for Words {}

impl Words {
    /// `len` zeroed bytes.
    pub(crate) fn zeroed(len: usize) -> Self {
        let boxed = vec![0u64; len.div_ceil(8)].into_boxed_slice();
        Self {
            words: NonNull::new(Box::into_raw(boxed)).expect("a box is never NULL"),
            len,
        }
    }

    /// A copy of the `len` bytes at `src`.
    ///
    /// # Safety
    /// `src` is readable for `len` bytes.
    pub(crate) unsafe fn copy_of(src: *const u8, len: usize) -> Self {
        let words = Self::zeroed(len);
        // SAFETY: `src` holds `len` readable bytes (the caller's promise), the new allocation
        // at least `len` writable ones, and they are distinct.
        unsafe { std::ptr::copy_nonoverlapping(src, words.addr(), len) };
        words
    }

    /// The address of the first byte (dangling but aligned when `len` is 0).
    pub(crate) fn addr(&self) -> *mut u8 {
        self.words.as_ptr().cast::<u8>()
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        // SAFETY: the pointer came from `Box::into_raw` in `zeroed` and is freed only here.
        drop(unsafe { Box::from_raw(self.words.as_ptr()) });
    }
}

/// What a parameter of an args handle is.
pub(crate) enum ParamKind {
    /// Bytes copied in by `aclrtKernelArgsAppend`.
    Value,
    /// A pointer slot whose data is the buffer `aclrtKernelArgsGetPlaceHolderBuffer` gave
    /// (`None` before it was asked for); the caller writes it through its address.
    PlaceHolder(Option<Words>),
}

pub(crate) struct Param {
    pub(crate) offset: usize,
    pub(crate) size: usize,
    pub(crate) kind: ParamKind,
}

/// An args handle: made for one function, its parameters packed with no padding.
pub(crate) struct Args {
    pub(crate) function: FuncHandle,
    pub(crate) state: Mutex<ArgsState>,
}

#[derive(Default)]
pub(crate) struct ArgsState {
    pub(crate) bytes: Vec<u8>,
    pub(crate) params: Vec<Param>,
    /// Set by `aclrtKernelArgsFinalize`: no parameter may be appended after it.
    pub(crate) finalized: bool,
}

impl ArgsState {
    /// The argument bytes of a launch made now, with the placeholder data that must live until
    /// the kernel ran: each placeholder slot points to an 8-byte aligned copy of its buffer.
    pub(crate) fn launch_bytes(&self) -> (Vec<u8>, Vec<Words>) {
        let mut bytes = self.bytes.clone();
        let mut copies = Vec::new();
        for p in &self.params {
            if let ParamKind::PlaceHolder(Some(buffer)) = &p.kind {
                // SAFETY: the buffer holds `len` bytes; the caller writes them through their
                // address, so they are read through the pointer too.
                let copy = unsafe { Words::copy_of(buffer.addr(), buffer.len()) };
                let addr = copy.addr() as usize;
                bytes[p.offset..p.offset + std::mem::size_of::<usize>()]
                    .copy_from_slice(&addr.to_ne_bytes());
                copies.push(copy);
            }
        }
        (bytes, copies)
    }
}

/// A parameter handle: the parameter's position plus one (never 0, so never NULL).
pub(crate) fn param_handle(index: usize) -> usize {
    index + 1
}

/// What a failed task launched through the kernel API tells the exception callback
/// (`aclrtGetFuncHandleFromExceptionInfo`, `aclrtGetArgsFromExceptionInfo`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FailedKernel {
    /// The raw function handle.
    pub func: u64,
    /// Where the kernel's arguments are: the launch's `argsData`, or the runtime's copy of an
    /// args handle's bytes (valid while the exception callback runs).
    pub args: usize,
    /// Bytes of arguments.
    pub args_len: u32,
}

thread_local! {
    /// The kernel that just failed on this thread, with its argument copy kept alive until the
    /// stream has reported the failure (the exception callback runs on this thread, in between).
    static FAILED: RefCell<Option<(FailedKernel, Words)>> = const { RefCell::new(None) };
}

/// Notes, from inside a failing kernel task, what the failure report names.
pub(crate) fn note_failed(kernel: FailedKernel, words: Words) {
    let _ = FAILED.try_with(|f| *f.borrow_mut() = Some((kernel, words)));
}

/// The kernel the task that just failed on this thread launched, if it was one.
pub(crate) fn failed_kernel() -> Option<FailedKernel> {
    FAILED
        .try_with(|f| f.borrow().as_ref().map(|(k, _)| *k))
        .ok()
        .flatten()
}

/// Forgets the failed kernel (its failure has been reported), freeing its argument copy.
pub(crate) fn forget_failed_kernel() {
    let taken = FAILED.try_with(|f| f.borrow_mut().take()).ok().flatten();
    drop(taken);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(address: *const u8, len: usize) -> Vec<u8> {
        // SAFETY: the tests read only bytes they own.
        unsafe { std::slice::from_raw_parts(address, len) }.to_vec()
    }

    /// The caller writes a placeholder's buffer through its address between launches while the
    /// runtime moves and reads it; a kernel writes its copy through the slot. Runs under Miri.
    #[test]
    fn placeholder_data_is_written_and_copied_through_addresses() {
        let mut state = ArgsState {
            bytes: vec![0; 8],
            ..Default::default()
        };
        let buffer = Words::zeroed(12);
        let address = buffer.addr();
        state.params.push(Param {
            offset: 0,
            size: 8,
            kind: ParamKind::PlaceHolder(Some(buffer)),
        });
        // SAFETY: the buffer holds 12 bytes.
        unsafe { address.write_bytes(7, 12) };
        let state = Box::new(state);
        let (bytes, copies) = state.launch_bytes();
        // SAFETY: as above.
        unsafe { address.add(11).write(9) };
        let (later, later_copies) = state.launch_bytes();
        assert_eq!(read(address, 12), [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 9]);
        let slot = usize::from_ne_bytes(bytes[..8].try_into().unwrap()) as *mut u8;
        assert_eq!(slot, copies[0].addr());
        assert_eq!(read(slot, 12), [7; 12]);
        let later_slot = usize::from_ne_bytes(later[..8].try_into().unwrap()) as *const u8;
        assert_eq!(read(later_slot, 12)[11], 9);
        // The kernel writes its copy; the copy then moves (into the failure slot, say) and is
        // read through the address the exception callback was given.
        // SAFETY: the copy holds 12 bytes.
        unsafe { slot.write(1) };
        let moved = copies;
        assert_eq!(read(slot, 1), [1]);
        assert_eq!(moved[0].len(), 12);
        drop((moved, later_copies, state));
        assert_eq!(Words::zeroed(0).len(), 0);
    }
}

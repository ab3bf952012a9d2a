//! Which raw pointers a Python call may touch.
//!
//! In pyACL a pointer is a bare int and every copy trusts it: a stale or mistyped int is a
//! segmentation fault. Here a copy, a set or `acl.util.ptr_to_bytes` touches only:
//!
//! - runtime memory (`acl.rt.malloc`, `malloc_host`, `acl.media.dvpp_malloc`), which the core
//!   bounds-checks (a freed or overrun range is refused with `ACL_ERROR_INVALID_PARAM`);
//! - host buffers this module knows: the `bytes`, `bytearray` and NumPy arrays whose addresses
//!   `acl.util.bytes_to_ptr` / `numpy_to_ptr` handed out. Each is kept alive (and a bytearray
//!   kept from resizing) while its address is known; once the program holds no reference to
//!   the object, it is forgotten at a later registration and its address is refused again;
//! - with raw pointers allowed (`acl.ext.set_raw_pointers(True)` or
//!   `ACLRT_PYTHON_RAW_POINTERS=1`), any other address, trusted as pyACL trusts it.
//!
//! Every other address is refused with `ACL_ERROR_INVALID_PARAM`: the call returns the code,
//! or `ptr_to_bytes` raises `ValueError`, before any byte moves.
//!
//! Everything here runs with the GIL held, which is what keeps a known buffer's owner from
//! being released between the check and the copy.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};

use aclrt::api::MemoryRange;
use aclrt::codes::ACL_ERROR_INVALID_PARAM;
use aclrt::Runtime;
use pyo3::prelude::*;
use pyo3::types::PyMemoryView;

/// Environment variable that allows raw pointers from the start (`1`, `true`, `yes`, `on`).
pub const ENV_RAW_POINTERS: &str = "ACLRT_PYTHON_RAW_POINTERS";

static RAW_POINTERS: AtomicBool = AtomicBool::new(false);

/// Reads [`ENV_RAW_POINTERS`] (at module import).
pub fn init_from_env() {
    let on = std::env::var(ENV_RAW_POINTERS).is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    });
    RAW_POINTERS.store(on, Ordering::Relaxed);
}

/// Whether raw pointers are trusted; sets it and returns the previous setting.
pub fn set_raw_pointers(on: bool) -> bool {
    RAW_POINTERS.swap(on, Ordering::Relaxed)
}

pub fn raw_pointers() -> bool {
    RAW_POINTERS.load(Ordering::Relaxed)
}

/// A host buffer whose address was handed out.
struct Buffer {
    start: usize,
    len: usize,
    writable: bool,
    /// The object that owns the memory.
    owner: Py<PyAny>,
    /// A `memoryview` of a bytearray: while it exists the bytearray cannot be resized, so
    /// `start` stays its address.
    _export: Option<Py<PyAny>>,
    /// References to `owner` this entry holds: when the owner's count is down to this, the
    /// program no longer holds the object and the entry is dropped.
    own_refs: isize,
}

impl Buffer {
    fn contains(&self, ptr: usize, len: usize) -> bool {
        ptr >= self.start
            && ptr
                .checked_add(len)
                .is_some_and(|end| end <= self.start + self.len)
    }
}

#[derive(Default)]
struct Known {
    buffers: Vec<Buffer>,
    /// Entries left after the last sweep: the next sweep comes when there are twice as many.
    after_sweep: usize,
}

/// Below this many entries, every registration sweeps (memory of dropped buffers goes back at
/// once in the common case of a few live buffers).
const SWEEP_ALWAYS: usize = 256;

static KNOWN: Mutex<Option<Known>> = Mutex::new(None);

fn known() -> MutexGuard<'static, Option<Known>> {
    KNOWN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Remembers that `len` bytes at `start`, memory of `owner`, were handed out as an address.
/// `lock_size` keeps a resizable owner (bytearray) from moving its memory.
pub fn register(
    owner: &Bound<'_, PyAny>,
    start: usize,
    len: usize,
    writable: bool,
    lock_size: bool,
) -> PyResult<()> {
    if len == 0 || start == 0 || is_known(owner) {
        return Ok(());
    }
    let py = owner.py();
    // Everything that may run Python code happens outside the lock: another thread could run
    // meanwhile and want it.
    let before = owner.get_refcnt();
    let export = if lock_size {
        Some(PyMemoryView::from(owner)?.into_any().unbind())
    } else {
        None
    };
    let held = owner.clone().unbind();
    let own_refs = owner.get_refcnt() - before;
    let entry = Buffer {
        start,
        len,
        writable,
        owner: held,
        _export: export,
        own_refs,
    };
    // Entries to release once the lock is dropped: releasing an object may run Python code.
    let released: Vec<Buffer> = {
        let mut guard = known();
        let known = guard.get_or_insert_with(Known::default);
        let n = known.buffers.len();
        let mut gone = Vec::new();
        if n < SWEEP_ALWAYS || n >= 2 * known.after_sweep {
            let (keep, dropped): (Vec<_>, Vec<_>) = std::mem::take(&mut known.buffers)
                .into_iter()
                .partition(|b| b.owner.get_refcnt(py) > b.own_refs);
            known.buffers = keep;
            known.after_sweep = known.buffers.len().max(SWEEP_ALWAYS / 2);
            gone = dropped;
        }
        known.buffers.push(entry);
        gone
    };
    drop(released);
    Ok(())
}

fn is_known(owner: &Bound<'_, PyAny>) -> bool {
    known()
        .as_ref()
        .is_some_and(|k| k.buffers.iter().any(|b| b.owner.is(owner)))
}

/// What a known buffer says about a range: `Err` with a reason when the range is inside known
/// buffers but cannot be written.
enum Found {
    Yes(Py<PyAny>),
    ReadOnly,
    No,
}

fn find(py: Python<'_>, ptr: usize, len: usize, write: bool) -> Found {
    let guard = known();
    let Some(known) = guard.as_ref() else {
        return Found::No;
    };
    let mut read_only = false;
    for b in known.buffers.iter().filter(|b| b.contains(ptr, len)) {
        if b.writable || !write {
            return Found::Yes(b.owner.clone_ref(py));
        }
        read_only = true;
    }
    if read_only {
        Found::ReadOnly
    } else {
        Found::No
    }
}

/// The owner of a known buffer holding `len` bytes at `ptr`, if there is one (for reads).
pub fn known_owner(py: Python<'_>, ptr: usize, len: usize) -> Option<Py<PyAny>> {
    match find(py, ptr, len, false) {
        Found::Yes(owner) => Some(owner),
        _ => None,
    }
}

/// Whether `len` bytes at `ptr` lie in a known buffer that may be written.
pub fn known_writable(py: Python<'_>, ptr: usize, len: usize) -> bool {
    matches!(find(py, ptr, len, true), Found::Yes(_))
}

/// How many buffers are known (for tests).
pub fn known_count() -> usize {
    known().as_ref().map_or(0, |k| k.buffers.len())
}

/// The refusal of memory the face does not know.
pub fn unknown(what: &str, ptr: usize, len: usize) -> aclrt::Error {
    aclrt::Error::new(
        ACL_ERROR_INVALID_PARAM,
        format!(
            "{what} ({len} bytes at {ptr:#x}) is neither runtime memory nor inside a live buffer \
             from acl.util.bytes_to_ptr / numpy_to_ptr; acl.ext.set_raw_pointers(True) (or \
             {ENV_RAW_POINTERS}=1) trusts such addresses as pyACL does"
        ),
    )
}

/// Checks that a copy or set may touch `len` bytes at `ptr` (`write`: it writes them).
///
/// `Ok(None)`: the core checks the range itself (NULL, empty, runtime memory, a range it
/// refuses) or raw pointers are trusted. `Ok(Some(owner))`: a known host buffer; holding
/// `owner` keeps the memory alive. `Err`: refused.
pub fn vet(
    py: Python<'_>,
    rt: &Runtime,
    ptr: usize,
    len: usize,
    write: bool,
    what: &str,
) -> aclrt::Result<Option<Py<PyAny>>> {
    if ptr == 0 || len == 0 {
        return Ok(None);
    }
    match rt.classify_memory(ptr, len, what) {
        Ok(MemoryRange::Foreign) => {}
        // Runtime memory, or a range the core will refuse with its own message.
        _ => return Ok(None),
    }
    match find(py, ptr, len, write) {
        Found::Yes(owner) => Ok(Some(owner)),
        Found::ReadOnly if !raw_pointers() => Err(aclrt::Error::new(
            ACL_ERROR_INVALID_PARAM,
            format!("{what} ({len} bytes at {ptr:#x}) is in a read-only array"),
        )),
        _ if raw_pointers() => Ok(None),
        _ => Err(unknown(what, ptr, len)),
    }
}

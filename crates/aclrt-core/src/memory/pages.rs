//! The operating-system side of runtime memory: reserving address space whose pages cost
//! nothing until they are written, and handing pages back.
//!
//! Segments are private anonymous mappings made with `MAP_NORESERVE`: the kernel neither
//! commits nor charges memory for them up front (under the default overcommit policy), a page
//! is backed only when first written, and a page never written reads as zero. Segments are
//! never unmapped, so an address inside one stays readable and writable for the life of the
//! process.

use std::ffi::CStr;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::OnceLock;

/// The size of a memory page.
pub(super) fn page_size() -> usize {
    static PAGE: OnceLock<usize> = OnceLock::new();
    *PAGE.get_or_init(|| {
        // SAFETY: sysconf only reads a system setting.
        let n = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(4096)
    })
}

/// Why [`memory_file`] failed: the host's error, and whether it came from sizing the file
/// (`true`) or from creating it; callers word the two differently.
#[derive(Debug)]
pub(crate) struct FileError {
    pub(crate) sizing: bool,
    pub(crate) os: std::io::Error,
}

/// A fresh anonymous shared-memory file (`memfd_create`) of `len` bytes, all reading as zero
/// and backed only where written, closed on exec. `name` shows only in `/proc`, for whoever
/// looks at the process.
pub(crate) fn memory_file(name: &CStr, len: libc::off_t) -> Result<OwnedFd, FileError> {
    // SAFETY: memfd_create takes a NUL-terminated name and flags; it returns a new descriptor
    // or -1.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(FileError {
            sizing: false,
            os: std::io::Error::last_os_error(),
        });
    }
    // SAFETY: `fd` was just returned to us and is owned by nothing else.
    let file = unsafe { OwnedFd::from_raw_fd(fd) };
    // SAFETY: ftruncate on our own descriptor.
    if unsafe { libc::ftruncate(file.as_raw_fd(), len) } != 0 {
        return Err(FileError {
            sizing: true,
            os: std::io::Error::last_os_error(),
        });
    }
    Ok(file)
}

/// Rounds `n` down to a multiple of the page size.
pub(super) fn page_down(n: usize) -> usize {
    n & !(page_size() - 1)
}

/// Rounds `n` up to a multiple of the page size (saturating near `usize::MAX`).
pub(super) fn page_up(n: usize) -> usize {
    page_down(n.saturating_add(page_size() - 1))
}

/// Reserves `len` bytes (a multiple of the page size) of zero-filled, readable and writable
/// address space that holds no memory until written. Returns its page-aligned start.
pub(super) fn reserve(len: usize) -> Option<usize> {
    debug_assert!(len > 0 && len.is_multiple_of(page_size()));
    // SAFETY: a fresh anonymous mapping at an address the kernel picks; no existing memory is
    // affected.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
            -1,
            0,
        )
    };
    (ptr != libc::MAP_FAILED).then_some(ptr as usize)
}

/// Gives the pages of `[start, start + len)` back to the operating system; the range stays
/// mapped and reads as zero afterwards.
///
/// # Safety
/// `start` and `len` must be page-aligned, the range must lie inside segments made by
/// [`reserve`], and nothing may rely on its contents any more.
pub(super) unsafe fn release(start: usize, len: usize) {
    if len == 0 {
        return;
    }
    debug_assert!(start.is_multiple_of(page_size()) && len.is_multiple_of(page_size()));
    // SAFETY: the caller guarantees an aligned range of our own private anonymous mappings
    // whose contents are dead; MADV_DONTNEED on such a range only drops pages, and later
    // accesses see fresh zero pages.
    let rc = unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
    debug_assert_eq!(rc, 0, "madvise(MADV_DONTNEED) failed");
}

/// Makes `[start, start + len)` read as zero without backing untouched pages: whole pages are
/// released, the partial pages at either end are written.
///
/// # Safety
/// The range must lie inside segments made by [`reserve`] and belong to no one else: bytes of
/// its partial end pages outside the range are left alone, but whole pages are dropped.
pub(super) unsafe fn zero(start: usize, len: usize) {
    let end = start + len;
    let head_end = page_up(start).min(end);
    let tail_start = page_down(end).max(head_end);
    // SAFETY: `[start, head_end)` and `[tail_start, end)` are inside the caller's range, which
    // is mapped read-write and owned by the caller.
    unsafe {
        std::ptr::write_bytes(start as *mut u8, 0, head_end - start);
        std::ptr::write_bytes(tail_start as *mut u8, 0, end - tail_start);
    }
    // SAFETY: `[head_end, tail_start)` is page-aligned (or empty) and consists of whole pages
    // of the caller's range.
    unsafe { release(head_end, tail_start - head_end) };
}

/// Maps `len` bytes of the shared memory object `fd`, from `offset`, over `[start, start +
/// len)` (a mapping of another process's object shows the same bytes). `false` when the host
/// refuses; the range is then unchanged.
///
/// # Safety
/// `start`, `len` and `offset` must be page-aligned and the range must lie inside segments made
/// by [`reserve`] with nothing relying on its contents.
pub(super) unsafe fn map_shared(start: usize, len: usize, fd: i32, offset: usize) -> bool {
    debug_assert!(start.is_multiple_of(page_size()) && len.is_multiple_of(page_size()));
    let Ok(offset) = libc::off_t::try_from(offset) else {
        return false;
    };
    // SAFETY: MAP_FIXED replaces only the caller's range of our own segment (the caller's
    // contract); on failure the kernel leaves the old mapping in place.
    let ptr = unsafe {
        libc::mmap(
            start as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED | libc::MAP_FIXED,
            fd,
            offset,
        )
    };
    ptr as usize == start
}

/// Puts the private, zero-filled memory of a segment back over `[start, start + len)`, ending a
/// [`map_shared`] mapping there (invariant 1 of the module: the range stays mapped).
///
/// # Safety
/// As [`map_shared`].
pub(super) unsafe fn restore(start: usize, len: usize) {
    debug_assert!(start.is_multiple_of(page_size()) && len.is_multiple_of(page_size()));
    // SAFETY: replaces only the caller's range of our own segment with what `reserve` made.
    let ptr = unsafe {
        libc::mmap(
            start as *mut libc::c_void,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
            -1,
            0,
        )
    };
    // A failure would leave the shared object mapped there; the host refuses a fixed anonymous
    // mapping only when out of mapping slots, and then dropping the pages is all we can do.
    if ptr as usize != start {
        // SAFETY: same range; MADV_DONTNEED only drops pages.
        unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_rounding() {
        let p = page_size();
        assert!(p.is_power_of_two());
        assert_eq!(page_down(p + 1), p);
        assert_eq!(page_up(p + 1), 2 * p);
        assert_eq!(page_up(p), p);
        assert_eq!(page_up(0), 0);
    }

    #[test]
    fn reserved_space_reads_zero_and_zero_clears_exactly_its_range() {
        let p = page_size();
        let base = reserve(4 * p).expect("reserve");
        assert_eq!(base % p, 0);
        // SAFETY: the four pages were just reserved read-write and are ours alone.
        unsafe {
            let bytes = std::slice::from_raw_parts_mut(base as *mut u8, 4 * p);
            assert!(bytes.iter().all(|&b| b == 0));
            bytes.fill(0xEE);
            // From the middle of page 0 to the middle of page 3.
            zero(base + p / 2, 3 * p);
            let bytes = std::slice::from_raw_parts(base as *const u8, 4 * p);
            assert!(bytes[..p / 2].iter().all(|&b| b == 0xEE));
            assert!(bytes[p / 2..p / 2 + 3 * p].iter().all(|&b| b == 0));
            assert!(bytes[p / 2 + 3 * p..].iter().all(|&b| b == 0xEE));
            release(base, 4 * p);
            let bytes = std::slice::from_raw_parts(base as *const u8, 4 * p);
            assert!(bytes.iter().all(|&b| b == 0));
        }
    }
}

//! What the runtime knows of an address range, for faces that vet pointers before using them.
//!
//! The copy and set calls check every range against the memory map: runtime memory must lie in
//! one live allocation, anything else is trusted as the caller's. A face that cannot trust its
//! callers (Python, where a pointer is just an int) asks here first, so it can refuse memory
//! that is neither the runtime's nor known to the face, and check a range's size before it
//! allocates a buffer of that size.

use crate::error::Result;
use crate::memory::Access;
use crate::runtime::Runtime;

/// How the copy and set calls treat a range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryRange {
    /// The range is empty: nothing is accessed.
    Empty,
    /// The range lies inside one live runtime allocation (device or host).
    Runtime,
    /// The range touches no runtime memory: the calls trust the caller for it.
    Foreign,
}

impl Runtime {
    /// Classifies `len` bytes at `ptr` exactly as a copy or set would check them, touching no
    /// memory: `Err` (`ACL_ERROR_INVALID_PARAM`, with the message the copy would give, naming
    /// the range `what`) for a range those calls refuse (overrunning an allocation, freed or
    /// never allocated runtime memory, running into runtime memory, wrapping around the address
    /// space). The failure is not noted for the thread.
    pub fn classify_memory(&self, ptr: usize, len: usize, what: &str) -> Result<MemoryRange> {
        Ok(match self.memory.check_access(ptr, len, what)? {
            Access::Nothing => MemoryRange::Empty,
            Access::Runtime => MemoryRange::Runtime,
            Access::Foreign => MemoryRange::Foreign,
        })
    }
}

impl Runtime {
    /// The live runtime allocation (device or host) containing `ptr`: its first byte and
    /// length in bytes, or `None`.
    pub fn allocation_containing(&self, ptr: usize) -> Option<crate::MemRange> {
        self.memory
            .allocation_at(ptr)
            .map(|(base, a)| crate::MemRange {
                start: base,
                len: a.size,
            })
    }
}

/// [`Runtime::classify_memory`] on the process's runtime; `ACL_ERROR_UNINITIALIZE` without
/// one. Nothing is noted for the thread.
pub fn classify_memory(ptr: usize, len: usize, what: &str) -> Result<MemoryRange> {
    super::runtime()?.classify_memory(ptr, len, what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codes::ACL_ERROR_INVALID_PARAM;
    use crate::memory::Place;

    #[test]
    fn ranges_are_classified_as_the_copies_check_them() {
        let rt = Runtime::new(&crate::Config::default());
        let a = rt.memory.allocate(100, Place::Host).unwrap();
        assert_eq!(rt.classify_memory(a, 100, "x"), Ok(MemoryRange::Runtime));
        assert_eq!(rt.classify_memory(a, 0, "x"), Ok(MemoryRange::Empty));
        let e = rt.classify_memory(a + 90, 20, "copy source").unwrap_err();
        assert_eq!(e.code(), ACL_ERROR_INVALID_PARAM);
        assert!(e.message().contains("copy source"), "{e}");
        let local = [0u8; 8];
        let l = local.as_ptr() as usize;
        assert_eq!(rt.classify_memory(l, 8, "x"), Ok(MemoryRange::Foreign));
        assert!(rt.classify_memory(usize::MAX - 3, 8, "x").is_err());
        rt.memory.free(a, |_| true).unwrap();
        assert!(rt.classify_memory(a, 1, "x").is_err());
    }
}

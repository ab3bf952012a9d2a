//! Validated handles.
//!
//! A handle is a 64-bit token `tag:8 | generation:24 | index:32`. The tag names the object kind,
//! the index picks a slot in that kind's table and the generation must match the slot's current
//! one. A destroyed, stale, garbage or wrong-kind handle therefore fails lookup instead of
//! reaching freed memory; the C and Python faces hand these tokens out as `void*` / `int`.
//! Tags are below 0x80 so every handle is a positive `i64` too.

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, RwLock};

macro_rules! handle_type {
    ($(#[$doc:meta])* $name:ident, $tag:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(transparent)]
        pub struct $name(u64);

        impl $name {
            /// The null handle (the default stream, for streams).
            pub const NULL: Self = Self(0);
            pub(crate) const TAG: u8 = $tag;

            /// Wraps a raw value received from a caller; it is validated on use.
            pub const fn from_raw(raw: u64) -> Self {
                Self(raw)
            }

            /// The raw token.
            pub const fn as_raw(self) -> u64 {
                self.0
            }

            /// Whether this is the null handle.
            pub const fn is_null(self) -> bool {
                self.0 == 0
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!(stringify!($name), "({:#x})"), self.0)
            }
        }
    };
}

handle_type!(
    /// An `aclrtStream`. [`StreamHandle::NULL`] means the current context's default stream.
    StreamHandle,
    0x51
);
handle_type!(
    /// An `aclrtEvent`.
    EventHandle,
    0x52
);
handle_type!(
    /// An `aclrtContext`.
    ContextHandle,
    0x53
);
handle_type!(
    /// An `aclrtNotify`.
    NotifyHandle,
    0x54
);
handle_type!(
    /// An `aclrtCntNotify`.
    CntNotifyHandle,
    0x55
);
handle_type!(
    /// An `aclrtMemPool` (CUDA: a `CUmemoryPool`).
    MemPoolHandle,
    0x56
);

handle_type!(
    /// An `aclrtBinary`: a kernel library image kept by `aclrtCreateBinary`.
    BinaryImageHandle,
    0x60
);
handle_type!(
    /// An `aclrtBinHandle`: a loaded kernel library.
    BinHandle,
    0x61
);
handle_type!(
    /// An `aclrtFuncHandle`: a kernel of a loaded library.
    FuncHandle,
    0x62
);
handle_type!(
    /// An `aclrtArgsHandle` made by `aclrtKernelArgsInit` (one placed in the caller's memory
    /// is named by its address instead).
    ArgsHandle,
    0x63
);

impl StreamHandle {
    /// The current context's default stream (`NULL` in C, `0` in Python).
    pub const DEFAULT: Self = Self::NULL;
}

const GENERATION_MASK: u64 = 0x00FF_FFFF;

fn encode(tag: u8, generation: u32, index: u32) -> u64 {
    (u64::from(tag) << 56) | ((u64::from(generation) & GENERATION_MASK) << 32) | u64::from(index)
}

fn decode(raw: u64) -> (u8, u32, u32) {
    (
        (raw >> 56) as u8,
        ((raw >> 32) & GENERATION_MASK) as u32,
        raw as u32,
    )
}

struct Entry<T> {
    /// The generation the slot was created with: issued tokens run from it to `generation`.
    first_generation: u32,
    generation: u32,
    value: Option<Arc<T>>,
}

/// Generations for fresh slots come from one process-wide counter, so a token of an earlier
/// runtime instance (before `aclFinalize`) does not name an object of a later one.
static NEXT_FRESH_GENERATION: AtomicU32 = AtomicU32::new(1);

fn fresh_generation() -> u32 {
    loop {
        let g = NEXT_FRESH_GENERATION.fetch_add(1, Ordering::Relaxed) & GENERATION_MASK as u32;
        if g != 0 {
            return g;
        }
    }
}

struct Slots<T> {
    entries: Vec<Entry<T>>,
    free: Vec<u32>,
    live: usize,
}

/// A table of live objects of one kind, addressed by validated tokens.
pub(crate) struct HandleTable<T> {
    tag: u8,
    slots: RwLock<Slots<T>>,
}

impl<T> HandleTable<T> {
    pub(crate) const fn new(tag: u8) -> Self {
        Self {
            tag,
            slots: RwLock::new(Slots {
                entries: Vec::new(),
                free: Vec::new(),
                live: 0,
            }),
        }
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, Slots<T>> {
        self.slots.write().unwrap_or_else(|e| e.into_inner())
    }

    fn read(&self) -> std::sync::RwLockReadGuard<'_, Slots<T>> {
        self.slots.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Stores `value` and returns its token.
    pub(crate) fn insert(&self, value: Arc<T>) -> u64 {
        let mut slots = self.write();
        slots.live += 1;
        if let Some(index) = slots.free.pop() {
            let entry = &mut slots.entries[index as usize];
            entry.value = Some(value);
            return encode(self.tag, entry.generation, index);
        }
        let index = u32::try_from(slots.entries.len()).expect("more than 2^32 live handles");
        let generation = fresh_generation();
        slots.entries.push(Entry {
            first_generation: generation,
            generation,
            value: Some(value),
        });
        encode(self.tag, generation, index)
    }

    /// Stores the object `make` builds from its own token; `make` must not use this table.
    pub(crate) fn insert_with(&self, make: impl FnOnce(u64) -> Arc<T>) -> Arc<T> {
        let mut slots = self.write();
        slots.live += 1;
        let (index, generation) = match slots.free.pop() {
            Some(index) => (index, slots.entries[index as usize].generation),
            None => {
                let index =
                    u32::try_from(slots.entries.len()).expect("more than 2^32 live handles");
                let generation = fresh_generation();
                slots.entries.push(Entry {
                    first_generation: generation,
                    generation,
                    value: None,
                });
                (index, generation)
            }
        };
        let value = make(encode(self.tag, generation, index));
        slots.entries[index as usize].value = Some(value.clone());
        value
    }

    /// Whether `raw` is a token this table once issued (live or destroyed), as opposed to
    /// garbage or another kind's token.
    pub(crate) fn was_issued(&self, raw: u64) -> bool {
        let (tag, generation, index) = decode(raw);
        if tag != self.tag || generation == 0 {
            return false;
        }
        let slots = self.read();
        slots.entries.get(index as usize).is_some_and(|e| {
            // Issued generations run from the slot's first up to its current one (modulo the
            // generation width).
            let issued = e.generation.wrapping_sub(e.first_generation) & GENERATION_MASK as u32;
            let age = e.generation.wrapping_sub(generation) & GENERATION_MASK as u32;
            age <= issued
        })
    }

    /// The object behind `raw`, if `raw` names a live object of this kind.
    pub(crate) fn get(&self, raw: u64) -> Option<Arc<T>> {
        let (tag, generation, index) = decode(raw);
        if tag != self.tag {
            return None;
        }
        let slots = self.read();
        let entry = slots.entries.get(index as usize)?;
        if entry.generation != generation {
            return None;
        }
        entry.value.clone()
    }

    /// Removes the object behind `raw`; the token is dead from now on.
    pub(crate) fn remove(&self, raw: u64) -> Option<Arc<T>> {
        let (tag, generation, index) = decode(raw);
        if tag != self.tag {
            return None;
        }
        let mut slots = self.write();
        let entry = slots.entries.get_mut(index as usize)?;
        if entry.generation != generation {
            return None;
        }
        let value = entry.value.take()?;
        entry.generation = next_generation(entry.generation);
        slots.free.push(index);
        slots.live -= 1;
        Some(value)
    }

    /// Every live object, in slot order.
    pub(crate) fn values(&self) -> Vec<(u64, Arc<T>)> {
        let slots = self.read();
        slots
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| {
                e.value
                    .as_ref()
                    .map(|v| (encode(self.tag, e.generation, i as u32), v.clone()))
            })
            .collect()
    }

    /// Number of live objects.
    pub(crate) fn live(&self) -> usize {
        self.read().live
    }
}

fn next_generation(g: u32) -> u32 {
    let next = (g + 1) & GENERATION_MASK as u32;
    if next == 0 {
        1
    } else {
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_and_foreign_tokens_fail_lookup() {
        let table = HandleTable::<u32>::new(StreamHandle::TAG);
        let a = table.insert(Arc::new(7));
        assert_eq!(table.get(a).as_deref(), Some(&7));
        assert!(table.remove(a).is_some());
        assert!(table.get(a).is_none(), "destroyed handle must be dead");
        let b = table.insert(Arc::new(8));
        assert_eq!(a as u32, b as u32, "slot is reused");
        assert!(
            table.get(a).is_none(),
            "old generation stays dead after reuse"
        );
        assert_eq!(table.get(b).as_deref(), Some(&8));
        let wrong_kind = (b & !(0xFF << 56)) | (u64::from(EventHandle::TAG) << 56);
        assert!(table.get(wrong_kind).is_none());
        assert!(table.get(0).is_none());
        assert!(table.get(u64::MAX).is_none());
        assert_eq!(table.live(), 1);
    }

    #[test]
    fn handles_are_positive_i64() {
        let table = HandleTable::<u32>::new(ContextHandle::TAG);
        let h = table.insert(Arc::new(1));
        assert!(i64::try_from(h).is_ok());
    }
}

//! Core resource limits (`aclrtSetDeviceResLimit`, `aclrtSetStreamResLimit`): how many cube
//! and vector cores the work of a device or a stream may use.
//!
//! The emulated device runs kernels as host code, so a limit changes nothing about how work
//! runs: it is a value programs set and read back to size their launches (`numBlocks`), kept
//! per device and per stream as the vendor keeps it.

use std::sync::atomic::{AtomicU32, Ordering};

/// AI Core count of the emulated chip (`ACL_DEV_ATTR_AICORE_CORE_NUM`,
/// `ACL_DEVICE_INFO_AI_CORE_NUM`); cube cores are as many.
pub const EMULATED_AICORE_NUM: i64 = 20;
/// Vector core count (`ACL_DEV_ATTR_VECTOR_CORE_NUM`, `ACL_DEVICE_INFO_VECTOR_CORE_NUM`).
pub const EMULATED_VECTOR_CORE_NUM: i64 = 40;

/// Cube cores of the emulated chip: the default and largest cube core limit
/// (`ACL_RT_DEV_RES_CUBE_CORE`); as many as its AI Cores (`ACL_DEV_ATTR_CUBE_CORE_NUM`).
pub const EMULATED_CUBE_CORE_LIMIT: u32 = EMULATED_AICORE_NUM as u32;
/// Vector cores of the emulated chip: the default and largest vector core limit
/// (`ACL_RT_DEV_RES_VECTOR_CORE`, `ACL_DEV_ATTR_VECTOR_CORE_NUM`).
pub const EMULATED_VECTOR_CORE_LIMIT: u32 = EMULATED_VECTOR_CORE_NUM as u32;

/// A resource an `aclrtDevResLimitType` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CoreKind {
    Cube = 0,
    Vector = 1,
}

impl CoreKind {
    /// The kind for an `aclrtDevResLimitType` value, if it is one.
    pub(crate) fn from_raw(raw: u32) -> Option<Self> {
        match raw {
            0 => Some(Self::Cube),
            1 => Some(Self::Vector),
            _ => None,
        }
    }

    /// How many cores of this kind the emulated chip has.
    pub(crate) fn total(self) -> u32 {
        match self {
            Self::Cube => EMULATED_CUBE_CORE_LIMIT,
            Self::Vector => EMULATED_VECTOR_CORE_LIMIT,
        }
    }
}

/// Marks a kind whose limit is not set.
const UNSET: u32 = u32::MAX;

/// One limit per [`CoreKind`], each set or not.
pub(crate) struct CoreLimits([AtomicU32; 2]);

impl CoreLimits {
    pub(crate) const fn unset() -> Self {
        Self([AtomicU32::new(UNSET), AtomicU32::new(UNSET)])
    }

    pub(crate) fn get(&self, kind: CoreKind) -> Option<u32> {
        let value = self.0[kind as usize].load(Ordering::Acquire);
        (value != UNSET).then_some(value)
    }

    /// Sets a limit (at most [`CoreKind::total`], which the caller checked).
    pub(crate) fn set(&self, kind: CoreKind, value: u32) {
        debug_assert!(value <= kind.total());
        self.0[kind as usize].store(value, Ordering::Release);
    }

    pub(crate) fn clear(&self) {
        for slot in &self.0 {
            slot.store(UNSET, Ordering::Release);
        }
    }
}

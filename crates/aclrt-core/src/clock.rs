//! The device clock: nanoseconds since the first device was set in the process.
//!
//! Event timestamps, `aclrtEventGetTimestamp` and traces share this origin. It is a fact of the
//! process, not of one runtime instance: timestamps taken before an `aclFinalize` and after the
//! next `aclInit` stay comparable, as they are on the vendor's device.

use std::sync::OnceLock;
use std::time::Instant;

static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Starts the clock (the first call wins; later calls change nothing).
pub(crate) fn start() {
    EPOCH.get_or_init(Instant::now);
}

/// Nanoseconds since the epoch; 0 before any device was set.
pub fn now_ns() -> u64 {
    EPOCH.get().map_or(0, |e| e.elapsed().as_nanos() as u64)
}

//! Emulated devices: per-device limits, ids and memory accounting. (Which default context a
//! device is bound to is the runtime's: `runtime::Binding`.)

use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::exception::ExceptionSlot;
use crate::res_limit::CoreLimits;
use crate::sync::lock;
use crate::threads::ThreadSpawner;

pub use crate::res_limit::{EMULATED_AICORE_NUM, EMULATED_VECTOR_CORE_NUM};

/// Streams per device, default streams included.
pub const MAX_STREAMS_PER_DEVICE: usize = 1984;
/// Events holding a SYNC resource per device.
pub const MAX_SYNC_EVENTS_PER_DEVICE: usize = 65536;

/// One emulated device.
pub(crate) struct Device {
    /// Logical id: the one the program uses.
    pub(crate) id: i32,
    pub(crate) memory_capacity: u64,
    pub(crate) memory_used: AtomicU64,
    /// The most `memory_used` has been.
    pub(crate) memory_peak: AtomicU64,
    streams: AtomicUsize,
    sync_events: AtomicUsize,
    stream_ids: Mutex<IdPool>,
    next_event_id: AtomicU32,
    /// The runtime's exception callback, which failing streams of this device report to.
    pub(crate) exceptions: Arc<ExceptionSlot>,
    /// Where the device's stream workers come from.
    pub(crate) threads: Arc<dyn ThreadSpawner>,
    /// The runtime's pool, when it pools its streams (`Scheduler::Pool`).
    pub(crate) pool: Option<Arc<crate::exec::pool::Pool>>,
    /// The process's core limits on this device (`aclrtSetDeviceResLimit`); unset means the
    /// chip's totals. Cleared when the device is released.
    pub(crate) core_limits: CoreLimits,
}

impl Device {
    pub(crate) fn new(
        id: i32,
        memory_capacity: u64,
        exceptions: Arc<ExceptionSlot>,
        threads: Arc<dyn ThreadSpawner>,
        pool: Option<Arc<crate::exec::pool::Pool>>,
    ) -> Self {
        Self {
            id,
            memory_capacity,
            memory_used: AtomicU64::new(0),
            memory_peak: AtomicU64::new(0),
            streams: AtomicUsize::new(0),
            sync_events: AtomicUsize::new(0),
            stream_ids: Mutex::new(IdPool::default()),
            next_event_id: AtomicU32::new(0),
            exceptions,
            threads,
            pool,
            core_limits: CoreLimits::unset(),
        }
    }

    /// Takes one stream slot and a stream id, or `None` at the limit.
    pub(crate) fn acquire_stream(&self) -> Option<u32> {
        try_acquire(&self.streams, MAX_STREAMS_PER_DEVICE)?;
        Some(lock(&self.stream_ids).take())
    }

    pub(crate) fn release_stream(&self, id: u32) {
        lock(&self.stream_ids).give_back(id);
        self.streams.fetch_sub(1, Ordering::AcqRel);
    }

    pub(crate) fn acquire_sync_event(&self) -> bool {
        try_acquire(&self.sync_events, MAX_SYNC_EVENTS_PER_DEVICE).is_some()
    }

    pub(crate) fn release_sync_event(&self) {
        self.sync_events.fetch_sub(1, Ordering::AcqRel);
    }

    /// SYNC event resources still free (`aclrtGetEventAvailNum`).
    pub(crate) fn sync_events_available(&self) -> usize {
        MAX_SYNC_EVENTS_PER_DEVICE.saturating_sub(self.sync_events.load(Ordering::Acquire))
    }

    pub(crate) fn next_event_id(&self) -> u32 {
        self.next_event_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Reserves `size` bytes of device memory, or `false` beyond capacity.
    pub(crate) fn reserve_memory(&self, size: u64) -> bool {
        match self
            .memory_used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(size)
                    .filter(|&n| n <= self.memory_capacity)
            }) {
            Ok(before) => {
                self.memory_peak.fetch_max(before + size, Ordering::AcqRel);
                true
            }
            Err(_) => false,
        }
    }

    pub(crate) fn unreserve_memory(&self, size: u64) {
        self.memory_used.fetch_sub(size, Ordering::AcqRel);
    }
}

fn try_acquire(counter: &AtomicUsize, limit: usize) -> Option<()> {
    counter
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
            (n < limit).then_some(n + 1)
        })
        .ok()
        .map(|_| ())
}

/// Hands out the smallest free id, so ids stay small and unique among live objects.
#[derive(Default)]
struct IdPool {
    next: u32,
    free: std::collections::BinaryHeap<std::cmp::Reverse<u32>>,
}

impl IdPool {
    fn take(&mut self) -> u32 {
        if let Some(std::cmp::Reverse(id)) = self.free.pop() {
            return id;
        }
        self.next += 1;
        self.next - 1
    }

    fn give_back(&mut self, id: u32) {
        self.free.push(std::cmp::Reverse(id));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_limit_and_id_reuse() {
        let d = Device::new(
            0,
            1 << 20,
            Default::default(),
            Arc::new(crate::threads::OsThreads),
            None,
        );
        let ids: Vec<u32> = (0..MAX_STREAMS_PER_DEVICE)
            .map(|_| d.acquire_stream().unwrap())
            .collect();
        assert_eq!(ids[0], 0);
        assert_eq!(
            ids[MAX_STREAMS_PER_DEVICE - 1],
            MAX_STREAMS_PER_DEVICE as u32 - 1
        );
        assert!(d.acquire_stream().is_none());
        d.release_stream(5);
        assert_eq!(d.acquire_stream(), Some(5));
    }

    #[test]
    fn memory_reservation_respects_capacity() {
        let d = Device::new(
            0,
            100,
            Default::default(),
            Arc::new(crate::threads::OsThreads),
            None,
        );
        assert!(d.reserve_memory(60));
        assert!(!d.reserve_memory(41));
        assert!(d.reserve_memory(40));
        d.unreserve_memory(100);
        assert_eq!(d.memory_used.load(Ordering::Relaxed), 0);
    }
}

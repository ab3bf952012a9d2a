//! Process state: initialisation, the device list and the handle tables.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock, Mutex, OnceLock, RwLock};
use std::time::Instant;

use crate::callback::ReportHub;
use crate::config::Config;
use crate::context::Context;
use crate::device::Device;
use crate::event::Event;
use crate::handle::{ContextHandle, EventHandle, HandleTable, StreamHandle};
use crate::memory::MemoryMap;
use crate::stream::Stream;

/// The one runtime of the process.
pub(crate) static RUNTIME: LazyLock<Runtime> = LazyLock::new(Runtime::new);

pub(crate) struct Lifecycle {
    /// `aclInit` calls since the last finalize.
    pub(crate) init_count: u32,
    /// Configuration given before `aclInit`, used instead of the environment.
    pub(crate) configured: Option<Config>,
}

pub(crate) struct Runtime {
    pub(crate) lifecycle: Mutex<Lifecycle>,
    initialized: AtomicBool,
    devices: RwLock<Vec<Arc<Device>>>,
    pub(crate) contexts: HandleTable<Context>,
    pub(crate) streams: HandleTable<Stream>,
    pub(crate) events: HandleTable<Event>,
    pub(crate) reports: ReportHub,
    pub(crate) memory: MemoryMap,
    /// Timestamps count from the first `aclrtSetDevice` of the process.
    epoch: OnceLock<Instant>,
}

impl Runtime {
    fn new() -> Self {
        Self {
            lifecycle: Mutex::new(Lifecycle {
                init_count: 0,
                configured: None,
            }),
            initialized: AtomicBool::new(false),
            devices: RwLock::new(Vec::new()),
            contexts: HandleTable::new(ContextHandle::TAG),
            streams: HandleTable::new(StreamHandle::TAG),
            events: HandleTable::new(EventHandle::TAG),
            reports: ReportHub::default(),
            memory: MemoryMap::default(),
            epoch: OnceLock::new(),
        }
    }

    pub(crate) fn is_initialized(&self) -> bool {
        self.initialized.load(Ordering::Acquire)
    }

    pub(crate) fn set_initialized(&self, on: bool) {
        self.initialized.store(on, Ordering::Release);
    }

    pub(crate) fn install_devices(&self, config: &Config) {
        let devices = config
            .logical_to_physical()
            .iter()
            .enumerate()
            .map(|(logical, _physical)| Arc::new(Device::new(logical as i32, config.device_memory)))
            .collect();
        *self.devices.write().unwrap_or_else(|e| e.into_inner()) = devices;
    }

    pub(crate) fn take_devices(&self) -> Vec<Arc<Device>> {
        std::mem::take(&mut *self.devices.write().unwrap_or_else(|e| e.into_inner()))
    }

    pub(crate) fn device(&self, id: i32) -> Option<Arc<Device>> {
        let devices = self.devices.read().unwrap_or_else(|e| e.into_inner());
        usize::try_from(id)
            .ok()
            .and_then(|i| devices.get(i).cloned())
    }

    pub(crate) fn device_count(&self) -> usize {
        self.devices.read().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub(crate) fn start_clock(&self) {
        self.epoch.get_or_init(Instant::now);
    }

    /// Nanoseconds since the device epoch (0 before any device was set).
    pub(crate) fn now_ns(&self) -> u64 {
        self.epoch
            .get()
            .map_or(0, |e| e.elapsed().as_nanos() as u64)
    }
}

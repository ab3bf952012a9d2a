//! The runtime instance: everything `aclInit` creates and `aclFinalize` tears down.
//!
//! A [`Runtime`] owns the devices, the handle tables, the callback subscriptions, the memory
//! map and the exception callback. It is a value: `aclInit` makes one and installs it as the
//! process's (see [`crate::api`]), tests may make their own. Handles of one instance never name
//! objects of another (see [`crate::handle`]), and a thread's current context is remembered per
//! instance.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::callback::ReportHub;
use crate::config::Config;
use crate::context::Context;
use crate::device::Device;
use crate::event::Event;
use crate::exception::ExceptionSlot;
use crate::handle::{ContextHandle, EventHandle, HandleTable, StreamHandle};
use crate::memory::MemoryMap;
use crate::stream::Stream;
use crate::threads::{OsThreads, ThreadSpawner};

/// Serial numbers of runtime instances: per-thread state is keyed by them.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

/// One initialised ACL runtime.
pub struct Runtime {
    /// Unique among the instances of the process, never 0.
    pub(crate) serial: u64,
    devices: Vec<Arc<Device>>,
    pub(crate) contexts: HandleTable<Context>,
    pub(crate) streams: HandleTable<Stream>,
    pub(crate) events: HandleTable<Event>,
    pub(crate) reports: ReportHub,
    pub(crate) memory: MemoryMap,
    pub(crate) exceptions: Arc<ExceptionSlot>,
    /// The configuration the runtime was made with (the CUDA face reads the device properties).
    pub(crate) config: Config,
}

impl Runtime {
    /// A runtime with the devices `config` describes (what `aclInit` does).
    pub fn new(config: &Config) -> Arc<Self> {
        Self::with_threads(config, Arc::new(OsThreads))
    }

    /// A runtime whose stream workers come from `threads`.
    pub fn with_threads(config: &Config, threads: Arc<dyn ThreadSpawner>) -> Arc<Self> {
        let exceptions = Arc::new(ExceptionSlot::default());
        let devices = config
            .logical_to_physical()
            .iter()
            .enumerate()
            .map(|(logical, _physical)| {
                Arc::new(Device::new(
                    logical as i32,
                    config.device_memory,
                    exceptions.clone(),
                    threads.clone(),
                ))
            })
            .collect();
        Arc::new(Self {
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
            devices,
            contexts: HandleTable::new(ContextHandle::TAG),
            streams: HandleTable::new(StreamHandle::TAG),
            events: HandleTable::new(EventHandle::TAG),
            reports: ReportHub::default(),
            memory: MemoryMap::default(),
            exceptions,
            config: config.clone(),
        })
    }

    pub(crate) fn device(&self, id: i32) -> Option<Arc<Device>> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.devices.get(i).cloned())
    }

    pub(crate) fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }

    pub(crate) fn device_count(&self) -> usize {
        self.devices.len()
    }
}

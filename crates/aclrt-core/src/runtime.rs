//! The runtime instance: everything `aclInit` creates and `aclFinalize` tears down.
//!
//! A [`Runtime`] owns the devices, the handle tables, the callback subscriptions, the memory
//! map and the exception callback. It is a value: `aclInit` makes one and installs it as the
//! process's (see [`crate::api`]), tests may make their own. Handles of one instance never name
//! objects of another (see [`crate::handle`]), and a thread's current context is remembered per
//! instance.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::callback::ReportHub;
use crate::codes::ACL_ERROR_UNINITIALIZE;
use crate::config::Config;
use crate::device::Device;
use crate::error::{bail, Result};
use crate::event::Event;
use crate::exception::ExceptionSlot;
use crate::handle::{ContextHandle, EventHandle, HandleTable, StreamHandle};
use crate::memory::MemoryMap;
use crate::stream::Context;
use crate::stream::Stream;
use crate::sync::{SpinPolicy, WaitList};
use crate::threads::{OsThreads, ThreadSpawner};

/// Serial numbers of runtime instances: per-thread state is keyed by them.
static NEXT_SERIAL: AtomicU64 = AtomicU64::new(1);

/// One initialised ACL runtime.
pub struct Runtime {
    /// Unique among the instances of the process, never 0.
    pub(crate) serial: u64,
    devices: Vec<Arc<Device>>,
    /// Per device (by position): `aclrtSetDevice` count and the default context it created.
    bindings: Vec<Mutex<Binding>>,
    pub(crate) contexts: HandleTable<Context>,
    pub(crate) streams: HandleTable<Stream>,
    pub(crate) events: HandleTable<Event>,
    /// The vendor kernel API's binaries, functions and args handles.
    pub(crate) kernels: crate::kernel::Kernels,
    pub(crate) reports: ReportHub,
    /// The threads that run host functions (`aclrtSubscribeHostFunc`).
    pub(crate) host_funcs: ReportHub,
    pub(crate) memory: Arc<MemoryMap>,
    /// Stream-ordered memory pools.
    pub(crate) pools: crate::memory::pool::Pools,
    /// Advice and prefetch state of managed memory.
    pub(crate) managed: Arc<crate::memory::managed::Managed>,
    /// Reserved address ranges, physical allocations and their mappings.
    pub(crate) vmm: crate::memory::vmm::Vmm,
    /// `aclrtMalloc` allocations exported by key, and memory imported by key.
    pub(crate) ipc: crate::memory::ipc::Ipc,
    pub(crate) exceptions: Arc<ExceptionSlot>,
    /// Destroy calls (streams, contexts, device resets) under way: `aclFinalize` waits for
    /// them, so it never returns while one still waits for a kernel.
    teardowns: Teardowns,
    /// Create calls under way, and whether the runtime still takes them: a create either
    /// completes before [`Runtime::shut_down`] looks for what to tear down, or is refused.
    creations: Creations,
    /// State of the calls beside the core model (peer access, notifies, stream state callbacks).
    pub(crate) extras: crate::extras::Extras,
    /// System parameters, operator timeouts and device limits of the process.
    pub(crate) settings: crate::settings::Settings,
    /// What the CUDA face keeps for this runtime (`cuda::state`), opaque here so that the
    /// runtime sits below the face.
    pub(crate) cuda_state: Mutex<Option<Box<dyn std::any::Any + Send>>>,
    /// The configuration the runtime was made with (the CUDA face reads the device properties).
    pub(crate) config: Config,
    /// The pool running the streams (`Scheduler::Pool`), shut down with the runtime (or when
    /// it is dropped, if it never was).
    pub(crate) pool_owner: Option<crate::exec::pool::Owner>,
}

/// How a device is bound to its default context.
#[derive(Default)]
pub(crate) struct Binding {
    pub(crate) set_count: u32,
    pub(crate) default_context: Option<Arc<Context>>,
}

/// Counts the destroy calls under way.
#[derive(Default)]
struct Teardowns {
    running: AtomicUsize,
    ended: WaitList,
}

/// Counts the create calls under way; closed for good by [`Runtime::shut_down`].
#[derive(Default)]
struct Creations {
    running: AtomicUsize,
    closed: AtomicBool,
    ended: WaitList,
}

/// One create call under way; ends when dropped. Not a lock: taking it never waits (a closed
/// runtime refuses at once), so it takes no place in the lock order. Only the shut-down waits
/// for it, holding no lock, and a create holds it only while it builds its object (no user
/// code, no waits).
pub(crate) struct Creation<'a>(&'a Creations);

impl Drop for Creation<'_> {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.ended.wake_all();
        }
    }
}

/// One destroy call under way; ends when dropped.
pub(crate) struct Teardown<'a>(&'a Teardowns);

impl Drop for Teardown<'_> {
    fn drop(&mut self) {
        if self.0.running.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.ended.wake_all();
        }
    }
}

impl Runtime {
    /// A runtime with the devices `config` describes (what `aclInit` does).
    pub fn new(config: &Config) -> Arc<Self> {
        Self::with_threads(config, Arc::new(OsThreads))
    }

    /// A runtime whose stream workers come from `threads`.
    pub fn with_threads(config: &Config, threads: Arc<dyn ThreadSpawner>) -> Arc<Self> {
        let exceptions = Arc::new(ExceptionSlot::default());
        let pool = (config.scheduler == crate::config::Scheduler::Pool)
            .then(|| crate::exec::pool::Pool::new(threads.clone()));
        let devices: Vec<Arc<Device>> = config
            .logical_to_physical()
            .iter()
            .enumerate()
            .map(|(logical, _physical)| {
                Arc::new(Device::new(
                    logical as i32,
                    config.device_memory,
                    exceptions.clone(),
                    threads.clone(),
                    pool.clone(),
                ))
            })
            .collect();
        Arc::new(Self {
            serial: NEXT_SERIAL.fetch_add(1, Ordering::Relaxed),
            bindings: devices.iter().map(|_| Mutex::default()).collect(),
            devices,
            contexts: HandleTable::new(ContextHandle::TAG),
            streams: HandleTable::new(StreamHandle::TAG),
            events: HandleTable::new(EventHandle::TAG),
            kernels: Default::default(),
            reports: ReportHub::default(),
            host_funcs: ReportHub::default(),
            memory: Arc::new(MemoryMap::default()),
            pools: Default::default(),
            managed: Default::default(),
            vmm: Default::default(),
            ipc: Default::default(),
            exceptions,
            teardowns: Teardowns::default(),
            creations: Creations::default(),
            extras: Default::default(),
            settings: Default::default(),
            cuda_state: Mutex::new(None),
            config: config.clone(),
            pool_owner: pool.map(crate::exec::pool::Owner),
        })
    }

    /// Marks a destroy call under way until the guard is dropped. Taken before the call
    /// claims its object, so [`Runtime::wait_for_teardowns`] after a teardown that claimed
    /// everything left sees every call that claimed something first.
    pub(crate) fn teardown(&self) -> Teardown<'_> {
        self.teardowns.running.fetch_add(1, Ordering::SeqCst);
        Teardown(&self.teardowns)
    }

    /// Marks a create call under way until the guard is dropped, or refuses it with
    /// `ACL_ERROR_UNINITIALIZE` once the runtime is being shut down. Each side announces itself
    /// before it looks at the other (the count, then the closed flag here; the flag, then the
    /// count in [`Runtime::close_creations`]), so either the create sees the runtime closed or
    /// the shut-down waits for it: nothing is created into a runtime after its teardown looked.
    pub(crate) fn creating(&self) -> Result<Creation<'_>> {
        let c = &self.creations;
        c.running.fetch_add(1, Ordering::SeqCst);
        let guard = Creation(c);
        if c.closed.load(Ordering::SeqCst) {
            drop(guard);
            bail!(
                ACL_ERROR_UNINITIALIZE,
                "the runtime was finalized (aclFinalize): nothing can be created in it"
            );
        }
        Ok(guard)
    }

    /// Refuses create calls from now on and waits for those under way.
    pub(crate) fn close_creations(&self) {
        let c = &self.creations;
        c.closed.store(true, Ordering::SeqCst);
        c.ended.wait_until(
            || c.running.load(Ordering::SeqCst) == 0,
            None,
            SpinPolicy::Brief,
        );
    }

    /// Waits until no destroy call is under way.
    pub(crate) fn wait_for_teardowns(&self) {
        let t = &self.teardowns;
        t.ended.wait_until(
            || t.running.load(Ordering::SeqCst) == 0,
            None,
            SpinPolicy::Brief,
        );
    }

    pub(crate) fn device(&self, id: i32) -> Option<Arc<Device>> {
        usize::try_from(id)
            .ok()
            .and_then(|i| self.devices.get(i).cloned())
    }

    /// `device`'s binding to its default context.
    pub(crate) fn binding(&self, device: &Device) -> &Mutex<Binding> {
        &self.bindings[device.id as usize]
    }

    pub(crate) fn devices(&self) -> &[Arc<Device>] {
        &self.devices
    }

    pub(crate) fn device_count(&self) -> usize {
        self.devices.len()
    }
}

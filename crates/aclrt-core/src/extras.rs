//! Runtime state of the calls beside the core model: peer access between devices, notifies,
//! stream state and device task abort callbacks, the wake-ups of memory value waits, DVPP allocations and host
//! registrations. It belongs to a [`Runtime`]
//! (so `aclFinalize` drops it with everything else) and is reached as `rt.extras`.
//!
//! [`Runtime`]: crate::Runtime

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, RwLock};

use crate::handle::{CntNotifyHandle, HandleTable, NotifyHandle, StreamHandle};
use crate::notify::{CntNotify, Notify};
use crate::observe::TaskRef;
use crate::sync::{lock, WaitList};

/// A stream state callback (`aclrtRegStreamStateCallback`): the stream and the
/// `aclrtStreamState` value (`ACL_RT_STREAM_STATE_CREATE_POST` or `..._DESTROY_PRE`).
pub type StreamStateCallback = Arc<dyn Fn(StreamHandle, u32) + Send + Sync>;

/// A device state callback (`aclrtRegDeviceStateCallback`): the device id and the
/// `aclrtDeviceState` value (`ACL_RT_DEVICE_STATE_SET_POST`, `..._RESET_PRE` or
/// `..._RESET_POST`).
pub type DeviceStateCallback = Arc<dyn Fn(i32, u32) + Send + Sync>;

/// A device task abort callback (`aclrtSetDeviceTaskAbortCallback`): the device id, the stage
/// (`ACL_RT_DEVICE_TASK_ABORT_PRE` or `..._POST`) and the milliseconds left of the abort's
/// timeout (0: no limit); a non-zero return fails the abort.
pub type DeviceTaskAbortCallback = Arc<dyn Fn(i32, u32, u32) -> i32 + Send + Sync>;

/// The registered device task abort callbacks by registration name; called in name order, as
/// the vendor's runtime keeps them.
#[derive(Default)]
pub(crate) struct TaskAbortCallbacks(pub(crate) BTreeMap<String, DeviceTaskAbortCallback>);

/// See the module documentation.
pub(crate) struct Extras {
    /// Enabled peer access, as (from device, to device).
    pub(crate) peers: Mutex<BTreeSet<(i32, i32)>>,
    /// Live notifies.
    pub(crate) notifies: HandleTable<Notify>,
    /// Notifies alive per device id, for the per-device limit.
    pub(crate) notify_counts: Mutex<Vec<usize>>,
    /// Live counting notifies.
    pub(crate) cnt_notifies: HandleTable<CntNotify>,
    /// Counting notifies alive per device id, for the per-device limit.
    pub(crate) cnt_notify_counts: Mutex<Vec<usize>>,
    /// Registered stream state callbacks, by registration name, in registration order.
    pub(crate) stream_state: RwLock<Vec<(String, StreamStateCallback)>>,
    /// Registered device state callbacks, by registration name, in registration order.
    pub(crate) device_state: RwLock<Vec<(String, DeviceStateCallback)>>,
    /// Registered device task abort callbacks (a leaf lock: released before any is called).
    pub(crate) task_abort: Mutex<TaskAbortCallbacks>,
    /// Streams stopped by `aclrtStreamStop` (raw handles): an abort does not restart them.
    pub(crate) halted: Mutex<BTreeSet<u64>>,
    /// Woken by every `aclrtValueWrite` task, for the `aclrtValueWait` tasks.
    pub(crate) value_writes: Arc<WaitList>,
    /// The latest `aclrtValueWrite` task per address, while tasks are observed: the task a
    /// released value wait names as its releaser.
    pub(crate) value_writers: Arc<Mutex<BTreeMap<usize, TaskRef>>>,
    /// Live `acldvppMalloc` addresses → the runtime allocation each lies in.
    pub(crate) dvpp: Mutex<BTreeMap<usize, usize>>,
    /// Host ranges registered by `aclrtHostRegister`: start → length.
    pub(crate) host_registered: Mutex<BTreeMap<usize, usize>>,
}

impl Default for Extras {
    fn default() -> Self {
        Self {
            peers: Mutex::new(BTreeSet::new()),
            notifies: HandleTable::new(NotifyHandle::TAG),
            notify_counts: Mutex::new(Vec::new()),
            cnt_notifies: HandleTable::new(CntNotifyHandle::TAG),
            cnt_notify_counts: Mutex::new(Vec::new()),
            stream_state: RwLock::new(Vec::new()),
            device_state: RwLock::new(Vec::new()),
            task_abort: Mutex::default(),
            halted: Mutex::new(BTreeSet::new()),
            value_writes: Arc::new(WaitList::new()),
            value_writers: Arc::default(),
            dvpp: Mutex::new(BTreeMap::new()),
            host_registered: Mutex::new(BTreeMap::new()),
        }
    }
}

impl Extras {
    /// Whether `from` may access the memory of `to` (always, for the same device).
    pub(crate) fn peer_enabled(&self, from: i32, to: i32) -> bool {
        from == to || lock(&self.peers).contains(&(from, to))
    }

    /// The registered host range that contains `ptr`, as (start, length).
    pub(crate) fn host_registration(&self, ptr: usize) -> Option<(usize, usize)> {
        lock(&self.host_registered)
            .range(..=ptr)
            .next_back()
            .map(|(&start, &len)| (start, len))
            .filter(|&(start, len)| ptr - start < len)
    }

    /// The registered stream state callbacks, to call without holding the list's lock.
    pub(crate) fn stream_state_callbacks(&self) -> Vec<StreamStateCallback> {
        self.stream_state
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(_, cb)| cb.clone())
            .collect()
    }
}

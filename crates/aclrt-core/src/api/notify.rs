//! Notifies (`aclrtCreateNotify` …) and stream memory operations (`aclrtValueWrite`,
//! `aclrtValueWait`).
//!
//! Both are tasks that wait for, or signal, something on the device. They run on the stream's
//! worker as named host tasks ("aclrtRecordNotify", "aclrtWaitAndResetNotify",
//! "aclrtValueWrite", "aclrtValueWait"), so traces show them in stream order; a wait gives up
//! when its stream drops its work (abort, stop, forced destroy).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::os_thread_id;
use crate::codes::*;
use crate::error::{bail, err, Error, Result};
use crate::exec::Work;
use crate::handle::{CntNotifyHandle, NotifyHandle, StreamHandle};
use crate::memory::Place;
use crate::notify::{CntNotify, CountOp, CountTest, Notify, WaitEnd};
use crate::observe::EdgeKind;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::sync::{lock, SpinPolicy};
use crate::task_info::{KernelFn, MemRange, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// Notifies per device: the vendor's limit for its A2 and A3 products.
pub const MAX_NOTIFIES_PER_DEVICE: usize = 8192;

/// How long a value wait sleeps before it looks at the memory again when no `aclrtValueWrite`
/// has woken it: memory written by other means (a copy, a kernel, the host) is seen that late.
const VALUE_RECHECK: Duration = Duration::from_millis(1);

/// The smallest id not in `used`.
fn smallest_free(mut used: Vec<u32>) -> u32 {
    used.sort_unstable();
    let mut id = 0;
    for u in used {
        if u != id {
            break;
        }
        id += 1;
    }
    id
}

/// Takes one of a device's `MAX_NOTIFIES_PER_DEVICE` slots in `counts` (`207009` when none is
/// left) and returns the guard, to hold until the new object is in its table.
pub(crate) fn take_notify_slot<'a>(
    counts: &'a std::sync::Mutex<Vec<usize>>,
    device_id: i32,
    what: &str,
) -> Result<crate::sync::Guard<'a, Vec<usize>>> {
    let mut guard = lock(counts);
    let slot = device_id as usize;
    if guard.len() <= slot {
        guard.resize(slot + 1, 0);
    }
    if guard[slot] >= MAX_NOTIFIES_PER_DEVICE {
        bail!(
            ACL_ERROR_RT_NO_NOTIFY_RESOURCE,
            "device {device_id} already has {MAX_NOTIFIES_PER_DEVICE} {what}, the limit"
        );
    }
    guard[slot] += 1;
    Ok(guard)
}

impl Runtime {
    pub(crate) fn lookup_notify(&self, handle: NotifyHandle) -> Result<Arc<Notify>> {
        if handle.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "the notify is NULL");
        }
        self.extras.notifies.get(handle.as_raw()).ok_or_else(|| {
            Error::new(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!("{handle:?} is not a live notify (destroyed, stale, or not a notify)"),
            )
        })
    }

    /// `aclrtCreateNotify`: a notify of the current device, not set. `flag` is
    /// `ACL_NOTIFY_DEFAULT` or `ACL_NOTIFY_DEVICE_USE_ONLY` (else `107000`; both behave alike,
    /// the emulated device runs every task on the host); a device holds at most [`MAX_NOTIFIES_PER_DEVICE`] (`207009` beyond).
    pub fn create_notify(&self, flag: u64) -> Result<NotifyHandle> {
        let _creating = self.creating()?;
        let ctx = self.current_context()?;
        if flag != vc::ACL_NOTIFY_DEFAULT as u64 && flag != vc::ACL_NOTIFY_DEVICE_USE_ONLY as u64 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtCreateNotify: flag {flag:#x} is not ACL_NOTIFY_DEFAULT or \
                 ACL_NOTIFY_DEVICE_USE_ONLY"
            );
        }
        let device_id = ctx.device.id;
        let _counts = take_notify_slot(&self.extras.notify_counts, device_id, "notifies")?;
        let id = self.free_notify_id(device_id);
        let notify = self
            .extras
            .notifies
            .insert_with(|raw| Arc::new(Notify::new(NotifyHandle::from_raw(raw), device_id, id)));
        Ok(notify.handle)
    }

    /// The smallest id no live notify of the device has.
    pub(crate) fn free_notify_id(&self, device_id: i32) -> u32 {
        smallest_free(
            self.extras
                .notifies
                .values()
                .into_iter()
                .filter(|(_, n)| n.device_id == device_id)
                .map(|(_, n)| n.id)
                .collect(),
        )
    }

    /// `aclrtDestroyNotify`: at once; queued tasks that use it still run.
    pub fn destroy_notify(&self, handle: NotifyHandle) -> Result<()> {
        self.lookup_notify(handle)?;
        self.current_context()?;
        let Some(notify) = self.extras.notifies.remove(handle.as_raw()) else {
            return err(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!("{handle:?} was destroyed concurrently"),
            );
        };
        if let Some(n) = lock(&self.extras.notify_counts).get_mut(notify.device_id as usize) {
            *n -= 1;
        }
        Ok(())
    }

    /// The notify and the stream of a record or wait, in contract order: NULL and handles,
    /// current context and stream ownership, then the notify's device.
    fn notify_and_stream(
        &self,
        handle: NotifyHandle,
        stream: StreamHandle,
        call: &str,
    ) -> Result<(Arc<Notify>, Arc<Stream>)> {
        let notify = self.lookup_notify(handle)?;
        let stream = self.stream_for_work(self.lookup_stream(stream)?, call)?;
        if notify.device_id != stream.context.device.id {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: notify {} belongs to device {}, the stream to device {}",
                notify.id,
                notify.device_id,
                stream.context.device.id
            );
        }
        Ok((notify, stream))
    }

    /// Queues a named host task on a stream already checked.
    fn submit_device_task(&self, stream: &Arc<Stream>, name: &str, kernel: KernelFn) -> Result<()> {
        let meta = TaskMeta {
            name: Some(Arc::from(name)),
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        self.submit(stream, TaskKind::Kernel, Work::Kernel(kernel), meta)
            .map(|_| ())
    }

    /// `aclrtRecordNotify`: when the stream reaches it, the notify is set (NULL stream: the
    /// default stream).
    pub fn record_notify(&self, handle: NotifyHandle, stream: StreamHandle) -> Result<()> {
        let (notify, stream) = self.notify_and_stream(handle, stream, "aclrtRecordNotify")?;
        self.submit_device_task(
            &stream,
            "aclrtRecordNotify",
            Box::new(move || {
                notify.record(crate::observe::running_task());
                Ok(())
            }),
        )
    }

    /// `aclrtWaitAndResetNotify`: later work on the stream waits until the notify is set, and
    /// the wait resets it. `timeout_s` in seconds, 0 without limit; on expiry the waiting
    /// stream's task fails with `107020` (`ACL_ERROR_RT_TASK_TIMEOUT`).
    pub fn wait_and_reset_notify(
        &self,
        handle: NotifyHandle,
        stream: StreamHandle,
        timeout_s: u32,
    ) -> Result<()> {
        let (notify, stream) = self.notify_and_stream(handle, stream, "aclrtWaitAndResetNotify")?;
        let timeout = (timeout_s > 0).then(|| Duration::from_secs(u64::from(timeout_s)));
        let waiter = stream.clone();
        self.submit_device_task(
            &stream,
            "aclrtWaitAndResetNotify",
            Box::new(move || {
                let deadline = timeout.map(|t| Instant::now() + t);
                // Waits write nothing: they step out of the memory's gate while they sleep.
                let gate = crate::memory::writers::gate();
                match gate.idle_while(|| notify.wait_and_reset(&waiter, deadline)) {
                    WaitEnd::Taken(by) => {
                        released_by(by, EdgeKind::Notify);
                        Ok(())
                    }
                    WaitEnd::Dropped => Ok(()),
                    WaitEnd::TimedOut => crate::user_code::fail_user_code(Error::new(
                        ACL_ERROR_RT_TASK_TIMEOUT,
                        format!(
                            "the wait for notify {} timed out after {timeout_s} s",
                            notify.id
                        ),
                    )),
                    WaitEnd::Gone(pid) => crate::user_code::fail_user_code(super::ipc::peer_gone(
                        &format!("the wait for IPC notify {}", notify.id),
                        pid,
                    )),
                }
            }),
        )
    }

    /// `aclrtGetNotifyId`: unique among the live notifies of its device, from 0.
    pub fn get_notify_id(&self, handle: NotifyHandle) -> Result<u32> {
        Ok(self.lookup_notify(handle)?.id)
    }

    /// `aclrtNotifyBatchReset`: clears each notify at once (a wait already queued goes on
    /// waiting for the next record). Every handle is checked before any is reset.
    pub fn notify_batch_reset(&self, handles: &[NotifyHandle]) -> Result<()> {
        if handles.is_empty() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtNotifyBatchReset: the array is empty"
            );
        }
        let notifies = handles
            .iter()
            .map(|&h| self.lookup_notify(h))
            .collect::<Result<Vec<_>>>()?;
        for n in notifies {
            n.reset();
        }
        Ok(())
    }

    /// Whether a notify is set now (for tests and tools: a record ran and no wait or reset has
    /// taken it).
    pub fn notify_is_set(&self, handle: NotifyHandle) -> Result<bool> {
        Ok(self.lookup_notify(handle)?.is_set())
    }

    /// The 8-byte word at `addr` for a value task: aligned (`107008`) and inside live device
    /// memory (`100000` otherwise).
    fn device_word(&self, addr: usize, call: &str) -> Result<()> {
        if addr == 0 {
            bail!(ACL_ERROR_INVALID_PARAM, "{call}: devAddr is NULL");
        }
        if !addr.is_multiple_of(8) {
            bail!(
                ACL_ERROR_RT_ADDR_UNALIGNED,
                "{call}: devAddr {addr:#x} is not 8-byte aligned"
            );
        }
        self.memory.check_access(addr, 8, "devAddr")?;
        match self.memory.place_of(addr, "devAddr")? {
            Some(Place::Device(_)) => Ok(()),
            _ => bail!(
                ACL_ERROR_INVALID_PARAM,
                "{call}: devAddr {addr:#x} is not device memory (aclrtMalloc)"
            ),
        }
    }

    /// `aclrtValueWrite`: when the stream reaches it, stores `value` (64 bits) at `addr`, which
    /// must be 8-byte aligned device memory. `flag` must be 0 (`100000` otherwise).
    pub fn value_write(
        &self,
        addr: usize,
        value: u64,
        flag: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        let stream = self.stream_for_work(self.lookup_stream(stream)?, "aclrtValueWrite")?;
        self.device_word(addr, "aclrtValueWrite")?;
        if flag != 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtValueWrite: flag must be 0, not {flag:#x}"
            );
        }
        self.submit_value_write(&stream, addr, value, ValueWidth::Bits64, "aclrtValueWrite")
    }

    /// `aclrtValueWait`: later work on the stream waits until the 64-bit value at `addr`
    /// satisfies `flag` against `value`: `ACL_STREAM_WAIT_VALUE_GEQ`
    /// (`(int64_t)(*addr - value) >= 0`), `_EQ`, `_AND` (`*addr & value != 0`) or `_NOR`
    /// (`~(*addr | value) != 0`);
    /// another flag is `100000`. An `aclrtValueWrite` wakes it at once; a change made any other
    /// way is seen within a millisecond.
    pub fn value_wait(
        &self,
        addr: usize,
        value: u64,
        flag: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        let stream = self.stream_for_work(self.lookup_stream(stream)?, "aclrtValueWait")?;
        self.device_word(addr, "aclrtValueWait")?;
        let test = match i64::from(flag) {
            vc::ACL_STREAM_WAIT_VALUE_GEQ => ValueTest::Geq,
            vc::ACL_STREAM_WAIT_VALUE_EQ => ValueTest::Eq,
            vc::ACL_STREAM_WAIT_VALUE_AND => ValueTest::And,
            vc::ACL_STREAM_WAIT_VALUE_NOR => ValueTest::Nor,
            other => bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtValueWait: flag {other} is not an ACL_STREAM_WAIT_VALUE_* value"
            ),
        };
        self.submit_value_wait(
            &stream,
            addr,
            value,
            ValueWidth::Bits64,
            test,
            "aclrtValueWait",
        )
    }

    /// Queues a value write on `stream` (a task named `name`): stores the low `width` bits of
    /// `value` at `addr` as one atomic, sequentially consistent store, then wakes the value
    /// waits. The caller checked the stream and that `addr` is live memory the device may write,
    /// aligned to the width.
    pub(crate) fn submit_value_write(
        &self,
        stream: &Arc<Stream>,
        addr: usize,
        value: u64,
        width: ValueWidth,
        name: &'static str,
    ) -> Result<()> {
        let woken = self.extras.value_writes.clone();
        let writers = self.extras.value_writers.clone();
        let meta = TaskMeta {
            name: Some(Arc::from(name)),
            writes: vec![MemRange {
                start: addr,
                len: width.bytes(),
            }],
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let kernel: KernelFn = Box::new(move || {
            if let Some(me) = crate::observe::running_task() {
                lock(&writers).insert(addr, me);
            }
            // SAFETY: aligned to the width and inside live memory when submitted; runtime
            // memory stays mapped after a free (see `memory`), other memory the caller keeps.
            unsafe { width.store(addr, value) };
            woken.wake_all();
            Ok(())
        });
        self.submit(stream, TaskKind::Kernel, Work::Kernel(kernel), meta)
            .map(|_| ())
    }

    /// Queues a value wait on `stream` (a task named `name`): later work waits until the word of
    /// `width` bits at `addr` satisfies `test` against `value`. A value write wakes it at once;
    /// a change made any other way is seen within [`VALUE_RECHECK`]. It gives up when the
    /// stream drops its work. The caller checked as for [`Runtime::submit_value_write`].
    pub(crate) fn submit_value_wait(
        &self,
        stream: &Arc<Stream>,
        addr: usize,
        value: u64,
        width: ValueWidth,
        test: ValueTest,
        name: &'static str,
    ) -> Result<()> {
        let woken = self.extras.value_writes.clone();
        let writers = self.extras.value_writers.clone();
        let waiter = stream.clone();
        // The wait reads the word as a synchronising (atomic) load, not as data: it declares
        // no access; the value write that released it orders the stream's later work instead.
        let meta = TaskMeta {
            name: Some(Arc::from(name)),
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let kernel: KernelFn = Box::new(move || {
            // SAFETY: as for the value write.
            let holds = || test.holds(width, unsafe { width.load(addr) }, value);
            crate::memory::writers::gate().idle_while(|| {
                while !holds() && !waiter.dropping_work() {
                    woken.wait_until(
                        || holds() || waiter.dropping_work(),
                        Some(Instant::now() + VALUE_RECHECK),
                        SpinPolicy::Brief,
                    );
                }
            });
            if holds() {
                let by =
                    crate::observe::running_task().and_then(|_| lock(&writers).get(&addr).copied());
                released_by(by, EdgeKind::ValueWrite);
            }
            Ok(())
        });
        self.submit(stream, TaskKind::Kernel, Work::Kernel(kernel), meta)
            .map(|_| ())
    }

    /// Queues a task named `name` on `stream` that is a full (sequentially consistent) memory
    /// fence: what ran before it on the stream is visible to everything after it.
    pub(crate) fn submit_memory_fence(
        &self,
        stream: &Arc<Stream>,
        name: &'static str,
    ) -> Result<()> {
        let meta = TaskMeta {
            name: Some(Arc::from(name)),
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let kernel: KernelFn = Box::new(|| {
            std::sync::atomic::fence(Ordering::SeqCst);
            Ok(())
        });
        self.submit(stream, TaskKind::Kernel, Work::Kernel(kernel), meta)
            .map(|_| ())
    }
}

/// The width of the word a value task reads or writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueWidth {
    /// A 32-bit word (4-byte aligned); operands are truncated to 32 bits.
    Bits32,
    /// A 64-bit word (8-byte aligned).
    Bits64,
}

impl ValueWidth {
    /// The word's size in bytes (also its alignment).
    pub(crate) fn bytes(self) -> usize {
        match self {
            ValueWidth::Bits32 => 4,
            ValueWidth::Bits64 => 8,
        }
    }

    fn mask(self) -> u64 {
        match self {
            ValueWidth::Bits32 => u64::from(u32::MAX),
            ValueWidth::Bits64 => u64::MAX,
        }
    }

    /// # Safety
    /// `addr` is aligned to the width and valid for an atomic access of that size.
    unsafe fn load(self, addr: usize) -> u64 {
        // SAFETY: forwarded to the caller.
        unsafe {
            match self {
                ValueWidth::Bits32 => {
                    u64::from(AtomicU32::from_ptr(addr as *mut u32).load(Ordering::SeqCst))
                }
                ValueWidth::Bits64 => AtomicU64::from_ptr(addr as *mut u64).load(Ordering::SeqCst),
            }
        }
    }

    /// # Safety
    /// As for [`ValueWidth::load`].
    unsafe fn store(self, addr: usize, value: u64) {
        // SAFETY: forwarded to the caller.
        unsafe {
            match self {
                ValueWidth::Bits32 => {
                    AtomicU32::from_ptr(addr as *mut u32).store(value as u32, Ordering::SeqCst)
                }
                ValueWidth::Bits64 => {
                    AtomicU64::from_ptr(addr as *mut u64).store(value, Ordering::SeqCst)
                }
            }
        }
    }
}

/// The condition a value wait waits for, between the word `cur` and the operand `v`, both taken
/// at the wait's width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ValueTest {
    /// `(intN_t)(cur - v) >= 0`: a greater-or-equal that survives wrap-around.
    Geq,
    /// `cur == v`.
    Eq,
    /// `(cur & v) != 0`.
    And,
    /// `~(cur | v) != 0`.
    Nor,
}

impl ValueTest {
    pub(crate) fn holds(self, width: ValueWidth, cur: u64, v: u64) -> bool {
        let mask = width.mask();
        let (cur, v) = (cur & mask, v & mask);
        match self {
            // The sign bit of the width, after a subtraction modulo 2^width.
            ValueTest::Geq => cur.wrapping_sub(v) & mask & !(mask >> 1) == 0,
            ValueTest::Eq => cur == v,
            ValueTest::And => cur & v != 0,
            ValueTest::Nor => !(cur | v) & mask != 0,
        }
    }
}

/// Counting notifies (`aclrtCntNotifyCreate` …): like notifies, records and waits are named
/// host tasks on their streams ("aclrtCntNotifyRecord", "aclrtCntNotifyWaitWithTimeout",
/// "aclrtCntNotifyReset").
impl Runtime {
    fn lookup_cnt_notify(&self, handle: CntNotifyHandle) -> Result<Arc<CntNotify>> {
        if handle.is_null() {
            bail!(ACL_ERROR_INVALID_PARAM, "the counting notify is NULL");
        }
        self.extras
            .cnt_notifies
            .get(handle.as_raw())
            .ok_or_else(|| {
                Error::new(
                    ACL_ERROR_RT_INVALID_HANDLE,
                    format!(
                        "{handle:?} is not a live counting notify (destroyed, stale, or not a \
                     counting notify)"
                    ),
                )
            })
    }

    /// `aclrtCntNotifyCreate`: a counting notify of the current device, count 0. `flag` must
    /// be 0 (`107000`); a device holds at most [`MAX_NOTIFIES_PER_DEVICE`] (`207009` beyond).
    pub fn cnt_notify_create(&self, flag: u64) -> Result<CntNotifyHandle> {
        let _creating = self.creating()?;
        if flag != 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtCntNotifyCreate: flag {flag:#x} is reserved and must be 0"
            );
        }
        let ctx = self.current_context()?;
        let device_id = ctx.device.id;
        let _counts = take_notify_slot(
            &self.extras.cnt_notify_counts,
            device_id,
            "counting notifies",
        )?;
        let id = smallest_free(
            self.extras
                .cnt_notifies
                .values()
                .into_iter()
                .filter(|(_, n)| n.device_id == device_id)
                .map(|(_, n)| n.id)
                .collect(),
        );
        let notify = self.extras.cnt_notifies.insert_with(|raw| {
            Arc::new(CntNotify::new(
                CntNotifyHandle::from_raw(raw),
                device_id,
                id,
            ))
        });
        Ok(notify.handle)
    }

    /// `aclrtCntNotifyDestroy`: at once; queued tasks that use it still run.
    pub fn cnt_notify_destroy(&self, handle: CntNotifyHandle) -> Result<()> {
        self.lookup_cnt_notify(handle)?;
        let Some(notify) = self.extras.cnt_notifies.remove(handle.as_raw()) else {
            return err(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!("{handle:?} was destroyed concurrently"),
            );
        };
        if let Some(n) = lock(&self.extras.cnt_notify_counts).get_mut(notify.device_id as usize) {
            *n -= 1;
        }
        Ok(())
    }

    /// The counting notify and the stream of a record, wait or reset: handles, then stream
    /// ownership (current context), then the notify's device (`107000` for another).
    fn cnt_notify_and_stream(
        &self,
        handle: CntNotifyHandle,
        stream: StreamHandle,
        call: &str,
    ) -> Result<(Arc<CntNotify>, Arc<Stream>)> {
        let notify = self.lookup_cnt_notify(handle)?;
        let stream = self.stream_for_work(self.lookup_stream(stream)?, call)?;
        if notify.device_id != stream.context.device.id {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: counting notify {} belongs to device {}, the stream to device {}",
                notify.id,
                notify.device_id,
                stream.context.device.id
            );
        }
        Ok((notify, stream))
    }

    /// `aclrtCntNotifyRecord`: when the stream reaches it, the count becomes `value`
    /// (`mode` `ACL_RT_CNT_NOTIFY_RECORD_SET_VALUE_MODE`), or the count plus, or-ed or and-ed
    /// with it (`_ADD_MODE`, `_BIT_OR_MODE`, `_BIT_AND_MODE`); another mode is `107000`.
    pub fn cnt_notify_record(
        &self,
        handle: CntNotifyHandle,
        stream: StreamHandle,
        mode: u32,
        value: u32,
    ) -> Result<()> {
        let call = "aclrtCntNotifyRecord";
        let (notify, stream) = self.cnt_notify_and_stream(handle, stream, call)?;
        let Some(op) = CountOp::from_raw(mode) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: mode {mode} is not an aclrtCntNotifyRecordMode"
            );
        };
        self.submit_device_task(
            &stream,
            call,
            Box::new(move || {
                notify.record(op, value, crate::observe::running_task());
                Ok(())
            }),
        )
    }

    /// `aclrtCntNotifyWaitWithTimeout`: later work on the stream waits until the count
    /// satisfies `mode` against `value` (less, equal, bigger, bigger or equal, all of `value`'s
    /// bits set; another mode is `107000`), then clears the count if `clear`. `timeout_s` in
    /// seconds, 0 without limit; on expiry the waiting stream's task fails with `107020`
    /// (`ACL_ERROR_RT_TASK_TIMEOUT`).
    pub fn cnt_notify_wait_with_timeout(
        &self,
        handle: CntNotifyHandle,
        stream: StreamHandle,
        mode: u32,
        value: u32,
        timeout_s: u32,
        clear: bool,
    ) -> Result<()> {
        let call = "aclrtCntNotifyWaitWithTimeout";
        let (notify, stream) = self.cnt_notify_and_stream(handle, stream, call)?;
        let Some(test) = CountTest::from_raw(mode) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{call}: mode {mode} is not an aclrtCntNotifyWaitMode"
            );
        };
        let timeout = (timeout_s > 0).then(|| Duration::from_secs(u64::from(timeout_s)));
        let waiter = stream.clone();
        self.submit_device_task(
            &stream,
            call,
            Box::new(move || {
                let deadline = timeout.map(|t| Instant::now() + t);
                let gate = crate::memory::writers::gate();
                match gate.idle_while(|| notify.wait(test, value, clear, &waiter, deadline)) {
                    WaitEnd::Taken(by) => {
                        released_by(by, EdgeKind::Notify);
                        Ok(())
                    }
                    WaitEnd::Dropped => Ok(()),
                    WaitEnd::TimedOut => crate::user_code::fail_user_code(Error::new(
                        ACL_ERROR_RT_TASK_TIMEOUT,
                        format!(
                            "the wait for counting notify {} timed out after {timeout_s} s \
                             (count {})",
                            notify.id,
                            notify.count()
                        ),
                    )),
                    // Counting notifies are never shared between processes.
                    WaitEnd::Gone(_) => Ok(()),
                }
            }),
        )
    }

    /// `aclrtCntNotifyReset`: when the stream reaches it, the count becomes 0.
    pub fn cnt_notify_reset(&self, handle: CntNotifyHandle, stream: StreamHandle) -> Result<()> {
        let call = "aclrtCntNotifyReset";
        let (notify, stream) = self.cnt_notify_and_stream(handle, stream, call)?;
        self.submit_device_task(
            &stream,
            call,
            Box::new(move || {
                notify.reset();
                Ok(())
            }),
        )
    }

    /// `aclrtCntNotifyGetId`: unique among the live counting notifies of its device, from 0.
    pub fn cnt_notify_get_id(&self, handle: CntNotifyHandle) -> Result<u32> {
        Ok(self.lookup_cnt_notify(handle)?.id)
    }

    /// The count of a counting notify now (for tests and tools).
    pub fn cnt_notify_count(&self, handle: CntNotifyHandle) -> Result<u32> {
        Ok(self.lookup_cnt_notify(handle)?.count())
    }
}

/// A wait task that runs on this thread was released by the task `by` (when observed): the
/// happens-before edge from it.
pub(crate) fn released_by(by: Option<crate::observe::TaskRef>, kind: EdgeKind) {
    if let (Some(by), Some(waiter)) = (by, crate::observe::running_task()) {
        crate::observe::wait_released(waiter, Some(by), kind);
    }
}

#[cfg(test)]
mod tests {
    use super::{ValueTest, ValueWidth};

    #[test]
    fn geq_is_cyclic_at_each_width() {
        let (w32, w64) = (ValueWidth::Bits32, ValueWidth::Bits64);
        assert!(ValueTest::Geq.holds(w32, 5, 5));
        assert!(ValueTest::Geq.holds(w32, 6, 5));
        assert!(!ValueTest::Geq.holds(w32, 4, 5));
        // 1 is "after" 0xFFFF_FFFF modulo 2^32, but not modulo 2^64.
        assert!(ValueTest::Geq.holds(w32, 1, 0xFFFF_FFFF));
        assert!(!ValueTest::Geq.holds(w64, 1, 0xFFFF_FFFF));
        assert!(ValueTest::Geq.holds(w64, 1, u64::MAX));
        // The operand is taken at the width: its high bits do not count for 32 bits.
        assert!(ValueTest::Geq.holds(w32, 7, 0x1_0000_0007));
    }

    #[test]
    fn eq_and_nor_at_each_width() {
        let (w32, w64) = (ValueWidth::Bits32, ValueWidth::Bits64);
        assert!(ValueTest::Eq.holds(w32, 0x1_0000_0009, 9));
        assert!(!ValueTest::Eq.holds(w64, 0x1_0000_0009, 9));
        assert!(ValueTest::And.holds(w64, 0b0110, 0b0100));
        assert!(!ValueTest::And.holds(w64, 0b0110, 0b1001));
        assert!(!ValueTest::And.holds(w32, 0x1_0000_0000, 0x1_0000_0000));
        // NOR: some bit clear in both.
        assert!(ValueTest::Nor.holds(w32, 0xFFFF_0000, 0x0000_FF00));
        assert!(!ValueTest::Nor.holds(w32, 0xFFFF_0000, 0x0000_FFFF));
        assert!(ValueTest::Nor.holds(w64, 0xFFFF_0000, 0x0000_FFFF));
        assert!(!ValueTest::Nor.holds(w64, u64::MAX, 0));
    }
}

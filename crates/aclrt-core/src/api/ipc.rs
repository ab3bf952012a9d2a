//! IPC events (`aclrtIpcGetEventHandle`, `aclrtIpcOpenEventHandle`, events created with
//! `ACL_EVENT_IPC`) and IPC notifies (`aclrtNotifyGetExportKey`, `aclrtNotifyImportByKey`,
//! `aclrtNotifySetImportPid`).
//!
//! Their completion state lives in shared memory (`crate::ipc`). An IPC event's record is a
//! named stream task ("aclrtRecordEvent (IPC)") that completes its shared record when it runs,
//! or when it is discarded, so no process waits for ever on a record that will not run. A
//! stream wait on it is a task ("aclrtStreamWaitEvent (IPC)") that sleeps on the shared word;
//! queued when the latest record is pending, and not at all when it is complete, as the
//! vendor's. On the pooled scheduler that task holds its worker while it sleeps (the wake
//! comes from another process, through the shared word, which no in-process waker sees); the
//! pool's monitor starts another worker for each stuck one, so other streams still run. The vendor's restrictions hold: an IPC event takes no reset, no timing, no id,
//! no deprecated query or wait-status query (`207000`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{not_in_callback, os_thread_id};
use crate::codes::*;
use crate::consts::ACL_EVENT_IPC;
use crate::error::{bail, Error, Result};
use crate::event::{Event, Family};
use crate::exec::Work;
use crate::handle::{EventHandle, NotifyHandle};
use crate::ipc::{Kind, Origin, Segment, Waited, HANDLE_SIZE};
use crate::notify::Notify;
use crate::observe::EdgeKind;
use crate::runtime::Runtime;
use crate::stream::Stream;
use crate::task_info::{KernelFn, TaskKind, TaskMeta};
use crate::vendor_consts as vc;

/// The shortest key buffer `aclrtNotifyGetExportKey` accepts (the vendor's documented minimum).
pub const NOTIFY_KEY_MIN_LEN: usize = 65;

/// The error of a wait whose partner process left: `ACL_ERROR_RT_IPC_ERROR`.
pub(crate) fn peer_gone(what: &str, pid: i32) -> Error {
    let who = if pid > 0 {
        format!("process {pid}")
    } else {
        "every other process that opened it".to_owned()
    };
    Error::new(
        ACL_ERROR_RT_IPC_ERROR,
        format!("{what} cannot complete: {who} exited or was killed before recording it"),
    )
}

/// Refuses an IPC event in a call the vendor does not support for one (`207000`).
pub(crate) fn refuse_ipc(ev: &Event, call: &str) -> Result<()> {
    if ev.ipc.is_some() {
        bail!(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "{call} is not supported for IPC events (event {})",
            ev.id
        );
    }
    Ok(())
}

/// Completes an IPC record when dropped: after the record task ran, or when the task is
/// discarded (or its submission fails) without running.
struct CompleteOnDrop(Arc<Segment>, u32);

impl Drop for CompleteOnDrop {
    fn drop(&mut self) {
        self.0.complete_record(self.1);
    }
}

fn named(name: &str, event: &Event) -> TaskMeta {
    TaskMeta {
        name: Some(Arc::from(name)),
        submitter_thread: os_thread_id(),
        event: Some(event.handle.as_raw()),
        ..TaskMeta::default()
    }
}

/// The calling host thread learned that record `seq` completed: observers see it as a host
/// synchronisation with the record task, when this process ran it.
pub(crate) fn learned_record(seg: &Segment, seq: u32) {
    if crate::observe::enabled() {
        if let Some(task) = crate::ipc::recorder_of(seg.origin().token, seq) {
            crate::observe::host_synchronized(task);
        }
    }
}

impl Runtime {
    /// The shared state of an IPC event created here: made with the event.
    pub(crate) fn new_ipc_segment(flags: u32) -> Result<Option<Arc<Segment>>> {
        if flags != ACL_EVENT_IPC {
            return Ok(None);
        }
        Ok(Some(Arc::new(Segment::create(Kind::Event)?)))
    }

    /// `aclrtIpcGetEventHandle`: the 64 bytes another process opens the event with. The event
    /// must be an IPC one (`107000`); an opened event hands out the handle it was opened with.
    pub fn ipc_get_event_handle(&self, event: EventHandle) -> Result<[u8; HANDLE_SIZE]> {
        let ev = self.lookup_event(event)?;
        self.current_context()?;
        match &ev.ipc {
            Some(seg) => Ok(seg.origin().to_handle()),
            None => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtIpcGetEventHandle: event {} was not created with ACL_EVENT_IPC",
                ev.id
            ),
        }
    }

    /// `aclrtIpcOpenEventHandle`: an event of the current context that shares the IPC event
    /// `handle` names. Bytes that are no handle are `107000`; a handle whose event is gone (its
    /// creator destroyed it or exited) is `507022`.
    pub fn ipc_open_event_handle(&self, handle: &[u8; HANDLE_SIZE]) -> Result<EventHandle> {
        let creating = self.creating()?;
        let ctx = self.current_context()?;
        let Some(origin) = Origin::from_handle(handle) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtIpcOpenEventHandle: the handle was not made by aclrtIpcGetEventHandle"
            );
        };
        let seg = Arc::new(Segment::open(origin, Kind::Event)?);
        let event = self.events.insert_with(|raw| {
            Arc::new(Event::new(
                EventHandle::from_raw(raw),
                Family::Ex,
                ACL_EVENT_IPC,
                ctx.clone(),
                false,
                Some(seg),
            ))
        });
        drop(creating);
        if crate::observe::enabled() {
            crate::observe::event_created(event.handle.as_raw(), event.id, false);
        }
        Ok(event.handle)
    }

    /// Records an IPC event on `stream`: numbers the record in shared memory now, completes it
    /// when the stream reaches it.
    pub(crate) fn ipc_record(
        &self,
        ev: &Event,
        seg: &Arc<Segment>,
        stream: &Arc<Stream>,
    ) -> Result<()> {
        let seq = seg.begin_record()?;
        let token = seg.origin().token;
        let done = CompleteOnDrop(seg.clone(), seq);
        let kernel: KernelFn = Box::new(move || {
            if let Some(me) = crate::observe::running_task() {
                crate::ipc::note_recorder(token, seq, me);
            }
            drop(done);
            Ok(())
        });
        self.submit(
            stream,
            TaskKind::Kernel,
            Work::Kernel(kernel),
            named("aclrtRecordEvent (IPC)", ev),
        )
        .map(|_| ())
    }

    /// Queues on `stream` a wait for the IPC event's latest record, if it is pending.
    pub(crate) fn ipc_wait_on(
        &self,
        stream: &Arc<Stream>,
        ev: &Event,
        seg: &Arc<Segment>,
        timeout: Option<Duration>,
    ) -> Result<()> {
        let seq = seg.latest();
        if seg.record_done(seq) {
            learned_record(seg, seq);
            return Ok(());
        }
        let (seg, waiter, id) = (seg.clone(), stream.clone(), ev.id);
        let kernel: KernelFn = Box::new(move || {
            let deadline = timeout.map(|t| Instant::now() + t);
            // The wait writes nothing: it steps out of the memory's gate while it sleeps.
            let waited = crate::memory::writers::gate()
                .idle_while(|| seg.wait_record(seq, &|| waiter.dropping_work(), deadline));
            match waited {
                Waited::Done => {
                    let by = crate::ipc::recorder_of(seg.origin().token, seq);
                    super::notify::released_by(by, EdgeKind::EventWait);
                    Ok(())
                }
                Waited::Interrupted => Ok(()),
                Waited::TimedOut => crate::user_code::fail_user_code(Error::new(
                    ACL_ERROR_RT_TASK_TIMEOUT,
                    format!(
                        "the wait for IPC event {id} timed out after {} ms",
                        timeout.unwrap_or_default().as_millis()
                    ),
                )),
                Waited::Gone(pid) => crate::user_code::fail_user_code(peer_gone(
                    &format!("the wait for IPC event {id}"),
                    pid,
                )),
            }
        });
        self.submit(
            stream,
            TaskKind::Kernel,
            Work::Kernel(kernel),
            named("aclrtStreamWaitEvent (IPC)", ev),
        )
        .map(|_| ())
    }

    /// Waits on the host for the IPC event's latest record: `Ok(false)` on timeout, `507022`
    /// when the process that recorded it is gone first.
    pub(crate) fn ipc_synchronize(
        &self,
        ev: &Event,
        seg: &Segment,
        deadline: Option<Instant>,
    ) -> Result<bool> {
        not_in_callback("aclrtSynchronizeEvent")?;
        let seq = seg.latest();
        let token = seg.origin().token;
        let waited = super::traced_wait_on(
            "aclrtSynchronizeEvent",
            || crate::ipc::recorder_of(token, seq).into_iter().collect(),
            || seg.wait_record(seq, &|| false, deadline),
        );
        match waited {
            Waited::Done | Waited::Interrupted => {
                learned_record(seg, seq);
                Ok(true)
            }
            Waited::TimedOut => Ok(false),
            Waited::Gone(pid) => Err(peer_gone(
                &format!("aclrtSynchronizeEvent on IPC event {}", ev.id),
                pid,
            )),
        }
    }

    /// `aclrtNotifyGetExportKey`: makes the notify an IPC notify and returns its key (at most
    /// 64 bytes; `len` must be at least [`NOTIFY_KEY_MIN_LEN`], `107000` otherwise). `flags`:
    /// `ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT` (importers must be on the allow list,
    /// `aclrtNotifySetImportPid`) or `..._DISABLE_PID_VALIDATION` (anyone may import); other
    /// values `107000`. A notify exported or imported already is `107000`.
    pub fn notify_get_export_key(
        &self,
        handle: NotifyHandle,
        len: usize,
        flags: u64,
    ) -> Result<String> {
        let notify = self.lookup_notify(handle)?;
        if len == 0 || len < NOTIFY_KEY_MIN_LEN {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifyGetExportKey: len {len} is too short: the key needs at least \
                 {NOTIFY_KEY_MIN_LEN} bytes"
            );
        }
        let validate = if flags == vc::ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT as u64 {
            true
        } else if flags == vc::ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION as u64 {
            false
        } else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifyGetExportKey: flags {flags:#x} is not \
                 ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT (0) or \
                 ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION (0x2)"
            )
        };
        self.current_context()?;
        if notify.ipc.get().is_some() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifyGetExportKey: notify {} is an IPC notify already",
                notify.id
            );
        }
        let seg = Arc::new(Segment::create(Kind::Notify)?);
        seg.set_validate_pids(validate);
        // A signal set before the export carries over.
        if notify.is_set() {
            seg.notify_record();
        }
        if notify.ipc.set(seg.clone()).is_err() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifyGetExportKey: notify {} was exported concurrently",
                notify.id
            );
        }
        Ok(seg.origin().to_key())
    }

    /// `aclrtNotifySetImportPid`: lets processes `pids` import the notify. Only for a notify
    /// this process exported (`107000` otherwise, and for an empty list).
    pub fn notify_set_import_pid(&self, handle: NotifyHandle, pids: &[i32]) -> Result<()> {
        let notify = self.lookup_notify(handle)?;
        if pids.is_empty() {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifySetImportPid: num must be at least 1"
            );
        }
        self.current_context()?;
        match notify.ipc.get() {
            Some(seg) if seg.is_creator() => seg.allow(pids),
            _ => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifySetImportPid: notify {} was not exported by this process \
                 (aclrtNotifyGetExportKey)",
                notify.id
            ),
        }
    }

    /// `aclrtNotifyImportByKey`: a notify of the current device sharing the exported notify
    /// `key` names. `flags` up to 0x3 (`ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS` and the
    /// vendor's download bit, which change nothing here), else `107000`; a key that is no key
    /// `107000`; a notify that is gone, or an importer not on its allow list, `507022`.
    pub fn notify_import_by_key(&self, key: &str, flags: u64) -> Result<NotifyHandle> {
        if flags > 0x3 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifyImportByKey: flags {flags:#x} is out of range [0, 3]"
            );
        }
        let _creating = self.creating()?;
        let ctx = self.current_context()?;
        let Some(origin) = Origin::from_key(key) else {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "aclrtNotifyImportByKey: {key:?} is not a key aclrtNotifyGetExportKey made"
            );
        };
        let seg = Arc::new(Segment::open(origin, Kind::Notify)?);
        seg.admit()?;
        let device_id = ctx.device.id;
        let _counts =
            super::notify::take_notify_slot(&self.extras.notify_counts, device_id, "notifies")?;
        let id = self.free_notify_id(device_id);
        let notify = self.extras.notifies.insert_with(|raw| {
            let n = Notify::new(NotifyHandle::from_raw(raw), device_id, id);
            let _ = n.ipc.set(seg);
            Arc::new(n)
        });
        Ok(notify.handle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::consts::ACL_EVENT_SYNC;

    #[test]
    fn a_record_of_a_destroyed_ipc_event_is_refused_as_for_any_event() {
        let rt = Runtime::new(&crate::Config::default());
        rt.set_device(0).unwrap();
        let stream = rt.stream_for_work(None, "test").unwrap();
        for flags in [ACL_EVENT_SYNC, ACL_EVENT_IPC] {
            let h = rt.create_event_ex_with_flag(flags).unwrap();
            // Looked up before the destroy, as a record racing with it has.
            let ev = rt.lookup_event(h).unwrap();
            rt.destroy_event(h).unwrap();
            let e = rt.record_on(&ev, &stream).unwrap_err();
            assert_eq!(
                (flags, e.code()),
                (flags, ACL_ERROR_RT_INVALID_HANDLE),
                "{}",
                e.message()
            );
            if let Some(seg) = &ev.ipc {
                assert_eq!(seg.latest(), 0, "no record was numbered");
            }
        }
        rt.reset_device(0).unwrap();
    }
}

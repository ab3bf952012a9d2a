//! Event calls.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::ipc::refuse_ipc;
use super::os_thread_id;
use super::{
    failure_error, not_in_callback, observe_record_completion, sync_timeout, traced_wait_on,
};
use crate::codes::*;
use crate::consts::*;
use crate::error::{bail, err, Result};
use crate::event::{Event, Family};
use crate::exec::{EventSide, RecordState};
use crate::exec::{WaitTarget, Work};
use crate::handle::{EventHandle, StreamHandle};
use crate::runtime::Runtime;
use crate::sync::{lock, SpinPolicy};
use crate::task_info::{TaskKind, TaskMeta};

const VALID_FLAG_BITS: u32 = 0x3F;
const EX_COMBINABLE: u32 = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS | ACL_EVENT_TIME_LINE;

/// NULL events are refused before any handle is looked up (the contract's check order).
fn refuse_null_event(event: EventHandle) -> Result<()> {
    if event.is_null() {
        bail!(ACL_ERROR_INVALID_PARAM, "the event is NULL");
    }
    Ok(())
}

fn refuse_device_only(event: &Event, name: &str) -> Result<()> {
    if event.is_device_only() {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "{name}: event {} is ACL_EVENT_DEVICE_USE_ONLY and cannot be used from the host",
            event.id
        );
    }
    Ok(())
}

fn meta_for(event: &Event) -> TaskMeta {
    TaskMeta {
        submitter_thread: os_thread_id(),
        event: Some(event.handle.as_raw()),
        ..TaskMeta::default()
    }
}

fn check_record_wait_flag(flag: u32, name: &str) -> Result<()> {
    if flag > 1 {
        bail!(
            ACL_ERROR_INVALID_PARAM,
            "{name}: flag {flag} is not 0 (DEFAULT) or 1 (EXTERNAL)"
        );
    }
    Ok(())
}

fn refuse_ex(event: &Event, name: &str) -> Result<()> {
    if event.family == Family::Ex {
        bail!(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "{name} is not supported for events created by aclrtCreateEventExWithFlag (use aclrtQueryEventStatus)"
        );
    }
    Ok(())
}

/// Why an event has no completion time.
pub(crate) enum NoTime {
    NeverRecorded,
    NoTiming,
    NotComplete,
}

pub(crate) fn completion_time_ns(ev: &Event) -> Result<u64, NoTime> {
    let record = ev.latest().ok_or(NoTime::NeverRecorded)?;
    if !ev.has_timing() && ev.family != Family::Cuda {
        return Err(NoTime::NoTiming);
    }
    if !record.is_done() {
        return Err(NoTime::NotComplete);
    }
    Ok(record.timestamp_ns())
}

fn acl_time(ev: &Event) -> Result<u64> {
    completion_time_ns(ev).or_else(|why| match why {
        NoTime::NeverRecorded => err(
            ACL_ERROR_RT_INTERNAL_ERROR,
            format!("event {} has never been recorded", ev.id),
        ),
        NoTime::NoTiming => err(
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
            format!(
                "event {} was created without ACL_EVENT_TIME_LINE and takes no timestamps",
                ev.id
            ),
        ),
        NoTime::NotComplete => err(
            ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
            format!(
                "event {} has not completed yet: synchronise it first",
                ev.id
            ),
        ),
    })
}

impl Runtime {
    pub(crate) fn create(&self, family: Family, flags: u32) -> Result<EventHandle> {
        let creating = self.creating()?;
        let ctx = self.current_context()?;
        let holds = family == Family::Flag && flags & ACL_EVENT_SYNC != 0;
        if holds && !ctx.device.acquire_sync_event() {
            bail!(
                ACL_ERROR_RT_NO_EVENT_RESOURCE,
                "device {} has no SYNC event resource left ({} in use)",
                ctx.device.id,
                crate::device::MAX_SYNC_EVENTS_PER_DEVICE
            );
        }
        let ipc = if family == Family::Ex {
            Self::new_ipc_segment(flags).inspect_err(|_| {
                if holds {
                    ctx.device.release_sync_event();
                }
            })?
        } else {
            None
        };
        let event = self.events.insert_with(|raw| {
            Arc::new(Event::new(
                EventHandle::from_raw(raw),
                family,
                flags,
                ctx.clone(),
                holds,
                ipc,
            ))
        });
        drop(creating);
        if crate::observe::enabled() {
            crate::observe::event_created(event.handle.as_raw(), event.id, event.uses_flag());
        }
        Ok(event.handle)
    }

    /// `aclrtCreateEvent`: a snapshot event with timing (behaves as flags 0x0E).
    pub fn create_event(&self) -> Result<EventHandle> {
        self.create(Family::Default, spec_internal::CREATE_EVENT_FLAGS)
    }

    /// `aclrtCreateEventWithFlag`: non-zero flags up to 0x3F; `DEVICE_USE_ONLY` and `EXTERNAL`
    /// alone. SYNC events take a device SYNC resource now and behave as legacy flags.
    pub fn create_event_with_flag(&self, flags: u32) -> Result<EventHandle> {
        let alone = |bit: u32| flags & bit != 0 && flags != bit;
        if flags == 0
            || flags & !VALID_FLAG_BITS != 0
            || alone(ACL_EVENT_DEVICE_USE_ONLY)
            || alone(ACL_EVENT_EXTERNAL)
        {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "event flags {flags:#x} are invalid for aclrtCreateEventWithFlag: non-zero, at most 0x3F, \
                 and ACL_EVENT_DEVICE_USE_ONLY / ACL_EVENT_EXTERNAL only alone"
            );
        }
        self.create(Family::Flag, flags)
    }

    /// `aclrtCreateEventExWithFlag`: SYNC, CAPTURE_STREAM_PROGRESS and TIME_LINE combined, or IPC
    /// alone. Snapshot events, reusable without reset.
    pub fn create_event_ex_with_flag(&self, flags: u32) -> Result<EventHandle> {
        let valid = (flags != 0 && flags & !EX_COMBINABLE == 0) || flags == ACL_EVENT_IPC;
        if !valid {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "event flags {flags:#x} are invalid for aclrtCreateEventExWithFlag: combine ACL_EVENT_SYNC, \
                 ACL_EVENT_CAPTURE_STREAM_PROGRESS and ACL_EVENT_TIME_LINE, or use ACL_EVENT_IPC alone"
            );
        }
        self.create(Family::Ex, flags)
    }

    /// The event and its context check, in contract order.
    fn event_in_context(&self, handle: EventHandle) -> Result<Arc<Event>> {
        let event = self.lookup_event(handle)?;
        self.current_context()?;
        Ok(event)
    }

    /// `aclrtDestroyEvent`: never blocks; work already queued that uses the event still completes.
    pub fn destroy_event(&self, handle: EventHandle) -> Result<()> {
        let event = self.event_in_context(handle)?;
        if self.events.remove(handle.as_raw()).is_none() {
            return err(
                ACL_ERROR_RT_INVALID_HANDLE,
                format!("{handle:?} was destroyed concurrently"),
            );
        }
        event.retire();
        if crate::observe::enabled() {
            crate::observe::event_destroyed(handle.as_raw());
        }
        Ok(())
    }

    /// Records `event` on the stream: the snapshot of everything submitted to it so far.
    pub(crate) fn record_on(
        &self,
        event: &Arc<Event>,
        stream: &Arc<crate::stream::Stream>,
    ) -> Result<()> {
        let mut state = lock(&event.state);
        if state.destroyed {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "event {} was destroyed by another call meanwhile",
                event.id
            );
        }
        if let Some(seg) = &event.ipc {
            // Queued under the event's lock, as every record: a destroy cannot slip in
            // between the check and the record.
            return self.ipc_record(event, seg, stream);
        }
        let takes_resource = event.counts_while_recorded() && !state.holds_sync_resource;
        if takes_resource {
            if !event.context.device.acquire_sync_event() {
                bail!(
                    ACL_ERROR_RT_NO_EVENT_RESOURCE,
                    "device {} has no SYNC event resource left for recording event {}",
                    event.context.device.id,
                    event.id
                );
            }
            state.holds_sync_resource = true;
        }
        let record = Arc::new(RecordState::new(stream.task_ref(0), &stream.failures));
        let flag = event
            .uses_flag()
            .then(|| event.clone() as Arc<dyn EventSide>);
        match self.submit(
            stream,
            TaskKind::Record,
            Work::Record(record.clone(), flag),
            meta_for(event),
        ) {
            Ok(task_id) => {
                record.set_task_id(task_id);
                state.latest = Some(record);
                Ok(())
            }
            Err(e) => {
                if takes_resource {
                    event.release_sync_resource(&mut state);
                }
                Err(e)
            }
        }
    }

    /// `aclrtRecordEvent`.
    pub fn record_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        refuse_null_event(event)?;
        let ev = self.lookup_event(event)?;
        let stream = self.stream_for_work(self.lookup_stream(stream)?, "aclrtRecordEvent")?;
        refuse_device_only(&ev, "aclrtRecordEvent")?;
        self.record_on(&ev, &stream)
    }

    /// `aclrtRecordEventWithFlag` (`ACL_EVENT_RECORD_DEFAULT` or `..._EXTERNAL`).
    pub fn record_event_with_flag(
        &self,
        event: EventHandle,
        stream: StreamHandle,
        flag: u32,
    ) -> Result<()> {
        check_record_wait_flag(flag, "aclrtRecordEventWithFlag")?;
        self.record_event(event, stream)
    }

    /// `aclrtResetEvent`: an asynchronous stream task that clears a legacy SYNC flag; on an
    /// `aclrtCreateEvent` event it returns the event to "never recorded".
    pub fn reset_event(&self, event: EventHandle, stream: StreamHandle) -> Result<()> {
        refuse_null_event(event)?;
        let ev = self.lookup_event(event)?;
        let stream = self.stream_for_work(self.lookup_stream(stream)?, "aclrtResetEvent")?;
        refuse_device_only(&ev, "aclrtResetEvent")?;
        refuse_ipc(&ev, "aclrtResetEvent")?;
        match ev.family {
            Family::Ex | Family::Cuda => bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "event {} was created by aclrtCreateEventExWithFlag and is reused without reset",
                ev.id
            ),
            Family::Flag if !ev.has_sync() => bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "event {} has no ACL_EVENT_SYNC flag and cannot be reset",
                ev.id
            ),
            Family::Flag => {
                self.submit(
                    &stream,
                    TaskKind::Reset,
                    Work::Reset(ev.clone()),
                    meta_for(&ev),
                )?;
            }
            Family::Default => {
                let mut state = lock(&ev.state);
                self.submit(
                    &stream,
                    TaskKind::Reset,
                    Work::Reset(ev.clone()),
                    meta_for(&ev),
                )?;
                state.latest = None;
                ev.release_sync_resource(&mut state);
            }
        }
        Ok(())
    }

    /// `aclrtQueryEvent` (deprecated): `ACL_EVENT_STATUS_COMPLETE` unless the latest record is
    /// pending; a never-recorded event is complete.
    pub fn query_event(&self, event: EventHandle) -> Result<u32> {
        let ev = self.event_in_context(event)?;
        // An IPC event is an Ex event too; its refusal names the IPC restriction first.
        refuse_ipc(&ev, "aclrtQueryEvent")?;
        refuse_ex(&ev, "aclrtQueryEvent")?;
        Ok(match ev.latest() {
            Some(r) if !r.is_done() => ACL_EVENT_STATUS_NOT_READY,
            latest => {
                if let Some(r) = latest {
                    observe_record_completion(&r);
                }
                ACL_EVENT_STATUS_COMPLETE
            }
        })
    }

    /// `aclrtQueryEventStatus`: `ACL_EVENT_RECORDED_STATUS_COMPLETE` when the work captured by the
    /// latest record is done. Before the first record: NOT_READY, except for Ex events.
    pub fn query_event_status(&self, event: EventHandle) -> Result<u32> {
        let ev = self.event_in_context(event)?;
        let complete = match (&ev.ipc, ev.latest()) {
            (Some(seg), _) => {
                let seq = seg.latest();
                let done = seg.record_done(seq);
                if done {
                    super::ipc::learned_record(seg, seq);
                }
                done
            }
            (None, Some(r)) => {
                // Completion is read once: observing first and reading again could answer
                // COMPLETE for a record that completed in between, unobserved.
                let done = r.is_done();
                if done {
                    observe_record_completion(&r);
                }
                done
            }
            (None, None) => matches!(ev.family, Family::Ex | Family::Cuda),
        };
        Ok(if complete {
            ACL_EVENT_RECORDED_STATUS_COMPLETE
        } else {
            ACL_EVENT_RECORDED_STATUS_NOT_READY
        })
    }

    /// `aclrtQueryEventWaitStatus`: COMPLETE when every wait queued on the event has executed.
    pub fn query_event_wait_status(&self, event: EventHandle) -> Result<u32> {
        let ev = self.event_in_context(event)?;
        refuse_ipc(&ev, "aclrtQueryEventWaitStatus")?;
        refuse_ex(&ev, "aclrtQueryEventWaitStatus")?;
        Ok(if ev.pending_waits() == 0 {
            ACL_EVENT_WAIT_STATUS_COMPLETE
        } else {
            ACL_EVENT_WAIT_STATUS_NOT_READY
        })
    }

    /// Waits for the latest record of `ev`; reports a failure its capture includes.
    pub(crate) fn wait_for_record(
        &self,
        ev: &Event,
        deadline: Option<Instant>,
        spin: SpinPolicy,
    ) -> Result<bool> {
        if let Some(seg) = &ev.ipc {
            return self.ipc_synchronize(ev, seg, deadline);
        }
        let Some(record) = ev.latest() else {
            return Ok(true);
        };
        if !traced_wait_on(
            "aclrtSynchronizeEvent",
            || vec![record.origin()],
            || record.done().wait(deadline, spin),
        ) {
            return Ok(false);
        }
        observe_record_completion(&record);
        if let Some(f) = record.failure() {
            record.clear_stream_failure(f);
            return Err(failure_error(f));
        }
        Ok(true)
    }

    /// `aclrtSynchronizeEventWithTimeout` (`-1` forever).
    pub fn synchronize_event_with_timeout(
        &self,
        event: EventHandle,
        timeout_ms: i32,
    ) -> Result<()> {
        let ev = self.event_in_context(event)?;
        let deadline = sync_timeout(timeout_ms)?;
        not_in_callback("aclrtSynchronizeEvent")?;
        if !self.wait_for_record(&ev, deadline, SpinPolicy::Brief)? {
            bail!(
                ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                "event {} did not complete within {timeout_ms} ms",
                ev.id
            );
        }
        Ok(())
    }

    /// `aclrtSynchronizeEvent`: returns at once for a never-recorded event.
    pub fn synchronize_event(&self, event: EventHandle) -> Result<()> {
        self.synchronize_event_with_timeout(event, -1)
    }

    /// `aclrtEventElapsedTime`: milliseconds between the two records' completions.
    pub fn event_elapsed_time(&self, start: EventHandle, end: EventHandle) -> Result<f32> {
        if start.is_null() || end.is_null() {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "aclrtEventElapsedTime: an event is NULL"
            );
        }
        let s = self.lookup_event(start)?;
        let e = self.lookup_event(end)?;
        self.current_context()?;
        refuse_ipc(&s, "aclrtEventElapsedTime")?;
        refuse_ipc(&e, "aclrtEventElapsedTime")?;
        let (t0, t1) = (acl_time(&s)?, acl_time(&e)?);
        Ok(((t1 as f64 - t0 as f64) / 1e6) as f32)
    }

    /// `aclrtEventGetTimestamp`: completion time in microseconds since the device epoch.
    pub fn event_get_timestamp(&self, event: EventHandle) -> Result<u64> {
        let ev = self.event_in_context(event)?;
        refuse_ipc(&ev, "aclrtEventGetTimestamp")?;
        Ok(acl_time(&ev)? / 1_000)
    }

    /// Queues a wait on `ev` on `stream`, following the family rules.
    pub(crate) fn wait_on(
        &self,
        stream: &Arc<crate::stream::Stream>,
        ev: &Arc<Event>,
        timeout: Option<Duration>,
    ) -> Result<()> {
        refuse_device_only(ev, "aclrtStreamWaitEvent")?;
        if let Some(seg) = &ev.ipc {
            return self.ipc_wait_on(stream, ev, seg, timeout);
        }
        if matches!(ev.family, Family::Flag | Family::Ex) && !ev.has_sync() {
            bail!(
                ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                "event {} has no ACL_EVENT_SYNC flag and cannot be waited on",
                ev.id
            );
        }
        let target = if ev.uses_flag() {
            WaitTarget::Flag
        } else {
            match ev.latest() {
                Some(record) => WaitTarget::Snapshot(record),
                None if ev.family == Family::Default => bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "event {} has not been recorded: record it before a stream waits on it",
                    ev.id
                ),
                // An empty snapshot: nothing to wait for.
                None => return Ok(()),
            }
        };
        ev.wait_queued();
        let recorded = match &target {
            WaitTarget::Snapshot(record) => Some(record.origin()),
            WaitTarget::Flag | WaitTarget::Began(_) => None,
        };
        let work = Work::Wait {
            target,
            event: ev.clone(),
            timeout,
        };
        self.submit(stream, TaskKind::Wait, work, meta_for(ev))
            .inspect_err(|_| ev.wait_executed())?;
        if let Some(origin) = recorded {
            self.note_pool_wait(stream, origin);
        }
        Ok(())
    }

    /// `aclrtStreamWaitEvent`: later work on the stream waits for the event, for at most the
    /// timeout `aclrtSetOpWaitTimeout` set (without limit when none is).
    pub fn stream_wait_event(&self, stream: StreamHandle, event: EventHandle) -> Result<()> {
        let timeout = self.op_wait_timeout_ms();
        self.wait_call(stream, event, timeout, "aclrtStreamWaitEvent")
    }

    /// `aclrtStreamWaitEventWithTimeout`: `timeout_ms` ≥ 0, 0 = no limit; on expiry the waiting
    /// stream fails with `ACL_ERROR_RT_TASK_TIMEOUT`.
    pub fn stream_wait_event_with_timeout(
        &self,
        stream: StreamHandle,
        event: EventHandle,
        timeout_ms: i32,
    ) -> Result<()> {
        self.wait_call(
            stream,
            event,
            Some(timeout_ms),
            "aclrtStreamWaitEventWithTimeout",
        )
    }

    /// The stream-wait calls: handles, context and ownership, then the timeout, then the rules.
    fn wait_call(
        &self,
        stream: StreamHandle,
        event: EventHandle,
        timeout_ms: Option<i32>,
        name: &str,
    ) -> Result<()> {
        refuse_null_event(event)?;
        let s = self.lookup_stream(stream)?;
        let ev = self.lookup_event(event)?;
        let s = self.stream_for_work(s, name)?;
        let timeout = match timeout_ms {
            None | Some(0) => None,
            Some(ms) if ms > 0 => Some(Duration::from_millis(ms as u64)),
            Some(ms) => bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "timeout {ms} is invalid: use 0 (no limit) or a positive number of milliseconds"
            ),
        };
        self.wait_on(&s, &ev, timeout)
    }

    /// `aclrtStreamWaitEventWithFlag(stream, event, timeout, flag)`: the flag
    /// (`ACL_EVENT_WAIT_DEFAULT` or `..._EXTERNAL`) only marks graph-capture use, which the
    /// emulated device does not have; a timeout of 0 waits without limit, others work as in
    /// `aclrtStreamWaitEventWithTimeout` (values beyond `i32::MAX` ms are clamped).
    pub fn stream_wait_event_with_flag(
        &self,
        stream: StreamHandle,
        event: EventHandle,
        timeout_ms: u32,
        flag: u32,
    ) -> Result<()> {
        refuse_null_event(event)?;
        check_record_wait_flag(flag, "aclrtStreamWaitEventWithFlag")?;
        let timeout = (timeout_ms > 0).then(|| i32::try_from(timeout_ms).unwrap_or(i32::MAX));
        self.wait_call(stream, event, timeout, "aclrtStreamWaitEventWithFlag")
    }

    /// `aclrtGetEventId`.
    pub fn get_event_id(&self, event: EventHandle) -> Result<u32> {
        let ev = self.event_in_context(event)?;
        refuse_ipc(&ev, "aclrtGetEventId")?;
        Ok(ev.id)
    }

    /// `aclrtGetEventAvailNum`: SYNC event resources left on the current device.
    pub fn get_event_avail_num(&self) -> Result<u32> {
        Ok(self.current_context()?.device.sync_events_available() as u32)
    }
}

//! The host-thread executor: each stream's tasks run on its own worker thread.
//!
//! Copies and sets are plain memory operations, user code is called in place (through
//! `user_code::run`, which catches panics and applies the failure rule), and waits block the
//! worker, spinning briefly and then parking. A blocked wait holds only its own stream's
//! worker, so no order of waits among streams can deadlock the device.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{
    Channel, EventSide, Executor, Outcome, Progress, RecordState, Site, SyncFlag, WaitTarget,
};
use crate::callback::CallbackDone;
use crate::codes::ACL_ERROR_RT_TASK_TIMEOUT;
use crate::observe::{self, EdgeKind};
use crate::sync::SpinPolicy;
use crate::task_info::{HostFn, KernelFn};
use crate::user_code;

/// Runs tasks on the host, one worker thread per stream.
pub(crate) struct HostThreads;

impl Executor for HostThreads {
    fn kernel(&self, task_id: u64, kernel: KernelFn) -> Outcome {
        let what = format_args!("host kernel (task {task_id})");
        match user_code::run(&what, kernel)? {
            Ok(()) => Ok(()),
            Err(code) => Err((code, format!("{what} returned error {code}"))),
        }
    }

    fn copy(&self, dst: usize, src: usize, len: usize) -> Outcome {
        if len > 0 {
            // SAFETY: the submitter guaranteed both ranges valid until this task ran (see
            // `Work::Copy`); freed runtime memory stays mapped, so a free racing the task
            // cannot make this fault. `copy` allows the ranges to overlap.
            unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, len) };
        }
        Ok(())
    }

    fn set(&self, dst: usize, value: u8, len: usize) -> Outcome {
        if len > 0 {
            // SAFETY: as for `copy`.
            unsafe { std::ptr::write_bytes(dst as *mut u8, value, len) };
        }
        Ok(())
    }

    fn record(&self, site: &dyn Site, record: &RecordState, flag: Option<&SyncFlag>) -> Outcome {
        record.complete(site.pending_failure(), flag);
        Ok(())
    }

    fn wait(
        &self,
        site: &dyn Site,
        task_id: u64,
        target: &WaitTarget,
        event: &dyn EventSide,
        timeout: Option<Duration>,
    ) -> Outcome {
        let deadline = timeout.map(|t| Instant::now() + t);
        let give_up = || site.dropping_work();
        let released = match target {
            WaitTarget::Snapshot(record) => {
                record.done().wait_or(give_up, deadline, SpinPolicy::Brief)
            }
            WaitTarget::Flag => {
                event
                    .flag()
                    .current()
                    .wait_or(give_up, deadline, SpinPolicy::Brief)
            }
            WaitTarget::Began(latch) => latch.wait_or(give_up, deadline, SpinPolicy::Brief),
        };
        if observe::enabled() {
            let by = match target {
                WaitTarget::Snapshot(record) => released.then(|| record.origin()),
                WaitTarget::Flag | WaitTarget::Began(_) => event
                    .latest()
                    .filter(|r| released && r.is_done())
                    .map(|r| r.origin()),
            };
            observe::wait_released(site.task_ref(task_id), by, EdgeKind::EventWait);
        }
        if released || site.dropping_work() {
            Ok(())
        } else {
            Err((
                ACL_ERROR_RT_TASK_TIMEOUT,
                format!(
                    "stream wait on event {} timed out after {} ms",
                    event.id(),
                    timeout.map_or(0, |t| t.as_millis())
                ),
            ))
        }
    }

    fn reset(&self, event: &dyn EventSide) -> Outcome {
        event.reset_executed();
        Ok(())
    }

    fn callback(
        &self,
        site: &dyn Site,
        task_id: u64,
        body: HostFn,
        block: bool,
        channel: Channel,
    ) -> Outcome {
        let done = block.then(|| Arc::new(CallbackDone::default()));
        site.deliver_callback(task_id, body, done.clone(), channel)?;
        match done {
            Some(done) => self.callback_await(site, task_id, &done),
            None => Ok(()),
        }
    }

    fn callback_await(&self, site: &dyn Site, task_id: u64, done: &CallbackDone) -> Outcome {
        done.wait_or(|| site.dropping_work());
        if !done.ran() && !site.dropping_work() {
            return Err(done.unrun_error(task_id));
        }
        Ok(())
    }

    fn host_func(&self, task_id: u64, body: HostFn) -> Outcome {
        user_code::run(&format_args!("host function (task {task_id})"), body)
    }

    fn stream_wait(&self, site: &dyn Site, task_id: u64, other: &Progress, until: u64) -> Outcome {
        // A stream dropping its work unparks its runner directly, so only `until` needs a
        // wake-up.
        other.wait_retired(until, || site.dropping_work(), None, SpinPolicy::Brief);
        if observe::enabled() && until > 0 {
            observe::wait_released(
                site.task_ref(task_id),
                Some(other.task_ref(until - 1)),
                EdgeKind::LegacyStream,
            );
        }
        Ok(())
    }
}

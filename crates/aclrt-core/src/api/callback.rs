//! Host callbacks, host functions and the exception callback.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::not_in_callback;
use super::os_thread_id;
use crate::callback::Processed;
use crate::callback::ReportHub;
use crate::codes::*;
use crate::consts::{ACL_CALLBACK_BLOCK, ACL_CALLBACK_NO_BLOCK};
use crate::error::{bail, Result};
use crate::exception::ExceptionCallback;
use crate::exec::{Channel, Work};
use crate::handle::StreamHandle;
use crate::runtime::Runtime;
use crate::sync::lock;
use crate::task_info::{HostFn, TaskKind, TaskMeta};
use crate::thread_state::pthread_id;

impl Runtime {
    /// `aclrtSubscribeReport`: `thread_id` (a `pthread_self()` value) will run the stream's
    /// callbacks in `aclrtProcessReport`.
    pub fn subscribe_report(&self, thread_id: u64, stream: StreamHandle) -> Result<()> {
        self.subscribe(Channel::Report, thread_id, stream)
    }

    /// The hub of the threads that serve `channel`.
    pub(crate) fn hub(&self, channel: Channel) -> &ReportHub {
        match channel {
            Channel::Report => &self.reports,
            Channel::HostFunc => &self.host_funcs,
        }
    }

    /// Subscribes `thread_id` to the stream's `channel` (`aclrtSubscribeReport`,
    /// `aclrtSubscribeHostFunc`): one thread per channel and stream.
    pub(crate) fn subscribe(
        &self,
        channel: Channel,
        thread_id: u64,
        stream: StreamHandle,
    ) -> Result<()> {
        let stream = self.stream_to_observe(self.lookup_stream(stream)?)?;
        refuse_os_thread_id(thread_id)?;
        let hub = self.hub(channel);
        let mut slot = lock(stream.subscription(channel));
        // Checked under the slot's lock, which a destroy takes after the handle is dead: a
        // subscription never outlives its stream.
        if self.streams.get(stream.handle.as_raw()).is_none() {
            bail!(
                ACL_ERROR_RT_INVALID_HANDLE,
                "stream {} was destroyed concurrently",
                stream.id
            );
        }
        // A subscription that ended when its thread exited gives way to a new one.
        if let Some(ended) = slot.take_if(|s| s.has_ended()) {
            hub.unsubscribe(&ended, stream.handle);
        }
        if let Some(existing) = slot.as_ref() {
            bail!(
                ACL_ERROR_RT_STREAM_SUBSCRIBE,
                "stream {} is already subscribed by thread {:#x}",
                stream.id,
                existing.thread_id
            );
        }
        let subscriber = hub.subscribe(thread_id, stream.context.device.id, stream.handle)?;
        *slot = Some(subscriber);
        // A thread that subscribes itself is watched for its exit from now on, as one that
        // called aclrtProcessReport is: it may leave before it ever processes a report.
        if thread_id == pthread_id() {
            hub.watch_calling_thread(thread_id);
        }
        if crate::observe::enabled() {
            crate::observe::subscription(stream.handle.as_raw(), thread_id, true);
        }
        Ok(())
    }

    /// `aclrtUnSubscribeReport`.
    pub fn unsubscribe_report(&self, thread_id: u64, stream: StreamHandle) -> Result<()> {
        self.unsubscribe(Channel::Report, thread_id, stream)
    }

    /// Ends `thread_id`'s subscription to the stream's `channel`.
    pub(crate) fn unsubscribe(
        &self,
        channel: Channel,
        thread_id: u64,
        stream: StreamHandle,
    ) -> Result<()> {
        let stream = self.stream_to_observe(self.lookup_stream(stream)?)?;
        let mut slot = lock(stream.subscription(channel));
        let Some(subscriber) = slot.as_ref() else {
            bail!(
                ACL_ERROR_RT_STREAM_SUBSCRIBE,
                "stream {} is not subscribed",
                stream.id
            );
        };
        if subscriber.thread_id != thread_id {
            bail!(
                ACL_ERROR_RT_THREAD_SUBSCRIBE,
                "stream {} is served by thread {:#x}, not {thread_id:#x}",
                stream.id,
                subscriber.thread_id
            );
        }
        let subscriber = slot.take().expect("checked above");
        self.hub(channel).unsubscribe(&subscriber, stream.handle);
        if crate::observe::enabled() {
            crate::observe::subscription(stream.handle.as_raw(), thread_id, false);
        }
        Ok(())
    }

    /// `aclrtLaunchCallback`: `body` runs on the stream's subscribed thread once every earlier
    /// task finished. `ACL_CALLBACK_BLOCK` holds later tasks until it returns.
    pub fn launch_callback(
        &self,
        body: HostFn,
        block_type: u32,
        stream: StreamHandle,
    ) -> Result<()> {
        let block = match block_type {
            ACL_CALLBACK_NO_BLOCK => false,
            ACL_CALLBACK_BLOCK => true,
            other => bail!(
                ACL_ERROR_INVALID_PARAM,
                "block type {other} is not ACL_CALLBACK_NO_BLOCK (0) or ACL_CALLBACK_BLOCK (1)"
            ),
        };
        let stream = self.stream_for_work(self.lookup_stream(stream)?, "aclrtLaunchCallback")?;
        match lock(&stream.subscriber).as_ref() {
            None => bail!(
                ACL_ERROR_RT_STREAM_NO_CB_REG,
                "stream {} has no subscribed thread: call aclrtSubscribeReport first",
                stream.id
            ),
            Some(s) if s.has_ended() => bail!(
                ACL_ERROR_RT_STREAM_NO_CB_REG,
                "the thread subscribed to stream {} ({:#x}) exited without \
                 aclrtUnSubscribeReport: subscribe another thread",
                stream.id,
                s.thread_id
            ),
            Some(_) => {}
        }
        let meta = TaskMeta {
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let work = Work::Callback {
            body,
            block,
            channel: Channel::Report,
        };
        let id = self.submit(&stream, TaskKind::Callback, work, meta)?;
        if crate::observe::enabled() {
            crate::observe::callback_launched(stream.task_ref(id), block);
        }
        Ok(())
    }

    /// `aclrtProcessReport`: waits up to `timeout_ms` (-1 forever) for due callbacks of the
    /// calling thread's streams and runs them here.
    pub fn process_report(&self, timeout_ms: i32) -> Result<()> {
        self.process(Channel::Report, timeout_ms, "aclrtProcessReport")
    }

    /// Runs the calling thread's due deliveries of `channel` (`call` names it in messages).
    pub(crate) fn process(
        &self,
        channel: Channel,
        timeout_ms: i32,
        call: &'static str,
    ) -> Result<()> {
        let deadline = match timeout_ms {
            -1 => None,
            ms if ms > 0 => Some(Instant::now() + Duration::from_millis(ms as u64)),
            ms => bail!(
                ACL_ERROR_INVALID_PARAM,
                "timeout {ms} is invalid: use -1 (wait forever) or a positive number of milliseconds"
            ),
        };
        let me = pthread_id();
        let hub = self.hub(channel);
        hub.watch_calling_thread(me);
        let Some(subscriber) = hub.find(me) else {
            bail!(
                ACL_ERROR_RT_THREAD_SUBSCRIBE,
                "{call}: the calling thread ({me:#x}) is not subscribed to any stream"
            );
        };
        not_in_callback(call)?;
        match super::traced_wait(call, || subscriber.process(deadline)) {
            Processed::Ran => Ok(()),
            Processed::Failed(error) => Err(error),
            Processed::TimedOut => bail!(
                ACL_ERROR_RT_REPORT_TIMEOUT,
                "no callback became due within {timeout_ms} ms"
            ),
            Processed::Ended(why) => bail!(
                ACL_ERROR_RT_THREAD_SUBSCRIBE,
                "the calling thread's subscription ended while it waited: {why}"
            ),
        }
    }

    /// `aclrtLaunchHostFunc`: `body` runs when the stream reaches it — on the stream's
    /// host-function thread (`aclrtSubscribeHostFunc`, in `aclrtProcessHostFunc`) if it has
    /// one, else on a runtime thread; later tasks wait until it returns.
    pub fn launch_host_func(&self, stream: StreamHandle, body: HostFn) -> Result<()> {
        let stream = self.stream_for_work(self.lookup_stream(stream)?, "aclrtLaunchHostFunc")?;
        self.host_func_on(&stream, body)
    }

    /// Queues a host function on a stream already resolved and checked.
    pub(crate) fn host_func_on(
        &self,
        stream: &Arc<crate::stream::Stream>,
        body: HostFn,
    ) -> Result<()> {
        let meta = TaskMeta {
            submitter_thread: os_thread_id(),
            ..TaskMeta::default()
        };
        let served = lock(&stream.host_func_subscriber)
            .as_ref()
            .is_some_and(|s| !s.has_ended());
        let work = if served {
            Work::Callback {
                body,
                block: true,
                channel: Channel::HostFunc,
            }
        } else {
            Work::HostFunc(body)
        };
        self.submit(stream, TaskKind::HostFunc, work, meta)
            .map(|_| ())
    }

    /// `aclrtSetExceptionInfoCallback`: one process-wide slot; `None` clears it.
    pub fn set_exception_info_callback(&self, callback: Option<ExceptionCallback>) -> Result<()> {
        self.exceptions.set(callback);
        Ok(())
    }
}

/// `aclrtSubscribeReport` takes a `pthread_self()` value (Python: `threading.get_ident()`).
/// Passing the OS thread id instead (`gettid()`, Python's `threading.get_native_id()`) is an
/// easy mistake that would leave every callback waiting for a thread that never asks for it:
/// a value that names a live task of this process in `/proc/self/task` is such an id (a
/// `pthread_t` is an address, far above any task id), and is refused with the id to pass.
fn refuse_os_thread_id(thread_id: u64) -> Result<()> {
    if thread_id == 0 {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "aclrtSubscribeReport: thread id 0 names no thread; pass the reporting thread's \
             pthread_self() value (threading.get_ident() in Python)"
        );
    }
    let is_task_id = u32::try_from(thread_id).is_ok()
        && std::path::Path::new(&format!("/proc/self/task/{thread_id}")).exists();
    if is_task_id {
        bail!(
            ACL_ERROR_RT_PARAM_INVALID,
            "aclrtSubscribeReport: {thread_id} is an OS thread id (gettid(), \
             threading.get_native_id()); pass the reporting thread's pthread_self() value \
             (threading.get_ident() in Python)"
        );
    }
    Ok(())
}

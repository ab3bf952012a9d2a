//! Contexts: own streams, and hold the stop-on-failure state shared by their streams.
//!
//! A context is generic over its members so that this module sits below streams (a stream
//! holds its context; a context lists its streams): `stream::Context` is the one instance.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use crate::device::Device;
use crate::error::Failure;
use crate::handle::ContextHandle;
use crate::policy::ContextPolicy;
use crate::sync::lock;

/// What a context asks of its members.
pub(crate) trait Member {
    /// Unparks the member's runner so it sees the context stopped.
    fn wake(&self);
}

/// A context: the default one of a device, or one made by `aclrtCreateContext`, with streams
/// of type `Stream`.
pub(crate) struct ContextOf<Stream> {
    pub(crate) handle: ContextHandle,
    pub(crate) device: Arc<Device>,
    pub(crate) is_default: bool,
    /// How its streams synchronise and fail.
    pub(crate) policy: ContextPolicy,
    /// Weak: the stream holds its context, and the strong reference lives in `streams`, so
    /// destroying the context (which empties `streams`) frees both.
    pub(crate) default_stream: OnceLock<Weak<Stream>>,
    /// Every live stream of the context, the default stream included. The context holds its
    /// streams; a stream holds its context; the cycle is broken when a stream is destroyed
    /// (removed here) and when the context is destroyed (list cleared).
    streams: Mutex<Vec<Arc<Stream>>>,
    /// Streams destroyed by `aclrtDestroyStreamForce` whose queued work still runs: their
    /// handles are dead, their workers not yet joined. Reaped once idle; the context's own
    /// destroy (a device reset, `aclFinalize`) takes the rest.
    draining: Mutex<Vec<Arc<Stream>>>,
    /// Set once by the first failure on a stream in stop-on-failure mode.
    stopped: OnceLock<Failure>,
    destroyed: AtomicBool,
    /// `aclrtCtxSetSysParamOpt` values; unset until the first call for an option.
    pub(crate) sys_params: crate::settings::SysParams,
}

impl<Stream: Member> ContextOf<Stream> {
    pub(crate) fn new(
        handle: ContextHandle,
        device: Arc<Device>,
        is_default: bool,
        policy: ContextPolicy,
    ) -> Self {
        Self {
            handle,
            device,
            is_default,
            policy,
            default_stream: OnceLock::new(),
            streams: Mutex::new(Vec::new()),
            draining: Mutex::new(Vec::new()),
            stopped: OnceLock::new(),
            destroyed: AtomicBool::new(false),
            sys_params: Default::default(),
        }
    }

    /// The default stream; `None` once the context has been destroyed.
    pub(crate) fn default_stream(&self) -> Option<Arc<Stream>> {
        self.default_stream.get().and_then(Weak::upgrade)
    }

    /// Adds a stream; `false` (and nothing added) once the context is being destroyed, so a
    /// stream created concurrently with the destroy is never left out of it.
    #[must_use]
    pub(crate) fn add_stream(&self, stream: Arc<Stream>) -> bool {
        let mut streams = lock(&self.streams);
        if self.is_destroyed() {
            return false;
        }
        streams.push(stream);
        true
    }

    pub(crate) fn remove_stream(&self, stream: &Stream) {
        lock(&self.streams).retain(|s| !std::ptr::eq(Arc::as_ptr(s), stream));
    }

    pub(crate) fn streams(&self) -> Vec<Arc<Stream>> {
        lock(&self.streams).clone()
    }

    /// The streams for which `keep` holds; allocates nothing when none does.
    pub(crate) fn streams_where(&self, keep: impl Fn(&Stream) -> bool) -> Vec<Arc<Stream>> {
        lock(&self.streams)
            .iter()
            .filter(|s| keep(s))
            .cloned()
            .collect()
    }

    /// Marks the context destroyed and takes its streams: no stream joins it afterwards.
    pub(crate) fn close_and_take_streams(&self) -> Vec<Arc<Stream>> {
        let mut streams = lock(&self.streams);
        self.destroyed.store(true, Ordering::Release);
        std::mem::take(&mut *streams)
    }

    /// Keeps a force-destroyed stream until its queued work has run; `false` (nothing kept)
    /// once the context is being destroyed, whose teardown would not see it.
    #[must_use]
    pub(crate) fn add_draining(&self, stream: Arc<Stream>) -> bool {
        let mut draining = lock(&self.draining);
        if self.is_destroyed() {
            return false;
        }
        draining.push(stream);
        true
    }

    /// Takes the draining streams for which `done` holds.
    pub(crate) fn take_draining_where(&self, done: impl Fn(&Stream) -> bool) -> Vec<Arc<Stream>> {
        let mut draining = lock(&self.draining);
        let (taken, kept) = std::mem::take(&mut *draining)
            .into_iter()
            .partition(|s| done(s));
        *draining = kept;
        taken
    }

    /// The streams whose queued work still runs after a forced destroy.
    pub(crate) fn draining(&self) -> Vec<Arc<Stream>> {
        lock(&self.draining).clone()
    }

    pub(crate) fn stopped(&self) -> Option<&Failure> {
        self.stopped.get()
    }

    /// Stops every stream of the context after a failure in stop-on-failure mode.
    pub(crate) fn stop(&self, failure: Failure) {
        if self.stopped.set(failure).is_ok() {
            for stream in self.streams() {
                stream.wake();
            }
        }
    }

    pub(crate) fn is_destroyed(&self) -> bool {
        self.destroyed.load(Ordering::Acquire)
    }
}

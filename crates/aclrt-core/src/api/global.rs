//! The process's runtime: `aclInit` installs one [`Runtime`], `aclFinalize` tears it down, and
//! every call made through [`acl`] runs on it.
//!
//! This is the only process-global state of the ACL front. Resolving the runtime costs one
//! atomic load on the hot path: each thread caches the instance it last used, tagged with the
//! instance's serial, and the global serial changes whenever the runtime does.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::not_in_callback;
use crate::codes::*;
use crate::config::Config;
use crate::error::{bail, err, Error, Result};
use crate::runtime::Runtime;
use crate::sync::{lock, SpinPolicy, WaitList};
use crate::thread_state;

struct Lifecycle {
    /// `aclInit` calls since the last finalize.
    init_count: u32,
    /// Configuration given before `aclInit`, used instead of the environment.
    configured: Option<Config>,
}

static LIFECYCLE: Mutex<Lifecycle> = Mutex::new(Lifecycle {
    init_count: 0,
    configured: None,
});
/// An `aclFinalize` is tearing the runtime down (set and cleared under [`LIFECYCLE`], which
/// is not held meanwhile: the teardown waits for kernels, and they may call in).
static FINALIZING: AtomicBool = AtomicBool::new(false);
/// Where an `aclInit` waits for a finalize under way.
static FINALIZED: std::sync::OnceLock<WaitList> = std::sync::OnceLock::new();

fn finalized() -> &'static WaitList {
    FINALIZED.get_or_init(WaitList::new)
}
/// An init callback (`aclInitCallbackRegister`): called with the text of the configuration
/// `aclInit` was given (empty without one); a non-zero return fails the `aclInit`.
pub type InitCallback = Arc<dyn Fn(&[u8]) -> i32 + Send + Sync>;
/// A finalize callback (`aclFinalizeCallbackRegister`); a non-zero return fails the
/// `aclFinalize`.
pub type FinalizeCallback = Arc<dyn Fn() -> i32 + Send + Sync>;

/// `ACL_REG_TYPE_OTHER`: the one registration type that takes more than one callback.
pub const REG_TYPE_OTHER: u32 = 0xFFFF;
/// The registration types whose init callbacks `aclInit` calls, in its order (the second,
/// `ACL_REG_TYPE_ACL_OP_EXECUTOR`, only when a configuration path is given).
const INIT_ORDER: [u32; 4] = [0, 1, 6, REG_TYPE_OTHER];
/// The registration types whose finalize callbacks `aclFinalize` calls, in its order
/// (`ACL_REG_TYPE_ACL_OP_COMPILER`, `..._ACL_MODEL`, `..._ACL_DVPP`, `ACL_REG_TYPE_OTHER`).
const FINALIZE_ORDER: [u32; 4] = [3, 0, 6, REG_TYPE_OTHER];

/// One registration: its type, the identity it is unregistered by (the C function's
/// address), and the callback.
struct Registered<F> {
    kind: u32,
    key: usize,
    callback: F,
}

/// The init and finalize callbacks, in registration order, and the configuration text the
/// last `aclInit` read (for an init callback registered after it). Kept across init and
/// finalize cycles, as the vendor's are; never held while a callback runs.
#[derive(Default)]
struct LifecycleCallbacks {
    init: Vec<Registered<InitCallback>>,
    finalize: Vec<Registered<FinalizeCallback>>,
    config_text: Arc<[u8]>,
}

static CALLBACKS: std::sync::LazyLock<Mutex<LifecycleCallbacks>> =
    std::sync::LazyLock::new(Default::default);

/// The installed runtime.
static INSTALLED: RwLock<Option<Arc<Runtime>>> = RwLock::new(None);
/// Serial of the installed runtime; 0 while there is none.
static INSTALLED_SERIAL: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The runtime this thread last resolved.
    static CACHED: RefCell<Option<Arc<Runtime>>> = const { RefCell::new(None) };
}

fn uninitialised() -> Error {
    Error::new(
        ACL_ERROR_UNINITIALIZE,
        "aclInit has not been called (or aclFinalize has)",
    )
}

fn installed() -> Result<Arc<Runtime>> {
    INSTALLED
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .clone()
        .ok_or_else(uninitialised)
}

/// Runs `body` on the process's runtime, or fails with `ACL_ERROR_UNINITIALIZE`.
pub(crate) fn with_installed<T>(body: impl FnOnce(&Runtime) -> T) -> Result<T> {
    let serial = INSTALLED_SERIAL.load(Ordering::Acquire);
    if serial == 0 {
        return Err(uninitialised());
    }
    let mut body = Some(body);
    let cached = CACHED.try_with(|cache| {
        let hit = cache
            .try_borrow()
            .ok()
            .and_then(|c| c.as_ref().filter(|rt| rt.serial == serial).cloned());
        match hit {
            Some(rt) => Some(rt),
            None => {
                let rt = installed().ok()?;
                if let Ok(mut c) = cache.try_borrow_mut() {
                    *c = Some(rt.clone());
                }
                Some(rt)
            }
        }
    });
    let rt = match cached {
        Ok(Some(rt)) => rt,
        Ok(None) => return Err(uninitialised()),
        // The thread is exiting and its cache is gone.
        Err(_) => installed()?,
    };
    Ok((body.take().expect("called once"))(&rt))
}

/// The process's runtime (`ACL_ERROR_UNINITIALIZE` before `aclInit` or after `aclFinalize`).
pub fn runtime() -> Result<Arc<Runtime>> {
    with_installed(|rt| rt.serial).and_then(|_| installed())
}

/// Runs one ACL call on the process's runtime: `ACL_ERROR_UNINITIALIZE` when there is none,
/// and any failure is noted for the calling thread. Faces put their NULL checks in `body`.
pub fn acl<T>(body: impl FnOnce(&Runtime) -> Result<T>) -> Result<T> {
    let result = with_installed(body).and_then(|r| r);
    if let Err(e) = &result {
        note_failure(e);
    }
    result
}

/// Notes a failure for the calling thread without a runtime (calls that need none).
fn noted<T>(result: Result<T>) -> Result<T> {
    if let Err(e) = &result {
        note_failure(e);
    }
    result
}

/// Sets the emulated device's configuration; only before `aclInit` (else `100000`).
pub fn configure(config: Config) -> Result<()> {
    noted((|| {
        let mut life = lock(&LIFECYCLE);
        if life.init_count > 0 {
            bail!(
                ACL_ERROR_INVALID_PARAM,
                "the emulated device can be configured only before aclInit"
            );
        }
        life.configured = Some(config);
        Ok(())
    })())
}

/// `aclInit`. A repeated call returns `ACL_ERROR_REPEAT_INITIALIZE` and still counts. While
/// an `aclFinalize` is under way it waits for it to finish, except from a callback or host
/// kernel (which the finalize may be waiting for): there it fails at once with `107000`.
pub fn init() -> Result<()> {
    init_with_text(None)
}

/// [`init`], then the registered init callbacks with the configuration `text` (`None`: no
/// configuration path was given), by type in the vendor's order, each type's in registration
/// order, with no lock held; the runtime is installed when they run. The first that fails
/// fails the `aclInit` with its code and the runtime is torn down again (the init count back
/// at 0, as if it had not been made).
fn init_with_text(text: Option<Vec<u8>>) -> Result<()> {
    install()?;
    let serial = INSTALLED_SERIAL.load(Ordering::Acquire);
    let with_path = text.is_some();
    let text: Arc<[u8]> = text.unwrap_or_default().into();
    lock(&CALLBACKS).config_text = text.clone();
    for kind in INIT_ORDER {
        if kind == 1 && !with_path {
            continue;
        }
        let due: Vec<InitCallback> = lock(&CALLBACKS)
            .init
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.callback.clone())
            .collect();
        for callback in due {
            let code = callback(&text);
            if code != ACL_SUCCESS {
                let life = lock(&LIFECYCLE);
                if INSTALLED_SERIAL.load(Ordering::Acquire) == serial && life.init_count > 0 {
                    tear_down(life);
                }
                return noted(err(
                    code,
                    format!("aclInit: an init callback of type {kind:#x} returned {code}"),
                ));
            }
        }
    }
    Ok(())
}

/// The finalize callbacks, by type in the vendor's order, with no lock held; the first
/// failure's code.
fn run_finalize_callbacks(call: &str) -> Result<()> {
    for kind in FINALIZE_ORDER {
        let due: Vec<FinalizeCallback> = lock(&CALLBACKS)
            .finalize
            .iter()
            .filter(|r| r.kind == kind)
            .map(|r| r.callback.clone())
            .collect();
        for callback in due {
            let code = callback();
            if code != ACL_SUCCESS {
                return err(
                    code,
                    format!("{call}: a finalize callback of type {kind:#x} returned {code}"),
                );
            }
        }
    }
    Ok(())
}

/// A registration type that holds at most one callback and has one already: `500000`, as
/// the vendor's.
fn refuse_second<F>(list: &[Registered<F>], kind: u32, call: &str) -> Result<()> {
    if kind != REG_TYPE_OTHER && list.iter().any(|r| r.kind == kind) {
        bail!(
            ACL_ERROR_INTERNAL_ERROR,
            "{call}: type {kind:#x} has a callback already (only ACL_REG_TYPE_OTHER takes more \
             than one)"
        );
    }
    Ok(())
}

/// Removes the registration of `key` under `kind`: `500000` when there is none, as the
/// vendor's.
fn unregister<F>(list: &mut Vec<Registered<F>>, kind: u32, key: usize, call: &str) -> Result<()> {
    if key == 0 {
        bail!(ACL_ERROR_INVALID_PARAM, "{call}: cbFunc is NULL");
    }
    let Some(i) = list.iter().position(|r| r.kind == kind && r.key == key) else {
        bail!(
            ACL_ERROR_INTERNAL_ERROR,
            "{call}: no such callback is registered for type {kind:#x}"
        );
    };
    list.remove(i);
    Ok(())
}

/// Holds the callbacks' list across `fork()`, so a child never inherits it half-taken (it is
/// used before any `aclInit` too, so registering a callback sets this up as well).
fn watch_callbacks_fork() {
    crate::fork::watch(
        crate::fork::Rank::Callbacks,
        || CALLBACKS.lock().unwrap_or_else(|e| e.into_inner()),
        drop,
    );
}

/// `aclInitCallbackRegister`: works with or without a runtime; registered while one is
/// initialised, the callback is called at once with the configuration text (its return is
/// ignored, as the vendor's).
pub fn init_callback_register(kind: u32, key: usize, callback: Option<InitCallback>) -> Result<()> {
    const CALL: &str = "aclInitCallbackRegister";
    watch_callbacks_fork();
    noted((|| {
        let Some(callback) = callback.filter(|_| key != 0) else {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: cbFunc is NULL");
        };
        let text = {
            let mut callbacks = lock(&CALLBACKS);
            refuse_second(&callbacks.init, kind, CALL)?;
            callbacks.init.push(Registered {
                kind,
                key,
                callback: callback.clone(),
            });
            callbacks.config_text.clone()
        };
        if INSTALLED_SERIAL.load(Ordering::Acquire) != 0 {
            let _ = callback(&text);
        }
        Ok(())
    })())
}

/// `aclInitCallbackUnRegister`.
pub fn init_callback_unregister(kind: u32, key: usize) -> Result<()> {
    // The list's lock goes before the failure is noted (observers run there).
    let done = unregister(
        &mut lock(&CALLBACKS).init,
        kind,
        key,
        "aclInitCallbackUnRegister",
    );
    noted(done)
}

/// `aclFinalizeCallbackRegister`: works with or without a runtime.
pub fn finalize_callback_register(
    kind: u32,
    key: usize,
    callback: Option<FinalizeCallback>,
) -> Result<()> {
    const CALL: &str = "aclFinalizeCallbackRegister";
    watch_callbacks_fork();
    noted((|| {
        let Some(callback) = callback.filter(|_| key != 0) else {
            bail!(ACL_ERROR_INVALID_PARAM, "{CALL}: cbFunc is NULL");
        };
        let mut callbacks = lock(&CALLBACKS);
        refuse_second(&callbacks.finalize, kind, CALL)?;
        callbacks.finalize.push(Registered {
            kind,
            key,
            callback,
        });
        Ok(())
    })())
}

/// `aclFinalizeCallbackUnRegister`.
pub fn finalize_callback_unregister(kind: u32, key: usize) -> Result<()> {
    // The list's lock goes before the failure is noted (observers run there).
    let done = unregister(
        &mut lock(&CALLBACKS).finalize,
        kind,
        key,
        "aclFinalizeCallbackUnRegister",
    );
    noted(done)
}

/// Makes and installs the runtime (the body of `aclInit` before its callbacks).
fn install() -> Result<()> {
    noted((|| {
        let mut life = lock(&LIFECYCLE);
        while FINALIZING.load(Ordering::SeqCst) {
            drop(life);
            if crate::thread_state::in_callback() {
                bail!(
                    ACL_ERROR_RT_PARAM_INVALID,
                    "aclInit must not be called from a callback, host function or host kernel \
                     while aclFinalize is tearing down the runtime that runs it"
                );
            }
            finalized().wait_until(
                || !FINALIZING.load(Ordering::SeqCst),
                None,
                SpinPolicy::Brief,
            );
            life = lock(&LIFECYCLE);
        }
        watch_forks();
        if life.init_count > 0 {
            life.init_count += 1;
            bail!(
                ACL_ERROR_REPEAT_INITIALIZE,
                "aclInit was already called ({} times now)",
                life.init_count
            );
        }
        let config = life.configured.take().unwrap_or_else(Config::from_env);
        let rt = Runtime::new(&config);
        let serial = rt.serial;
        *INSTALLED.write().unwrap_or_else(|e| e.into_inner()) = Some(rt);
        INSTALLED_SERIAL.store(serial, Ordering::Release);
        life.init_count = 1;
        crate::check::on_init();
        crate::trace::on_init();
        Ok(())
    })())
}

/// `aclInit(configPath)`: a configuration path, when given and not empty, must name something
/// readable that is not a directory (`ACL_ERROR_INVALID_FILE` otherwise: a mistyped path or a
/// directory fails here as it would on hardware; `/dev/null`, an empty configuration, is
/// accepted). The file's settings (dump, profiling, …) mean nothing to the emulated
/// device, so its content is only handed to the init callbacks.
pub fn init_with_config_file(path: Option<&str>) -> Result<()> {
    let Some(path) = path.filter(|p| !p.is_empty()) else {
        return init_with_text(None);
    };
    let readable_file =
        std::fs::metadata(path).is_ok_and(|m| !m.is_dir()) && std::fs::File::open(path).is_ok();
    if !readable_file {
        return noted(err(
            ACL_ERROR_INVALID_FILE,
            format!("aclInit: the configuration file {path:?} is not a readable file"),
        ));
    }
    // The text init callbacks get: a regular file's content; anything else (a device such as
    // /dev/null) reads as empty, never read to an end it may not have.
    let text = if std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        std::fs::read(path).unwrap_or_default()
    } else {
        Vec::new()
    };
    init_with_text(Some(text))
}

/// `aclFinalize`: tears everything down whatever the init count. Queued work is discarded; a
/// task already running finishes first.
pub fn finalize() -> Result<()> {
    noted((|| {
        not_in_callback("aclFinalize")?;
        let unmatched = || {
            err(
                ACL_ERROR_REPEAT_FINALIZE,
                "aclFinalize without a matching aclInit",
            )
        };
        if lock(&LIFECYCLE).init_count == 0 {
            return unmatched();
        }
        // The finalize callbacks run first, with no lock held; one failing leaves the runtime
        // initialised, as the vendor's aclFinalize does.
        run_finalize_callbacks("aclFinalize")?;
        let life = lock(&LIFECYCLE);
        if life.init_count == 0 {
            return unmatched();
        }
        tear_down(life);
        Ok(())
    })())
}

/// `aclFinalizeReference`: takes back one `aclInit` (each counts, repeated ones included);
/// the one that brings the count to zero tears down as [`finalize`] does. Returns the count
/// left, which the C face reports through `refCount` also when the call fails (0 then:
/// `100038` without an `aclInit` to take back).
pub fn finalize_reference() -> (u64, Result<()>) {
    let mut left = 0;
    let result = noted((|| {
        not_in_callback("aclFinalizeReference")?;
        let mut life = lock(&LIFECYCLE);
        if life.init_count > 1 {
            life.init_count -= 1;
            left = u64::from(life.init_count);
            return Ok(());
        }
        if life.init_count == 0 {
            return err(
                ACL_ERROR_REPEAT_FINALIZE,
                "aclFinalizeReference without an aclInit left to take back",
            );
        }
        // The last reference: the finalize callbacks first, with no lock held (one failing
        // keeps the runtime and its count).
        drop(life);
        run_finalize_callbacks("aclFinalizeReference")?;
        let life = lock(&LIFECYCLE);
        if life.init_count == 0 {
            return err(
                ACL_ERROR_REPEAT_FINALIZE,
                "aclFinalizeReference without an aclInit left to take back",
            );
        }
        if life.init_count > 1 {
            // Another aclInit came meanwhile: it is the one taken back.
            let mut life = life;
            life.init_count -= 1;
            left = u64::from(life.init_count);
            return Ok(());
        }
        tear_down(life);
        Ok(())
    })());
    (left, result)
}

/// Takes the installed runtime out and shuts it down; `life` is the lifecycle lock, held by a
/// caller that found the runtime initialised.
fn tear_down(mut life: crate::sync::Guard<'_, Lifecycle>) {
    crate::check::on_finalize();
    INSTALLED_SERIAL.store(0, Ordering::Release);
    let rt = INSTALLED.write().unwrap_or_else(|e| e.into_inner()).take();
    life.init_count = 0;
    FINALIZING.store(true, Ordering::SeqCst);
    // No lock is held from here on: the teardown waits for running kernels, and they may
    // call into the runtime (getting 100001, or 107000 for aclInit) instead of deadlocking.
    drop(life);
    if let Some(rt) = rt {
        rt.shut_down();
    }
    let _ = CACHED.try_with(|c| c.try_borrow_mut().map(|mut c| c.take()));
    crate::trace::on_finalize();
    {
        let _life = lock(&LIFECYCLE);
        FINALIZING.store(false, Ordering::SeqCst);
    }
    finalized().wake_all();
}

/// Registers the fork handlers once (at the first `aclInit`, or when a trace starts).
///
/// A child process made by `fork()` has only the thread that forked: the parent's stream
/// workers and report threads are not there, and locks they held stay held. So the child
/// starts uninitialised: the parent's runtime is left untouched (never used, never dropped,
/// since dropping it would join threads that do not exist), every call returns `100001`
/// until the child's own `aclInit`, which makes a fresh runtime. The handlers hold the
/// lifecycle locks across the fork, so the child never inherits them half-taken; the trace
/// collector's likewise, and the child's collector starts afresh (`trace::after_fork_in_child`).
/// The parent goes on as before.
pub(crate) fn watch_forks() {
    use crate::fork::{watch, Rank};
    watch(
        Rank::Lifecycle,
        || LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner()),
        |mut life| {
            life.init_count = 0;
            FINALIZING.store(false, Ordering::SeqCst);
            let _ = CACHED.try_with(|c| {
                if let Ok(mut c) = c.try_borrow_mut() {
                    std::mem::forget(c.take());
                }
            });
            super::forget_thread_id();
            crate::callback::forget_exit_watch();
        },
    );
    // The collector's locks come after the lifecycle lock (aclInit and aclFinalize start and
    // stop an ACLRT_TRACE collection under it).
    crate::trace::watch_forks();
    crate::observe::watch_forks();
    watch_callbacks_fork();
    watch(
        Rank::Installed,
        || INSTALLED.write().unwrap_or_else(|e| e.into_inner()),
        |mut installed| {
            // The parent's runtime is abandoned, not dropped (see above).
            std::mem::forget(installed.take());
            INSTALLED_SERIAL.store(0, Ordering::SeqCst);
        },
    );
    crate::memory::writers::watch_forks();
}

/// Counts the live objects of the process's runtime (all zero without one).
pub fn live_objects() -> super::LiveObjects {
    with_installed(|rt| rt.live_objects()).unwrap_or_default()
}

/// `aclGetRecentErrMsg`: the calling thread's last error message, cleared by reading.
pub fn get_recent_err_msg() -> Option<String> {
    thread_state::take_recent_message()
}

/// `aclrtPeekAtLastError`.
pub fn peek_at_last_error() -> i32 {
    thread_state::peek_last_error()
}

/// `aclrtGetLastError`.
pub fn get_last_error() -> i32 {
    thread_state::take_last_error()
}

/// `aclrtPeekAtLastError(level)` / `aclrtGetLastError(level)` (`take`): only
/// `ACL_RT_THREAD_LEVEL` exists; another level is `ACL_ERROR_INVALID_PARAM`, returned as the
/// value, and leaves the thread's error alone.
pub fn last_error_at(level: u32, take: bool) -> i32 {
    if level != crate::consts::ACL_RT_THREAD_LEVEL {
        return ACL_ERROR_INVALID_PARAM;
    }
    if take {
        get_last_error()
    } else {
        peek_at_last_error()
    }
}

/// Notes a failure detected by a face outside [`acl`] for the calling thread and returns it.
pub fn fail(code: i32, message: impl Into<String>) -> Error {
    crate::base::fail(code, message)
}

/// `ACL_ERROR_UNINITIALIZE` unless `aclInit` has been called.
pub fn ensure_initialized() -> Result<()> {
    acl(|_| Ok(()))
}

/// Refuses blocking calls from callbacks (for faces with their own blocking calls).
pub fn ensure_not_in_callback(name: &str) -> Result<()> {
    noted(not_in_callback(name))
}

/// [`Runtime::get_soc_name`], which needs no runtime: the vendor's build scripts ask for the SoC
/// name before any `aclInit`.
pub fn get_soc_name() -> Result<String> {
    Ok(super::device_info::soc_name())
}

/// Free functions for Rust programs: each runs the [`Runtime`] method of the same name on the
/// process's runtime through [`acl`].
macro_rules! on_the_process_runtime {
    ($( fn $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty; )*) => {
        $(
            #[doc = concat!("[`Runtime::", stringify!($name), "`] on the process's runtime.")]
            pub fn $name($($arg: $ty),*) -> Result<$ret> {
                acl(|rt| rt.$name($($arg),*))
            }
        )*
    };
}

use crate::exception::ExceptionCallback;
use crate::handle::{
    CntNotifyHandle, ContextHandle, EventHandle, MemPoolHandle, NotifyHandle, StreamHandle,
};
use crate::task_info::{HostFn, KernelFn};

on_the_process_runtime! {
    fn subscribe_report(thread_id: u64, stream: StreamHandle) -> ();
    fn unsubscribe_report(thread_id: u64, stream: StreamHandle) -> ();
    fn launch_callback(body: HostFn, block_type: u32, stream: StreamHandle) -> ();
    fn process_report(timeout_ms: i32) -> ();
    fn launch_host_func(stream: StreamHandle, body: HostFn) -> ();
    fn set_exception_info_callback(callback: Option<ExceptionCallback>) -> ();
    fn set_device(id: i32) -> ();
    fn reset_device(id: i32) -> ();
    fn get_device() -> i32;
    fn get_device_count() -> u32;
    fn create_context(device_id: i32) -> ContextHandle;
    fn destroy_context(handle: ContextHandle) -> ();
    fn set_current_context(handle: ContextHandle) -> ();
    fn get_current_context() -> ContextHandle;
    fn synchronize_device_with_timeout(timeout_ms: i32) -> ();
    fn synchronize_device() -> ();
    fn create_event() -> EventHandle;
    fn create_event_with_flag(flags: u32) -> EventHandle;
    fn create_event_ex_with_flag(flags: u32) -> EventHandle;
    fn destroy_event(handle: EventHandle) -> ();
    fn record_event(event: EventHandle, stream: StreamHandle) -> ();
    fn record_event_with_flag(event: EventHandle, stream: StreamHandle, flag: u32) -> ();
    fn reset_event(event: EventHandle, stream: StreamHandle) -> ();
    fn query_event(event: EventHandle) -> u32;
    fn query_event_status(event: EventHandle) -> u32;
    fn query_event_wait_status(event: EventHandle) -> u32;
    fn synchronize_event_with_timeout(event: EventHandle, timeout_ms: i32) -> ();
    fn synchronize_event(event: EventHandle) -> ();
    fn event_elapsed_time(start: EventHandle, end: EventHandle) -> f32;
    fn event_get_timestamp(event: EventHandle) -> u64;
    fn stream_wait_event(stream: StreamHandle, event: EventHandle) -> ();
    fn stream_wait_event_with_timeout(stream: StreamHandle, event: EventHandle, timeout_ms: i32) -> ();
    fn stream_wait_event_with_flag(stream: StreamHandle, event: EventHandle, timeout_ms: u32, flag: u32) -> ();
    fn get_event_id(event: EventHandle) -> u32;
    fn get_event_avail_num() -> u32;
    fn malloc(size: usize, policy: u32) -> usize;
    fn malloc_host(size: usize) -> usize;
    fn free(ptr: usize) -> ();
    fn free_host(ptr: usize) -> ();
    fn get_mem_info(attr: u32) -> (usize, usize);
    fn create_stream() -> StreamHandle;
    fn create_stream_with_config(priority: u32, flags: u32) -> StreamHandle;
    fn destroy_stream(handle: StreamHandle) -> ();
    fn destroy_stream_force(handle: StreamHandle) -> ();
    fn synchronize_stream_with_timeout(handle: StreamHandle, timeout_ms: i32) -> ();
    fn synchronize_stream(handle: StreamHandle) -> ();
    fn stream_query(handle: StreamHandle) -> u32;
    fn stream_get_id(handle: StreamHandle) -> i32;
    fn set_stream_failure_mode(handle: StreamHandle, mode: u64) -> ();
    fn launch_kernel(handle: StreamHandle, name: &str, access: super::KernelAccess, kernel: KernelFn) -> u64;
    fn stream_priority(handle: StreamHandle) -> u32;
    fn set_stream_name(handle: StreamHandle, name: &str) -> ();
    fn reset_device_force(id: i32) -> ();
    fn get_device_info(device_id: u32, attr: u32) -> i64;
    fn get_device_capability(device_id: u32, info: i32) -> i64;
    fn get_device_feature(device_id: i32, feature: u32) -> i32;
    fn query_device_status(device_id: i32) -> u32;
    fn get_device_utilization_rate(device_id: i32) -> super::Utilization;
    fn device_get_stream_priority_range() -> (i32, i32);
    fn device_get_uuid(device_id: i32) -> [u8; 16];
    fn device_can_access_peer(device_id: i32, peer_id: i32) -> i32;
    fn get_devices_topo(device_id: u32, other_id: u32) -> u64;
    fn host_mem_map_capabilities(device_id: u32, hac_type: u32) -> u32;
    fn set_ts_device(ts_id: u32) -> ();
    fn device_enable_peer_access(peer_id: i32, flags: u32) -> ();
    fn device_disable_peer_access(peer_id: i32) -> ();
    fn device_peer_access_status(device_id: i32, peer_id: i32) -> i32;
    fn ctx_get_current_default_stream() -> StreamHandle;
    fn stream_get_flags(handle: StreamHandle) -> u32;
    fn get_stream_available_num() -> u32;
    fn create_stream_v2(config: &super::StreamConfig) -> StreamHandle;
    fn stream_abort(handle: StreamHandle) -> ();
    fn device_task_abort(device_id: i32, timeout_ms: u32) -> ();
    fn set_device_task_abort_callback(name: &str, callback: Option<crate::DeviceTaskAbortCallback>) -> ();
    fn stream_stop(handle: StreamHandle) -> ();
    fn reg_stream_state_callback(name: &str, callback: Option<crate::StreamStateCallback>) -> ();
    fn create_notify(flag: u64) -> NotifyHandle;
    fn destroy_notify(handle: NotifyHandle) -> ();
    fn record_notify(handle: NotifyHandle, stream: StreamHandle) -> ();
    fn wait_and_reset_notify(handle: NotifyHandle, stream: StreamHandle, timeout_s: u32) -> ();
    fn get_notify_id(handle: NotifyHandle) -> u32;
    fn notify_batch_reset(handles: &[NotifyHandle]) -> ();
    fn notify_get_export_key(handle: NotifyHandle, len: usize, flags: u64) -> String;
    fn notify_import_by_key(key: &str, flags: u64) -> NotifyHandle;
    fn notify_set_import_pid(handle: NotifyHandle, pids: &[i32]) -> ();
    fn ipc_get_event_handle(event: EventHandle) -> [u8; crate::ipc::HANDLE_SIZE];
    fn ipc_open_event_handle(handle: &[u8; crate::ipc::HANDLE_SIZE]) -> EventHandle;
    fn notify_is_set(handle: NotifyHandle) -> bool;
    fn cnt_notify_create(flag: u64) -> CntNotifyHandle;
    fn cnt_notify_destroy(handle: CntNotifyHandle) -> ();
    fn cnt_notify_record(handle: CntNotifyHandle, stream: StreamHandle, mode: u32, value: u32) -> ();
    fn cnt_notify_wait_with_timeout(
        handle: CntNotifyHandle,
        stream: StreamHandle,
        mode: u32,
        value: u32,
        timeout_s: u32,
        clear: bool
    ) -> ();
    fn cnt_notify_reset(handle: CntNotifyHandle, stream: StreamHandle) -> ();
    fn cnt_notify_get_id(handle: CntNotifyHandle) -> u32;
    fn cnt_notify_count(handle: CntNotifyHandle) -> u32;
    fn value_write(addr: usize, value: u64, flag: u32, stream: StreamHandle) -> ();
    fn value_wait(addr: usize, value: u64, flag: u32, stream: StreamHandle) -> ();
    fn get_user_dev_id_by_logic_dev_id(logic_id: i32) -> i32;
    fn get_logic_dev_id_by_user_dev_id(user_id: i32) -> i32;
    fn get_logic_dev_id_by_phy_dev_id(phy_id: i32) -> i32;
    fn get_phy_dev_id_by_logic_dev_id(logic_id: i32) -> i32;
    fn get_user_dev_id_by_phy_dev_id(phy_id: i32) -> i32;
    fn get_phy_dev_id_by_user_dev_id(user_id: i32) -> i32;
    fn get_primary_ctx_state(device_id: i32, with_flags: bool) -> i32;
    fn device_get_bare_tgid() -> i32;
    fn get_thread_last_task_id() -> u32;
    fn set_device_sat_mode(mode: u32) -> ();
    fn get_device_sat_mode() -> u32;
    fn set_stream_overflow_switch(handle: StreamHandle, flag: u32) -> ();
    fn get_stream_overflow_switch(handle: StreamHandle) -> u32;
    fn reset_overflow_status(handle: StreamHandle) -> ();
    fn malloc_align32(size: usize, policy: u32) -> usize;
    fn malloc_cached(size: usize, policy: u32) -> usize;
    fn malloc_with_cfg(size: usize, policy: u32, attrs: &[super::MallocAttribute]) -> usize;
    fn malloc_for_task_scheduler(size: usize, policy: u32, attrs: &[super::MallocAttribute]) -> usize;
    fn mem_flush(ptr: usize, size: usize) -> ();
    fn mem_invalidate(ptr: usize, size: usize) -> ();
    fn pointer_get_attributes(ptr: usize) -> super::PointerAttributes;
    fn mem_get_allocation_granularity(mem_attr: u32, option: u32) -> usize;
    fn reserve_mem_address(size: usize, alignment: usize, expect: usize, flags: u64) -> usize;
    fn release_mem_address(ptr: usize) -> ();
    fn malloc_physical(size: usize, prop: &super::PhysicalMemProp, flags: u64) -> u64;
    fn free_physical(handle: u64) -> ();
    fn map_mem(ptr: usize, size: usize, offset: usize, handle: u64, flags: u64) -> ();
    fn mem_map_no_access(ptr: usize, size: usize, offset: usize, handle: u64, flags: u64) -> ();
    fn unmap_mem(ptr: usize) -> ();
    fn mem_set_access(ptr: usize, size: usize, descs: Option<&[super::MemAccess]>) -> ();
    fn mem_get_access(ptr: usize, location_type: u32, location_id: u32) -> u64;
    fn mem_retain_allocation_handle(ptr: usize) -> u64;
    fn mem_get_allocation_properties(handle: u64) -> super::PhysicalMemProp;
    fn mem_export_to_shareable_handle(handle: u64, handle_type: u32, flags: u64) -> u64;
    fn mem_export_to_shareable_handle_v2(handle: u64, flags: u64, share_type: u32) -> u64;
    fn mem_set_pid_to_shareable_handle(shareable: u64, pids: &[i32]) -> ();
    fn mem_set_pid_to_shareable_handle_v2(shareable: u64, share_type: u32, pids: &[i32]) -> ();
    fn mem_import_from_shareable_handle(shareable: u64, device: i32) -> u64;
    fn mem_import_from_shareable_handle_v2(shareable: u64, share_type: u32, flags: u64) -> u64;
    fn ipc_mem_get_export_key(ptr: usize, size: usize, len: usize, flags: u64) -> String;
    fn ipc_mem_set_import_pid(key: &str, pids: &[i32]) -> ();
    fn ipc_mem_import_by_key(key: &str, flags: u64) -> usize;
    fn ipc_mem_close(key: &str) -> ();
    fn exception_info_callback_register(key: usize, callback: ExceptionCallback) -> ();
    fn exception_info_callback_unregister(key: usize) -> ();
    fn get_error_verbose(device_id: i32) -> super::ErrorVerbose;
    fn subscribe_host_func(thread_id: u64, stream: StreamHandle) -> ();
    fn process_host_func(timeout_ms: i32) -> ();
    fn unsubscribe_host_func(thread_id: u64, stream: StreamHandle) -> ();
    fn get_device_res_limit(device_id: i32, kind: u32) -> u32;
    fn set_device_res_limit(device_id: i32, kind: u32, value: u32) -> ();
    fn reset_device_res_limit(device_id: i32) -> ();
    fn get_sys_param_opt(opt: u32) -> i64;
    fn set_sys_param_opt(opt: u32, value: i64) -> ();
    fn ctx_get_sys_param_opt(opt: u32) -> i64;
    fn ctx_set_sys_param_opt(opt: u32, value: i64) -> ();
    fn set_op_wait_timeout(seconds: u32) -> ();
    fn set_op_execute_timeout(seconds: u32) -> ();
    fn set_op_execute_timeout_with_ms(ms: u32) -> ();
    fn set_op_execute_timeout_v2(us: u64) -> u64;
    fn get_op_execute_timeout() -> u32;
    fn get_op_timeout_interval() -> u64;
    fn device_set_limit(limit: u32, value: usize) -> ();
    fn device_get_limit(limit: u32) -> usize;
    fn memset_d32(ptr: usize, mem_size: usize, value: u32, n: usize) -> ();
    fn mem_pool_create(props: &super::MemPoolProps) -> MemPoolHandle;
    fn mem_pool_destroy(handle: MemPoolHandle) -> ();
    fn mem_pool_malloc_async(size: usize, handle: MemPoolHandle, stream: StreamHandle) -> Option<usize>;
    fn mem_pool_free_async(ptr: usize, stream: StreamHandle) -> ();
    fn mem_pool_trim_to(handle: MemPoolHandle, keep: usize) -> ();
    fn mem_alloc_managed(size: u64, flag: u32) -> usize;
    fn mem_managed_advise(ptr: usize, size: u64, advise: u32, location: super::ManagedLocation) -> ();
    fn mem_managed_prefetch_async(
        ptr: usize,
        size: usize,
        location: super::ManagedLocation,
        flags: u32,
        stream: StreamHandle
    ) -> ();
    fn mem_managed_prefetch_batch_async(
        ptrs: Option<&[usize]>,
        sizes: Option<&[usize]>,
        locations: Option<&[super::ManagedLocation]>,
        location_indexes: Option<&[usize]>,
        flags: u64,
        stream: StreamHandle
    ) -> ();
    fn memset_d32_async(
        ptr: usize,
        mem_size: usize,
        value: u32,
        n: usize,
        stream: StreamHandle
    ) -> ();
    fn free_with_dev_sync(ptr: usize) -> ();
    fn free_host_with_dev_sync(ptr: usize) -> ();
    fn mem_get_address_range(ptr: usize) -> (usize, usize);
    fn host_register(ptr: usize, size: u64, kind: u32) -> usize;
    fn host_register_v2(ptr: usize, size: u64, flag: u32) -> ();
    fn host_get_device_pointer(ptr: usize, flag: u32) -> usize;
    fn host_unregister(ptr: usize) -> ();
    fn get_stream_res_limit(handle: StreamHandle, kind: u32) -> u32;
    fn set_stream_res_limit(handle: StreamHandle, kind: u32, value: u32) -> ();
    fn reset_stream_res_limit(handle: StreamHandle) -> ();
    fn use_stream_res_in_current_thread(handle: StreamHandle) -> ();
    fn unuse_stream_res_in_current_thread(handle: StreamHandle) -> ();
    fn get_res_in_current_thread(kind: u32) -> u32;
}

/// [`Runtime::memcpy_2d`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::memcpy_2d`].
pub unsafe fn memcpy_2d(
    dst: usize,
    dpitch: usize,
    src: usize,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.memcpy_2d(dst, dpitch, src, spitch, width, height, kind) })
}

/// [`Runtime::memcpy_2d_async`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::memcpy_2d_async`].
#[allow(clippy::too_many_arguments)]
pub unsafe fn memcpy_2d_async(
    dst: usize,
    dpitch: usize,
    src: usize,
    spitch: usize,
    width: usize,
    height: usize,
    kind: u32,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.memcpy_2d_async(dst, dpitch, src, spitch, width, height, kind, stream) })
}

/// [`Runtime::memcpy`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::memcpy`].
pub unsafe fn memcpy(
    dst: usize,
    dest_max: usize,
    src: usize,
    count: usize,
    kind: u32,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.memcpy(dst, dest_max, src, count, kind) })
}

/// [`Runtime::memcpy_async`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::memcpy_async`].
pub unsafe fn memcpy_async(
    dst: usize,
    dest_max: usize,
    src: usize,
    count: usize,
    kind: u32,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.memcpy_async(dst, dest_max, src, count, kind, stream) })
}

/// [`Runtime::get_overflow_status`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::get_overflow_status`].
pub unsafe fn get_overflow_status(output: usize, size: usize, stream: StreamHandle) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.get_overflow_status(output, size, stream) })
}

/// [`Runtime::random_num_async`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::random_num_async`].
pub unsafe fn random_num_async(task: &super::RandomNumTask, stream: StreamHandle) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.random_num_async(task, stream, 0) })
}

/// [`Runtime::reduce_async`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::reduce_async`].
pub unsafe fn reduce_async(
    dst: usize,
    src: usize,
    count: u64,
    kind: u32,
    data_type: i32,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.reduce_async(dst, src, count, kind, data_type, stream, 0) })
}

/// [`Runtime::memset`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::memset`].
pub unsafe fn memset(ptr: usize, max: usize, value: i32, count: usize) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.memset(ptr, max, value, count) })
}

/// [`Runtime::memset_async`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::memset_async`].
pub unsafe fn memset_async(
    ptr: usize,
    max: usize,
    value: i32,
    count: usize,
    stream: StreamHandle,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.memset_async(ptr, max, value, count, stream) })
}

/// [`Runtime::mem_pool_set_attr`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::mem_pool_set_attr`].
pub unsafe fn mem_pool_set_attr(handle: MemPoolHandle, attr: u32, value: usize) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.mem_pool_set_attr(handle, attr, value) })
}

/// [`Runtime::mem_pool_get_attr`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::mem_pool_get_attr`].
pub unsafe fn mem_pool_get_attr(handle: MemPoolHandle, attr: u32, value: usize) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.mem_pool_get_attr(handle, attr, value) })
}

/// [`Runtime::mem_managed_get_attr`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::mem_managed_get_attr`].
pub unsafe fn mem_managed_get_attr(
    attr: u32,
    ptr: usize,
    size: usize,
    data: usize,
    data_size: usize,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.mem_managed_get_attr(attr, ptr, size, data, data_size) })
}

/// [`Runtime::mem_managed_get_attrs`] on the process's runtime.
///
/// # Safety
/// As [`Runtime::mem_managed_get_attrs`].
pub unsafe fn mem_managed_get_attrs(
    attrs: Option<&[u32]>,
    ptr: usize,
    size: usize,
    data: Option<&[usize]>,
    data_sizes: Option<&[usize]>,
) -> Result<()> {
    // SAFETY: forwarded contract.
    acl(|rt| unsafe { rt.mem_managed_get_attrs(attrs, ptr, size, data, data_sizes) })
}

/// The exception info at `address` (an `aclrtExceptionInfo*`), if it is being handed to the
/// exception callback right now; `None` for NULL, stale or made-up pointers.
pub fn exception_info(address: usize) -> Option<crate::ExceptionInfo> {
    crate::exception::live_info(address)
}

/// The info at `address`, or the vendor's invalid-info code (`0xFFFFFFFF`) for NULL, stale or
/// made-up pointers.
fn live_exception_info(address: usize, call: &str) -> Result<crate::ExceptionInfo> {
    crate::exception::live_info(address).ok_or_else(|| {
        Error::new(
            crate::exception::ACL_ERROR_INVALID_EXCEPTION_INFO,
            format!(
                "{call}: {address:#x} is not an exception info being handed to an exception \
                 callback"
            ),
        )
    })
}

/// `aclrtGetFuncHandleFromExceptionInfo`: the function of a failed kernel launched through the
/// kernel API; another task's info is `107000`.
pub fn exception_info_func_handle(address: usize) -> Result<crate::FuncHandle> {
    const CALL: &str = "aclrtGetFuncHandleFromExceptionInfo";
    noted((|| {
        let info = live_exception_info(address, CALL)?;
        if info.func == 0 {
            bail!(
                ACL_ERROR_RT_PARAM_INVALID,
                "{CALL}: the failed task is not a kernel launched through the kernel API"
            );
        }
        Ok(crate::FuncHandle::from_raw(info.func))
    })())
}

/// `aclrtGetArgsFromExceptionInfo`: where a failed kernel's arguments are and their size;
/// another task's info is the invalid-info code.
pub fn exception_info_args(address: usize) -> Result<(usize, u32)> {
    const CALL: &str = "aclrtGetArgsFromExceptionInfo";
    noted((|| {
        let info = live_exception_info(address, CALL)?;
        if info.func == 0 {
            bail!(
                crate::exception::ACL_ERROR_INVALID_EXCEPTION_INFO,
                "{CALL}: the failed task is not a kernel launched through the kernel API"
            );
        }
        Ok((info.args, info.args_len))
    })())
}

/// Notes `error` for the calling thread (`aclrtGetLastError`, `aclGetRecentErrMsg`): for faces'
/// failures made outside [`acl`].
pub fn note_failure(error: &Error) {
    thread_state::note_failure(error);
    if crate::observe::enabled() {
        crate::observe::api_failed(error.code(), error.message());
    }
}

//! Random sequences of C ABI calls with live, stale, garbage and NULL handles and pointers.
//!
//! Invariants checked after every call:
//! - no call panics across the boundary (`ACL_ERROR_INTERNAL_ERROR` never appears) or hangs
//!   (a watchdog aborts the process if one call takes longer than a minute);
//! - a NULL event or out-pointer gives `ACL_ERROR_INVALID_PARAM`; otherwise a stale or garbage
//!   stream or event gives `ACL_ERROR_RT_INVALID_HANDLE`, and a live one never does;
//! - every returned code is a known `aclError` (or the code a failing kernel chose), and a
//!   failure is also the thread's last error with a recent message;
//! - exception callbacks see a readable info with the failing code;
//! - after `aclFinalize`, no object is left alive.
//!
//! The CI run is short; set `PROPTEST_CASES` (e.g. 2000) for a longer one.

use std::ffi::c_void;
use std::ptr::{null, null_mut};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use aclrt::codes::*;
use ascendcl::*;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

/// Codes a failing kernel returns: vendor names, and one arbitrary user code.
const KERNEL_CODES: [i32; 3] = [
    ACL_ERROR_RT_AICORE_EXCEPTION,
    ACL_ERROR_RT_AICPU_EXCEPTION,
    424242,
];

#[derive(Debug, Clone)]
enum H {
    Live(usize),
    Stale(usize),
    Garbage(u64),
    Null,
}

#[derive(Debug, Clone)]
enum Op {
    CreateStream(u32, u32),
    DestroyStream(H),
    CreateEvent(u8, u32),
    DestroyEvent(H),
    Record(H, H),
    Wait(H, H, i32),
    Reset(H, H),
    Query(H, u8),
    SyncEvent(H),
    SyncStream(H),
    SyncDevice,
    Elapsed(H, H),
    Timestamp(H),
    Kernel(H, u8, Option<usize>),
    HostFunc(H),
    FailureMode(H, u64),
    StreamInfo(H),
    Subscribe(H),
    Callback(H, u32),
    ProcessReport,
    ExceptionCallback(bool),
    Malloc(usize),
    Free(H),
    MemsetAsync(H, usize),
    NullOut(u8),
}

fn handle() -> impl Strategy<Value = H> {
    prop_oneof![
        6 => (0usize..8).prop_map(H::Live),
        2 => (0usize..8).prop_map(H::Stale),
        2 => any::<u64>().prop_map(H::Garbage),
        1 => Just(H::Null),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => (0u32..10, any::<u32>()).prop_map(|(p, f)| Op::CreateStream(p, f)),
        1 => handle().prop_map(Op::DestroyStream),
        3 => (0u8..3, prop_oneof![Just(1u32), Just(2), Just(8), Just(9), Just(0xB), Just(0x10), Just(0x40), 0u32..0x100])
            .prop_map(|(f, flags)| Op::CreateEvent(f, flags)),
        1 => handle().prop_map(Op::DestroyEvent),
        4 => (handle(), handle()).prop_map(|(e, s)| Op::Record(e, s)),
        3 => (handle(), handle(), -1i32..30).prop_map(|(s, e, t)| Op::Wait(s, e, t)),
        1 => (handle(), handle()).prop_map(|(e, s)| Op::Reset(e, s)),
        2 => (handle(), 0u8..3).prop_map(|(e, k)| Op::Query(e, k)),
        2 => handle().prop_map(Op::SyncEvent),
        2 => handle().prop_map(Op::SyncStream),
        1 => Just(Op::SyncDevice),
        1 => (handle(), handle()).prop_map(|(a, b)| Op::Elapsed(a, b)),
        1 => handle().prop_map(Op::Timestamp),
        4 => (handle(), 0u8..3, proptest::option::weighted(0.2, 0usize..3))
            .prop_map(|(s, ms, fail)| Op::Kernel(s, ms, fail)),
        1 => handle().prop_map(Op::HostFunc),
        1 => (handle(), 0u64..3).prop_map(|(s, m)| Op::FailureMode(s, m)),
        1 => handle().prop_map(Op::StreamInfo),
        1 => handle().prop_map(Op::Subscribe),
        1 => (handle(), 0u32..3).prop_map(|(s, b)| Op::Callback(s, b)),
        1 => Just(Op::ProcessReport),
        1 => any::<bool>().prop_map(Op::ExceptionCallback),
        1 => (0usize..512).prop_map(Op::Malloc),
        1 => handle().prop_map(Op::Free),
        1 => (handle(), 0usize..80).prop_map(|(s, n)| Op::MemsetAsync(s, n)),
        1 => (0u8..12).prop_map(Op::NullOut),
    ]
}

/// What a handle argument turned into, and what that predicts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Live,
    Bad,
    Null,
}

#[derive(Default)]
struct World {
    streams: Vec<aclrtStream>,
    stale_streams: Vec<aclrtStream>,
    events: Vec<aclrtEvent>,
    stale_events: Vec<aclrtEvent>,
    blocks: Vec<*mut c_void>,
    stale_blocks: Vec<*mut c_void>,
    /// Async memsets target this block only; it is never freed before aclFinalize, so no
    /// queued task can write freed memory.
    arena: *mut c_void,
}

fn garbage(r: u64) -> *mut c_void {
    (if r == 0 { 0xdead } else { r }) as *mut c_void
}

fn pick(live: &[*mut c_void], stale: &[*mut c_void], h: &H) -> (*mut c_void, Kind) {
    match h {
        H::Live(i) if !live.is_empty() => (live[i % live.len()], Kind::Live),
        // A freed address the allocator has handed out again is live: handles never come
        // back, but memory addresses do.
        H::Stale(i) if !stale.is_empty() => {
            let p = stale[i % stale.len()];
            (
                p,
                if live.contains(&p) {
                    Kind::Live
                } else {
                    Kind::Bad
                },
            )
        }
        H::Live(_) | H::Null => (null_mut(), Kind::Null),
        H::Stale(i) => (garbage(*i as u64 + 1), Kind::Bad),
        H::Garbage(r) => (garbage(*r), Kind::Bad),
    }
}

impl World {
    fn stream(&self, h: &H) -> (aclrtStream, Kind) {
        let (p, k) = pick(&self.streams, &self.stale_streams, h);
        // NULL is the default stream: a live stream.
        (p, if k == Kind::Null { Kind::Live } else { k })
    }
    fn event(&self, h: &H) -> (aclrtEvent, Kind) {
        pick(&self.events, &self.stale_events, h)
    }
}

static EXCEPTIONS: AtomicU32 = AtomicU32::new(0);
static BAD_EXCEPTION_INFOS: AtomicU32 = AtomicU32::new(0);

unsafe extern "C" fn on_exception(info: *mut aclrt::ExceptionInfo) {
    EXCEPTIONS.fetch_add(1, Ordering::SeqCst);
    let code = aclrtGetErrorCodeFromExceptionInfo(info);
    let stream = aclrtGetStreamIdFromExceptionInfo(info);
    if code == 0 || code == u32::MAX || stream == u32::MAX {
        BAD_EXCEPTION_INFOS.fetch_add(1, Ordering::SeqCst);
    }
}

unsafe extern "C" fn sleeping_kernel(args: *mut c_void) -> aclError {
    std::thread::sleep(Duration::from_millis(args as u64));
    ACL_SUCCESS
}

unsafe extern "C" fn failing_kernel(args: *mut c_void) -> aclError {
    args as usize as i32
}

unsafe extern "C" fn host_fn(_args: *mut c_void) {}

/// Start time (ms since [`EPOCH`], at least 1) of the call in flight; 0 when none.
static CALL_STARTED: AtomicU64 = AtomicU64::new(0);
static EPOCH: OnceLock<Instant> = OnceLock::new();
const CALL_LIMIT: Duration = Duration::from_secs(60);

fn now_ms() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_millis() as u64 + 1
}

/// Aborts the process (failing the test) if one call takes longer than [`CALL_LIMIT`].
fn start_watchdog() {
    static START: Once = Once::new();
    START.call_once(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(500));
            let started = CALL_STARTED.load(Ordering::SeqCst);
            if started != 0 && now_ms().saturating_sub(started) > CALL_LIMIT.as_millis() as u64 {
                eprintln!("a C ABI call has been running for over {CALL_LIMIT:?}: hang");
                std::process::abort();
            }
        });
    });
}

/// Runs one C call under the watchdog and checks the invariants every call shares.
fn call(name: &str, f: impl FnOnce() -> aclError) -> Result<aclError, TestCaseError> {
    CALL_STARTED.store(now_ms(), Ordering::SeqCst);
    let code = f();
    CALL_STARTED.store(0, Ordering::SeqCst);
    prop_assert_ne!(code, ACL_ERROR_INTERNAL_ERROR, "{} panicked", name);
    prop_assert!(
        name_of(code).is_some() || KERNEL_CODES.contains(&code),
        "{} returned unknown code {}",
        name,
        code
    );
    if code != ACL_SUCCESS {
        prop_assert_eq!(
            aclrtPeekAtLastError(0),
            code,
            "{} did not note its failure",
            name
        );
        let msg = aclGetRecentErrMsg();
        prop_assert!(!msg.is_null(), "{} failed without a message", name);
    }
    Ok(code)
}

/// The code a call with these handle kinds must return, when the handles decide it.
fn expect_handles(
    name: &str,
    code: aclError,
    event: Option<Kind>,
    stream: Option<Kind>,
) -> Result<(), TestCaseError> {
    if event == Some(Kind::Null) {
        prop_assert_eq!(code, ACL_ERROR_INVALID_PARAM, "{} with a NULL event", name);
    } else if event == Some(Kind::Bad) || stream == Some(Kind::Bad) {
        prop_assert_eq!(
            code,
            ACL_ERROR_RT_INVALID_HANDLE,
            "{} with a bad handle",
            name
        );
    } else {
        prop_assert_ne!(
            code,
            ACL_ERROR_RT_INVALID_HANDLE,
            "{} refused a live handle",
            name
        );
    }
    Ok(())
}

fn run_sequence(ops: &[Op]) -> Result<(), TestCaseError> {
    start_watchdog();
    let mut w = World::default();
    // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
    prop_assert_eq!(unsafe { aclInit(null()) }, ACL_SUCCESS);
    prop_assert_eq!(aclrtSetDevice(0), ACL_SUCCESS);
    // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
    unsafe {
        prop_assert_eq!(aclrtMalloc(&mut w.arena, 64, 0), ACL_SUCCESS);
    }
    let me = aclrt::pthread_id();
    let result = ops.iter().try_for_each(|op| step(&mut w, op, me));
    let fin = aclFinalize();
    result?;
    prop_assert_eq!(fin, ACL_SUCCESS);
    let mut live = aclxLiveObjects::default();
    // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
    unsafe { prop_assert_eq!(aclxGetLiveObjects(&mut live), ACL_SUCCESS) };
    prop_assert_eq!(
        live,
        aclxLiveObjects::default(),
        "objects left after aclFinalize"
    );
    prop_assert_eq!(BAD_EXCEPTION_INFOS.load(Ordering::SeqCst), 0);
    Ok(())
}

fn step(w: &mut World, op: &Op, me: u64) -> Result<(), TestCaseError> {
    match op {
        Op::CreateStream(p, f) => {
            let mut s = null_mut();
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtCreateStreamWithConfig", || unsafe {
                aclrtCreateStreamWithConfig(&mut s, *p, *f)
            })?;
            if code == ACL_SUCCESS {
                prop_assert!(!s.is_null());
                w.streams.push(s);
            }
        }
        Op::DestroyStream(h) => {
            let (s, k) = w.stream(h);
            let code = call("aclrtDestroyStreamForce", || aclrtDestroyStreamForce(s))?;
            if s.is_null() {
                prop_assert_eq!(code, ACL_ERROR_INVALID_PARAM);
            } else {
                expect_handles("aclrtDestroyStreamForce", code, None, Some(k))?;
            }
            if code == ACL_SUCCESS {
                w.streams.retain(|&x| x != s);
                w.stale_streams.push(s);
            }
        }
        Op::CreateEvent(family, flags) => {
            let mut e = null_mut();
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtCreateEvent*", || unsafe {
                match family {
                    0 => aclrtCreateEvent(&mut e),
                    1 => aclrtCreateEventWithFlag(&mut e, *flags),
                    _ => aclrtCreateEventExWithFlag(&mut e, *flags),
                }
            })?;
            prop_assert!(code == ACL_SUCCESS || code == ACL_ERROR_RT_PARAM_INVALID);
            if code == ACL_SUCCESS {
                w.events.push(e);
            }
        }
        Op::DestroyEvent(h) => {
            let (e, k) = w.event(h);
            let code = call("aclrtDestroyEvent", || aclrtDestroyEvent(e))?;
            expect_handles("aclrtDestroyEvent", code, Some(k), None)?;
            if code == ACL_SUCCESS {
                w.events.retain(|&x| x != e);
                w.stale_events.push(e);
            }
        }
        Op::Record(eh, sh) => {
            let (e, ek) = w.event(eh);
            let (s, sk) = w.stream(sh);
            let code = call("aclrtRecordEvent", || aclrtRecordEvent(e, s))?;
            expect_handles("aclrtRecordEvent", code, Some(ek), Some(sk))?;
        }
        Op::Wait(sh, eh, t) => {
            let (e, ek) = w.event(eh);
            let (s, sk) = w.stream(sh);
            let code = call("aclrtStreamWaitEventWithTimeout", || {
                aclrtStreamWaitEventWithTimeout(s, e, *t)
            })?;
            expect_handles("aclrtStreamWaitEventWithTimeout", code, Some(ek), Some(sk))?;
            if *t < 0 && ek == Kind::Live && sk == Kind::Live {
                prop_assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID);
            }
        }
        Op::Reset(eh, sh) => {
            let (e, ek) = w.event(eh);
            let (s, sk) = w.stream(sh);
            let code = call("aclrtResetEvent", || aclrtResetEvent(e, s))?;
            expect_handles("aclrtResetEvent", code, Some(ek), Some(sk))?;
        }
        Op::Query(eh, kind) => {
            let (e, ek) = w.event(eh);
            let mut st = u32::MAX;
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtQueryEvent*", || unsafe {
                match kind {
                    0 => aclrtQueryEvent(e, &mut st),
                    1 => aclrtQueryEventStatus(e, &mut st),
                    _ => aclrtQueryEventWaitStatus(e, &mut st),
                }
            })?;
            expect_handles("aclrtQueryEvent*", code, Some(ek), None)?;
            if code == ACL_SUCCESS {
                prop_assert!(st <= 1, "status {}", st);
            }
        }
        Op::SyncEvent(eh) => {
            let (e, ek) = w.event(eh);
            let code = call("aclrtSynchronizeEventWithTimeout", || {
                aclrtSynchronizeEventWithTimeout(e, 20)
            })?;
            expect_handles("aclrtSynchronizeEventWithTimeout", code, Some(ek), None)?;
        }
        Op::SyncStream(sh) => {
            let (s, sk) = w.stream(sh);
            let code = call("aclrtSynchronizeStreamWithTimeout", || {
                aclrtSynchronizeStreamWithTimeout(s, 20)
            })?;
            expect_handles("aclrtSynchronizeStreamWithTimeout", code, None, Some(sk))?;
        }
        Op::SyncDevice => {
            call("aclrtSynchronizeDeviceWithTimeout", || {
                aclrtSynchronizeDeviceWithTimeout(20)
            })?;
        }
        Op::Elapsed(a, b) => {
            let (ea, ka) = w.event(a);
            let (eb, kb) = w.event(b);
            let mut ms = f32::NAN;
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtEventElapsedTime", || unsafe {
                aclrtEventElapsedTime(&mut ms, ea, eb)
            })?;
            let k = if ka == Kind::Null || kb == Kind::Null {
                Kind::Null
            } else if ka == Kind::Bad || kb == Kind::Bad {
                Kind::Bad
            } else {
                Kind::Live
            };
            expect_handles("aclrtEventElapsedTime", code, Some(k), None)?;
            if code == ACL_SUCCESS {
                prop_assert!(ms.is_finite());
            }
        }
        Op::Timestamp(eh) => {
            let (e, ek) = w.event(eh);
            let mut t = 0u64;
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtEventGetTimestamp", || unsafe {
                aclrtEventGetTimestamp(e, &mut t)
            })?;
            expect_handles("aclrtEventGetTimestamp", code, Some(ek), None)?;
        }
        Op::Kernel(sh, ms, fail) => {
            let (s, sk) = w.stream(sh);
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclxLaunchHostKernel", || unsafe {
                match fail {
                    Some(i) => aclxLaunchHostKernel(
                        s,
                        Some(failing_kernel),
                        KERNEL_CODES[*i] as usize as *mut c_void,
                        c"fails".as_ptr(),
                    ),
                    None => aclxLaunchHostKernel(
                        s,
                        Some(sleeping_kernel),
                        *ms as usize as *mut c_void,
                        null(),
                    ),
                }
            })?;
            expect_handles("aclxLaunchHostKernel", code, None, Some(sk))?;
        }
        Op::HostFunc(sh) => {
            let (s, sk) = w.stream(sh);
            let code = call("aclrtLaunchHostFunc", || {
                // SAFETY: `host_fn` is a plain function that ignores its (NULL) user data.
                unsafe { aclrtLaunchHostFunc(s, Some(host_fn), null_mut()) }
            })?;
            expect_handles("aclrtLaunchHostFunc", code, None, Some(sk))?;
        }
        Op::FailureMode(sh, m) => {
            let (s, sk) = w.stream(sh);
            let code = call("aclrtSetStreamFailureMode", || {
                aclrtSetStreamFailureMode(s, *m)
            })?;
            expect_handles("aclrtSetStreamFailureMode", code, None, Some(sk))?;
        }
        Op::StreamInfo(sh) => {
            let (s, sk) = w.stream(sh);
            let (mut id, mut prio, mut st) = (-1i32, u32::MAX, u32::MAX);
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtStreamGetId", || unsafe {
                aclrtStreamGetId(s, &mut id)
            })?;
            expect_handles("aclrtStreamGetId", code, None, Some(sk))?;
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtStreamGetPriority", || unsafe {
                aclrtStreamGetPriority(s, &mut prio)
            })?;
            expect_handles("aclrtStreamGetPriority", code, None, Some(sk))?;
            if code == ACL_SUCCESS {
                prop_assert!(prio <= 7);
            }
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtStreamQuery", || unsafe {
                aclrtStreamQuery(s, &mut st)
            })?;
            expect_handles("aclrtStreamQuery", code, None, Some(sk))?;
        }
        Op::Subscribe(sh) => {
            let (s, sk) = w.stream(sh);
            let code = call("aclrtSubscribeReport", || aclrtSubscribeReport(me, s))?;
            expect_handles("aclrtSubscribeReport", code, None, Some(sk))?;
        }
        Op::Callback(sh, block) => {
            let (s, sk) = w.stream(sh);
            let code = call("aclrtLaunchCallback", || {
                // SAFETY: `host_fn` is a plain function that ignores its (NULL) user data.
                unsafe { aclrtLaunchCallback(Some(host_fn), null_mut(), *block, s) }
            })?;
            if *block > 1 {
                prop_assert_eq!(code, ACL_ERROR_INVALID_PARAM);
            } else {
                expect_handles("aclrtLaunchCallback", code, None, Some(sk))?;
            }
        }
        Op::ProcessReport => {
            let code = call("aclrtProcessReport", || aclrtProcessReport(5))?;
            prop_assert!(
                [
                    ACL_SUCCESS,
                    ACL_ERROR_RT_REPORT_TIMEOUT,
                    ACL_ERROR_RT_THREAD_SUBSCRIBE
                ]
                .contains(&code),
                "aclrtProcessReport returned {}",
                code
            );
        }
        Op::ExceptionCallback(on) => {
            let cb: aclrtExceptionInfoCallback = if *on { Some(on_exception) } else { None };
            let code = call("aclrtSetExceptionInfoCallback", || {
                // SAFETY: `on_exception` only passes the info back to the getters.
                unsafe { aclrtSetExceptionInfoCallback(cb) }
            })?;
            prop_assert_eq!(code, ACL_SUCCESS);
        }
        Op::Malloc(size) => {
            let mut p = null_mut();
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtMalloc", || unsafe { aclrtMalloc(&mut p, *size, 0) })?;
            if *size == 0 {
                prop_assert_eq!(code, ACL_ERROR_INVALID_PARAM);
            } else if code == ACL_SUCCESS {
                prop_assert_eq!(p as usize % 64, 0);
                // A freed address handed out again is live, no longer stale.
                w.stale_blocks.retain(|&x| x != p);
                w.blocks.push(p);
            }
        }
        Op::Free(h) => {
            let (p, k) = pick(&w.blocks, &w.stale_blocks, h);
            let code = call("aclrtFree", || aclrtFree(p))?;
            match k {
                Kind::Null => prop_assert_eq!(code, ACL_ERROR_INVALID_PARAM),
                Kind::Bad => prop_assert_eq!(code, ACL_ERROR_RT_MEMORY_FREE),
                Kind::Live => {
                    prop_assert_eq!(code, ACL_SUCCESS);
                    w.blocks.retain(|&x| x != p);
                    w.stale_blocks.retain(|&x| x != p);
                    w.stale_blocks.push(p);
                }
            }
        }
        Op::MemsetAsync(sh, n) => {
            let (s, sk) = w.stream(sh);
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("aclrtMemsetAsync", || unsafe {
                aclrtMemsetAsync(w.arena, 64, 7, *n, s)
            })?;
            if sk == Kind::Bad {
                prop_assert_eq!(code, ACL_ERROR_RT_INVALID_HANDLE);
            } else if *n > 64 && code != ACL_ERROR_RT_STREAM_ABORT {
                prop_assert_eq!(code, ACL_ERROR_RT_PARAM_INVALID);
            }
        }
        Op::NullOut(which) => {
            let live_event = w.events.first().copied().unwrap_or(null_mut());
            // SAFETY: out-pointers are locals of this test; every other argument is a fuzzed value the C API must check and refuse, never dereference.
            let code = call("NULL out-pointer", || unsafe {
                match which {
                    0 => aclrtCreateStream(null_mut()),
                    1 => aclrtCreateEvent(null_mut()),
                    2 => aclrtGetDevice(null_mut()),
                    3 => aclrtGetCurrentContext(null_mut()),
                    4 => aclrtStreamQuery(null_mut(), null_mut()),
                    5 => aclrtQueryEventStatus(live_event, null_mut()),
                    6 => aclrtEventElapsedTime(null_mut(), live_event, live_event),
                    7 => aclrtMalloc(null_mut(), 64, 0),
                    8 => aclrtGetMemInfo(1, null_mut(), null_mut()),
                    9 => aclrtGetEventAvailNum(null_mut()),
                    10 => aclrtStreamGetId(null_mut(), null_mut()),
                    _ => aclrtGetDeviceCount(null_mut()),
                }
            })?;
            prop_assert_eq!(code, ACL_ERROR_INVALID_PARAM);
        }
    }
    Ok(())
}

#[test]
fn random_call_sequences_keep_the_invariants() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    proptest!(config, |(ops in proptest::collection::vec(op(), 1..60))| {
        run_sequence(&ops)?;
    });
}

//! Multi-threaded fault fuzzer: worker threads make random calls, lifecycle ones included
//! (double destroys, destroys racing a device reset or a context destroy, frees while copies
//! run, unsubscribes racing callback delivery, a report thread that leaves without
//! unsubscribing), while a lifecycle thread sets and resets the device and makes and destroys
//! contexts under them. After each round the invariants are checked: every call returned a code
//! its situation allows, no object was destroyed twice, the live counts match the objects
//! still alive, stream ids are unique among live streams, the 1984-stream limit is exact, and
//! everything can be released. Each round ends with an `aclFinalize` racing the workers
//! (synchronises and creates included), after which the finalized runtime holds nothing and
//! creates nothing. A watchdog turns a hang into a failure.
//!
//! Bounded by default (a few seconds). `ACLRT_FUZZ_SECS=<seconds>` runs rounds for that long
//! instead; `ACLRT_FUZZ_SEED=<n>` picks another seed.

mod common;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{ContextHandle, EventHandle, StreamHandle, MAX_STREAMS_PER_DEVICE};

const WORKERS: usize = 6;
const DEFAULT_ROUNDS: usize = 4;
const ROUND: Duration = Duration::from_millis(300);
const FINALIZE_PHASE: Duration = Duration::from_millis(60);
const WATCHDOG: Duration = Duration::from_secs(60);
const MAX_STREAMS: usize = 40;
const MAX_EVENTS: usize = 40;
const MAX_ALLOCS: usize = 40;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Objects handed out in a round. Handles stay listed after they are destroyed, so other
/// threads destroy them again and use them after: those calls must fail cleanly.
struct Pools {
    streams: Mutex<Vec<StreamHandle>>,
    events: Mutex<Vec<EventHandle>>,
    allocations: Mutex<Vec<(usize, bool)>>,
    /// Successful destroys per handle: never more than one.
    wins: Mutex<HashMap<u64, u32>>,
    /// The context the workers use now (the device's default one, or an explicit one).
    context: Mutex<Option<ContextHandle>>,
    calls: AtomicU64,
    /// Calls that succeeded.
    succeeded: AtomicU64,
    stop: AtomicBool,
    /// Every call returns 100001 once this is set (the round's aclFinalize has begun).
    finalizing: AtomicBool,
    /// Whether the report thread is still there. Subscribing a thread that has exited is the
    /// program's error (its blocking callbacks would wait forever, as on the vendor's
    /// runtime), so subscribes happen under the read lock and the thread leaves under the
    /// write lock.
    reporter_alive: std::sync::RwLock<bool>,
}

impl Pools {
    fn new() -> Self {
        Self {
            streams: Mutex::default(),
            events: Mutex::default(),
            allocations: Mutex::default(),
            wins: Mutex::default(),
            context: Mutex::default(),
            calls: AtomicU64::default(),
            succeeded: AtomicU64::default(),
            stop: AtomicBool::default(),
            finalizing: AtomicBool::default(),
            reporter_alive: std::sync::RwLock::new(true),
        }
    }

    /// Subscribes the report thread to `s` if it is still there.
    fn subscribe(&self, reporter: u64, s: StreamHandle) -> aclrt::Result<()> {
        let alive = self.reporter_alive.read().unwrap();
        if *alive {
            api::subscribe_report(reporter, s)
        } else {
            Ok(())
        }
    }
}

impl Pools {
    fn won(&self, raw: u64) {
        let mut wins = self.wins.lock().unwrap();
        let n = wins.entry(raw).or_default();
        *n += 1;
        assert_eq!(*n, 1, "{raw:#x} was destroyed twice");
    }
}

fn pick<T: Copy>(pool: &Mutex<Vec<T>>, rng: &mut Rng) -> Option<T> {
    let pool = pool.lock().unwrap();
    (!pool.is_empty()).then(|| pool[rng.below(pool.len())])
}

/// Codes any call may get here: its handle destroyed meanwhile, its context destroyed (device
/// reset, context destroy), a stream of another context, work aborted, a forced destroy.
const RACING: &[i32] = &[
    ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_CONTEXT_NULL,
    ACL_ERROR_RT_STREAM_CONTEXT,
    ACL_ERROR_RT_STREAM_ABORT,
];
/// What a synchronise may report besides those: failures of random kernels, expired stream
/// waits, callbacks whose thread left or was unsubscribed, or its own timeout.
const SYNC: &[i32] = &[
    ACL_ERROR_RT_AICORE_EXCEPTION,
    ACL_ERROR_RT_TASK_TIMEOUT,
    ACL_ERROR_RT_STREAM_NO_CB_REG,
    ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
    ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
];

/// Fails the test on a code the call may not return here.
fn allow<T>(pools: &Pools, what: &str, r: aclrt::Result<T>, extra: &[i32]) -> Option<T> {
    match r {
        Ok(v) => {
            pools.succeeded.fetch_add(1, Ordering::Relaxed);
            Some(v)
        }
        Err(e) if RACING.contains(&e.code()) || extra.contains(&e.code()) => None,
        Err(e) if e.code() == ACL_ERROR_UNINITIALIZE && pools.finalizing.load(Ordering::SeqCst) => {
            None
        }
        Err(e) => panic!("{what}: unexpected {e}"),
    }
}

fn use_current_context(pools: &Pools) -> bool {
    let ctx = *pools.context.lock().unwrap();
    ctx.is_some_and(|c| api::set_current_context(c).is_ok())
}

fn worker(seed: u64, pools: Arc<Pools>, reporter: u64) {
    let mut rng = Rng(seed);
    let mut src = vec![0u8; 4096];
    src[0] = 1;
    while !pools.stop.load(Ordering::SeqCst) {
        if pools.finalizing.load(Ordering::SeqCst) && api::runtime().is_err() {
            break;
        }
        if !use_current_context(&pools) {
            std::thread::yield_now();
            continue;
        }
        pools.calls.fetch_add(1, Ordering::Relaxed);
        let p = &*pools;
        let stream = pick(&p.streams, &mut rng).unwrap_or(StreamHandle::NULL);
        match rng.below(22) {
            0 | 1 => {
                if p.streams.lock().unwrap().len() < MAX_STREAMS {
                    let made = allow(p, "create stream", api::create_stream(), &[]);
                    if let Some(s) = made {
                        p.streams.lock().unwrap().push(s);
                        if rng.below(2) == 0 {
                            allow(
                                p,
                                "subscribe",
                                p.subscribe(reporter, s),
                                &[ACL_ERROR_RT_STREAM_SUBSCRIBE],
                            );
                        }
                    }
                }
            }
            2 | 3 => {
                if let Some(s) = pick(&p.streams, &mut rng) {
                    let r = if rng.below(2) == 0 {
                        api::destroy_stream(s)
                    } else {
                        api::destroy_stream_force(s)
                    };
                    if allow(p, "destroy stream", r, &[]).is_some() {
                        p.won(s.as_raw());
                        // Most dead handles leave the pool; the rest keep being used.
                        if rng.below(4) != 0 {
                            p.streams.lock().unwrap().retain(|x| *x != s);
                        }
                    }
                }
            }
            4 => {
                if p.events.lock().unwrap().len() < MAX_EVENTS {
                    let r = match rng.below(3) {
                        0 => api::create_event(),
                        1 => api::create_event_with_flag(ACL_EVENT_SYNC),
                        _ => api::create_event_ex_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE),
                    };
                    if let Some(ev) = allow(p, "create event", r, &[]) {
                        p.events.lock().unwrap().push(ev);
                    }
                }
            }
            5 => {
                if let Some(ev) = pick(&p.events, &mut rng) {
                    if allow(p, "destroy event", api::destroy_event(ev), &[]).is_some() {
                        p.won(ev.as_raw());
                        if rng.below(4) != 0 {
                            p.events.lock().unwrap().retain(|x| *x != ev);
                        }
                    }
                }
            }
            6 => {
                if let Some(ev) = pick(&p.events, &mut rng) {
                    allow(p, "record", api::record_event(ev, stream), &[]);
                }
            }
            7 => {
                if let Some(ev) = pick(&p.events, &mut rng) {
                    allow(
                        p,
                        "stream wait",
                        api::stream_wait_event_with_timeout(stream, ev, 20),
                        &[ACL_ERROR_RT_PARAM_INVALID],
                    );
                }
            }
            8..=10 => {
                let us = rng.below(300) as u64;
                let fail = rng.below(16) == 0;
                allow(
                    p,
                    "launch",
                    api::launch_kernel(
                        stream,
                        "fuzz",
                        Default::default(),
                        Box::new(move || {
                            std::thread::sleep(Duration::from_micros(us));
                            if fail {
                                Err(ACL_ERROR_RT_AICORE_EXCEPTION)
                            } else {
                                Ok(())
                            }
                        }),
                    ),
                    &[],
                );
            }
            11 => {
                allow(
                    p,
                    "callback",
                    api::launch_callback(Box::new(|| {}), rng.below(2) as u32, stream),
                    &[ACL_ERROR_RT_STREAM_NO_CB_REG],
                );
            }
            12 => {
                let r = if rng.below(2) == 0 {
                    p.subscribe(reporter, stream)
                } else {
                    api::unsubscribe_report(reporter, stream)
                };
                allow(
                    p,
                    "(un)subscribe",
                    r,
                    &[ACL_ERROR_RT_STREAM_SUBSCRIBE, ACL_ERROR_RT_THREAD_SUBSCRIBE],
                );
            }
            13 => {
                allow(
                    p,
                    "sync stream",
                    api::synchronize_stream_with_timeout(stream, 5_000),
                    SYNC,
                );
            }
            14 => {
                allow(
                    p,
                    "sync device",
                    api::synchronize_device_with_timeout(5_000),
                    SYNC,
                );
            }
            15 => {
                if let Some(ev) = pick(&p.events, &mut rng) {
                    allow(
                        p,
                        "sync event",
                        api::synchronize_event_with_timeout(ev, 5_000),
                        SYNC,
                    );
                }
            }
            16 => {
                if p.allocations.lock().unwrap().len() < MAX_ALLOCS {
                    let device = rng.below(2) == 0;
                    let r = if device {
                        api::malloc(4096, 0)
                    } else {
                        api::malloc_host(4096)
                    };
                    if let Some(ptr) = allow(p, "malloc", r, &[]) {
                        p.allocations.lock().unwrap().push((ptr, device));
                    }
                }
            }
            17 => {
                // Frees race each other and copies that use the memory.
                if let Some((ptr, device)) = pick(&p.allocations, &mut rng) {
                    let r = if device {
                        api::free(ptr)
                    } else {
                        api::free_host(ptr)
                    };
                    // An address comes back from a later malloc, so two frees of one address
                    // may both succeed; the accounting is checked after the round.
                    allow(p, "free", r, &[ACL_ERROR_RT_MEMORY_FREE]);
                }
            }
            18 => {
                // A copy between runtime allocations another thread may free meanwhile: a
                // freed range is refused when submitted (100000); freed after, the copy still
                // runs on mapped memory.
                let a = pick(&p.allocations, &mut rng);
                let b = pick(&p.allocations, &mut rng);
                if let (Some((dst, _)), Some((from, _))) = (a, b) {
                    let n = 1 + rng.below(4096);
                    allow(
                        p,
                        "memcpy async",
                        // SAFETY: both are runtime allocations (live or freed); the runtime
                        // checks them and never touches unmapped memory.
                        unsafe {
                            api::memcpy_async(dst, 4096, from, n, ACL_MEMCPY_DEFAULT, stream)
                        },
                        &[ACL_ERROR_INVALID_PARAM],
                    );
                }
            }
            19 => {
                if let Some((dst, _)) = pick(&p.allocations, &mut rng) {
                    allow(
                        p,
                        "memcpy",
                        // SAFETY: `src` is this thread's own buffer; `dst` is checked.
                        unsafe {
                            api::memcpy(dst, 4096, src.as_ptr() as usize, 64, ACL_MEMCPY_DEFAULT)
                        },
                        &[ACL_ERROR_INVALID_PARAM],
                    );
                }
            }
            20 => {
                // A balanced set/reset pair: the device's count changes under the others.
                if allow(p, "set device", api::set_device(0), &[]).is_some() {
                    allow(p, "reset device", api::reset_device(0), &[]);
                }
            }
            _ => {
                allow(p, "query", api::stream_query(stream), &[]);
            }
        }
    }
    std::hint::black_box(&mut src);
}

/// Serves callbacks until stopped; leaves without unsubscribing when `leave_early` is set
/// (the subscription must end with it).
fn reporter(pools: Arc<Pools>, tid: mpsc::Sender<u64>, leave_early: Option<Duration>) {
    tid.send(aclrt::pthread_id()).unwrap();
    let start = Instant::now();
    while !pools.stop.load(Ordering::SeqCst) {
        if leave_early.is_some_and(|d| start.elapsed() > d) {
            break;
        }
        match api::process_report(5) {
            Ok(()) => {}
            Err(e) => {
                let ok = [
                    ACL_ERROR_RT_REPORT_TIMEOUT,
                    ACL_ERROR_RT_THREAD_SUBSCRIBE,
                    ACL_ERROR_UNINITIALIZE,
                ];
                assert!(ok.contains(&e.code()), "process report: {e}");
                std::thread::yield_now();
            }
        }
    }
    // Leaves without unsubscribing: its subscriptions end with it.
    *pools.reporter_alive.write().unwrap() = false;
}

/// Sets and resets the device and makes and destroys contexts under the workers.
fn lifecycle(seed: u64, pools: Arc<Pools>, until: Instant) -> ContextHandle {
    let mut rng = Rng(seed);
    let mut explicit: Option<ContextHandle> = None;
    loop {
        let current = explicit.unwrap_or_else(|| {
            api::set_device(0).unwrap();
            api::get_current_context().unwrap()
        });
        *pools.context.lock().unwrap() = Some(current);
        // Let the workers use it for a while (a pause of random length, not an ordering: the
        // workers cope with any interleaving).
        let pause = Duration::from_micros(500 + rng.below(10_000) as u64);
        std::thread::sleep(pause.min(until.saturating_duration_since(Instant::now())));
        if Instant::now() >= until {
            return current;
        }
        match explicit.take() {
            Some(ctx) => {
                let r = api::destroy_context(ctx);
                assert!(r.is_ok(), "destroy context: {r:?}");
            }
            // The last reset destroys the default context with its streams.
            None => api::reset_device(0).unwrap(),
        }
        if rng.below(2) == 0 {
            explicit = Some(api::create_context(0).unwrap());
        }
    }
}

/// Checks the invariants with the workers stopped, then releases everything.
fn check_round(pools: &Pools, ctx: ContextHandle) {
    api::set_current_context(ctx).unwrap();
    let live = api::live_objects();
    // Streams: the listed ones still alive, plus each live context's default stream.
    let mut ids = HashSet::new();
    ids.insert(api::stream_get_id(StreamHandle::NULL).unwrap());
    let alive: Vec<StreamHandle> = pools
        .streams
        .lock()
        .unwrap()
        .iter()
        .copied()
        .filter(|s| api::stream_get_id(*s).is_ok())
        .collect();
    for s in &alive {
        assert!(
            ids.insert(api::stream_get_id(*s).unwrap()),
            "a stream id is used twice among live streams"
        );
    }
    assert_eq!(live.streams, alive.len() + live.contexts, "{live:?}");
    assert_eq!(live.contexts, 1, "{live:?}");
    // The limit is exact: what is left can be created, and no more.
    let mut extra = Vec::new();
    let refused = loop {
        match api::create_stream() {
            Ok(s) => {
                assert!(ids.insert(api::stream_get_id(s).unwrap()), "duplicate id");
                extra.push(s);
            }
            Err(e) => break e.code(),
        }
    };
    assert_eq!(refused, ACL_ERROR_RT_NO_STREAM_RESOURCE);
    assert_eq!(live.streams + extra.len(), MAX_STREAMS_PER_DEVICE);
    for s in extra.into_iter().chain(alive) {
        api::destroy_stream(s).unwrap();
    }
    // Events: the listed ones still alive are the live ones; all SYNC resources come back.
    let events: Vec<EventHandle> = pools
        .events
        .lock()
        .unwrap()
        .iter()
        .copied()
        .filter(|e| api::get_event_id(*e).is_ok())
        .collect();
    assert_eq!(live.events, events.len(), "{live:?}");
    for ev in events {
        api::destroy_event(ev).unwrap();
    }
    assert_eq!(
        api::get_event_avail_num().unwrap() as usize,
        aclrt::MAX_SYNC_EVENTS_PER_DEVICE
    );
    // Memory: every live allocation is listed, and freeing the list frees it all.
    let allocations: HashSet<(usize, bool)> =
        pools.allocations.lock().unwrap().iter().copied().collect();
    assert!(live.allocations <= allocations.len(), "{live:?}");
    let mut freed = 0;
    for (ptr, device) in allocations {
        let r = if device {
            api::free(ptr)
        } else {
            api::free_host(ptr)
        };
        match r {
            Ok(()) => freed += 1,
            Err(e) => assert_eq!(e.code(), ACL_ERROR_RT_MEMORY_FREE, "{e}"),
        }
    }
    assert_eq!(freed, live.allocations, "{live:?}");
    assert_eq!(api::live_objects().allocations, 0);
    let (free, total) = api::get_mem_info(ACL_HBM_MEM).unwrap();
    assert_eq!(free, total, "device memory accounting drifted");
    assert!(api::live_objects().callback_threads <= 1);
    // Clear the pools for the finalize phase.
    pools.streams.lock().unwrap().clear();
    pools.events.lock().unwrap().clear();
    pools.allocations.lock().unwrap().clear();
    pools.wins.lock().unwrap().clear();
}

struct Totals {
    calls: u64,
    succeeded: u64,
    rounds: usize,
}

fn run_round(seed: u64, round: usize) -> (u64, u64) {
    api::init().unwrap();
    let pools = Arc::new(Pools::new());
    let until = Instant::now() + ROUND;
    let (tid_tx, tid_rx) = mpsc::channel();
    let leave_early = (round % 2 == 1).then_some(ROUND / 3);
    let rep = {
        let pools = pools.clone();
        std::thread::spawn(move || reporter(pools, tid_tx, leave_early))
    };
    let tid = tid_rx.recv().unwrap();
    let life = {
        let pools = pools.clone();
        std::thread::spawn(move || lifecycle(seed ^ 0xABCD, pools, until))
    };
    let spawn_workers = |salt: u64| -> Vec<_> {
        (0..WORKERS as u64)
            .map(|i| {
                let pools = pools.clone();
                std::thread::spawn(move || worker(seed ^ salt ^ ((i + 1) * 0x9E37), pools, tid))
            })
            .collect()
    };
    let workers = spawn_workers(1);
    let ctx = life.join().expect("the lifecycle thread failed");
    pools.stop.store(true, Ordering::SeqCst);
    for w in workers {
        w.join().expect("a worker failed");
    }
    rep.join().expect("the report thread failed");
    check_round(&pools, ctx);

    // aclFinalize racing the workers: synchronises, destroys, launches under way.
    pools.stop.store(false, Ordering::SeqCst);
    *pools.context.lock().unwrap() = Some(ctx);
    let workers = spawn_workers(2);
    let t0 = Instant::now();
    while t0.elapsed() < FINALIZE_PHASE && pools.calls.load(Ordering::Relaxed) == 0 {
        std::thread::yield_now();
    }
    std::thread::sleep(FINALIZE_PHASE);
    pools.finalizing.store(true, Ordering::SeqCst);
    let finalized = api::runtime().unwrap();
    api::finalize().unwrap();
    assert_eq!(api::live_objects(), api::LiveObjects::default());
    for w in workers {
        w.join().expect("a worker failed during finalize");
    }
    // Creates that raced the finalize (streams, events, contexts, memory) either failed or
    // were torn down by it: nothing is left in the finalized runtime, and it creates nothing.
    assert_eq!(finalized.live_objects(), api::LiveObjects::default());
    assert_eq!(
        finalized.create_event().map_err(|e| e.code()),
        Err(ACL_ERROR_UNINITIALIZE)
    );
    (
        pools.calls.load(Ordering::Relaxed),
        pools.succeeded.load(Ordering::Relaxed),
    )
}

#[test]
fn random_lifecycle_calls_keep_the_invariants() {
    let _serial = common::exclusive();
    let seed: u64 = std::env::var("ACLRT_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5EED_F00D);
    let long = std::env::var("ACLRT_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .map(Duration::from_secs);
    let (tx, rx) = mpsc::channel();
    let started = Instant::now();
    std::thread::spawn(move || {
        let mut totals = Totals {
            calls: 0,
            succeeded: 0,
            rounds: 0,
        };
        loop {
            let round = totals.rounds;
            let t0 = Instant::now();
            let (calls, succeeded) = run_round(seed.wrapping_add(round as u64 * 7919), round);
            eprintln!(
                "round {round}: {calls} calls, {succeeded} succeeded, {:?}",
                t0.elapsed()
            );
            totals.calls += calls;
            totals.succeeded += succeeded;
            totals.rounds += 1;
            tx.send(None).unwrap();
            let more = match long {
                Some(d) => started.elapsed() < d,
                None => totals.rounds < DEFAULT_ROUNDS,
            };
            if !more {
                break;
            }
        }
        tx.send(Some(totals)).unwrap();
    });
    let totals = loop {
        match rx.recv_timeout(WATCHDOG) {
            Ok(Some(totals)) => break totals,
            Ok(None) => {}
            Err(_) => panic!("a fuzz round hung (or a thread failed) past the watchdog"),
        }
    };
    assert!(
        totals.calls > 1_000,
        "only {} calls were made",
        totals.calls
    );
    println!(
        "fault fuzz: {} calls ({} succeeded) from {WORKERS} workers (+ lifecycle and report \
         threads) in {} rounds, {:.1} s (seed {seed:#x})",
        totals.calls,
        totals.succeeded,
        totals.rounds,
        started.elapsed().as_secs_f64()
    );
}

//! Bounded stress: eight threads make random API calls on shared streams and events for about
//! three seconds. Every call must return one of the codes its situation allows, nothing may
//! hang (a watchdog fails the test instead), and everything must be released at the end.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use aclrt::api;
use aclrt::codes::*;
use aclrt::consts::*;
use aclrt::{EventHandle, StreamHandle};

const THREADS: usize = 8;
const RUN: Duration = Duration::from_secs(3);
const WATCHDOG: Duration = Duration::from_secs(60);
const MAX_STREAMS: usize = 24;
const MAX_EVENTS: usize = 48;

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

#[derive(Default)]
struct Shared {
    streams: Mutex<Vec<StreamHandle>>,
    events: Mutex<Vec<EventHandle>>,
    calls: AtomicU64,
}

fn pick<T: Copy>(pool: &Mutex<Vec<T>>, rng: &mut Rng) -> Option<T> {
    let pool = pool.lock().unwrap();
    (!pool.is_empty()).then(|| pool[rng.below(pool.len())])
}

fn take<T: Copy>(pool: &Mutex<Vec<T>>, rng: &mut Rng) -> Option<T> {
    let mut pool = pool.lock().unwrap();
    (!pool.is_empty()).then(|| {
        let i = rng.below(pool.len());
        pool.swap_remove(i)
    })
}

/// Fails the test on a code the call may not return here.
fn allow<T>(what: &str, r: aclrt::Result<T>, allowed: &[i32]) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) if allowed.contains(&e.code()) => None,
        Err(e) => panic!("{what}: unexpected {e}"),
    }
}

/// Codes a synchronise may report: failures of random kernels (any thread's), expired waits,
/// a stream destroyed meanwhile, a record discarded by a forced destroy, or a callback whose
/// stream was unsubscribed before it became due.
const SYNC_CODES: &[i32] = &[
    ACL_ERROR_RT_INVALID_HANDLE,
    ACL_ERROR_RT_STREAM_ABORT,
    ACL_ERROR_RT_STREAM_NO_CB_REG,
    ACL_ERROR_RT_AICORE_EXCEPTION,
    ACL_ERROR_RT_AICORE_TIMEOUT,
    ACL_ERROR_RT_TASK_TIMEOUT,
];
/// Work queued on a stream that another thread destroys (or force-destroys) meanwhile.
const GONE: &[i32] = &[ACL_ERROR_RT_INVALID_HANDLE, ACL_ERROR_RT_STREAM_ABORT];

/// Runs random calls until `deadline`; returns the source and the destinations of its
/// asynchronous copies, which stay allocated until every stream is gone (a copy may still be
/// queued on a stream another thread is destroying).
fn worker(seed: u64, shared: Arc<Shared>, reporter: u64, deadline: Instant) -> (usize, Vec<usize>) {
    let mut rng = Rng(seed);
    api::set_device(0).unwrap();
    let src = vec![0x5Au8; 4096];
    // Written once, before any copy reads it: asynchronous copies only read `dev`.
    let dev = api::malloc(4096, 0).unwrap();
    // SAFETY: source and destination are live buffers of at least the length copied (a 4096-byte device allocation, `src`, or a fresh host allocation of `n` bytes).
    unsafe {
        api::memcpy(
            dev,
            4096,
            src.as_ptr() as usize,
            4096,
            ACL_MEMCPY_HOST_TO_DEVICE,
        )
    }
    .unwrap();
    // Synchronous copies go to a buffer no queued copy touches.
    let dev_sync = api::malloc(4096, 0).unwrap();
    let mut async_destinations = Vec::new();
    while Instant::now() < deadline {
        shared.calls.fetch_add(1, Ordering::Relaxed);
        let stream = pick(&shared.streams, &mut rng).unwrap_or(StreamHandle::NULL);
        match rng.below(20) {
            0 => {
                if shared.streams.lock().unwrap().len() < MAX_STREAMS {
                    let s = api::create_stream_with_config(rng.below(8) as u32, 0).unwrap();
                    api::subscribe_report(reporter, s).unwrap();
                    shared.streams.lock().unwrap().push(s);
                }
            }
            1 => {
                if let Some(s) = take(&shared.streams, &mut rng) {
                    let r = if rng.below(2) == 0 {
                        api::destroy_stream(s)
                    } else {
                        api::destroy_stream_force(s)
                    };
                    r.unwrap();
                }
            }
            2 => {
                if shared.events.lock().unwrap().len() < MAX_EVENTS {
                    let ev = match rng.below(3) {
                        0 => api::create_event(),
                        1 => api::create_event_with_flag(ACL_EVENT_SYNC),
                        _ => api::create_event_ex_with_flag(ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE),
                    };
                    shared.events.lock().unwrap().push(ev.unwrap());
                }
            }
            3 => {
                if let Some(ev) = take(&shared.events, &mut rng) {
                    api::destroy_event(ev).unwrap();
                }
            }
            4 | 5 => {
                if let Some(ev) = pick(&shared.events, &mut rng) {
                    allow("record", api::record_event(ev, stream), GONE);
                }
            }
            6 | 7 => {
                if let Some(ev) = pick(&shared.events, &mut rng) {
                    // A timeout so a legacy wait on a flag nobody sets cannot hold a stream
                    // for long; a never-recorded default event refuses the wait.
                    allow(
                        "wait",
                        api::stream_wait_event_with_timeout(stream, ev, 30),
                        &[
                            ACL_ERROR_RT_INVALID_HANDLE,
                            ACL_ERROR_RT_STREAM_ABORT,
                            ACL_ERROR_RT_PARAM_INVALID,
                        ],
                    );
                }
            }
            8 => {
                if let Some(ev) = pick(&shared.events, &mut rng) {
                    allow(
                        "reset",
                        api::reset_event(ev, stream),
                        &[
                            ACL_ERROR_RT_INVALID_HANDLE,
                            ACL_ERROR_RT_STREAM_ABORT,
                            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                        ],
                    );
                }
            }
            9 => {
                if let Some(ev) = pick(&shared.events, &mut rng) {
                    allow("query", api::query_event_status(ev), GONE);
                    allow(
                        "sync event",
                        api::synchronize_event_with_timeout(ev, 10_000),
                        SYNC_CODES,
                    );
                }
            }
            10..=12 => {
                let us = rng.below(2000) as u64;
                let fail = rng.below(16) == 0;
                allow(
                    "launch",
                    api::launch_kernel(
                        stream,
                        "stress",
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
                    GONE,
                );
            }
            13 => {
                let block = rng.below(2) as u32;
                allow(
                    "callback",
                    api::launch_callback(Box::new(|| std::hint::black_box(())), block, stream),
                    // The default stream has no subscriber.
                    &[
                        ACL_ERROR_RT_INVALID_HANDLE,
                        ACL_ERROR_RT_STREAM_ABORT,
                        ACL_ERROR_RT_STREAM_NO_CB_REG,
                    ],
                );
            }
            14 => {
                allow(
                    "host func",
                    api::launch_host_func(stream, Box::new(|| {})),
                    GONE,
                );
            }
            15 => {
                allow(
                    "sync stream",
                    api::synchronize_stream_with_timeout(stream, 10_000),
                    SYNC_CODES,
                );
            }
            16 => {
                allow(
                    "sync device",
                    api::synchronize_device_with_timeout(10_000),
                    SYNC_CODES,
                );
            }
            // SAFETY: source and destination are live buffers of at least the length copied (a 4096-byte device allocation, `src`, or a fresh host allocation of `n` bytes).
            17 => unsafe {
                api::memcpy(
                    dev_sync,
                    4096,
                    src.as_ptr() as usize,
                    4096,
                    ACL_MEMCPY_HOST_TO_DEVICE,
                )
                .unwrap();
            },
            // SAFETY: source and destination are live buffers of at least the length copied (a 4096-byte device allocation, `src`, or a fresh host allocation of `n` bytes).
            18 => unsafe {
                // Each copy writes its own destination: copies queued on different streams
                // never write the same bytes at once.
                let n = 1 + rng.below(4096);
                let host = api::malloc_host(n).unwrap();
                async_destinations.push(host);
                allow(
                    "memcpy async",
                    api::memcpy_async(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST, stream),
                    GONE,
                );
            },
            _ => {
                allow("query", api::stream_query(stream), GONE);
            }
        }
    }
    // Async copies from this thread's source may still be queued on shared streams.
    allow(
        "final sync",
        api::synchronize_device_with_timeout(10_000),
        SYNC_CODES,
    );
    api::free(dev_sync).unwrap();
    (dev, async_destinations)
}

#[test]
fn random_calls_from_eight_threads() {
    let _serial = common::exclusive();
    common::setup();
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::spawn(move || {
        api::set_device(0).unwrap();
        let shared = Arc::new(Shared::default());
        let stop = Arc::new(AtomicBool::new(false));
        let (tid_tx, tid_rx) = mpsc::channel();
        let reporter = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                tid_tx.send(aclrt::pthread_id()).unwrap();
                let mut served = 0u64;
                while !stop.load(Ordering::SeqCst) {
                    match api::process_report(10) {
                        Ok(()) => served += 1,
                        Err(e) => {
                            assert!(
                                [ACL_ERROR_RT_REPORT_TIMEOUT, ACL_ERROR_RT_THREAD_SUBSCRIBE]
                                    .contains(&e.code()),
                                "process report: {e}"
                            );
                            std::thread::sleep(Duration::from_millis(1));
                        }
                    }
                }
                served
            })
        };
        let reporter_tid = tid_rx.recv().unwrap();
        let deadline = Instant::now() + RUN;
        let start = Arc::new(Barrier::new(THREADS));
        let workers: Vec<_> = (0..THREADS as u64)
            .map(|i| {
                let shared = shared.clone();
                let start = start.clone();
                std::thread::spawn(move || {
                    start.wait();
                    worker(
                        0x9E37_79B9_7F4A_7C15 ^ (i + 1),
                        shared,
                        reporter_tid,
                        deadline,
                    )
                })
            })
            .collect();
        let mut sources = Vec::new();
        let mut async_destinations = Vec::new();
        for w in workers {
            let (source, destinations) = w.join().expect("a worker failed");
            sources.push(source);
            async_destinations.extend(destinations);
        }
        for s in shared.streams.lock().unwrap().drain(..) {
            api::destroy_stream(s).unwrap();
        }
        // Every stream that ran copies is destroyed (destroy waits for its work) or idle.
        api::synchronize_device_with_timeout(10_000).ok();
        for host in async_destinations {
            api::free_host(host).unwrap();
        }
        for dev in sources {
            api::free(dev).unwrap();
        }
        for ev in shared.events.lock().unwrap().drain(..) {
            api::destroy_event(ev).unwrap();
        }
        stop.store(true, Ordering::SeqCst);
        let served = reporter.join().expect("the report thread failed");
        done_tx
            .send((shared.calls.load(Ordering::Relaxed), served))
            .unwrap();
    });
    let (calls, served) = done_rx
        .recv_timeout(WATCHDOG)
        .expect("the stress run hung (or a thread failed)");
    assert!(calls > 1000, "only {calls} calls made");
    assert!(served > 0, "no callback was ever served");
    println!("{calls} calls, {served} report batches");
    // Failures of the random kernels may still be pending on the default stream.
    let _ = api::synchronize_device();
    let live = api::live_objects();
    assert_eq!(live.streams, 1, "{live:?}");
    assert_eq!(live.events, 0, "{live:?}");
    assert_eq!(live.allocations, 0, "{live:?}");
    assert_eq!(live.callback_threads, 0, "{live:?}");
    api::finalize().unwrap();
    assert_eq!(api::live_objects(), api::LiveObjects::default());
}
